//! Abuse limits: games created per IP per minute and WebSocket messages per connection per second
//! (token buckets), open connections per IP (a counted slot that frees itself), and the Origin
//! check on WebSocket upgrades. What happens when one is hit is decided in `error.rs`.

use crate::config::Config;
use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};
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

/// Whether a WebSocket upgrade may proceed: no Origin (not a browser), the site's own origin, the
/// public URL's, or one configured as allowed.
pub fn origin_allowed(config: &Config, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let origin = origin.trim_end_matches('/');
    let host = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let same_site = origin
        .split_once("://")
        .is_some_and(|(_, rest)| !host.is_empty() && rest == host);
    same_site
        || config
            .public_url
            .as_deref()
            .is_some_and(|u| u.trim_end_matches('/') == origin)
        || config
            .allowed_origins
            .iter()
            .any(|o| o.trim_end_matches('/') == origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_allow_bursts_then_the_rate() {
        let mut b = Bucket::new(1.0, 3.0);
        assert!(b.take() && b.take() && b.take());
        assert!(!b.take());
    }

    #[test]
    fn origins_must_be_the_sites_own_or_allowed() {
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), "sqlite::memory:");
        let headers = |origin: Option<&str>| {
            let mut h = HeaderMap::new();
            h.insert(HOST, "merels.example:8080".parse().unwrap());
            if let Some(o) = origin {
                h.insert(ORIGIN, o.parse().unwrap());
            }
            h
        };
        assert!(origin_allowed(&config, &headers(None)));
        assert!(origin_allowed(
            &config,
            &headers(Some("http://merels.example:8080"))
        ));
        assert!(!origin_allowed(
            &config,
            &headers(Some("https://evil.example"))
        ));
        config.allowed_origins = vec!["https://friend.example".into()];
        assert!(origin_allowed(
            &config,
            &headers(Some("https://friend.example"))
        ));
    }
}
