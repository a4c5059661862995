//! Every server-rendered page, fetched over HTTP: it renders, reads without JavaScript, and every
//! link on it leads somewhere.

use crate::harness::TestServer;
use serde_json::json;
use std::collections::BTreeSet;

/// The values of an attribute (`href`, `src`, `action`) in a page.
fn attributes(html: &str, name: &str) -> Vec<String> {
    let needle = format!("{name}=\"");
    html.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            rest.find('"').map(|end| rest[..end].replace("&amp;", "&"))
        })
        .collect()
}

fn ids(html: &str) -> BTreeSet<String> {
    attributes(html, "id").into_iter().collect()
}

/// A client that shows redirects instead of following them.
fn no_redirects() -> reqwest::ClientBuilder {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none())
}

async fn get(server: &TestServer, path: &str) -> (u16, String) {
    let res = reqwest::get(format!("{}{path}", server.base))
        .await
        .unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

/// Fetches a page and checks every link on it.
async fn check_page(server: &TestServer, path: &str) -> String {
    let (status, html) = get(server, path).await;
    assert_eq!(status, 200, "{path}");
    assert!(html.starts_with("<!doctype html>"), "{path}");
    assert!(
        html.contains("<title>") && html.contains("<h1>") && html.contains("class=\"version\"")
    );
    for link in attributes(&html, "href")
        .into_iter()
        .chain(attributes(&html, "src"))
    {
        if let Some(anchor) = link.strip_prefix('#') {
            assert!(
                ids(&html).contains(anchor),
                "{path}: no #{anchor} on the page"
            );
        } else if link.starts_with('/') {
            let (status, _) = get(server, &link).await;
            assert_eq!(status, 200, "{path} links to {link}");
        } else {
            panic!("{path}: unexpected link {link}");
        }
    }
    assert!(!html.contains("\">>"), "{path}: a stray '>' after a tag");
    for action in attributes(&html, "action") {
        assert_eq!(action, "/games", "{path}");
    }
    html
}

/// The game page carries a QR code of its link; the link that carries a seat has one too, for
/// its holder alone and never cached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_come_as_qr_codes_and_the_seats_only_to_its_holder() {
    let server = TestServer::start().await;
    let white = server.http().create("six-mens-morris", "white").await;
    let game = check_page(&server, &format!("/g/{}", white.id)).await;
    assert!(
        game.contains("<details class=\"qr\"><summary>QR code</summary><svg role=\"img\""),
        "{game}"
    );
    assert!(game.contains("data-status=\"waiting\""));
    // A link preview names the game; without JavaScript the page says what it can and cannot do.
    assert!(
        game.contains("<meta property=\"og:title\" content=\"Six Men&#39;s Morris · merels\">")
    );
    assert!(game.contains("<noscript>") && game.contains("<p id=\"conn\" class=\"conn\"></p>"));
    // The QR code of a hand-off link comes in the answer that makes the link: no image URL
    // carries the code.
    let (status, body) = server
        .http()
        .request(
            "POST",
            &format!("/api/games/{}/handoff", white.id),
            Some(&white.secret),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let svg = body["qr"].as_str().unwrap();
    assert!(svg.starts_with("<svg ") && svg.contains("<path"), "{svg}");
    let gone = reqwest::get(format!("{}/g/{}/handoff.svg", server.base, white.id))
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
    server.stop().await;
}

/// "Continue on another device" moves a seat with a one-time code that expires: the seat's
/// secret is never in a link, the code rides in the link's fragment (never sent to a server, so
/// never in a log), it works once and only for its game, and the old `?seat=SECRET` and
/// `?code=CODE` links seat nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_moves_by_a_one_time_code_that_expires() {
    let server = TestServer::start_with(|c| c.handoff_secs = 1).await;
    let http = server.http();
    let white = http.create("six-mens-morris", "white").await;
    let other = http.create("six-mens-morris", "white").await;
    let (url, code) = http.handoff(&white).await;
    assert_eq!(url, format!("{}/g/{}#code={code}", server.base, white.id));
    assert!(!url.contains(&white.secret));
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let take = |id: String, code: serde_json::Value| {
        client
            .post(format!("{}/api/games/{id}/handoff/take", server.base))
            .json(&json!({ "code": code }))
            .send()
    };
    // A code in the query, as links were once made, is not taken.
    let query = client
        .get(format!("{}/g/{}?code={code}", server.base, white.id))
        .send()
        .await
        .unwrap();
    assert_eq!(query.status(), 200);
    assert_eq!(seat_cookie(&query), None);
    // Another game does not take it (and it stays good for its own).
    let elsewhere = take(other.id.clone(), json!(code)).await.unwrap();
    assert_eq!(elsewhere.status(), 409);
    assert_eq!(seat_cookie(&elsewhere), None);
    let taken = take(white.id.clone(), json!(code)).await.unwrap();
    assert_eq!(taken.status(), 200);
    let cookie = seat_cookie(&taken).unwrap();
    assert!(cookie.starts_with(&format!("merels_seat_{}={}", white.id, white.secret)));
    let body: serde_json::Value = taken.json().await.unwrap();
    assert_eq!(
        (body["seat"].as_str(), body["id"].as_str()),
        (Some("white"), Some(&*white.id))
    );
    // Once only.
    let again = take(white.id.clone(), json!(code)).await.unwrap();
    assert_eq!(again.status(), 409);
    assert_eq!(seat_cookie(&again), None);
    let body: serde_json::Value = again.json().await.unwrap();
    assert_eq!(body["error"], "not_allowed", "{body}");
    // Expired after its time, unused.
    let (_, late) = http.handoff(&white).await;
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    let expired = take(white.id.clone(), json!(late)).await.unwrap();
    assert_eq!(expired.status(), 409);
    assert_eq!(seat_cookie(&expired), None);
    // Not a code at all, or no code: malformed, and nothing taken.
    for wrong in [json!("x"), json!(42), json!(null)] {
        let res = take(white.id.clone(), wrong.clone()).await.unwrap();
        assert_eq!(res.status(), 400, "{wrong}");
    }
    // The permanent secret in a link seats nobody.
    let old = client
        .get(format!(
            "{}/g/{}?seat={}",
            server.base, white.id, white.secret
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 200);
    assert_eq!(seat_cookie(&old), None);
    // Only a seat's holder gets codes.
    let (status, _) = http
        .request(
            "POST",
            &format!("/api/games/{}/handoff", white.id),
            Some("wrong"),
            None,
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = http
        .request(
            "POST",
            &format!("/api/games/{}/handoff", white.id),
            None,
            None,
        )
        .await;
    assert_eq!(status, 401);
    server.stop().await;
}

/// A game says which rules are in force, in the setup form's words, and links the variant's
/// page; so does its line among the games being played.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_names_its_rules_and_links_them() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http
        .create_with(json!({"variant": "three-mens-morris", "options": {"movement": "adjacent"}, "color": "white"}))
        .await;
    http.join(&white.id).await;
    http.play(&white, "b2").await;
    let words = "Diagonals: On · Movement: To a neighbouring point";
    let game = check_page(&server, &format!("/g/{}", white.id)).await;
    assert!(
        game.contains(&format!(
            "<p id=\"rules\" class=\"rules\"><a href=\"/variants/three-mens-morris\">Rules</a>: {words}</p>"
        )),
        "{game}"
    );
    let home = check_page(&server, "/").await;
    assert!(
        home.contains(&format!(
            "Three Men&#39;s Morris ({words})</a>: <bdi class=\"player-name\">White</bdi> – \
             <bdi class=\"player-name\">Black</bdi>, 1 turn so far"
        )),
        "{home}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_renders_and_every_link_leads_somewhere() {
    let server = TestServer::start().await;
    let http = server.http();
    let white = http.create("morabaraba", "white").await;
    http.join(&white.id).await;
    http.play(&white, "d6").await;

    let home = check_page(&server, "/").await;
    let catalog = merels::catalog::Catalog::builtin();
    for info in catalog.variants() {
        let slug = info.slug();
        assert!(
            home.contains(&format!("href=\"/variants/{slug}\"")),
            "home lists {slug}"
        );
        assert!(home.contains(&format!("id=\"v-{slug}\"")));
        let page = check_page(&server, &format!("/variants/{slug}")).await;
        assert!(
            page.contains(&format!("<h1>{}</h1>", info.title.replace('\'', "&#39;"))),
            "{slug}"
        );
        assert!(
            page.contains("<figure class=\"board-figure\"><svg"),
            "{slug} draws its board"
        );
        assert!(
            page.contains("<h3>History</h3>") || page.contains("<h3 id"),
            "{slug} has a history"
        );
        assert!(page.contains("id=\"play\"") && page.contains("Play a friend"));
        assert!(page.contains("Play the computer") && page.contains("name=\"level\""));
        assert!(!page.contains("<script"), "{slug} reads without JavaScript");
        assert_eq!(
            page.contains("Rule changes"),
            slug != "nine-mens-morris",
            "{slug}"
        );
        // The table setup offers exactly the variant's own options, as the home page does.
        for opt in &info.spec.options {
            let name = format!("name=\"opt.{slug}.{}\"", opt.key);
            assert!(page.contains(&name), "{slug}: {name}");
            assert!(home.contains(&name), "home: {name}");
        }
        if info.spec.options.is_empty() {
            assert!(!page.contains("name=\"opt."), "{slug} offers no options");
        }
    }
    // Games being played are listed for anyone to watch.
    assert!(
        home.contains(&format!("href=\"/g/{}\"", white.id)),
        "the live game is listed"
    );
    assert!(home.contains(&format!("v{} · ", env!("CARGO_PKG_VERSION"))));

    let page = reqwest::get(format!("{}/g/{}", server.base, white.id))
        .await
        .unwrap();
    assert_eq!(
        page.headers()["cache-control"],
        "private, no-cache",
        "a game page is the visitor's own"
    );
    let game = check_page(&server, &format!("/g/{}", white.id)).await;
    assert!(
        game.contains("<span>d6</span>"),
        "the turns read without JavaScript"
    );
    // Once over, the page links the analysis, and says nothing stray around the link.
    assert_eq!(http.resign(&white).await.0, 200);
    let over = check_page(&server, &format!("/g/{}", white.id)).await;
    assert!(
        over.contains(&format!(
            "<a href=\"/g/{}/analysis\">The computer&#39;s analysis</a>",
            white.id
        )),
        "{over}"
    );
    let (status, _) = get(&server, "/variants/ten-mens-morris").await;
    assert_eq!(status, 404);
    let (status, _) = get(&server, "/g/AAAAAAAAAAAAAAAAAAAAAA").await;
    assert_eq!(status, 404);
    let (status, _) = get(&server, "/static/nothing.js").await;
    assert_eq!(status, 404);
    // The pages' templates sit beside the scripts, but are rendered, not served.
    let (status, _) = get(&server, "/static/game.html").await;
    assert_eq!(status, 404, "a template is not a file to serve");
    // The addresses people and browsers try by themselves lead somewhere too.
    let (status, list) = get(&server, "/variants").await;
    assert_eq!(status, 200, "/variants leads to the list of every variant");
    assert!(list.contains("id=\"v-nine-mens-morris\""));
    assert!(game.contains("rel=\"icon\" href=\"/static/favicon.svg\""));
    let icon = reqwest::get(format!("{}/favicon.ico", server.base))
        .await
        .unwrap();
    assert_eq!(icon.status(), 200);
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");
    assert!(icon.text().await.unwrap().starts_with("<svg"));
    server.stop().await;
}

#[tokio::test]
async fn the_setup_form_creates_a_seated_game_without_javascript() {
    let server = TestServer::start().await;
    let client = no_redirects().build().unwrap();
    let res = client
        .post(format!("{}/games", server.base))
        .form(&[
            ("variant", "three-mens-morris"),
            ("opt.diagonals", "off"),
            ("color", "black"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 303);
    let location = res.headers()["location"].to_str().unwrap().to_string();
    let cookie = seat_cookie(&res).unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let id = location.strip_prefix("/g/").unwrap();
    let state = server.http().state(id).await;
    assert_eq!(state["options"]["diagonals"], "off");
    assert_eq!(state["seats"]["black"]["taken"], true);
    let page = client
        .get(format!("{}{location}", server.base))
        .header("cookie", cookie.split(';').next().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("You play black."), "{page}");
    let res = client
        .post(format!("{}/games", server.base))
        .form(&[("variant", "six-mens-morris"), ("opt.flying", "off")])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);

    // The home page's one form sends every variant's options, each named after its variant: only
    // the chosen variant's count; one of its own that it does not have is refused all the same.
    let post = |form: Vec<(&'static str, &'static str)>| {
        let client = client.clone();
        let url = format!("{}/games", server.base);
        async move { client.post(url).form(&form).send().await.unwrap() }
    };
    let res = post(vec![
        ("variant", "three-mens-morris"),
        ("opt.three-mens-morris.movement", "adjacent"),
        ("opt.twelve-mens-morris.flying", "off"),
        ("opt.nine-mens-morris.flying", "off"),
        ("opponent", "open"),
    ])
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let location = res.headers()["location"].to_str().unwrap().to_string();
    let state = server.http().state(&location[3..]).await;
    assert_eq!(state["options"]["movement"], "adjacent", "{state}");
    assert!(state["options"].get("flying").is_none(), "{state}");
    let home = reqwest::get(&server.base)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let listed = home.split("id=\"challenges\"").nth(1).unwrap_or_default();
    assert!(
        listed.contains(&format!("href=\"{location}\"")),
        "an open challenge"
    );
    let res = post(vec![
        ("variant", "six-mens-morris"),
        ("opt.six-mens-morris.movement", "adjacent"),
    ])
    .await;
    assert_eq!(res.status().as_u16(), 400);
    let res = post(vec![("variant", "six-mens-morris"), ("opponent", "anyone")]).await;
    assert_eq!(res.status().as_u16(), 400);
    let text = res.text().await.unwrap();
    assert!(text.contains("friend, open or computer"), "{text}");

    // Time controls: a preset, a custom one, and a custom one out of range.
    let home = client
        .get(format!("{}/", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for value in ["untimed", "3+2", "15+10", "1d", "custom"] {
        assert!(
            home.contains(&format!("<option value=\"{value}\">")),
            "{value}"
        );
    }
    for (clock, minutes, increment, expect) in [
        ("10+5", "", "", Some("10+5")),
        ("custom", "2.5", "1", Some("2.5+1")),
        ("custom", "500", "1", None),
    ] {
        let res = client
            .post(format!("{}/games", server.base))
            .form(&[
                ("variant", "nine-mens-morris"),
                ("clock", clock),
                ("clock_minutes", minutes),
                ("clock_increment", increment),
            ])
            .send()
            .await
            .unwrap();
        let Some(expect) = expect else {
            assert_eq!(res.status().as_u16(), 400);
            let text = res.text().await.unwrap();
            assert!(text.contains("bad time control"), "{text}");
            continue;
        };
        assert_eq!(res.status().as_u16(), 303);
        let location = res.headers()["location"].to_str().unwrap().to_string();
        let id = location.strip_prefix("/g/").unwrap();
        assert_eq!(server.http().state(id).await["time_control"], expect);
    }
    server.stop().await;
}

/// Every answer, pages and API alike, says what a browser may do with it: only the site's own
/// scripts, styles and sockets, never in a frame, no MIME sniffing and no `Referer` to other sites. HSTS and
/// `Secure` seat cookies come with HTTPS, which the public URL tells.
#[tokio::test]
async fn answers_carry_the_browser_security_headers() {
    fn check(res: &reqwest::Response, https: bool) {
        let h = res.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        for part in [
            "default-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(part), "{csp}");
        }
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["referrer-policy"], "same-origin");
        assert_eq!(h.contains_key("strict-transport-security"), https);
    }
    let client = no_redirects().build().unwrap();
    for https in [false, true] {
        let server = TestServer::start_with(|c| {
            c.public_url = https.then(|| "https://merels.example.org".into());
        })
        .await;
        for path in ["/", "/api/variants", "/static/game.js", "/nowhere"] {
            let res = client
                .get(format!("{}{path}", server.base))
                .send()
                .await
                .unwrap();
            check(&res, https);
        }
        let res = client
            .post(format!("{}/games", server.base))
            .form(&[("variant", "six-mens-morris"), ("color", "white")])
            .send()
            .await
            .unwrap();
        check(&res, https);
        let cookie = seat_cookie(&res).unwrap();
        assert_eq!(cookie.ends_with("; Secure"), https, "{cookie}");
        server.stop().await;
    }
}

/// A browser that has played a thousand games still sends small requests: each seat's cookie
/// goes only to its own game's page and API, so a default proxy (nginx: 8 KB a header line)
/// never turns it away. The jar is reqwest's, which keeps and sends cookies by RFC 6265's rules,
/// paths included, as a browser does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_with_a_thousand_seats_still_sends_small_headers() {
    use reqwest::cookie::{CookieStore, Jar};
    use std::sync::Arc;
    let server = TestServer::start_with(|c| c.games_per_minute = 100_000).await;
    let jar = Arc::new(Jar::default());
    let browser = no_redirects().cookie_provider(jar.clone()).build().unwrap();
    let mut games = Vec::new();
    for _ in 0..1000 {
        let res = browser
            .post(format!("{}/games", server.base))
            .form(&[("variant", "six-mens-morris"), ("color", "white")])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 303);
        let to = res.headers()["location"].to_str().unwrap().to_string();
        games.push(to.trim_start_matches("/g/").to_string());
    }
    let sent = |path: String| {
        let url = format!("{}{path}", server.base).parse().unwrap();
        jar.cookies(&url)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    // Beside the one browser id every request carries, each path carries its own seat alone.
    let browser_id = sent("/".into());
    assert!(
        browser_id.starts_with("merels_browser=") && !browser_id.contains(';'),
        "the home page gets no seat: {browser_id}"
    );
    assert_eq!(sent("/variants/six-mens-morris".into()), browser_id);
    for id in [&games[0], &games[500], &games[999]] {
        for path in [
            format!("/g/{id}"),
            format!("/g/{id}/record"),
            format!("/api/games/{id}/ws"),
            format!("/api/games/{id}/resign"),
        ] {
            let cookie = sent(path.clone());
            let seats: Vec<&str> = cookie
                .split("; ")
                .filter(|c| !c.starts_with("merels_browser="))
                .collect();
            assert!(
                seats.len() == 1 && seats[0].starts_with(&format!("merels_seat_{id}=")),
                "{path} carries its own seat alone: {cookie}"
            );
        }
    }
    // And the seats work: the first game's page knows its player.
    let page = browser
        .get(format!("{}/g/{}", server.base, games[0]))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("You play white."),
        "the seat came with the page"
    );
    server.stop().await;
}

/// Without a public URL, links are built from each request's Host header: the server says so at
/// start and on `/readyz` (still ready), so that a self-hoster sees it; with one, it says nothing,
/// and a forged Host changes no link.
#[tokio::test]
async fn readyz_names_a_missing_public_url_and_a_public_url_wins_over_the_host_header() {
    let ready = |server: &TestServer| {
        let url = format!("{}/readyz", server.base);
        async move {
            let res = reqwest::get(url).await.unwrap();
            (res.status().as_u16(), res.text().await.unwrap())
        }
    };
    let server = TestServer::start().await;
    let (status, body) = ready(&server).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.starts_with("ready\n") && body.contains("MERELS_PUBLIC_URL is unset"),
        "{body}"
    );
    server.stop().await;

    let server =
        TestServer::start_with(|c| c.public_url = Some("https://merels.example".into())).await;
    assert_eq!(ready(&server).await, (200, "ready\n".to_string()));
    let white = server.http().create("nine-mens-morris", "white").await;
    let page = reqwest::Client::new()
        .get(format!("{}/g/{}", server.base, white.id))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains(&format!("https://merels.example/g/{}", white.id)));
    assert!(
        !page.contains("evil.example"),
        "a forged Host is in no link"
    );
    server.stop().await;
}

