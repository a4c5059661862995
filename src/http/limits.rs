//! Abuse limits: games created per IP per minute and WebSocket messages per connection per second
//! (token buckets), open connections per IP (a counted slot that frees itself), and the Origin
//! check on WebSocket upgrades. What happens when one is hit is decided in `error.rs`.

use crate::config::Config;
use axum::http::HeaderMap;
use axum::http::header::ORIGIN;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A token bucket: `rate` tokens a second, holding at most `burst`.
#[derive(Debug, Clone)]
pub struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64) -> Bucket {
        Bucket {
            tokens: burst,
            rate,
            burst,
            last: Instant::now(),
        }
    }

    /// Takes a token if there is one.
    pub fn take(&mut self) -> bool {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    fn full(&self) -> bool {
        self.tokens + self.last.elapsed().as_secs_f64() * self.rate >= self.burst
    }
}

/// The per-IP state of the limits.
#[derive(Debug)]
pub struct Limits {
    games: Mutex<HashMap<IpAddr, Bucket>>,
    games_per_minute: u32,
    connections: Mutex<HashMap<IpAddr, u32>>,
    connections_per_ip: u32,
    /// WebSocket messages per second per connection.
    pub messages_per_sec: u32,
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
            games: Mutex::new(HashMap::new()),
            games_per_minute: config.games_per_minute,
            connections: Mutex::new(HashMap::new()),
            connections_per_ip: config.connections_per_ip,
            messages_per_sec: config.messages_per_sec,
        }
    }

    /// Whether `ip` may create another game now.
    pub fn allow_game(&self, ip: IpAddr) -> bool {
        let mut map = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 10_000 {
            // Forget addresses whose buckets have refilled: they are as good as new.
            map.retain(|_, b| !b.full());
        }
        let per_minute = f64::from(self.games_per_minute);
        map.entry(ip)
            .or_insert_with(|| Bucket::new(per_minute / 60.0, per_minute))
            .take()
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

    /// A bucket for one connection's messages.
    pub fn message_bucket(&self) -> Bucket {
        let rate = f64::from(self.messages_per_sec.max(1));
        Bucket::new(rate, 2.0 * rate)
    }
}

/// The client's address: the peer, or the first X-Forwarded-For hop when configured to trust it.
pub fn client_ip(config: &Config, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
    if config.trust_forwarded_for
        && let Some(ip) = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return ip;
    }
    peer.ip()
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
    fn buckets_allow_bursts_then_the_rate() {
        let mut b = Bucket::new(1.0, 3.0);
        assert!(b.take() && b.take() && b.take());
        assert!(!b.take());
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
