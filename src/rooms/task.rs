//! The room task: the one owner of a live game. It loads the game, then handles commands one at
//! a time, and wakes on its own for clocks, presence and idleness.
//!
//! The shell around the pure core: [`Room::execute`] is the one place a game changes. It
//! stores the core's plan, and only once the store has committed it applies the change, bumps
//! the version and tells every connection.

use super::chat::{ChatLog, load_chat};
use super::command::Command;
use super::conns::Conns;
use super::core::{Ask, Change, Plan, Table};
use super::load::{load, table_from, take};
use super::{RoomError, Rooms, instant_at};
use crate::protocol::{ErrorCode, SeatView, Sides, Status};
use crate::store::StoredGame;
use crate::time::room_ms;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

/// A live game: its table and its connections.
pub(super) struct Room {
    pub table: Table,
    pub conns: Conns,
    pub next_conn: u64,
    /// The game's chats.
    pub chat: ChatLog,
    /// After a failed write of an end on time: not to try again before then.
    retry_at: i64,
    /// The version the computer is thinking about, and the flag that stops it.
    pub thinking: Option<(u64, Arc<AtomicBool>)>,
    /// How long the computer thought about its last turn.
    pub thought_ms: Option<u64>,
    /// While the computer's solved table for this board is being built: about how many
    /// seconds are left ([`super::computer`]).
    pub preparing_s: Option<u64>,
    /// Another instance has taken the game: the room ends.
    pub fenced: bool,
    /// While an open challenge's creator is here: when its listing was last renewed.
    listed_at: Option<i64>,
}

/// What woke a room.
enum Wake {
    Command(Option<Box<Command>>),
    Presence,
    Clock,
    /// An open challenge's listing is due for renewal (done at the top of the loop).
    Listing,
    Idle,
    Shutdown,
}

/// Runs a room until it is idle, the server shuts down, or its game turns out not to exist.
pub(super) async fn run(
    rooms: Rooms,
    id: String,
    generation: u64,
    owned: Arc<AtomicBool>,
    mut commands: mpsc::Receiver<Box<Command>>,
    seed: Option<StoredGame>,
) {
    let mut room = match Room::open(&rooms, &id, seed).await {
        Ok(room) => room,
        Err(e) => {
            // Not found, or (in a race) owned by another instance: the caller asks again.
            if !matches!(e, RoomError::NotFound | RoomError::Unavailable) {
                tracing::error!(game = %id, error = %e, "could not load a game");
            }
            rooms.forget(&id, generation);
            refuse_queued(&mut commands, e).await;
            return;
        }
    };
    owned.store(true, Ordering::Release);
    let shutdown = rooms.inner.shutdown.clone();
    let lapsed = rooms.lease().rooms_token();
    let mut due = Due {
        idle_since: Some(Instant::now()),
        presence: None,
    };
    // Made once: a fresh one for every command would register with the tokens each time. The
    // room ends as the server stops, or as this instance's lease on its games lapses.
    let mut shutting_down = pin!(async {
        tokio::select! {
            () = shutdown.cancelled() => {}
            () = lapsed.cancelled() => {}
        }
    });
    loop {
        room.think(&rooms);
        room.keep_listed(&rooms);
        let event = room
            .wait(&rooms, &mut commands, &due, &mut shutting_down)
            .await;
        let stop = matches!(event, Wake::Shutdown);
        match event {
            Wake::Command(None) => break,
            Wake::Command(Some(cmd)) => {
                // Who is here changes as connections come and go and seats are taken, never
                // by a player's action (which everyone hears of anyway): a turn skips the
                // comparison.
                let before = (!matches!(*cmd, Command::Act { .. })).then(|| room.presence());
                room.handle(&rooms, *cmd).await;
                room.note_who_is_here(before, &mut due);
            }
            Wake::Presence => {
                due.presence = None;
                room.broadcast(false);
            }
            Wake::Clock => {
                // A flag fell or a first move is overdue; or an absent player's opponent may
                // now claim the game, which everyone should see.
                if !room.settle_time(&rooms).await {
                    room.broadcast(false);
                }
            }
            Wake::Idle => {
                room.retire(&rooms, &id, generation, &mut commands).await;
                break;
            }
            Wake::Listing | Wake::Shutdown => {}
        }
        if stop || room.fenced {
            // The server stops, or this instance no longer owns the game: every connection is
            // told to reconnect (and finds whoever owns it now), and what is queued is refused.
            owned.store(false, Ordering::Release);
            rooms.forget(&id, generation);
            room.stop_thinking();
            for conn in room.conns.values() {
                conn.outbox
                    .close(ErrorCode::Unavailable, "server restarting");
            }
            refuse_queued(&mut commands, RoomError::Unavailable).await;
            break;
        }
    }
    tracing::debug!(game = %id, "room closed");
}

