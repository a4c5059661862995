//! The room task: the one owner of a live game. It loads the game, then handles commands one at
//! a time, and wakes on its own for clocks, presence and idleness.
//!
//! The shell around the pure core: [`Room::execute`] is the one place a game changes. It
//! stores the core's plan, and only once the store has committed it applies the change, bumps
//! the version and tells every connection.

use super::chat::{ChatLog, Speaker, load_chat};
use super::command::{Answer, Command};
use super::conns::{Conn, Conns};
use super::core::{Ask, Change, Fresh, Plan, Table};
use super::load::{load, table_from, take};
use super::{Acted, Action, Actor, RoomError, Rooms, SeatGrant, instant_at, secrets};
use crate::protocol::{ErrorCode, Hearing, Status};
use crate::store::StoredGame;
use crate::time::room_ms;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
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
    owned: Arc<std::sync::atomic::AtomicBool>,
    mut commands: mpsc::Receiver<Box<Command>>,
    seed: Option<StoredGame>,
) {
    // A game just made has said nothing yet; one from the store may have.
    let loaded = match seed {
        Some(stored) => table_from(rooms.catalog(), &rooms.inner.config, stored)
            .map(|table| (table, ChatLog::default())),
        None => match take(&rooms, &id).await {
            Ok(table) => load_chat(&rooms, &id).await.map(|chat| (table, chat)),
            Err(e) => Err(e),
        },
    };
    let mut room = match loaded {
        Ok((table, chat)) => Room::new(table, chat),
        Err(e) => {
            // Not found, or (in a race) owned by another instance: the caller asks again.
            if !matches!(e, RoomError::NotFound | RoomError::Unavailable) {
                tracing::error!(game = %id, error = %e, "could not load a game");
            }
            rooms.forget(&id, generation);
            commands.close();
            while let Some(cmd) = commands.recv().await {
                cmd.fail(e.clone());
            }
            return;
        }
    };
    owned.store(true, std::sync::atomic::Ordering::Release);
    let config = rooms.inner.config.clone();
    let shutdown = rooms.inner.shutdown.clone();
    let lapsed = rooms.lease().rooms_token();
    let mut idle_since = Some(Instant::now());
    let mut presence_due: Option<Instant> = None;
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
        let listing_due = room.listing_due(&rooms);
        let idle_deadline = idle_since.map(|t| t + config.idle);
        let wake = room.table.next_wake(room_ms(), room.retry_at);
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
                _ = &mut shutting_down => Wake::Shutdown,
            }
        };
        // A lease run out by this instance's own clock: the game may be another's already, so
        // the room answers nothing more, not even with what it holds.
        let event = match event {
            Wake::Command(Some(cmd)) if rooms.lease().lapsed() => {
                cmd.fail(RoomError::Unavailable);
                Wake::Shutdown
            }
            _ if rooms.lease().lapsed() => Wake::Shutdown,
            event => event,
        };
        let stop = matches!(event, Wake::Shutdown);
        match event {
            Wake::Command(None) => break,
            Wake::Command(Some(cmd)) => {
                // Who is here changes as connections come and go and seats are taken, never
                // by a player's action (which everyone hears of anyway): a turn skips the
                // comparison.
                let presence_before =
                    (!matches!(*cmd, Command::Act { .. })).then(|| room.presence());
                room.handle(&rooms, *cmd).await;
                if presence_before.is_some_and(|before| room.presence() != before)
                    && presence_due.is_none()
                {
                    presence_due = Some(Instant::now() + config.presence_delay);
                }
                idle_since = match (room.conns.is_empty(), idle_since) {
                    (true, None) => Some(Instant::now()),
                    (true, since) => since,
                    (false, _) => None,
                };
            }
            Wake::Presence => {
                presence_due = None;
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
                // Leave the registry first, so that new callers start a fresh room; then answer
                // whatever reached this one in the meantime.
                rooms.forget(&id, generation);
                commands.close();
                while let Some(cmd) = commands.recv().await {
                    room.handle(&rooms, *cmd).await;
                }
                // Whichever instance is asked next takes the game.
                let lease = rooms.lease();
                if let Err(e) = rooms
                    .store()
                    .release(&id, &lease.me.instance, room.table.epoch)
                    .await
                {
                    tracing::warn!(game = %id, error = %e, "could not give up a game");
                }
                break;
            }
            Wake::Listing | Wake::Shutdown => {}
        }
        if stop || room.fenced {
            // The server stops, or this instance no longer owns the game: every connection is
            // told to reconnect (and finds whoever owns it now), and what is queued is refused.
            owned.store(false, std::sync::atomic::Ordering::Release);
            rooms.forget(&id, generation);
            room.stop_thinking();
            for conn in room.conns.values() {
                conn.outbox
                    .close(ErrorCode::Unavailable, "server restarting");
            }
            commands.close();
            while let Some(cmd) = commands.recv().await {
                cmd.fail(RoomError::Unavailable);
            }
            break;
        }
    }
    tracing::debug!(game = %id, "room closed");
}

