//! Live games. Each game that someone is looking at has one room task that owns it: position,
//! seats, version and connections. Nothing else changes a game, so there are no locks around game
//! state; everything else talks to the room over its channel.
//!
//! - [`Rooms`] (here) is what the rest of the server asks of games; `registry` maps ids to
//!   room handles and starts a room on demand, once `load` has taken the game for this
//!   instance; `create` makes a game; [`RoomsConfig`] tunes them; [`lease`] is this
//!   instance's hold on the games it runs, and what ends its rooms when the hold lapses.
//! - `core` decides what each ask does, purely, with `offers` (draws, takebacks, rematches) and
//!   `clocks` (deadlines and claims); `tests` tests them without a store or a socket.
//! - `task` is the room's loop and the shell that stores the core's plans, then applies them and
//!   tells the connections (`conns`); `answer` is how it answers each command; `view` encodes
//!   what they are told; `load` rebuilds a game from the store; `command` is what a room can be
//!   asked.
//! - `chat` holds the game's two chats: who may say what and how often, purely, and the shell
//!   that stores a line and sends it to whoever hears it.
//! - `handoff` moves a seat to another device with a one-time code.
//! - `computer` seats the computer and thinks for it off the room's task; the solved tables;
//!   the analyses of games, on threads of their own. `computer_turns` is the room's side: when
//!   to think, and what becomes of the turn.
//! - `action` is what players ask ([`Action`], [`Actor`]) and `error` why a room refuses
//!   ([`RoomError`]); [`outbox`] is each connection's queue; [`secrets`] makes ids and seat
//!   secrets.
//!
//! Both transports (HTTP and WebSocket) act through [`Action`]: one path for a turn, whichever
//! way it came.

mod action;
mod answer;
mod cap;
mod chat;
mod clocks;
mod command;
mod computer;
mod computer_turns;
mod config;
mod conns;
mod core;
mod create;
mod error;
mod handoff;
mod holder;
pub mod lease;
mod load;
mod mine;
mod offers;
pub mod outbox;
mod registry;
pub mod secrets;
mod task;
#[cfg(test)]
mod tests;
mod view;

use crate::catalog::{Catalog, CatalogError};
use crate::metrics::Metrics;
use crate::protocol::{Analysis, ClientMessage, GameState, PlayerName};
use crate::rules::{Color, Game, ReplayError};
use crate::store::Store;
use crate::time::{room_ms, wall_ms};
pub use action::{Acted, Action, Actor, ColorChoice, Ending, OfferAction, Opponent, SeatGrant};
use command::{Answer, Command};
pub use computer::{ComputerConfig, read_table, write_table};
pub use config::RoomsConfig;
pub use error::RoomError;
pub use holder::Holder;
use outbox::Outbox;
use registry::Handle;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The tokio instant of a moment in the rooms' time (now, if it has passed).
fn instant_at(ms: i64) -> Instant {
    Instant::now() + Duration::from_millis((ms - room_ms()).max(0) as u64)
}

/// A live connection to a room, returned by [`Rooms::connect`].
#[derive(Debug)]
pub struct Connection {
    /// The connection's number within its room.
    pub id: u64,
    /// The seat it holds; `None`: it watches.
    pub seat: Option<Color>,
    /// The client's address.
    pub from: IpAddr,
    /// The room it joined, to send it actions without a lookup in the registry for each. The
    /// room lives as long as anyone is connected; should it have ended all the same, an action
    /// goes the usual way, to whichever room now has the game.
    room: Option<Handle>,
}

#[derive(Debug)]
struct Inner {
    map: Mutex<HashMap<String, Handle>>,
    store: Store,
    metrics: Arc<Metrics>,
    catalog: &'static Catalog,
    config: RoomsConfig,
    cap: cap::GameCap,
    computer_cap: cap::GameCap,
    chat_cap: cap::ChatCap,
    computer: computer::Computer,
    generation: AtomicU64,
    shutdown: CancellationToken,
    tasks: TaskTracker,
    lease: lease::Lease,
}

/// The registry of live games. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Rooms {
    inner: Arc<Inner>,
}