/// When a room is due to act on its own, besides its clocks and its listing.
struct Due {
    /// Since when nobody is connected; the room ends after [`super::RoomsConfig::idle`].
    idle_since: Option<Instant>,
    /// When the gathered changes of who is here go out.
    presence: Option<Instant>,
}

/// Closes a room's channel and refuses, with `e`, every command still queued in it.
async fn refuse_queued(commands: &mut mpsc::Receiver<Box<Command>>, e: RoomError) {
    commands.close();
    while let Some(cmd) = commands.recv().await {
        cmd.fail(e.clone());
    }
}

impl Room {
    /// The room of game `id`: from `seed`, a game just made, which has said nothing yet; else
    /// taken for this instance and read from the store, with its chats.
    async fn open(rooms: &Rooms, id: &str, seed: Option<StoredGame>) -> Result<Room, RoomError> {
        let (table, chat) = match seed {
            Some(stored) => (
                table_from(rooms.catalog(), &rooms.inner.config, stored)?,
                ChatLog::default(),
            ),
            None => {
                let table = take(rooms, id).await?;
                (table, load_chat(rooms, id).await?)
            }
        };
        Ok(Room::new(table, chat))
    }

    /// Waits for what wakes the room next: a command, or one of its timers. Once this
    /// instance's lease has run out by its own clock, the game may be another's already: the
    /// room answers nothing more, not even with what it holds.
    async fn wait(
        &self,
        rooms: &Rooms,
        commands: &mut mpsc::Receiver<Box<Command>>,
        due: &Due,
        shutting_down: &mut (impl Future<Output = ()> + Unpin),
    ) -> Wake {
        let listing_due = self.listing_due(rooms);
        let idle_deadline = due.idle_since.map(|t| t + rooms.inner.config.idle);
        let presence_due = due.presence;
        let wake = self.table.next_wake(room_ms(), self.retry_at);
        // The timers live only while the room waits. While it handles what woke it, and waits
        // on the store, none of its own is pending: a paused test clock cannot jump past a write.
        let event = {
            let far = Instant::now() + Duration::from_secs(86_400);
            let idle_timer = pin!(sleep_until(idle_deadline.unwrap_or(far)));
            let presence_timer = pin!(sleep_until(presence_due.unwrap_or(far)));
            let clock_timer = pin!(sleep_until(wake.map_or(far, instant_at)));
            let listing_timer = pin!(sleep_until(listing_due.map_or(far, instant_at)));
            tokio::select! {
                cmd = commands.recv() => Wake::Command(cmd),
                _ = presence_timer, if presence_due.is_some() => Wake::Presence,
                _ = clock_timer, if wake.is_some() => Wake::Clock,
                _ = listing_timer, if listing_due.is_some() => Wake::Listing,
                _ = idle_timer, if idle_deadline.is_some() => Wake::Idle,
                _ = &mut *shutting_down => Wake::Shutdown,
            }
        };
        match event {
            Wake::Command(Some(cmd)) if rooms.lease().lapsed() => {
                cmd.fail(RoomError::Unavailable);
                Wake::Shutdown
            }
            _ if rooms.lease().lapsed() => Wake::Shutdown,
            event => event,
        }
    }

    /// After a command: notes whether who is here changed since `before` (the news goes out
    /// after [`super::config::PRESENCE_DELAY`]) and whether anyone is left. A step of its
    /// own, not a wrapper around [`Room::handle`]: that wrapper's future would pass the size
    /// `clippy.toml` allows, and the room's task holds its largest future all its life.
    fn note_who_is_here(&self, before: Option<(Sides<SeatView>, u32)>, due: &mut Due) {
        if before.is_some_and(|before| self.presence() != before) && due.presence.is_none() {
            due.presence = Some(Instant::now() + super::config::PRESENCE_DELAY);
        }
        due.idle_since = match (self.conns.is_empty(), due.idle_since) {
            (true, None) => Some(Instant::now()),
            (true, since) => since,
            (false, _) => None,
        };
    }

    /// Ends an idle room: it leaves the registry first, so that new callers start a fresh room;
    /// then it answers whatever reached it in the meantime, and gives the game up, so that
    /// whichever instance is asked next takes it.
    async fn retire(
        &mut self,
        rooms: &Rooms,
        id: &str,
        generation: u64,
        commands: &mut mpsc::Receiver<Box<Command>>,
    ) {
        rooms.forget(id, generation);
        commands.close();
        while let Some(cmd) = commands.recv().await {
            self.handle(rooms, *cmd).await;
        }
        let lease = rooms.lease();
        if let Err(e) = rooms
            .store()
            .release(id, &lease.me.instance, self.table.epoch)
            .await
        {
            tracing::warn!(game = %id, error = %e, "could not give up a game");
        }
    }

