//! The operator's dashboard and alert rules (docs/monitoring/): every metric they name is one a
//! running server serves, and the dashboard shows every metric it serves. A renamed metric
//! breaks this test, not an operator's night.

use crate::harness::TestServer;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Every series name a server's `/metrics` text can hold: each metric's own name, and the names
/// its samples take (`_total` for a counter; `_bucket`, `_sum` and `_count` for a histogram).
fn series(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut metrics, mut names) = (BTreeSet::new(), BTreeSet::new());
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# TYPE ") else {
            continue;
        };
        let (name, kind) = rest.split_once(' ').unwrap();
        metrics.insert(name.to_string());
        let suffixes: &[&str] = match kind {
            "counter" => &["_total"],
            "histogram" => &["_bucket", "_sum", "_count"],
            _ => &[""],
        };
        names.extend(suffixes.iter().map(|s| format!("{name}{s}")));
    }
    (metrics, names)
}

/// The `merels_` names in a query.
fn named(expr: &str) -> Vec<String> {
    expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("merels_"))
        .map(String::from)
        .collect()
}

/// The queries of the dashboard's panels and of the alert rules.
fn queries() -> (Vec<String>, Vec<String>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/docs/monitoring/grafana-dashboard.json")).unwrap(),
    )
    .expect("the dashboard is JSON");
    let panels = dashboard["panels"].as_array().unwrap();
    let panel_queries: Vec<String> = panels
        .iter()
        .flat_map(|p| p["targets"].as_array().unwrap())
        .map(|t| t["expr"].as_str().unwrap().to_string())
        .collect();
    let alerts: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(format!("{root}/docs/monitoring/alerts.yml")).unwrap(),
    )
    .expect("the alert rules are YAML");
    let rules: Vec<String> = alerts["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .map(|r| {
            assert!(
                r["alert"].is_string() && r["annotations"]["summary"].is_string(),
                "{r}"
            );
            r["expr"].as_str().unwrap().to_string()
        })
        .collect();
    (panel_queries, rules)
}

#[tokio::test]
async fn the_dashboard_and_alerts_name_only_metrics_the_server_serves() {
    // Two games a minute, so that the third is refused and a limit is counted.
    let server = TestServer::start_with(|c| c.games_per_minute = 2).await;
    let http = server.http();
    // Something in every labelled family: games stored, a turn refused, an analysis, a limit.
    let white = http.create("nine-mens-morris", "white").await;
    http.join(&white.id).await;
    let (status, body) = http.play(&white, "d1").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(http.play(&white, "d2").await.0, 409, "out of turn");
    let (status, body) = http
        .request(
            "GET",
            "/api/analysis?variant=three-mens-morris&moves=a1,b2",
            None,
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    http.create("nine-mens-morris", "white").await;
    let (status, _) = http
        .request(
            "POST",
            "/api/games",
            None,
            Some(json!({"variant": "nine-mens-morris"})),
        )
        .await;
    assert_eq!(status, 429, "the third game in a minute is refused");

    let text = reqwest::get(format!("{}/metrics", server.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let (metrics, names) = series(&text);
    for family in [
        "merels_games",
        "merels_turns_rejected",
        "merels_analyses",
        "merels_limit_violations",
    ] {
        assert!(
            metrics.contains(family),
            "{family} is served once used:\n{text}"
        );
    }
    let (panels, rules) = queries();
    assert!(!panels.is_empty() && !rules.is_empty());
    for expr in panels.iter().chain(&rules) {
        for name in named(expr) {
            assert!(
                names.contains(&name),
                "{name} (in `{expr}`) is not served:\n{text}"
            );
        }
    }
    // The dashboard shows every metric the server has.
    let shown: BTreeSet<String> = panels.iter().flat_map(|e| named(e)).collect();
    for metric in &metrics {
        assert!(
            shown.iter().any(|s| s == metric
                || s.strip_prefix(metric.as_str())
                    .is_some_and(|rest| ["_total", "_bucket", "_sum", "_count"].contains(&rest))),
            "{metric} is on no panel of the dashboard"
        );
    }
    server.stop().await;
}
