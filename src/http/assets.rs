//! The thin client's files (`static/`), embedded in the binary and served with an ETag.

use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// The files of `static/` but its templates, which the server renders (`html`), not serves.
#[derive(rust_embed::Embed)]
#[folder = "static/"]
#[exclude = "*.html"]
struct Static;

/// `GET /static/{*path}`.
pub async fn serve(Path(path): Path<String>, headers: HeaderMap) -> Response {
    file(&path, &headers)
}

/// `GET /favicon.ico`, which browsers and crawlers ask for whatever the page says: the icon.
pub async fn favicon(headers: HeaderMap) -> Response {
    file("favicon.svg", &headers)
}

fn file(path: &str, headers: &HeaderMap) -> Response {
    let Some(file) = Static::get(path) else {
        return (StatusCode::NOT_FOUND, "no such file\n").into_response();
    };
    let etag = format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..8]));
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
            (CONTENT_TYPE, file.metadata.mimetype().to_string()),
            (CACHE_CONTROL, "no-cache".to_string()),
            (ETAG, etag),
        ],
        file.data,
    )
        .into_response()
}