impl Room {
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
        let starts_rematch = matches!(change, Change::Rematch(_));
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

    async fn handle(&mut self, rooms: &Rooms, cmd: Command) {
        // Time first: the computer is not charged for waiting for a thread, and whatever is
        // asked, a deadline that has passed has ended the game.
        self.table.credit_held_clock(room_ms(), true);
        self.settle_time(rooms).await;
        match cmd {
            Command::Act {
                actor,
                from,
                action,
                sent,
                answer,
            } => {
                let turn = matches!(action, Action::Turn(_));
                let acted = self.act(rooms, actor, from, action).await;
                if turn {
                    rooms.count_turn(sent, &acted);
                }
                match (acted, answer) {
                    (Ok(rematch), Answer::Wait(reply)) => {
                        let state = self.state();
                        let _ = reply.send(Ok(Acted { state, rematch }));
                    }
                    (Ok(_), Answer::Queue(_)) => {}
                    (Err(e), answer) => answer.refuse(e, Some(&|| self.whole())),
                }
            }
            Command::Authenticate { hash, reply } => {
                let seat = hash.as_deref().and_then(|h| self.table.seat_of_hash(h));
                let _ = reply.send(Ok(seat));
            }
            Command::Join { name, reply } => {
                let _ = reply.send(self.join(rooms, name).await);
            }
            Command::MoveSeat {
                hash,
                browser,
                reply,
            } => {
                let _ = reply.send(self.move_seat(rooms, &hash, browser).await);
            }
            Command::State { reply } => {
                let _ = reply.send(Ok(self.state()));
            }
            Command::Record { reply } => {
                let _ = reply.send(Ok(self.record()));
            }
            Command::Game { reply } => {
                let _ = reply.send(Ok(self.table.game.clone()));
            }
            Command::Connect {
                seat,
                browser,
                outbox,
                reply,
            } => {
                let id = self.next_conn;
                self.next_conn += 1;
                let hello = self.hello(rooms.catalog(), seat);
                outbox.push_event(hello, || self.whole());
                let hearing = Hearing::default_for(seat);
                self.conns.insert(
                    id,
                    Conn {
                        seat,
                        outbox: outbox.clone(),
                        hearing,
                        browser,
                    },
                );
                if let Some(seat) = seat {
                    self.table.arrive(seat, room_ms());
                }
                // The newcomer gets the state with itself counted, and the chat it hears;
                // others hear of it shortly.
                self.push_whole(&outbox, hearing);
                let _ = reply.send(Ok(id));
            }
            Command::Sync { conn, reply } => {
                if let Some(conn) = self.conns.get(conn) {
                    self.push_whole(&conn.outbox, conn.hearing);
                }
                let _ = reply.send(Ok(()));
            }
            Command::Say {
                conn,
                from,
                text,
                outbox,
            } => {
                if let Err(e) = self.say(rooms, conn, from, &text).await {
                    Answer::Queue(outbox).refuse(e, Some(&|| self.whole()));
                }
            }
            Command::Hear { conn, hearing } => self.set_hearing(conn, hearing),
            Command::Disconnect { conn, reply } => {
                match self.conns.remove(conn) {
                    Some(Conn {
                        seat: Some(seat), ..
                    }) if !self.conns.connected(seat) => {
                        self.table.away_since[seat.index()] = Some(room_ms());
                    }
                    Some(Conn { seat: None, .. }) => self.chat.forget(Speaker::Spectator(conn)),
                    _ => {}
                }
                let _ = reply.send(Ok(()));
            }
            Command::Abandon { reply } => {
                let _ = reply.send(self.abandon(rooms).await);
            }
            Command::SeatComputer { level, reply } => {
                let ask = Ask::Join {
                    hash: super::computer::seat_marker(level),
                    name: None,
                };
                let result = match self.table.decide(ask, room_ms()) {
                    Ok(plan) => self.execute(rooms, plan).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Command::ComputerStarted { version } => {
                if self.thinking.as_ref().is_some_and(|(v, _)| *v == version) {
                    self.table.credit_held_clock(room_ms(), false);
                }
            }
            Command::ComputerTurn {
                version,
                turn,
                thought_ms,
            } => {
                self.play_computer_turn(rooms, version, turn, thought_ms)
                    .await
            }
        }
    }

    /// A player's action: decided by the core, then executed. The ask that starts a rematch
    /// creates a game, which `from` is charged for. Answers a rematch with the actor's seat in
    /// it, once it has started.
    pub(super) async fn act(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
        from: IpAddr,
        action: Action,
    ) -> Result<Option<SeatGrant>, RoomError> {
        // A rematch's seats are held by the players' secrets of this game.
        let secret = match &actor {
            Actor::Secret(secret) => secret.clone(),
            Actor::Seat(_) => None,
        };
        let seat = self.seat_for(actor)?;
        let now = room_ms();
        let ask = match action {
            Action::Turn(text) => Ask::Turn { seat, text },
            Action::End(ending) => Ask::End { seat, ending },
            Action::Draw(action) => Ask::Draw { seat, action },
            Action::Takeback(action) => Ask::Takeback { seat, action },
            Action::RematchDecline => Ask::RematchDecline { seat },
            Action::Name(name) => Ask::Name { seat, name },
            Action::Cancel => Ask::Cancel { seat },
            Action::Rematch => Ask::Rematch {
                seat,
                fresh: Fresh {
                    id: secrets::new_id(now),
                },
            },
        };
        let rematch = matches!(ask, Ask::Rematch { .. });
        let plan = self.table.decide(ask, now)?;
        if let Some(Plan {
            change: Change::Rematch(_),
            ..
        }) = &plan
        {
            rooms.charge(from, self.table.against_computer())?;
        }
        let asked_again = rematch && plan.is_none() && self.table.rematch.is_some();
        self.execute(rooms, plan).await?;
        self.answer_for_computer(rooms, seat, from).await;
        if asked_again {
            // Whoever has not gone to their seat yet (after a restart, say) is sent there again.
            self.announce_rematch();
        }
        Ok(rematch
            .then(|| self.table.rematch_seat(seat, secret?))
            .flatten())
    }

    /// The seat an actor holds, or why it holds none. A player acting over HTTP is there now,
    /// as far as an absence claim is concerned.
    fn seat_for(&mut self, actor: Actor) -> Result<crate::rules::Color, RoomError> {
        let seat = match actor {
            Actor::Seat(seat) => seat,
            Actor::Secret(None) => return Err(RoomError::Unauthenticated),
            Actor::Secret(Some(secret)) => self.table.seat_of_secret(&secret),
        }
        .ok_or(RoomError::NotSeated)?;
        if let Some(since) = &mut self.table.away_since[seat.index()] {
            *since = room_ms();
        }
        Ok(seat)
    }

    async fn join(
        &mut self,
        rooms: &Rooms,
        name: Option<crate::protocol::PlayerName>,
    ) -> Result<SeatGrant, RoomError> {
        let secret = secrets::new_secret();
        let ask = Ask::Join {
            hash: secrets::hash(&secret),
            name,
        };
        let plan = self.table.decide(ask, room_ms())?;
        self.execute(rooms, plan).await?;
        let color = self
            .table
            .seat_of_secret(&secret)
            .ok_or(RoomError::SeatsTaken)?;
        Ok(SeatGrant {
            id: self.table.id.clone(),
            color,
            secret,
        })
    }

    /// Moves the seat whose secret hashes to `hash` to `browser` with a new secret: once it is
    /// stored, the connections that held the seat by the old secret are closed, told why.
    async fn move_seat(
        &mut self,
        rooms: &Rooms,
        hash: &str,
        browser: String,
    ) -> Result<SeatGrant, RoomError> {
        let seat = self.table.seat_of_hash(hash).ok_or(RoomError::NotSeated)?;
        let secret = secrets::new_secret();
        let ask = Ask::MoveSeat {
            seat,
            to_hash: secrets::hash(&secret),
            browser,
        };
        let plan = self.table.decide(ask, room_ms())?;
        self.execute(rooms, plan).await?;
        for conn in self.conns.values().filter(|c| c.seat == Some(seat)) {
            conn.outbox.close(
                ErrorCode::SeatMoved,
                RoomError::SeatMoved.to_string().as_str(),
            );
        }
        Ok(SeatGrant {
            id: self.table.id.clone(),
            color: seat,
            secret,
        })
    }

    /// Ends an unfinished game as abandoned; false if it had ended (here or, as the store
    /// said, elsewhere).
    async fn abandon(&mut self, rooms: &Rooms) -> Result<bool, RoomError> {
        let Some(plan) = self.table.decide(Ask::Abandon, room_ms())? else {
            return Ok(false);
        };
        match self.execute(rooms, Some(plan)).await {
            Ok(()) => Ok(true),
            Err(e @ RoomError::Store(_)) => Err(e),
            Err(_) => Ok(false),
        }
    }

    /// Ends the game if its deadline has passed. True if it ended now.
    async fn settle_time(&mut self, rooms: &Rooms) -> bool {
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
