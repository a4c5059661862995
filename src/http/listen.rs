//! The front door: every TCP connection is admitted or refused before a byte of it is read, and an
//! admitted one is served by hyper with a bound on how long its request headers may take, which
//! is also how long a kept-alive connection may sit idle between requests.
//!
//! Without these, idle connections alone took the server offline: some 20,000 held open (3,000
//! from one address) used up the process's file descriptors, and even `/healthz` timed out. Now
//! connections are capped per address, per subnet and in total (the total kept under the
//! descriptor limit, with a few places more for the host's own health checks), each refusal is
//! counted, and a connection that says nothing is closed.
//!
//! The public and the internal port draw from one budget of connections ([`Gate::beside`]), so
//! that the two together stay under the descriptor limit. The internal port serves the other
//! instances only: a connection there is counted against the caps by address until its first
//! request shows the instances' secret ([`Place::vouch`]); one whose request lacks it is closed
//! at once. One address cannot hold more than its cap of unproven connections there.

use super::budget::ReadBudget;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Places beyond the total cap that only the host itself may take: its health checks (and a
/// proxy on the same host) still get in while the cap is full.
pub const HOST_RESERVE: u32 = 16;

/// How many connections may be open at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// In all (the host itself may take [`HOST_RESERVE`] more).
    pub total: u32,
    /// From one address (an IPv6 host's /64).
    pub per_address: u32,
    /// From one subnet (IPv4 /24, IPv6 /48).
    pub per_subnet: u32,
    /// Whether the per-address and per-subnet caps apply: not when every peer is a proxy.
    pub by_address: bool,
}

/// Why a connection was refused: the limit's name in `merels_limits_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The total cap.
    Total,
    /// The cap per address.
    Address,
    /// The cap per subnet.
    Subnet,
}

impl Refusal {
    /// The limit's name, as `/metrics` counts it.
    pub fn limit(self) -> &'static str {
        match self {
            Refusal::Total => "tcp_connections_total",
            Refusal::Address => "tcp_connections_per_address",
            Refusal::Subnet => "tcp_connections_per_subnet",
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    addresses: HashMap<IpAddr, u32>,
    subnets: HashMap<IpAddr, u32>,
}

/// Counts the open connections against the caps; gates made [`beside`](Gate::beside) one
/// another share the total.
#[derive(Debug)]
pub struct Gate {
    caps: Caps,
    counts: Mutex<Counts>,
    /// Connections open through this gate.
    open: AtomicU32,
    /// Connections open through this gate and those beside it.
    total: Arc<AtomicU32>,
}

/// An admitted connection's place; given back when dropped.
#[derive(Debug)]
pub struct Admission {
    gate: Arc<Gate>,
    /// The address and subnet it counts against, until it is vouched for.
    keys: Mutex<Option<(IpAddr, IpAddr)>>,
}

/// A connection's place, as its requests see it (on the internal port).
#[derive(Debug, Clone)]
pub struct Place(Arc<Admission>);

impl Place {
    /// The connection proved to be a peer's: it no longer counts against its address's caps
    /// (a peer carries many clients' requests), only against the total.
    pub fn vouch(&self) {
        let keys = self.0.keys.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(keys) = keys {
            self.0.gate.give_back(keys);
        }
    }
}

/// The address and the subnet a peer is counted in.
fn keys(ip: IpAddr) -> (IpAddr, IpAddr) {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let bits = u32::from(v4);
            (
                IpAddr::V4(v4),
                IpAddr::V4(Ipv4Addr::from(bits & 0xffff_ff00)),
            )
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6);
            (
                IpAddr::V6(Ipv6Addr::from(bits & !((1u128 << 64) - 1))),
                IpAddr::V6(Ipv6Addr::from(bits & !((1u128 << 80) - 1))),
            )
        }
    }
}

impl Gate {
    /// A gate with nothing open.
    pub fn new(caps: Caps) -> Arc<Gate> {
        Arc::new(Gate {
            caps,
            counts: Mutex::new(Counts::default()),
            open: AtomicU32::new(0),
            total: Arc::new(AtomicU32::new(0)),
        })
    }

    /// A gate of its own caps by address that shares this one's total (`caps.total` is this
    /// one's): another port of the same process, whose descriptors are the same.
    pub fn beside(&self, caps: Caps) -> Arc<Gate> {
        Arc::new(Gate {
            caps: Caps {
                total: self.caps.total,
                ..caps
            },
            counts: Mutex::new(Counts::default()),
            open: AtomicU32::new(0),
            total: self.total.clone(),
        })
    }