/// A hand-off code never lands in a log, even at `trace`: requests are logged by their path
/// alone (a link's query, once the code's place, is left out), and the code itself travels in a
/// link's fragment and a request's body, neither of which is logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_handoff_code_or_query_lands_in_the_logs() {
    use crate::harness::{Process, free_addr};
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("merels.db").display());
    let log = dir.path().join("server.log");
    let server = Process::start_logging(
        dir.path(),
        free_addr(),
        &url,
        &[("RUST_LOG", "trace")],
        Some(&log),
    )
    .await;
    let http = server.http();
    let white = http.create("nine-mens-morris", "white").await;
    let (_, code) = http.handoff(&white).await;
    // A link as they were once made, with the code in the query: nothing takes it, nothing logs it.
    let query = http
        .client
        .get(format!("{}/g/{}?code={code}", server.base(), white.id))
        .send()
        .await
        .unwrap();
    assert_eq!(query.status(), 200);
    let taken = http
        .client
        .post(format!(
            "{}/api/games/{}/handoff/take",
            server.base(),
            white.id
        ))
        .json(&json!({ "code": code }))
        .send()
        .await
        .unwrap();
    assert_eq!(taken.status(), 200);
    let status = server.terminate();
    assert!(status.success(), "{status}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(
        logged.contains(&format!("/api/games/{}/handoff/take", white.id)),
        "requests are logged at trace, by their path"
    );
    assert!(!logged.contains(&code), "a hand-off code in the logs");
    assert!(!logged.contains("?code="), "a query in the logs");
}

