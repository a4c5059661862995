//! Wiring: connect the store, start the registry of rooms and the stale-game sweep, serve the
//! router, and shut down gracefully: stop accepting, let every room finish the write it is on,
//! tell clients to reconnect, and return.

use crate::catalog::Catalog;
use crate::config::Config;
use crate::http::forward::Peers;
use crate::http::listen::{self, Caps, Gate, Refusal};
use crate::http::relay::Relay;
use crate::http::{AppState, internal_router, router};
use crate::metrics::Metrics;
use crate::rooms::{Rooms, RoomsConfig};
use crate::store::owners::Registration;
use crate::store::{Store, StoreError};
use crate::time::{room_ms, wall_ms};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How often unfinished games are checked for abandonment.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or migrated.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Listening or serving failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Serves on `listener` until `shutdown` completes, then shuts down gracefully.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let metrics = Arc::new(Metrics::new());
    let mut store = Store::open(&config.database_url, metrics.clone()).await?;
    store.started(room_ms()).await?;
    let Peering {
        internal,
        peer_address,
        secret,
        peers,
    } = peering(&config, &store).await?;
    let stop = CancellationToken::new();
    let rooms = Rooms::new(
        store,
        metrics.clone(),
        Catalog::builtin(),
        rooms_config(&config, internal.is_some(), peer_address),
        stop.clone(),
    );
    // Alive, then registered, before serving: a game made here is owned by a live instance from
    // the start.
    let life = rooms
        .store()
        .sign_of_life(&rooms.lease().me.instance)
        .await?;
    rooms.renew().await?;
    let relay = match (&config.nats_url, &secret) {
        (Some(url), Some(secret)) => Some(
            Relay::start(url, secret, rooms.clone(), metrics.clone(), stop.clone())
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))?,
        ),
        _ => None,
    };
    let background = Background::start(&rooms, &peers, &relay, config.abandon_after(), &stop);
    let deadline = Duration::from_secs(config.shutdown_timeout_secs);
    let total = listen::total_cap(config.max_connections);
    let gate = Gate::new(Caps {
        total,
        per_address: config.tcp_connections_per_ip,
        per_subnet: config.tcp_connections_per_subnet,
        by_address: !config.trust_forwarded_for,
    });
    let header_timeout = config.header_timeout();
    let no_public_url = config.public_url.is_none();
    let config_caps = (
        config.tcp_connections_per_ip,
        config.tcp_connections_per_subnet,
    );
    let internal_metrics = metrics.clone();
    let state = AppState::new(rooms.clone(), config, metrics.clone(), peers, relay.clone());
    let app = router(state.clone());
    // The internal address shares the public one's total (one process, one limit of open
    // files). A peer's connection carries many clients' requests (each checked by its own
    // client's limits), so it leaves the caps by address once its first request shows the
    // instances' secret; until then it counts against them, and one without it is closed.
    let internal = internal.map(|listener| {
        let gate = gate.beside(Caps {
            total,
            per_address: config_caps.0,
            per_subnet: config_caps.1,
            by_address: true,
        });
        let refused = move |refusal: Refusal| internal_metrics.limit(internal_limit(refusal));
        let serving = listen::serve(
            listener,
            internal_router(state),
            gate,
            true,
            header_timeout,
            refused,
            stop.clone(),
            deadline,
        );
        tokio::spawn(serving)
    });
    let addr = listener.local_addr()?;
    tracing::info!(%addr, backend = rooms.store().backend_name(), "merels is serving");
    if no_public_url {
        tracing::warn!("{}", crate::http::api::NO_PUBLIC_URL);
    }
    tokio::spawn(stop_on(shutdown, stop.clone()));
    let sockets = metrics.clone();
    let refused = move |refusal: Refusal| metrics.limit(refusal.limit());
    listen::serve(
        listener,
        app,
        gate,
        false,
        header_timeout,
        refused,
        stop.clone(),
        deadline,
    )
    .await;
    stop.cancel();
    wind_down(&rooms, relay.as_ref(), &sockets, deadline, internal).await;
    background.abort();
    give_up(&rooms).await;
    life.end().await;
    Ok(())
}

/// Cancels `stop` once `shutdown` completes (a signal), unless something else stopped the
/// server first. Rooms close their connections (1012: reconnect) after the command they are on.
async fn stop_on(shutdown: impl Future<Output = ()>, stop: CancellationToken) {
    tokio::select! {
        () = shutdown => {}
        () = stop.cancelled() => {}
    }
    tracing::info!("shutting down");
    stop.cancel();
}

/// An instance's tasks besides serving: renewing its lease (and its view of its peers), sweeping
/// stale games, and the rooms' heartbeat. Each ends with `stop`, or is aborted once the server
/// has wound down.
struct Background {
    lease: JoinHandle<()>,
    sweep: JoinHandle<()>,
    beat: JoinHandle<()>,
}

