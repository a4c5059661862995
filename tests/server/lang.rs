//! The page's language over HTTP: chosen from `Accept-Language`, English for a language not
//! spoken here, the switcher's cookie over the header for the whole site, and every page's
//! `<html lang dir>` following it.

use crate::harness::TestServer;

/// A page's `<html …>` tag, and the page.
async fn fetch(client: &reqwest::Client, url: &str, accept: Option<&str>) -> (String, String) {
    let mut request = client.get(url);
    if let Some(accept) = accept {
        request = request.header("accept-language", accept);
    }
    let res = request.send().await.unwrap();
    assert_eq!(res.status(), 200, "{url}");
    let html = res.text().await.unwrap();
    let start = html.find("<html").unwrap();
    let tag = html[start..start + html[start..].find('>').unwrap() + 1].to_string();
    (tag, html)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_header_chooses_and_the_cookie_wins() {
    let server = TestServer::start().await;
    let plain = reqwest::Client::new();
    let home = format!("{}/", server.base);

    let (tag, html) = fetch(&plain, &home, Some("de-CH, de;q=0.9")).await;
    assert_eq!(tag, "<html lang=\"de\" dir=\"ltr\">");
    assert!(
        html.contains("<h1>Mühle mit Freunden spielen</h1>"),
        "{html}"
    );

    let (tag, html) = fetch(&plain, &home, Some("ja, zh;q=0.8")).await;
    assert_eq!(tag, "<html lang=\"en\" dir=\"ltr\">");
    assert!(html.contains("<h1>Play mill games with a friend</h1>"));
    let (tag, _) = fetch(&plain, &home, None).await;
    assert_eq!(tag, "<html lang=\"en\" dir=\"ltr\">");

    // The switcher is on the page, each language in its own name, back to where it was chosen.
    assert!(html.contains("<a href=\"/lang/de?back=%2F\" lang=\"de\" hreflang=\"de\">Deutsch</a>"));

    // Its link keeps the choice for the whole site and goes back; a foreign address goes home.
    let no_follow = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_follow
        .get(format!("{}/lang/de?back=%2Fmy-games", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/my-games");
    let cookie = res.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("lang=de; Path=/;"), "{cookie}");
    for back in ["%2F%2Fevil.example%2F", "https%3A%2F%2Fevil.example%2F"] {
        let res = no_follow
            .get(format!("{}/lang/de?back={back}", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers()["location"], "/", "{back}");
    }

    // A browser that chose German reads German, whatever its header asks for.
    let browser = server.browser();
    let (tag, html) = fetch(
        &browser.client,
        &format!("{}/lang/de?back=%2F", server.base),
        Some("en"),
    )
    .await;
    assert_eq!(tag, "<html lang=\"de\" dir=\"ltr\">");
    assert!(html.contains("Offene Herausforderungen"));
    assert!(html.contains("aria-current=\"true\">Deutsch</a>"));
    let seat = browser.create("six-mens-morris", "white").await;
    let res = browser
        .client
        .get(format!("{}/g/{}", server.base, seat.id))
        .header("accept-language", "en")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-language"], "de");
    assert!(res.headers()["vary"].to_str().unwrap().contains("Cookie"));
    let html = res.text().await.unwrap();
    assert!(html.starts_with("<!doctype html>\n<html lang=\"de\" dir=\"ltr\">"));
    assert!(html.contains("Du spielst Weiß."), "{html}");
    // The client's words come with the page, in its language.
    assert!(html.contains("<script type=\"application/json\" id=\"messages\">{"));
    assert!(html.contains("\"white\":\"Weiß\""));

    // Every page follows the choice.
    for path in [
        "/".to_string(),
        "/my-games".to_string(),
        format!("/g/{}", seat.id),
        format!("/embed/{}", seat.id),
        "/variants/nine-mens-morris".to_string(),
        "/variants/no-such-game".to_string(),
        "/puzzles".to_string(),
    ] {
        let res = browser
            .client
            .get(format!("{}{path}", server.base))
            .header("accept-language", "en")
            .send()
            .await
            .unwrap();
        let html = res.text().await.unwrap();
        assert!(
            html.contains("<html lang=\"de\" dir=\"ltr\">"),
            "{path}: {html}"
        );
    }

    // Back to English by the switcher; the same page in English.
    let (tag, html) = fetch(
        &browser.client,
        &format!("{}/lang/en?back=%2Fmy-games", server.base),
        Some("de"),
    )
    .await;
    assert_eq!(tag, "<html lang=\"en\" dir=\"ltr\">");
    assert!(html.contains("<h1>My games</h1>"));
}