impl Rooms {
    /// A registry over `store`, counting into `metrics`. Rooms end when `shutdown` is cancelled.
    pub fn new(
        store: Store,
        metrics: Arc<Metrics>,
        catalog: &'static Catalog,
        config: RoomsConfig,
        shutdown: CancellationToken,
    ) -> Rooms {
        Rooms {
            inner: Arc::new(Inner {
                map: Mutex::new(HashMap::new()),
                store,
                metrics,
                catalog,
                cap: cap::GameCap::per_minute(config.games_per_minute),
                computer_cap: cap::GameCap::per_hour(config.computer_games_per_hour),
                chat_cap: cap::ChatCap::default(),
                computer: computer::Computer::new(&config.computer),
                lease: lease::Lease::new(
                    config.peer_address.clone(),
                    config.direct_url.clone(),
                    config.lease,
                ),
                config,
                generation: AtomicU64::new(0),
                shutdown,
                tasks: TaskTracker::new(),
            }),
        }
    }

    /// The store behind the rooms.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The variant catalog.
    pub fn catalog(&self) -> &'static Catalog {
        self.inner.catalog
    }

    /// This instance's lease on the games it runs.
    pub fn lease(&self) -> &lease::Lease {
        &self.inner.lease
    }

    /// Registers this instance, or renews its lease (every third of the lease, from the
    /// server's loop). A lease found lapsed once renewed ends every room that ran under it.
    pub async fn renew(&self) -> Result<(), crate::store::StoreError> {
        let lease = &self.inner.lease;
        let store = &self.inner.store;
        for _ in 0..lease::RENEWALS {
            let now = wall_ms();
            store.register(&lease.me, now, lease.until(now)).await?;
            // A renewal stored after the lease it renews had run out came too late: another
            // instance may have taken a game meanwhile, so the rooms end. Only now, once this
            // instance is registered again: the clients they close come back to a live one.
            let stored = wall_ms();
            if lease.check(stored) == lease::Renewal::Lapsed {
                self.inner.metrics.lease_lapses.inc();
                tracing::warn!("this instance's lease lapsed: its games' rooms end and move on");
            }
            // The process may have been paused while the write was under way: then what it
            // stored has run out too, and its peers take this instance for dead.
            if stored < lease.until(now) {
                lease.renewed(now);
                return Ok(());
            }
        }
        Ok(())
    }

    /// Gives up this instance's registration and every game it owns (a graceful stop).
    pub async fn deregister(&self) -> Result<(), crate::store::StoreError> {
        self.inner
            .store
            .deregister(&self.inner.lease.me.instance)
            .await
    }

    /// Where game `id` is served when it is not here: the instance that owns it, if another
    /// live one does. `None`: this instance serves it (taking it first if need be).
    pub async fn locate(
        &self,
        id: &str,
    ) -> Result<Option<crate::store::owners::Owner>, crate::store::StoreError> {
        let owned = |h: Handle| h.owned.load(Ordering::Acquire);
        if !secrets::is_id(id) || self.running(id).is_some_and(owned) {
            return Ok(None);
        }
        // At most a renewal period: the renewal after a pause is due at once.
        let lease = &self.inner.lease;
        lease.renewal(lease.length / 3).await;
        let owner = self.inner.store.owner_of(id, wall_ms()).await?;
        Ok(owner.filter(|o| o.instance != self.inner.lease.me.instance))
    }

    /// How many rooms are in memory.
    pub fn live(&self) -> usize {
        self.inner.map.lock().map_or(0, |m| m.len())
    }

    /// Waits until every room task has ended (after shutdown): their last writes are committed.
    pub async fn wait_closed(&self) {
        self.inner.tasks.close();
        self.inner.tasks.wait().await;
    }

    /// Which seat, if any, `secret` holds in the game. A wrong secret holds none.
    pub async fn seat_of(
        &self,
        id: &str,
        secret: Option<String>,
    ) -> Result<Option<Color>, RoomError> {
        self.seat_of_hash(id, secret.as_deref().map(secrets::hash))
            .await
    }

    /// Which seat, if any, the secret whose hash is `hash` holds in the game (as another
    /// instance asks, which sends no secret).
    pub async fn seat_of_hash(
        &self,
        id: &str,
        hash: Option<String>,
    ) -> Result<Option<Color>, RoomError> {
        self.call(id, |reply| Command::Authenticate {
            hash: hash.clone(),
            reply,
        })
        .await
    }

    /// Takes the empty seat for a new visitor, under `name` if one is given.
    pub async fn join(&self, id: &str, name: Option<PlayerName>) -> Result<SeatGrant, RoomError> {
        self.call(id, |reply| Command::Join {
            name: name.clone(),
            reply,
        })
        .await
    }

    /// Does `action` for `actor` and waits until it is stored and broadcast; answers with the
    /// new state (and, for a rematch, the actor's seat in it once started).
    pub async fn act(
        &self,
        id: &str,
        actor: Actor,
        from: IpAddr,
        action: Action,
    ) -> Result<Acted, RoomError> {
        let sent = Instant::now();
        let result = self
            .call(id, |reply| Command::Act {
                actor: actor.clone(),
                from,
                action: action.clone(),
                sent,
                answer: Answer::Wait(reply),
            })
            .await;
        // The room counts the turns it handled; this counts one that no room handled.
        let unheard = matches!(result, Err(RoomError::NotFound | RoomError::Unavailable));
        if matches!(action, Action::Turn(_)) && unheard {
            self.count_turn(sent, &result);
        }
        result
    }

    /// What the room does with one parsed message of a connection it holds, whichever way the
    /// message came (the socket here, or a peer's relay): an action or a chat line goes to the
    /// room without waiting for it to be stored (the new state or the line reaches everyone
    /// concerned, this connection included; a refusal reaches this connection alone, on
    /// `outbox`); `sync` and `chat_settings` are about the connection itself, and a `ping` is
    /// answered where the socket is. An error here means the room never got it.
    pub async fn deliver(
        &self,
        id: &str,
        conn: &Connection,
        message: ClientMessage,
        outbox: &Arc<Outbox>,
    ) -> Result<(), RoomError> {
        match message {
            ClientMessage::Sync => {
                // The state goes out on the connection's queue; a room gone has nothing to say.
                let _ = self.resync(id, conn).await;
                Ok(())
            }
            ClientMessage::Ping => Ok(()),
            ClientMessage::Chat { text } => self.say(id, conn, text, outbox).await,
            ClientMessage::ChatSettings(hearing) => self.hear(id, conn, hearing).await,
            message => match Action::of(message) {
                Some(action) => self.send(id, conn, action, outbox).await,
                None => Ok(()),
            },
        }
    }

    /// Does `action` for a connection (see [`Rooms::deliver`]).
    async fn send(
        &self,
        id: &str,
        conn: &Connection,
        action: Action,
        outbox: &Arc<Outbox>,
    ) -> Result<(), RoomError> {
        let sent = Instant::now();
        let turn = matches!(action, Action::Turn(_));
        let command = Box::new(Command::Act {
            actor: Actor::Seat(conn.seat),
            from: conn.from,
            action,
            sent,
            answer: Answer::Queue(outbox.clone()),
        });
        let result = self.to_room(id, conn, command).await;
        if turn && result.is_err() {
            self.count_turn(sent, &result);
        }
        result
    }

    /// Counts a turn played (and how long it took since `since`) or refused (and why).
    fn count_turn<T>(&self, since: Instant, result: &Result<T, RoomError>) {
        let metrics = self.metrics();
        match result {
            Ok(_) => {
                metrics.turns_accepted.inc();
                metrics.turn_latency.observe(since.elapsed().as_secs_f64());
            }
            Err(e) => metrics.rejected(&e.code().name()),
        }
    }

    /// The server's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
    }

    /// The current state.
    pub async fn state(&self, id: &str) -> Result<GameState, RoomError> {
        self.call(id, |reply| Command::State { reply }).await
    }

    /// The game record as text.
    pub async fn record(&self, id: &str) -> Result<String, RoomError> {
        self.call(id, |reply| Command::Record { reply }).await
    }

    /// The engine's judgement of every turn of a finished game, asked from `from`: exact on a
    /// solved board, else a short search of each position, cut off after `within` (turns not
    /// reached say so). One already made whole is served again as it was kept; an address may
    /// have only a few under way.
    pub async fn analysis(
        &self,
        from: IpAddr,
        id: &str,
        within: Duration,
    ) -> Result<Analysis, RoomError> {
        let computer = &self.inner.computer;
        if let Some(kept) = computer.kept(id) {
            self.metrics().analysed("kept");
            return Ok(kept);
        }
        let slot = computer.analysis_slot(self, from)?;
        let game = self.call(id, |reply| Command::Game { reply }).await?;
        if game.outcome().is_none() {
            return Err(RoomError::NotAllowed("a game is analysed once it is over"));
        }
        computer.analyse(self, slot, Some(id), game, within).await
    }

    /// The engine's judgement of `turns` (in notation) played from the start of `variant` with
    /// `options`, or from `position`, asked from `from`: for scripts and bots, a game that need
    /// not be stored nor over. Turns that are not notation or break the rules are refused,
    /// naming the first.
    pub async fn analyse_turns(
        &self,
        from: IpAddr,
        variant: &str,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
        turns: &[&str],
        within: Duration,
    ) -> Result<Analysis, RoomError> {
        let variant = self
            .inner
            .catalog
            .configure(variant, options)
            .map_err(|e: CatalogError| RoomError::BadVariant(e.to_string()))?;
        let start = position
            .map(|p| variant.parse_position(p))
            .transpose()
            .map_err(|e| RoomError::BadNotation(format!("position: {e}")))?;
        let game = Game::replay(variant, start, turns).map_err(|e| match e {
            ReplayError::Notation(..) => RoomError::BadNotation(e.to_string()),
            ReplayError::Illegal { .. } => RoomError::Illegal(e.to_string()),
        })?;
        let computer = &self.inner.computer;
        let slot = computer.analysis_slot(self, from)?;
        computer.analyse(self, slot, None, game, within).await
    }

    /// Attaches a connection from `browser` (the hash of its browser id, if it has one): the
    /// room queues `hello` and the state on `outbox` at once, and every change after.
    pub async fn connect(
        &self,
        id: &str,
        seat: Option<Color>,
        browser: Option<String>,
        from: IpAddr,
        outbox: Arc<Outbox>,
    ) -> Result<Connection, RoomError> {
        let conn = self
            .call(id, |reply| Command::Connect {
                seat,
                browser: browser.clone(),
                outbox: outbox.clone(),
                reply,
            })
            .await?;
        let room = self.running(id);
        Ok(Connection {
            id: conn,
            seat,
            from,
            room,
        })
    }

    /// Queues the whole state again on a connection.
    pub async fn resync(&self, id: &str, conn: &Connection) -> Result<(), RoomError> {
        self.call(id, |reply| Command::Sync {
            conn: conn.id,
            reply,
        })
        .await
    }

    /// Detaches a connection.
    pub async fn disconnect(&self, id: &str, conn: &Connection) {
        let _ = self
            .call(id, |reply| Command::Disconnect {
                conn: conn.id,
                reply,
            })
            .await;
    }

    /// The open challenges listed now, newest first, at most `limit`, each with how long it
    /// has waited (ms).
    pub async fn open_challenges(
        &self,
        limit: i64,
    ) -> Result<Vec<(crate::store::Challenge, i64)>, crate::store::StoreError> {
        let now = room_ms();
        let since = now - self.inner.config.challenge_expiry.as_millis() as i64;
        let listed = self.inner.store.open_challenges(now, since, limit).await?;
        Ok(listed
            .into_iter()
            .map(|c| {
                let waited = (now - c.created_at).max(0);
                (c, waited)
            })
            .collect())
    }

    /// Closes an unfinished game as abandoned (the stale-game sweep); false if it had ended.
    pub async fn abandon(&self, id: &str) -> Result<bool, RoomError> {
        self.call(id, |reply| Command::Abandon { reply }).await
    }
}