impl Background {
    fn start(
        rooms: &Rooms,
        peers: &Option<Peers>,
        relay: &Option<Relay>,
        abandon_after: Duration,
        stop: &CancellationToken,
    ) -> Background {
        Background {
            lease: tokio::spawn(renew_lease(
                rooms.clone(),
                peers.clone(),
                relay.clone(),
                stop.clone(),
            )),
            sweep: tokio::spawn(sweep_stale_games(
                rooms.clone(),
                abandon_after,
                stop.clone(),
            )),
            beat: tokio::spawn(beat(rooms.clone(), stop.clone())),
        }
    }

    fn abort(self) {
        self.sweep.abort();
        self.beat.abort();
        self.lease.abort();
    }
}

/// What an instance needs to work beside others on one PostgreSQL database; all empty with
/// SQLite, which serves one instance.
struct Peering {
    /// The internal address, where this instance serves its peers.
    internal: Option<TcpListener>,
    /// That address as the peers reach it (empty without one).
    peer_address: String,
    /// The secret the instances show each other there, and the key that seals what they send
    /// over the bus.
    secret: Option<String>,
    /// The client that forwards requests to the peers, under that secret.
    peers: Option<Peers>,
}

/// Binds the internal address and reads (or makes) the instances' shared secret, with
/// PostgreSQL; nothing with SQLite.
async fn peering(config: &Config, store: &Store) -> Result<Peering, ServerError> {
    if store.backend_name() != "postgres" {
        return Ok(Peering {
            internal: None,
            peer_address: String::new(),
            secret: None,
            peers: None,
        });
    }
    let internal = TcpListener::bind(config.internal_bind).await?;
    let peer_address = advertised(config, internal.local_addr()?);
    let secret = store
        .peer_secret(&crate::rooms::secrets::new_secret())
        .await?;
    let peers = Peers::new(&secret).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(Peering {
        internal: Some(internal),
        peer_address,
        secret: Some(secret),
        peers: Some(peers),
    })
}

/// The rooms' settings from the configuration. `has_peers`: whether this instance serves
/// others on an internal address (PostgreSQL), the only case where clients are sent to an
/// instance's own address.
pub fn rooms_config(config: &Config, has_peers: bool, peer_address: String) -> RoomsConfig {
    RoomsConfig {
        idle: config.room_idle(),
        absent_timed: Duration::from_secs_f64(config.absent_timed_secs.max(0.0)),
        absent_untimed: Duration::from_secs_f64(config.absent_untimed_secs.max(0.0)),
        challenge_grace: Duration::from_secs_f64(config.challenge_grace_secs.max(0.1)),
        challenge_expiry: Duration::from_secs_f64(config.challenge_expiry_secs.max(1.0)),
        games_per_minute: config.games_per_minute,
        computer_games_per_hour: config.computer_games_per_hour,
        handoff: Duration::from_secs(config.handoff_secs),
        computer: crate::rooms::ComputerConfig {
            threads: config.engine_threads,
            analysis_threads: config.analysis_threads,
            analyses_per_ip: config.analyses_per_ip,
            tables: config.tables.clone(),
        },
        direct_url: config.direct_url.clone().filter(|_| has_peers),
        peer_address,
        lease: config.lease(),
    }
}

/// After the listener has stopped: every room finishes the write it is on, the rooms' last
/// words go out (over the bus too), the sockets close, and the internal address stops; each
/// step within `deadline`.
async fn wind_down(
    rooms: &Rooms,
    relay: Option<&Relay>,
    metrics: &Metrics,
    deadline: Duration,
    internal: Option<tokio::task::JoinHandle<()>>,
) {
    if tokio::time::timeout(deadline, rooms.wait_closed())
        .await
        .is_err()
    {
        tracing::warn!("games still writing at the shutdown deadline");
    }
    // The rooms' last words to sockets on other instances (reconnect) go out over the bus.
    if let Some(relay) = relay {
        relay.flush().await;
    }
    // The rooms have told every socket to reconnect (1012); the process waits for the sockets to
    // send it and close, rather than end with the words unsent.
    let drained = async {
        while metrics.connections.get() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    if tokio::time::timeout(deadline, drained).await.is_err() {
        tracing::warn!("sockets still open at the shutdown deadline");
    }
    if let Some(internal) = internal {
        let _ = internal.await;
    }
}

/// The last words to the store: this instance's games are given up and its last heartbeat
/// recorded, and the store closed.
async fn give_up(rooms: &Rooms) {
    // The games this instance owned are anyone's now: the next instance asked takes each at
    // once, rather than after the lease.
    if let Err(e) = rooms.deregister().await {
        tracing::warn!(error = %e, "could not give up this instance's games");
    }
    // The last moment this server was alive: an outage, should none follow it, starts here.
    if let Err(e) = rooms.store().beat(room_ms()).await {
        tracing::warn!(error = %e, "could not record the last heartbeat");
    }
    rooms.store().close().await;
    tracing::info!("stopped");
}

/// The limit's name in `merels_limits_total` for a connection the internal address refused.
fn internal_limit(refusal: Refusal) -> &'static str {
    match refusal {
        Refusal::Total => "internal_connections_total",
        Refusal::Address => "internal_connections_per_address",
        Refusal::Subnet => "internal_connections_per_subnet",
    }
}