/// The seat cookie an answer sets, if any (the browser id beside it aside).
fn seat_cookie(res: &reqwest::Response) -> Option<String> {
    res.headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("merels_seat_"))
        .map(String::from)
}

/// The `merels_browser` cookies an answer sets.
fn browser_cookies(res: &reqwest::Response) -> Vec<String> {
    res.headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter(|v| v.starts_with("merels_browser="))
        .map(String::from)
        .collect()
}

/// A browser gets its anonymous id on its first page or API call, once, for the whole site and
/// out of scripts' reach; static files and probes set none. A malformed cookie is replaced.
#[tokio::test]
async fn a_browser_gets_one_anonymous_id_for_the_whole_site() {
    let server = TestServer::start().await;
    let client = no_redirects().build().unwrap();
    let first = client
        .get(format!("{}/", server.base))
        .send()
        .await
        .unwrap();
    let given = browser_cookies(&first);
    assert_eq!(given.len(), 1, "{given:?}");
    let cookie = &given[0];
    for part in ["Path=/", "HttpOnly", "SameSite=Lax", "Max-Age="] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let pair = cookie.split(';').next().unwrap().to_string();

    // Presented again, it is kept: nothing new is set.
    for path in ["/", "/api/variants"] {
        let again = client
            .get(format!("{}{path}", server.base))
            .header(reqwest::header::COOKIE, &pair)
            .send()
            .await
            .unwrap();
        assert_eq!(browser_cookies(&again), Vec::<String>::new(), "{path}");
    }
    // Static files and probes set none.
    for path in ["/static/app.css", "/healthz"] {
        let res = client
            .get(format!("{}{path}", server.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(browser_cookies(&res), Vec::<String>::new(), "{path}");
    }
    // A malformed one is no browser: a new id is given.
    let bad = client
        .get(format!("{}/", server.base))
        .header(reqwest::header::COOKIE, "merels_browser=<script>")
        .send()
        .await
        .unwrap();
    let replaced = browser_cookies(&bad);
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert_ne!(replaced[0].split(';').next().unwrap(), pair);
    server.stop().await;
}
