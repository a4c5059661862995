//! Which language a page speaks to its reader, and the switcher that changes it. The `lang`
//! cookie, set by the switcher on every page for the whole site, wins over the browser's
//! `Accept-Language`; without either, English.

use super::AppState;
use crate::i18n::{self, Lang};
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::header::{ACCEPT_LANGUAGE, LOCATION, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;

/// The cookie that keeps the reader's choice of language.
pub const COOKIE: &str = "lang";

/// Who reads a page: their language, and where they are (the path and query the switcher
/// returns to).
#[derive(Clone)]
pub struct Reader {
    /// The page's language.
    pub lang: Lang,
    /// The page's own path and query, for the switcher's links.
    pub here: String,
}

impl Reader {
    /// The language a request's headers ask for: the cookie's, else the header's best.
    pub fn of(headers: &HeaderMap) -> Lang {
        super::cookie(headers, COOKIE)
            .and_then(i18n::by_code)
            .unwrap_or_else(|| {
                let asked = headers
                    .get(ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default();
                i18n::negotiate(asked)
            })
    }

    /// The switcher's link to `lang`, which comes back here.
    pub fn switch_to(&self, lang: Lang) -> String {
        let back =
            percent_encoding::utf8_percent_encode(&self.here, percent_encoding::NON_ALPHANUMERIC);
        format!("/lang/{}?back={back}", lang.code())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Reader {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let here = parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        Ok(Reader {
            lang: Reader::of(&parts.headers),
            here,
        })
    }
}

/// `GET /lang/{code}?back=PATH`: the switcher. Keeps the choice in the cookie, for the whole
/// site, and goes back to the page it was chosen on (a path of this site only; else home). A
/// plain link, so it works without JavaScript.
pub async fn switch(
    State(app): State<AppState>,
    Path(code): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let back = query
        .get("back")
        .filter(|b| b.starts_with('/') && !b.starts_with("//") && !b.starts_with("/\\"))
        .map_or("/", String::as_str)
        .to_string();
    let Some(lang) = i18n::by_code(&code) else {
        return (StatusCode::SEE_OTHER, [(LOCATION, back)]).into_response();
    };
    let site = super::cookie_site(&app.config);
    let cookie = format!(
        "{COOKIE}={}; Path=/; SameSite=Lax; Max-Age=31536000{site}",
        lang.code()
    );
    (
        StatusCode::SEE_OTHER,
        [(LOCATION, back), (SET_COOKIE, cookie)],
    )
        .into_response()
}