/// Records that this server is alive every [`BEAT`](crate::store::BEAT), until shutdown, so that
/// time when no server ran is charged to no clock.
async fn beat(rooms: Rooms, stop: CancellationToken) {
    let mut every = tokio::time::interval(crate::store::BEAT);
    loop {
        tokio::select! {
            _ = every.tick() => {
                if let Err(e) = rooms.store().beat(room_ms()).await {
                    tracing::warn!(error = %e, "could not record a heartbeat");
                }
            }
            () = stop.cancelled() => return,
        }
    }
}

/// Renews this instance's lease every third of its length, until shutdown; and cuts the
/// sockets forwarded or relayed to peers that are no longer alive. A peer that stops renewing
/// (it hangs) is noticed as its lease lapses, not at the renewal after; one that died (its sign
/// of life gone, see [`crate::store::owners`]) within [`LIFE_CHECK`]: its games may be taken
/// from that moment, and its clients are told to come back at once.
async fn renew_lease(
    rooms: Rooms,
    peers: Option<Peers>,
    relay: Option<Relay>,
    stop: CancellationToken,
) {
    // The first renewal is due a period after the one made at start.
    let period = rooms.lease().length / 3;
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Just after the earliest moment a peer's lease lapses, unless a renewal comes first.
    let mut lapse = std::pin::pin!(tokio::time::sleep(period));
    let mut watching = false;
    let mut check = tokio::time::interval(LIFE_CHECK);
    check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let renew = tokio::select! {
            _ = every.tick() => true,
            () = &mut lapse, if watching => false,
            _ = check.tick(), if peers.is_some() => false,
            () = stop.cancelled() => return,
        };
        if renew && let Err(e) = rooms.renew().await {
            tracing::warn!(error = %e, "could not renew this instance's lease");
        }
        let Some(peers) = &peers else { continue };
        watching = false;
        let asked = tokio::time::Instant::now();
        match rooms.store().live_instances(wall_ms()).await {
            Ok(live) => {
                let owners: Vec<_> = live.iter().map(|l| l.owner.clone()).collect();
                peers.cut_all_but(&owners);
                if let Some(relay) = &relay {
                    relay.keep_only(&owners, asked);
                }
                if let Some(at) = next_lapse(&live, &rooms.lease().me.instance) {
                    let wait = Duration::from_millis((at - wall_ms()).max(0) as u64) + LAPSE_MARGIN;
                    lapse.as_mut().reset(tokio::time::Instant::now() + wait);
                    watching = true;
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not read the live instances"),
        }
    }
}

/// How long after a peer's lease lapses it is looked at again: the lapse is exclusive, and a
/// timer may round.
const LAPSE_MARGIN: Duration = Duration::from_millis(10);

/// How often an instance with peers looks for peers that died (one short query).
const LIFE_CHECK: Duration = Duration::from_millis(500);

/// The earliest moment (wall ms) a live peer's lease lapses, short of a renewal: the instances'
/// renewals keep moving it past the next renewal of this one, `me`, until a peer stops renewing.
fn next_lapse(live: &[Registration], me: &str) -> Option<i64> {
    live.iter()
        .filter(|l| l.owner.instance != me)
        .map(|l| l.lease_until)
        .min()
}

/// The internal address the other instances reach this one at: as configured, or the bound
/// one, with this host's name for an unspecified IP (as in a container).
fn advertised(config: &Config, bound: std::net::SocketAddr) -> String {
    if let Some(address) = &config.internal_addr {
        return address.clone();
    }
    if !bound.ip().is_unspecified() {
        return bound.to_string();
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    format!("{host}:{}", bound.port())
}

/// Closes unfinished games that nobody touched for `after`, now and then, until shutdown.
async fn sweep_stale_games(rooms: Rooms, after: Duration, stop: CancellationToken) {
    loop {
        let before = wall_ms() - after.as_millis() as i64;
        match rooms.store().stale_games(before, 500).await {
            Ok(ids) => {
                for id in ids {
                    if let Err(e) = rooms.abandon(&id).await {
                        tracing::warn!(game = %id, error = %e, "could not close a stale game");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "stale-game sweep failed"),
        }
        tokio::select! {
            () = tokio::time::sleep(SWEEP_EVERY) => {}
            () = stop.cancelled() => return,
        }
    }
}

/// Completes on SIGTERM or Ctrl-C (Docker and CI send the first, a terminal the second).
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