    /// A place for a connection from `ip`, or why there is none.
    pub fn admit(self: &Arc<Gate>, ip: IpAddr) -> Result<Admission, Refusal> {
        let caps = self.caps;
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let total = if ip.to_canonical().is_loopback() {
            caps.total.saturating_add(HOST_RESERVE)
        } else {
            caps.total
        };
        let keys = caps.by_address.then(|| keys(ip));
        if let Some((address, subnet)) = keys {
            if counts.addresses.get(&address).copied().unwrap_or(0) >= caps.per_address {
                return Err(Refusal::Address);
            }
            if counts.subnets.get(&subnet).copied().unwrap_or(0) >= caps.per_subnet {
                return Err(Refusal::Subnet);
            }
        }
        self.total
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < total).then_some(n + 1)
            })
            .map_err(|_| Refusal::Total)?;
        if let Some((address, subnet)) = keys {
            *counts.addresses.entry(address).or_default() += 1;
            *counts.subnets.entry(subnet).or_default() += 1;
        }
        self.open.fetch_add(1, Ordering::Relaxed);
        Ok(Admission {
            gate: self.clone(),
            keys: Mutex::new(keys),
        })
    }

    /// How many connections are open through this gate.
    pub fn open(&self) -> u32 {
        self.open.load(Ordering::Relaxed)
    }

    fn give_back(&self, (address, subnet): (IpAddr, IpAddr)) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        give_back(&mut counts.addresses, address);
        give_back(&mut counts.subnets, subnet);
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        if let Some(keys) = self
            .keys
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            self.gate.give_back(keys);
        }
        self.gate.open.fetch_sub(1, Ordering::Relaxed);
        self.gate.total.fetch_sub(1, Ordering::AcqRel);
    }
}

/// One place fewer under `key`; a key with none left goes, so that the maps hold only the
/// addresses connected now.
fn give_back(map: &mut HashMap<IpAddr, u32>, key: IpAddr) {
    if let Some(n) = map.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// A connection that holds its place at the gate for as long as it lives: through an upgrade to
/// a WebSocket too, where hyper hands the stream on.
struct Admitted {
    tcp: TcpStream,
    _place: Arc<Admission>,
    budget: ReadBudget,
}

impl AsyncRead for Admitted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        std::task::ready!(this.budget.poll_ready(cx));
        let before = buf.filled().len();
        let read = Pin::new(&mut this.tcp).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = read {
            this.budget.spend(buf.filled().len() - before);
        }
        read
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
}

/// Serves `app` on `listener` until `stop` is cancelled; then stops accepting and gives the open
/// HTTP connections until `deadline` to finish (WebSockets are closed by their rooms). With
/// `vouching`, each request carries its connection's [`Place`], to vouch for.
#[allow(clippy::too_many_arguments)]
pub async fn serve(
    listener: TcpListener,
    app: Router,
    gate: Arc<Gate>,
    vouching: bool,
    header_timeout: Duration,
    on_refusal: impl Fn(Refusal),
    stop: CancellationToken,
    deadline: Duration,
) {
    let connections = TaskTracker::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors, most likely: the caps should keep this from happening;
                    // wait a little rather than spin.
                    tracing::warn!(error = %e, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stop.cancelled() => break,
        };
        let place = match gate.admit(peer.ip()) {
            Ok(place) => Arc::new(place),
            Err(refusal) => {
                on_refusal(refusal);
                continue; // dropped: closed at once, unread
            }
        };
        // Turns are small frames that must leave at once: no Nagle delay.
        let _ = tcp.set_nodelay(true);
        let (budget, flood) = ReadBudget::new();
        let vouch = vouching.then(|| Place(place.clone()));
        let io = TokioIo::new(Admitted {
            tcp,
            _place: place,
            budget,
        });
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(flood.clone());
            if let Some(vouch) = &vouch {
                request.extensions_mut().insert(vouch.clone());
            }
            tower::ServiceExt::oneshot(app.clone(), request)
        });
        let connection = builder.serve_connection(io, service).with_upgrades();
        let stop = stop.clone();
        // A connection's errors are its own (a reset, a timeout): nothing to tell.
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                () = stop.cancelled() => {}
            }
            // Shutting down: the request under way is answered, then the connection closes.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        });
    }
    drop(listener);
    connections.close();
    if tokio::time::timeout(deadline, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!(?deadline, "connections still open at the shutdown deadline");
    }
}

/// The total cap to use: the configured one, kept under the process's limit of open files (with
/// room for the database, the log and the reserve). On Linux the soft limit is first raised to
/// the hard one, as servers do.
pub fn total_cap(configured: u32) -> u32 {
    match descriptor_limit() {
        Some(limit) => {
            let room = limit.saturating_sub(u64::from(HOST_RESERVE) + 128);
            let cap = u64::from(configured).min(room) as u32;
            if cap < configured {
                tracing::warn!(
                    configured,
                    cap,
                    limit,
                    "fewer connections than configured: the limit of open files is low"
                );
            }
            cap
        }
        None => configured,
    }
}