    fn new(table: Table, chat: ChatLog) -> Room {
        Room {
            table,
            conns: Conns::default(),
            next_conn: 0,
            chat,
            retry_at: 0,
            thinking: None,
            thought_ms: None,
            preparing_s: None,
            fenced: false,
            listed_at: None,
        }
    }

    /// Keeps an open challenge listed while its creator is connected, in the store, which
    /// every instance's home page reads: renewed every third of the grace while they are here,
    /// and once more as they leave, so that it lapses a grace after their last connection.
    fn keep_listed(&mut self, rooms: &Rooms) {
        let table = &self.table;
        let grace = rooms.inner.config.challenge_grace.as_millis() as i64;
        let now = room_ms();
        let waiting = table.status == Status::Waiting && table.open_until.is_some();
        let here = waiting
            && crate::rules::Color::BOTH
                .into_iter()
                .any(|c| table.seats[c.index()].is_some() && self.conns.connected(c));
        match (here, self.listed_at) {
            (true, Some(at)) if now - at < grace / 3 => return,
            (true, _) => self.listed_at = Some(now),
            (false, Some(_)) => self.listed_at = None,
            (false, None) => return,
        }
        if !waiting {
            return;
        }
        let (store, id, epoch) = (rooms.store().clone(), table.id.clone(), table.epoch);
        // Off the room's loop: a listing is no move, and nothing waits on it.
        rooms.inner.tasks.spawn(async move {
            if let Err(e) = store.list_until(&id, now + grace, epoch).await {
                tracing::warn!(game = %id, error = %e, "could not renew an open challenge's listing");
            }
        });
    }

    /// When the listing is due to be renewed next, if the creator is here.
    fn listing_due(&self, rooms: &Rooms) -> Option<i64> {
        let grace = rooms.inner.config.challenge_grace.as_millis() as i64;
        self.listed_at.map(|at| at + grace / 3)
    }

    /// Stores a plan, then applies it, bumps the version and tells everyone: the one place a
    /// game changes. A write the store refuses (another writer was first) reloads the room
    /// and fails with the plan's `lost`.
    pub(super) async fn execute(
        &mut self,
        rooms: &Rooms,
        plan: Option<Plan>,
    ) -> Result<(), RoomError> {
        let Some(Plan { op, change, lost }) = plan else {
            return Ok(());
        };
        if !rooms.store().write(op).await? {
            rooms.metrics().store_refusals.inc();
            self.reload(rooms).await;
            return Err(lost);
        }
        let starts_rematch = matches!(change, Change::Rematch);
        // Checked on this very game, which only this room changes; were it ever stale, the
        // store has the truth.
        if self.table.apply(change).is_err() {
            self.reload(rooms).await;
            return Err(RoomError::Conflict);
        }
        if self.table.status == Status::Finished {
            self.table.ended_at.get_or_insert_with(room_ms);
        }
        if starts_rematch {
            self.announce_rematch();
        }
        self.table.version += 1;
        self.broadcast(false);
        Ok(())
    }

    /// Ends the game if its deadline has passed. True if it ended now.
    pub(super) async fn settle_time(&mut self, rooms: &Rooms) -> bool {
        let Ok(Some(plan)) = self.table.decide(Ask::Expire, room_ms()) else {
            return false;
        };
        match self.execute(rooms, Some(plan)).await {
            Ok(()) => true,
            Err(RoomError::Store(e)) => {
                tracing::error!(game = %self.table.id, error = %e, "could not store the end on time");
                self.retry_at = room_ms() + 1000;
                false
            }
            // The store had the game ended already: the room has reloaded.
            Err(_) => false,
        }
    }

    /// Replaces the table with what the store holds (after losing a write to another server),
    /// and pushes it to everyone.
    pub(super) async fn reload(&mut self, rooms: &Rooms) {
        match load(rooms, &self.table.id, None).await {
            Ok(fresh) if fresh.epoch != self.table.epoch => {
                // Another instance took the game: its room is the game's now.
                rooms.metrics().rooms_fenced.inc();
                tracing::info!(game = %self.table.id, "another instance took the game");
                self.fenced = true;
                return;
            }
            Ok(mut fresh) => {
                // What the store does not hold stays: who is away.
                fresh.away_since = self.table.away_since;
                // The stored version, even were it behind this room's: every write is checked
                // against it, and the clients get the whole state, whatever its version.
                self.table = fresh;
            }
            Err(e) => tracing::error!(game = %self.table.id, error = %e, "reload failed"),
        }
        self.broadcast(true);
    }
}
