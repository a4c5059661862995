//! Abuse limits at the edge: WebSocket messages per connection per second, open connections per
//! address (a counted slot that frees itself), the client's address, and whether a request comes
//! from this site's own pages. (New games per address are the rooms' cap: a rematch makes games
//! too.) What happens when one is hit is decided in `error.rs`.

use super::AppState;
use crate::config::Config;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use axum::http::request::Parts;
use governor::clock::DefaultClock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

/// Marks a request that a peer forwarded, with the address of the client it came from: the
/// limits charge that client, not the peer. Set by `forward` once the peer's secret is checked.
#[derive(Debug, Clone, Copy)]
pub struct FromPeer(pub IpAddr);

/// The per-IP state of the limits.
#[derive(Debug)]
pub struct Limits {
    connections: Mutex<HashMap<IpAddr, u32>>,
    connections_per_ip: u32,
    /// WebSocket messages per second per connection.
    pub messages_per_sec: u32,
    /// The clock every connection's allowance reads. Made once: making one calibrates it
    /// against the CPU's counter, which showed as 2% of the server's time in the load
    /// generator's profile when each connection made its own.
    clock: DefaultClock,
}

/// An open connection counted against its IP; dropping it frees the place.
#[derive(Debug)]
pub struct ConnectionSlot {
    limits: Arc<Limits>,
    ip: IpAddr,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut map = self
            .limits
            .connections
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

impl Limits {
    /// The limits of a configuration.
    pub fn new(config: &Config) -> Limits {
        Limits {
            connections: Mutex::new(HashMap::new()),
            connections_per_ip: config.connections_per_ip,
            messages_per_sec: config.messages_per_sec,
            clock: DefaultClock::default(),
        }
    }

    /// A place for one more connection from `ip`, or `None` at the limit.
    pub fn connect(self: &Arc<Self>, ip: IpAddr) -> Option<ConnectionSlot> {
        let mut map = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(ip).or_insert(0);
        if *n >= self.connections_per_ip {
            return None;
        }
        *n += 1;
        Some(ConnectionSlot {
            limits: self.clone(),
            ip,
        })
    }

    /// One connection's allowance of messages: the configured rate a second, with bursts of
    /// twice that.
    pub fn message_rate(&self) -> DefaultDirectRateLimiter {
        let rate = NonZeroU32::new(self.messages_per_sec).unwrap_or(NonZeroU32::MIN);
        RateLimiter::direct_with_clock(
            Quota::per_second(rate).allow_burst(rate.saturating_add(rate.get())),
            self.clock.clone(),
        )
    }
}

/// The client's address: the peer, or, when configured to trust the proxy in front, the
/// right-most `X-Forwarded-For` hop: the one that proxy added. Hops to its left were written by
/// the client (or whoever it asked) and prove nothing.
pub fn client_ip(config: &Config, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
    if config.trust_forwarded_for
        && let Some(ip) = headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return ip;
    }
    peer.ip()
}

/// The client's address as [`client_ip`] finds it, as an extractor.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        app: &AppState,
    ) -> Result<Self, Self::Rejection> {
        // A request another instance forwarded names its client.
        if let Some(FromPeer(client)) = parts.extensions.get() {
            return Ok(ClientIp(*client));
        }
        // A router served without connection info (none of ours) has no peer to tell.
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(SocketAddr::from(([0, 0, 0, 0], 0)), |c| c.0);
        Ok(ClientIp(client_ip(&app.config, &parts.headers, peer)))
    }
}

/// Whether a request comes from one of this site's own pages, as far as the browser says.
/// Browsers send `Origin` with every cross-origin POST and every WebSocket handshake: when it is
/// there it must be this site's origin exactly (the public URL, or `http://` and the request's
/// host), scheme included, or one configured as allowed. Without it, a browser's
/// `Sec-Fetch-Site` must not say another site; a request with neither is no browser's, and so
/// carries no victim's cookie. Sibling subdomains are other sites here (SameSite cookies do not
/// stop them).
pub fn from_own_pages(config: &Config, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return !headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|site| site == "cross-site" || site == "same-site");
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    origin == super::base_url(config, headers).to_ascii_lowercase()
        || config
            .allowed_origins
            .iter()
            .any(|o| o.trim_end_matches('/') == origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::header::HOST;

    #[test]
    fn messages_come_in_bursts_then_at_the_rate() {
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), "sqlite::memory:");
        config.messages_per_sec = 3;
        let rate = Limits::new(&config).message_rate();
        assert_eq!((0..10).filter(|_| rate.check().is_ok()).count(), 6);
    }

    #[test]
    fn origins_must_be_the_sites_own_exactly_or_allowed() {
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), "sqlite::memory:");
        let headers = |origin: Option<&str>, site: Option<&str>| {
            let mut h = HeaderMap::new();
            h.insert(HOST, "Merels.example:8080".parse().unwrap());
            if let Some(o) = origin {
                h.insert(ORIGIN, o.parse().unwrap());
            }
            if let Some(s) = site {
                h.insert("sec-fetch-site", s.parse().unwrap());
            }
            h
        };
        let own = |config: &Config, origin, site| from_own_pages(config, &headers(origin, site));
        assert!(own(&config, None, None), "not a browser");
        assert!(own(&config, None, Some("same-origin")));
        assert!(!own(&config, None, Some("cross-site")));
        assert!(
            !own(&config, None, Some("same-site")),
            "a sibling subdomain"
        );
        assert!(own(&config, Some("http://merels.example:8080"), None));
        for other in [
            "https://merels.example:8080",
            "ws://merels.example:8080",
            "HTTP://merels.example:8080",
            "http://merels.example",
            "http://evil.merels.example:8080",
            "https://evil.example",
            "null",
        ] {
            assert!(!own(&config, Some(other), None), "{other}");
        }
        config.public_url = Some("https://merels.example".into());
        assert!(own(&config, Some("https://merels.example"), None));
        assert!(!own(&config, Some("http://merels.example"), None));
        config.allowed_origins = vec!["https://friend.example/".into()];
        assert!(own(
            &config,
            Some("https://friend.example"),
            Some("cross-site")
        ));
    }
}