#[cfg(target_os = "linux")]
fn descriptor_limit() -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            limit = raised;
        }
    }
    limit.current
}

#[cfg(not(target_os = "linux"))]
fn descriptor_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn connections_are_capped_per_address_per_subnet_and_in_total() {
        let gate = Gate::new(Caps {
            total: 6,
            per_address: 2,
            per_subnet: 3,
            by_address: true,
        });
        let a = [
            gate.admit(ip("203.0.113.1")).unwrap(),
            gate.admit(ip("203.0.113.1")).unwrap(),
        ];
        assert_eq!(gate.admit(ip("203.0.113.1")).unwrap_err(), Refusal::Address);
        assert_eq!(
            gate.admit(ip("::ffff:203.0.113.1")).unwrap_err(),
            Refusal::Address,
            "the same address written as IPv6"
        );
        let b = gate.admit(ip("203.0.113.2")).unwrap();
        assert_eq!(gate.admit(ip("203.0.113.3")).unwrap_err(), Refusal::Subnet);
        // One IPv6 host is its /64; a /48 is one subnet.
        let v6 = [
            gate.admit(ip("2001:db8:0:1::1")).unwrap(),
            gate.admit(ip("2001:db8:0:1::2")).unwrap(),
        ];
        assert_eq!(
            gate.admit(ip("2001:db8:0:1::3")).unwrap_err(),
            Refusal::Address
        );
        let c = gate.admit(ip("2001:db8:0:2::1")).unwrap();
        assert_eq!(gate.open(), 6);
        assert_eq!(gate.admit(ip("198.51.100.7")).unwrap_err(), Refusal::Total);
        drop((a, b, v6, c));
        assert_eq!(gate.open(), 0);
        assert!(gate.counts.lock().unwrap().addresses.is_empty());
        assert!(gate.admit(ip("203.0.113.3")).is_ok(), "places come back");
    }

    #[test]
    fn two_ports_share_one_total_and_a_vouched_place_leaves_its_address() {
        let public = Gate::new(Caps {
            total: 4,
            per_address: 10,
            per_subnet: 10,
            by_address: true,
        });
        let internal = public.beside(Caps {
            total: u32::MAX,
            per_address: 2,
            per_subnet: 10,
            by_address: true,
        });
        let a = public.admit(ip("203.0.113.1")).unwrap();
        let b = [
            Place(Arc::new(internal.admit(ip("198.51.100.1")).unwrap())),
            Place(Arc::new(internal.admit(ip("198.51.100.1")).unwrap())),
        ];
        assert_eq!(
            internal.admit(ip("198.51.100.1")).unwrap_err(),
            Refusal::Address,
            "unproven connections from one address are capped"
        );
        b[0].vouch();
        b[0].vouch();
        let c = internal.admit(ip("198.51.100.1")).unwrap();
        assert_eq!((public.open(), internal.open()), (1, 3));
        assert_eq!(
            public.admit(ip("192.0.2.1")).unwrap_err(),
            Refusal::Total,
            "the internal port's connections count against the one total"
        );
        drop((b, c));
        assert!(internal.counts.lock().unwrap().addresses.is_empty());
        let d = public.admit(ip("192.0.2.1")).unwrap();
        drop((a, d));
        assert_eq!(public.total.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_host_itself_has_places_when_the_total_is_reached() {
        let gate = Gate::new(Caps {
            total: 2,
            per_address: 100,
            per_subnet: 100,
            by_address: true,
        });
        let outside = [
            gate.admit(ip("203.0.113.1")).unwrap(),
            gate.admit(ip("198.51.100.1")).unwrap(),
        ];
        assert_eq!(gate.admit(ip("192.0.2.1")).unwrap_err(), Refusal::Total);
        let host: Vec<_> = (0..HOST_RESERVE)
            .map(|_| gate.admit(ip("127.0.0.1")).unwrap())
            .collect();
        assert_eq!(gate.admit(ip("::1")).unwrap_err(), Refusal::Total);
        drop((outside, host));
    }

    #[test]
    fn behind_a_proxy_only_the_total_counts() {
        let gate = Gate::new(Caps {
            total: 3,
            per_address: 1,
            per_subnet: 1,
            by_address: false,
        });
        let open: Vec<_> = (0..3)
            .map(|_| gate.admit(ip("10.0.0.1")).unwrap())
            .collect();
        assert_eq!(gate.admit(ip("10.0.0.2")).unwrap_err(), Refusal::Total);
        drop(open);
    }
}
