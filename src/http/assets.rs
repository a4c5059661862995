//! The thin client's files (`static/`), embedded in the binary and served with an ETag.

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::Embed)]
#[folder = "static/"]
struct Static;

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// `GET /static/{*path}`.
pub async fn serve(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(file) = Static::get(&path) else {
        return (StatusCode::NOT_FOUND, "no such file\n").into_response();
    };
    let hash = file.metadata.sha256_hash();
    let etag = format!(
        "\"{}\"",
        hash[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    // No build step means no hashed file names: let browsers revalidate, cheaply, every time.
    if headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == etag)
    {
        return (StatusCode::NOT_MODIFIED, [(ETAG, etag)]).into_response();
    }
    (
        [
            (CONTENT_TYPE, content_type(&path).to_string()),
            (CACHE_CONTROL, "no-cache".to_string()),
            (ETAG, etag),
        ],
        file.data,
    )
        .into_response()
}
