//! The anonymous browser id: one random cookie per browser (`merels_browser`), given on the
//! first request that has none, with no sign-up and nothing else attached. It is what lets the
//! server know "this browser" across games: its games in progress ("My games"), a person rather
//! than a socket among the spectators, its open challenges.
//!
//! The cookie's value is a bearer secret (whoever has it sees that browser's games), so the
//! rest of the server never sees it: handlers get a [`BrowserId`], its hash, which is what is
//! stored and compared. Like a seat's secret, a leaked database gives away no cookie.

use super::AppState;
use crate::rooms::secrets;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use std::convert::Infallible;

/// The cookie's name.
pub const BROWSER_COOKIE: &str = "merels_browser";

/// A browser, as the server keeps it: the hex SHA-256 of its cookie's value. Every request
/// through the router has one (the middleware gives a new browser its cookie first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BrowserId(pub String);

impl BrowserId {
    /// The browser a request's headers carry, if they carry a well-formed cookie.
    pub fn of(headers: &HeaderMap) -> Option<Self> {
        cookie_value(headers).map(|raw| Self(secrets::hash(raw)))
    }

    /// The hash as text, as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for BrowserId {
    type Rejection = Infallible;

    /// The request's browser. The middleware ([`give_cookie`]) makes sure there is one; a
    /// handler reached some other way (a test's bare router) gets a browser of its own for the
    /// one request.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::of(&parts.headers)
            .unwrap_or_else(|| Self(secrets::hash(&secrets::new_browser_cookie()))))
    }
}

/// Records that `browser` holds `color` in game `id` (for "My games"), wherever a seat is
/// granted or shown to its holder. Only the list depends on it, so a failure is logged, never
/// the request's: the seat itself was granted by its secret.
pub async fn hold_seat(app: &AppState, browser: &BrowserId, id: &str, color: crate::rules::Color) {
    if let Err(e) = app.rooms.hold_seat(browser.as_str(), id, color).await {
        tracing::warn!(game = %id, error = %e, "could not record the browser holding a seat");
    }
}

/// The value of the request's `merels_browser` cookie, if it has a well-formed one.
fn cookie_value(headers: &HeaderMap) -> Option<&str> {
    super::cookie(headers, BROWSER_COOKIE).filter(|v| secrets::is_browser_cookie(v))
}

/// Middleware: a request without a browser cookie gets one. The new cookie is added to the
/// request's own `Cookie` header before anything else sees it, so the handler (or the instance
/// the request is forwarded to) finds the same browser the answer then sets.
pub async fn give_cookie(
    State(app): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if cookie_value(request.headers()).is_some() || !wants_cookie(request.uri().path()) {
        return next.run(request).await;
    }
    let raw = secrets::new_browser_cookie();
    let pair = format!("{BROWSER_COOKIE}={raw}");
    let headers = request.headers_mut();
    let joined = match headers.get(COOKIE).and_then(|v| v.to_str().ok()) {
        Some(existing) if !existing.trim().is_empty() => format!("{existing}; {pair}"),
        _ => pair,
    };
    if let Ok(value) = HeaderValue::from_str(&joined) {
        headers.remove(COOKIE);
        headers.insert(COOKIE, value);
    }
    let mut response = next.run(request).await;
    let site = super::cookie_site(&app.config);
    let cookie =
        format!("{BROWSER_COOKIE}={raw}; Path=/; HttpOnly; SameSite=Lax; Max-Age={MAX_AGE}{site}");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(SET_COOKIE, value);
    }
    response
}

/// How long the cookie lives, renewed never: two years, in seconds.
const MAX_AGE: u32 = 2 * 365 * 24 * 3600;

/// Whether a path is one a browser's identity matters to: pages and the API, not the static
/// files, pictures, probes and metrics (which caches and monitors fetch without cookies), nor
/// the embed, which other sites frame and which never marks its viewers.
fn wants_cookie(path: &str) -> bool {
    !(path.starts_with("/static/")
        || path.starts_with("/embed/")
        || path.ends_with(".png")
        || path.ends_with(".gif")
        || path == "/favicon.ico"
        || path == "/healthz"
        || path == "/readyz"
        || path == "/metrics")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cookie: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(COOKIE, HeaderValue::from_str(cookie).unwrap());
        h
    }

    #[test]
    fn a_well_formed_cookie_is_a_browser_and_its_hash_is_what_is_kept() {
        let raw = secrets::new_browser_cookie();
        let id = BrowserId::of(&headers(&format!("a=b; {BROWSER_COOKIE}={raw}; c=d"))).unwrap();
        assert_eq!(id.as_str(), secrets::hash(&raw));
        assert_ne!(id.as_str(), raw);
    }

    #[test]
    fn a_malformed_cookie_is_no_browser() {
        for bad in ["", "short", "has space in it and is long enough!!", "é"] {
            assert_eq!(
                BrowserId::of(&headers(&format!("{BROWSER_COOKIE}={bad}"))),
                None,
                "{bad:?}"
            );
        }
        assert_eq!(BrowserId::of(&HeaderMap::new()), None);
    }

    #[test]
    fn static_files_and_probes_get_no_cookie() {
        assert!(wants_cookie("/"));
        assert!(wants_cookie("/g/abc"));
        assert!(wants_cookie("/api/games"));
        assert!(!wants_cookie("/static/app.css"));
        assert!(!wants_cookie("/g/abc/image.png"));
        assert!(!wants_cookie("/healthz"));
        assert!(!wants_cookie("/embed/abc"));
    }
}
