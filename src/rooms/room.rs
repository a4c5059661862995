//! One room: the task that owns one live game. It loads the game by replaying its stored turns,
//! then handles commands one at a time: check with the rules, store, and only when the store has
//! committed, apply and push the new state to every connection.

use super::outbox::{Outbox, error_frame};
use super::{
    Actor, Ending, OfferAction, RoomError, Rooms, SeatGrant, clock_row, instant_at, now_ms, secrets,
};
use crate::catalog::parse_options;
use crate::clock::{Clock, Expiry, TimeControl};
use crate::protocol::{
    ClaimView, ClockView, GameState, SeatView, ServerMessage, Sides, StateView, Status, hello_json,
};
use crate::rules::{Color, Game, Outcome, Termination};
use crate::store::{ClockRow, GameEnd, OfferKind, SeatColumn, StoredGame, WriteOp};
use axum::extract::ws::Utf8Bytes;
use std::collections::HashMap;
use std::pin::pin;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

type Reply<T> = oneshot::Sender<Result<T, RoomError>>;

/// What a room can be asked.
#[derive(Debug)]
pub(super) enum Command {
    Authenticate {
        secret: Option<String>,
        reply: Reply<Option<Color>>,
    },
    Join {
        reply: Reply<SeatGrant>,
    },
    Move {
        actor: Actor,
        turn: String,
        reply: Reply<GameState>,
    },
    /// A turn from a connection, which hears how it went with everyone else (the new state) or
    /// on its own (why it was refused): nothing waits for an answer.
    Turn {
        actor: Actor,
        turn: String,
        sent: Instant,
        outbox: Arc<Outbox>,
    },
    End {
        actor: Actor,
        ending: Ending,
        reply: Reply<GameState>,
    },
    Draw {
        actor: Actor,
        action: OfferAction,
        reply: Reply<GameState>,
    },
    Rematch {
        actor: Actor,
        reply: Reply<(GameState, Option<SeatGrant>)>,
    },
    Takeback {
        actor: Actor,
        action: OfferAction,
        reply: Reply<GameState>,
    },
    State {
        reply: Reply<GameState>,
    },
    Record {
        reply: Reply<String>,
    },
    Connect {
        seat: Option<Color>,
        handoff_url: Option<String>,
        outbox: Arc<Outbox>,
        reply: Reply<u64>,
    },
    Sync {
        conn: u64,
        reply: Reply<()>,
    },
    Disconnect {
        conn: u64,
        reply: Reply<()>,
    },
    Abandon {
        reply: Reply<bool>,
    },
}

/// What woke a room.
enum Wake {
    Command(Option<Box<Command>>),
    Presence,
    Clock,
    Idle,
    Shutdown,
}

struct Conn {
    seat: Option<Color>,
    outbox: Arc<Outbox>,
}

/// The room's connections, with who is there counted as they come and go: the presence in
/// every state, and the check after every command whether it changed, then cost nothing however
/// many watch.
#[derive(Default)]
struct Conns {
    by_id: HashMap<u64, Conn>,
    /// Connections per seat, White's and Black's.
    seated: [u32; 2],
    spectators: u32,
}

impl Conns {
    fn count(&mut self, seat: Option<Color>) -> &mut u32 {
        match seat {
            Some(c) => &mut self.seated[c.index()],
            None => &mut self.spectators,
        }
    }

    fn insert(&mut self, id: u64, conn: Conn) {
        *self.count(conn.seat) += 1;
        if let Some(old) = self.by_id.insert(id, conn) {
            *self.count(old.seat) -= 1;
        }
    }

    fn remove(&mut self, id: u64) -> Option<Conn> {
        let conn = self.by_id.remove(&id)?;
        *self.count(conn.seat) -= 1;
        Some(conn)
    }

    fn get(&self, id: u64) -> Option<&Conn> {
        self.by_id.get(&id)
    }

    fn values(&self) -> impl Iterator<Item = &Conn> {
        self.by_id.values()
    }

    fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Whether `seat` has a connection.
    fn connected(&self, seat: Color) -> bool {
        self.seated[seat.index()] > 0
    }
}

struct Room {
    id: String,
    game: Game,
    seats: [Option<String>; 2],
    status: Status,
    version: u64,
    conns: Conns,
    next_conn: u64,
    /// The current state message, encoded once and shared by every connection.
    latest: Utf8Bytes,
    /// The time control, and the clocks once both seats are filled (timed games only).
    control: TimeControl,
    clock: Option<Clock>,
    /// For each seat, since when it has had no connection (rooms' time); `None` while it has
    /// one. An HTTP action counts as being there at that moment.
    away_since: [Option<i64>; 2],
    /// A pending draw offer: who made it, at which ply. It lapses once a turn is played.
    draw_offer: Option<(Color, usize)>,
    /// A pending takeback request: who asked, at which ply. It lapses once a turn is played.
    takeback_offer: Option<(Color, usize)>,
    /// After the end: who asked for a rematch.
    rematch_offer: Option<Color>,
    /// The rematch once started: its id and, in the room that started it, the new secrets of
    /// this game's White and Black (to hand each player their new seat again if they ask; the
    /// store keeps only hashes).
    rematch: Option<(String, Option<[String; 2]>)>,
    /// After a failed write of an end on time: not to try again before then.
    retry_at: i64,
    /// How long the player to move may be gone before the opponent may claim the game, by the
    /// time control and the server's settings; `None` where there are no claims.
    absence_ms: Option<i64>,
}

/// Runs a room until it is idle, the server shuts down, or its game turns out not to exist.
pub(super) async fn run(
    rooms: Rooms,
    id: String,
    generation: u64,
    mut commands: mpsc::Receiver<Box<Command>>,
    seed: Option<StoredGame>,
) {
    let loaded = match seed {
        Some(stored) => room_from(&rooms, stored),
        None => Box::pin(load(&rooms, &id)).await,
    };
    let mut room = match loaded {
        Ok(room) => room,
        Err(e) => {
            if e != RoomError::NotFound {
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
    let config = rooms.inner.config.clone();
    let shutdown = rooms.inner.shutdown.clone();
    let mut idle_since = Some(Instant::now());
    let mut presence_due: Option<Instant> = None;
    // Made once: a fresh one for every command would register with the token each time.
    let mut shutting_down = pin!(shutdown.cancelled());
    loop {
        let idle_deadline = idle_since.map(|t| t + config.idle);
        let wake = room.next_wake();
        // The timers live only while the room waits. While it handles what woke it, and waits
        // on the store, none of its own is pending: a paused test clock cannot jump past a write.
        let event = {
            let far = Instant::now() + std::time::Duration::from_secs(86_400);
            let idle_timer = pin!(sleep_until(idle_deadline.unwrap_or(far)));
            let presence_timer = pin!(sleep_until(presence_due.unwrap_or(far)));
            let clock_timer = pin!(sleep_until(wake.map_or(far, instant_at)));
            tokio::select! {
                cmd = commands.recv() => Wake::Command(cmd),
                _ = presence_timer, if presence_due.is_some() => Wake::Presence,
                _ = clock_timer, if wake.is_some() => Wake::Clock,
                _ = idle_timer, if idle_deadline.is_some() => Wake::Idle,
                _ = &mut shutting_down => Wake::Shutdown,
            }
        };
        match event {
            Wake::Command(None) => break,
            Wake::Command(Some(cmd)) => {
                let presence_before = room.presence();
                // Boxed: a room waiting for commands keeps no room for the largest one. A
                // turn, the command sent most, has a future of its own, a fraction of that size:
                // a small allocation is one the allocator serves from its per-thread cache.
                match *cmd {
                    Command::Turn {
                        actor,
                        turn,
                        sent,
                        outbox,
                    } => Box::pin(room.take_turn(&rooms, actor, &turn, sent, &outbox)).await,
                    cmd => Box::pin(room.handle(&rooms, cmd)).await,
                }
                if room.presence() != presence_before && presence_due.is_none() {
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
                room.broadcast_state();
            }
            Wake::Clock => {
                // A flag fell or a first move is overdue; or an absent player's opponent may
                // now claim the game, which everyone should see.
                if !Box::pin(room.settle_time(&rooms)).await {
                    room.broadcast_state();
                }
            }
            Wake::Idle => {
                // Leave the registry first, so that new callers start a fresh room; then answer
                // whatever reached this one in the meantime.
                rooms.forget(&id, generation);
                commands.close();
                while let Some(cmd) = commands.recv().await {
                    Box::pin(room.handle(&rooms, *cmd)).await;
                }
                break;
            }
            Wake::Shutdown => {
                for conn in room.conns.values() {
                    conn.outbox
                        .close(crate::http::error::CLOSE_RESTART, "server restarting");
                }
                commands.close();
                while let Some(cmd) = commands.recv().await {
                    cmd.fail(RoomError::Unavailable);
                }
                break;
            }
        }
    }
    tracing::debug!(game = %id, "room closed");
}

impl Command {
    fn fail(self, e: RoomError) {
        match self {
            Command::Authenticate { reply, .. } => drop(reply.send(Err(e))),
            Command::Join { reply } => drop(reply.send(Err(e))),
            Command::Move { reply, .. } => drop(reply.send(Err(e))),
            Command::Turn { outbox, .. } => {
                outbox.push_reply(error_frame(e.code(), e.to_string()));
            }
            Command::End { reply, .. }
            | Command::Draw { reply, .. }
            | Command::Takeback { reply, .. }
            | Command::State { reply } => drop(reply.send(Err(e))),
            Command::Record { reply } => drop(reply.send(Err(e))),
            Command::Connect { reply, .. } => drop(reply.send(Err(e))),
            Command::Sync { reply, .. } | Command::Disconnect { reply, .. } => {
                drop(reply.send(Err(e)))
            }
            Command::Abandon { reply } => drop(reply.send(Err(e))),
            Command::Rematch { reply, .. } => drop(reply.send(Err(e))),
        }
    }
}

/// Rebuilds a room from the store: the variant with its options, then every stored turn.
async fn load(rooms: &Rooms, id: &str) -> Result<Room, RoomError> {
    let stored = rooms.store().load(id).await?.ok_or(RoomError::NotFound)?;
    room_from(rooms, stored)
}

fn room_from(rooms: &Rooms, stored: StoredGame) -> Result<Room, RoomError> {
    let row = &stored.game;
    let corrupt = |why: String| RoomError::Store(crate::store::StoreError::Database(why));
    let options = parse_options(&row.options).map_err(|e| corrupt(e.to_string()))?;
    let variant = rooms
        .catalog()
        .configure(&row.variant, &options)
        .map_err(|e| corrupt(e.to_string()))?;
    let turns: Vec<&str> = stored.turns.iter().map(|t| t.notation.as_str()).collect();
    let mut game = Game::replay(variant, None, &turns).map_err(|e| corrupt(e.to_string()))?;
    let status = Status::parse(&row.status).ok_or_else(|| corrupt(row.status.clone()))?;
    // A game that the store says ended, though its turns did not end it, ended off the board.
    if status == Status::Finished && game.outcome().is_none() {
        let termination = row
            .termination
            .as_deref()
            .and_then(Termination::parse)
            .unwrap_or(Termination::Abandonment);
        let winner = match row.result.as_deref() {
            Some("1-0") => Some(Color::White),
            Some("0-1") => Some(Color::Black),
            _ => None,
        };
        game.end(Outcome {
            winner,
            termination,
        });
    }
    let control = TimeControl::parse(&row.time_control).map_err(|e| corrupt(e.to_string()))?;
    // The clocks as of the latest snapshot: the last turn's, or the game's own (the start, a
    // takeback, the end), which is never older than the turns it follows.
    let clock = (control.is_timed() && status != Status::Waiting).then(|| {
        let last_turn = stored.turns.last().and_then(|t| {
            let [white_ms, black_ms] = t.clock?;
            Some(ClockRow {
                white_ms,
                black_ms,
                at: t.played_at,
            })
        });
        match [last_turn, row.clock]
            .into_iter()
            .flatten()
            .max_by_key(|c| c.at)
        {
            Some(c) => Clock {
                control,
                left: [c.white_ms, c.black_ms],
                since: c.at,
            },
            None => Clock::start(control, row.updated_at),
        }
    });
    let color = |name: &str| Color::BOTH.into_iter().find(|c| c.name() == name);
    let offer = |offer: &Option<(String, i64)>| {
        let (by, ply) = offer.as_ref()?;
        Some((color(by)?, usize::try_from(*ply).ok()?))
    };
    let now = now_ms();
    let mut room = Room {
        id: row.id.clone(),
        game,
        seats: [row.white_secret_hash.clone(), row.black_secret_hash.clone()],
        status,
        version: stored.version() as u64,
        conns: Conns::default(),
        next_conn: 0,
        latest: Utf8Bytes::from_static(""),
        control,
        clock,
        // Nobody is connected to a room just loaded: every seat is away from now on.
        away_since: [Some(now); 2],
        draw_offer: offer(&row.draw_offer),
        takeback_offer: offer(&row.takeback_offer),
        rematch_offer: row.rematch_offer.as_deref().and_then(color),
        rematch: row.rematch_id.clone().map(|id| (id, None)),
        retry_at: 0,
        absence_ms: match control {
            TimeControl::Untimed => Some(rooms.inner.config.absent_untimed),
            TimeControl::Fischer { .. } => Some(rooms.inner.config.absent_timed),
            TimeControl::Days(_) => None,
        }
        .map(|d| d.as_millis() as i64),
    };
    room.refresh();
    Ok(room)
}

impl Room {
    fn seat_views(&self) -> Sides<SeatView> {
        Sides::from_fn(|c| SeatView {
            taken: self.seats[c.index()].is_some(),
            connected: self.conns.connected(c),
        })
    }

    fn spectators(&self) -> u32 {
        self.conns.spectators
    }

    fn presence(&self) -> (Sides<SeatView>, u32) {
        (self.seat_views(), self.spectators())
    }

    /// The state as everyone sees it now, borrowed from the room.
    fn view(&self) -> StateView<'_> {
        let now = now_ms();
        StateView {
            draw_offer: self.pending_draw(),
            takeback_offer: self.pending_takeback(),
            rematch_offer: self.rematch_offer,
            rematch: self.rematch.as_ref().map(|(id, _)| id.as_str()),
            time_control: self.control,
            clock: self.clock.map(|clock| self.clock_view(&clock, now)),
            claim: self.claim_from().map(|(by, at)| ClaimView {
                by,
                in_ms: (at - now).max(0),
            }),
            ..StateView::new(
                &self.id,
                self.version,
                &self.game,
                self.status,
                self.seat_views(),
                self.spectators(),
            )
        }
    }

    /// The state, owned, for an answer.
    fn state(&self) -> GameState {
        self.view().to_state()
    }

    /// The clocks as everyone sees them at `now`: ticking only while the game is on.
    fn clock_view(&self, clock: &Clock, now: i64) -> ClockView {
        let plies = self.game.turns().len();
        let to_move = self.game.to_move();
        let on = self.status == Status::Playing;
        let left = if on {
            clock.left_at(now, plies, to_move)
        } else {
            clock.left
        };
        let first_move_ms = match self.deadline() {
            Some((at, Expiry::Abort)) => Some((at - now).max(0)),
            _ => None,
        };
        ClockView {
            white_ms: left[Color::White.index()],
            black_ms: left[Color::Black.index()],
            running: (on && clock.runs(plies)).then_some(to_move),
            first_move_ms,
        }
    }

    /// When the turn under way runs out, and what happens then; `None` unless a timed game is on.
    fn deadline(&self) -> Option<(i64, Expiry)> {
        if self.status != Status::Playing {
            return None;
        }
        self.clock?
            .deadline(self.game.turns().len(), self.game.to_move())
    }

    /// Who may claim the game because the opponent is gone on their own turn, and from when.
    /// Not before both players have moved: until then the game can simply be aborted.
    fn claim_from(&self) -> Option<(Color, i64)> {
        if self.status != Status::Playing || self.game.turns().len() < 2 {
            return None;
        }
        let absent = self.game.to_move();
        let since = self.away_since[absent.index()]?;
        Some((absent.opponent(), since + self.absence_ms?))
    }

    /// Fresh clocks for a timed game whose seats are filled at `at`.
    fn start_clock(&self, at: i64) -> Option<Clock> {
        self.control
            .is_timed()
            .then(|| Clock::start(self.control, at))
    }

    /// The clocks stopped at `at`, charged up to then: what a takeback or an end stores.
    fn stopped_clock(&self, at: i64) -> Option<Clock> {
        let (plies, to_move) = (self.game.turns().len(), self.game.to_move());
        self.clock.map(|c| c.stopped_at(at, plies, to_move))
    }

    /// The next moment the room must act on its own: a deadline, or a claim becoming possible.
    fn next_wake(&self) -> Option<i64> {
        let now = now_ms();
        let claim = self.claim_from().map(|(_, at)| at).filter(|&at| at > now);
        let deadline = self.deadline().map(|(at, _)| at.max(self.retry_at));
        [deadline, claim].into_iter().flatten().min()
    }

    /// Ends the game if its deadline has passed: the player to move loses on time, or the game
    /// is aborted for want of a first move. True if it ended now.
    async fn settle_time(&mut self, rooms: &Rooms) -> bool {
        let Some((at, expiry)) = self.deadline().filter(|&(at, _)| at <= now_ms()) else {
            return false;
        };
        let outcome = match expiry {
            Expiry::Abort => Outcome::draw(Termination::Aborted),
            Expiry::Flag => Outcome::win(self.game.to_move().opponent(), Termination::Time),
        };
        // Boxed, as it is rare: every command's future would otherwise have room for it.
        match Box::pin(self.finish_at(rooms, outcome, at)).await {
            Ok(ended) => ended,
            Err(e) => {
                tracing::error!(game = %self.id, error = %e, "could not store the end on time");
                self.retry_at = now_ms() + 1000;
                false
            }
        }
    }

    fn pending_takeback(&self) -> Option<Color> {
        self.standing(self.takeback_offer)
    }

    /// Who made an offer that still stands: made at the current ply, in a game that is on.
    fn standing(&self, offer: Option<(Color, usize)>) -> Option<Color> {
        offer
            .filter(|&(_, ply)| ply == self.game.turns().len() && self.status == Status::Playing)
            .map(|(by, _)| by)
    }

    /// The seat of an actor in a game that is on, or why it cannot act.
    fn seat_in_play(&mut self, actor: Actor) -> Result<Color, RoomError> {
        let seat = self.seat_for(actor)?;
        match self.status {
            Status::Finished => Err(RoomError::GameOver),
            Status::Waiting => Err(RoomError::NotStarted),
            Status::Playing => Ok(seat),
        }
    }

    /// A takeback: asked for by one player, accepted or declined by the other. Accepting undoes
    /// the last turn or two, so that the asker is to move again.
    async fn takeback(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
        action: OfferAction,
    ) -> Result<GameState, RoomError> {
        let seat = self.seat_in_play(actor)?;
        let plies = self.game.turns().len();
        let pending = self.pending_takeback();
        match action {
            OfferAction::Offer => {
                // The asker's own last turn must exist: White's first turn is ply 0.
                let asker_moved = plies > usize::from(seat == Color::Black);
                if !asker_moved {
                    return Err(RoomError::NotAllowed("you have no turn to take back"));
                }
                if pending.is_some() {
                    return Err(RoomError::NotAllowed(
                        "a takeback request is already pending",
                    ));
                }
                let offer = Some((seat, plies));
                self.store_offer(rooms, OfferKind::Takeback, offer).await?;
                self.takeback_offer = offer;
            }
            OfferAction::Decline if pending == Some(seat.opponent()) => {
                self.store_offer(rooms, OfferKind::Takeback, None).await?;
                self.takeback_offer = None;
            }
            OfferAction::Accept if pending == Some(seat.opponent()) => {
                let asker = seat.opponent();
                // Undo until the asker is to move again, having taken back its own last turn.
                let undo = if self.game.to_move() == asker { 2 } else { 1 };
                let keep = plies.saturating_sub(undo);
                let now = now_ms();
                // Time spent is not given back: the clocks stop where they stand, and the
                // asker's runs again from now.
                let clock = self.stopped_clock(now);
                let op = WriteOp::TakeBack {
                    id: self.id.clone(),
                    from_ply: keep as i64,
                    at: now,
                    clock: clock.as_ref().map(clock_row),
                };
                if !rooms.store().write(op).await? {
                    self.reload(rooms).await;
                    return Err(RoomError::GameOver);
                }
                let turns = self.game.turn_strings().to_vec();
                let variant = self.game.variant().clone();
                let start = *self.game.start();
                self.game = Game::replay(variant, Some(start), &turns[..keep]).map_err(|e| {
                    RoomError::Store(crate::store::StoreError::Database(e.to_string()))
                })?;
                self.clock = clock;
                self.takeback_offer = None;
                self.draw_offer = None;
            }
            OfferAction::Accept | OfferAction::Decline => {
                return Err(RoomError::NotAllowed(
                    "there is no takeback request to answer",
                ));
            }
        }
        self.version += 1;
        self.broadcast_state();
        Ok(self.state())
    }

    /// A rematch: offered by one player, started when the other asks too, with colours swapped.
    async fn rematch(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
    ) -> Result<(GameState, Option<SeatGrant>), RoomError> {
        let seat = self.seat_for(actor)?;
        if self.status != Status::Finished {
            return Err(RoomError::NotAllowed(
                "a rematch comes after the end of the game",
            ));
        }
        let grant = |id: &str, secrets: &[String; 2]| SeatGrant {
            id: id.to_string(),
            color: seat.opponent(),
            secret: secrets[seat.index()].clone(),
        };
        if let Some((id, secrets)) = &self.rematch {
            return Ok((self.state(), secrets.as_ref().map(|s| grant(id, s))));
        }
        if self.rematch_offer != Some(seat.opponent()) {
            if self.rematch_offer != Some(seat) {
                self.store_offer(rooms, OfferKind::Rematch, Some((seat, 0)))
                    .await?;
                self.rematch_offer = Some(seat);
                self.version += 1;
                self.broadcast_state();
            }
            return Ok((self.state(), None));
        }
        // This game's White plays Black in the rematch, and the other way round.
        let secrets = [secrets::new_secret(), secrets::new_secret()];
        let variant = self.game.variant();
        let at = now_ms();
        let id = secrets::new_id(at);
        let row = crate::store::GameRow {
            id: id.clone(),
            variant: variant.slug().to_string(),
            options: variant.options_string(),
            time_control: self.control.to_string(),
            white_secret_hash: Some(secrets::hash(&secrets[Color::Black.index()])),
            black_secret_hash: Some(secrets::hash(&secrets[Color::White.index()])),
            status: Status::Playing.as_str().into(),
            created_at: at,
            updated_at: at,
            version: 2,
            clock: self.start_clock(at).as_ref().map(clock_row),
            ..Default::default()
        };
        let op = WriteOp::StartRematch {
            id: self.id.clone(),
            game: Box::new(row),
        };
        if !rooms.store().write(op).await? {
            // Another server started it first.
            self.reload(rooms).await;
            return Err(RoomError::Conflict);
        }
        for conn in self.conns.values() {
            let handoff_url = conn
                .seat
                .map(|c| format!("/g/{id}?seat={}", secrets[c.index()]));
            let message = ServerMessage::Rematch {
                game: id.clone(),
                handoff_url,
            };
            conn.outbox
                .push_event(Utf8Bytes::from(message.to_json()), &self.latest);
        }
        self.rematch_offer = None;
        self.rematch = Some((id.clone(), Some(secrets.clone())));
        self.version += 1;
        self.broadcast_state();
        Ok((self.state(), Some(grant(&id, &secrets))))
    }

    /// Stores a pending offer (or its end) before the room shows it; if the store says the game
    /// moved on (another server), the room catches up and the action fails.
    async fn store_offer(
        &mut self,
        rooms: &Rooms,
        kind: OfferKind,
        offer: Option<(Color, usize)>,
    ) -> Result<(), RoomError> {
        let op = WriteOp::SetOffer {
            id: self.id.clone(),
            kind,
            by: offer.map(|(by, ply)| (by.name().to_string(), ply as i64)),
            at: now_ms(),
        };
        if rooms.store().write(op).await? {
            Ok(())
        } else {
            self.reload(rooms).await;
            Err(RoomError::GameOver)
        }
    }

    fn pending_draw(&self) -> Option<Color> {
        self.standing(self.draw_offer)
    }

    async fn draw(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
        action: OfferAction,
    ) -> Result<GameState, RoomError> {
        let seat = self.seat_in_play(actor)?;
        let pending = self.pending_draw();
        let from_opponent = pending == Some(seat.opponent());
        match action {
            OfferAction::Accept | OfferAction::Offer if from_opponent => {
                self.finish(rooms, Outcome::draw(Termination::Agreement))
                    .await?;
                return Ok(self.state());
            }
            OfferAction::Accept | OfferAction::Decline if !from_opponent => {
                return Err(RoomError::NotAllowed("there is no draw offer to answer"));
            }
            OfferAction::Offer if pending == Some(seat) => {
                return Err(RoomError::NotAllowed(
                    "your draw offer is already on the table",
                ));
            }
            _ => {}
        }
        let offer = (action == OfferAction::Offer).then(|| (seat, self.game.turns().len()));
        self.store_offer(rooms, OfferKind::Draw, offer).await?;
        self.draw_offer = offer;
        self.version += 1;
        self.broadcast_state();
        Ok(self.state())
    }

    /// Builds the state now, and encodes it once for everyone.
    fn refresh(&mut self) {
        self.latest = Utf8Bytes::from(self.view().to_json());
    }

    /// Encodes the state once and queues it for every connection.
    fn broadcast_state(&mut self) {
        self.refresh();
        for conn in self.conns.values() {
            conn.outbox.push_state(self.latest.clone());
        }
    }

    /// The `hello` for a connection to `seat` (none: a spectator).
    fn hello(&self, seat: Option<Color>, handoff_url: Option<String>) -> Utf8Bytes {
        let handoff_url = seat.and(handoff_url);
        let board = self.game.variant().board();
        Utf8Bytes::from(hello_json(&self.id, seat, handoff_url.as_deref(), board))
    }

    fn seat_of_secret(&self, secret: &str) -> Option<Color> {
        Color::BOTH.into_iter().find(|c| {
            self.seats[c.index()]
                .as_deref()
                .is_some_and(|h| secrets::matches(secret, h))
        })
    }

    async fn handle(&mut self, rooms: &Rooms, cmd: Command) {
        // Time first: whatever is asked, a deadline that has passed has ended the game.
        self.settle_time(rooms).await;
        match cmd {
            Command::Authenticate { secret, reply } => {
                let seat = secret.as_deref().and_then(|s| self.seat_of_secret(s));
                let _ = reply.send(Ok(seat));
            }
            Command::Join { reply } => {
                let _ = reply.send(self.join(rooms).await);
            }
            Command::Move { actor, turn, reply } => {
                let played = self.play(rooms, actor, &turn).await;
                let _ = reply.send(played.map(|()| self.state()));
            }
            Command::Turn {
                actor,
                turn,
                sent,
                outbox,
            } => Box::pin(self.take_turn(rooms, actor, &turn, sent, &outbox)).await,
            Command::End {
                actor,
                ending,
                reply,
            } => {
                let _ = reply.send(self.end_by(rooms, actor, ending).await);
            }
            Command::Draw {
                actor,
                action,
                reply,
            } => {
                let _ = reply.send(self.draw(rooms, actor, action).await);
            }
            Command::Takeback {
                actor,
                action,
                reply,
            } => {
                let _ = reply.send(self.takeback(rooms, actor, action).await);
            }
            Command::Rematch { actor, reply } => {
                let _ = reply.send(self.rematch(rooms, actor).await);
            }
            Command::State { reply } => {
                let _ = reply.send(Ok(self.state()));
            }
            Command::Record { reply } => {
                let date = self.date();
                let record = self.game.record(&[("Site", "merels"), ("Date", &date)]);
                let _ = reply.send(Ok(record.to_string()));
            }
            Command::Connect {
                seat,
                handoff_url,
                outbox,
                reply,
            } => {
                let id = self.next_conn;
                self.next_conn += 1;
                outbox.push_event(self.hello(seat, handoff_url), &self.latest);
                self.conns.insert(
                    id,
                    Conn {
                        seat,
                        outbox: outbox.clone(),
                    },
                );
                if let Some(seat) = seat {
                    self.away_since[seat.index()] = None;
                }
                // The newcomer gets the state with itself counted; others hear of it shortly.
                self.refresh();
                outbox.push_state(self.latest.clone());
                let _ = reply.send(Ok(id));
            }
            Command::Sync { conn, reply } => {
                // Encoded afresh: the clocks in the last broadcast may be stale by now.
                if let Some(outbox) = self.conns.get(conn).map(|c| c.outbox.clone()) {
                    self.refresh();
                    outbox.push_state(self.latest.clone());
                }
                let _ = reply.send(Ok(()));
            }
            Command::Disconnect { conn, reply } => {
                if let Some(Conn {
                    seat: Some(seat), ..
                }) = self.conns.remove(conn)
                    && !self.conns.connected(seat)
                {
                    self.away_since[seat.index()] = Some(now_ms());
                }
                let _ = reply.send(Ok(()));
            }
            Command::Abandon { reply } => {
                let _ = reply.send(self.abandon(rooms).await);
            }
        }
    }

    fn date(&self) -> String {
        // The record's date is the day the room last wrote; days since the epoch to a civil
        // date (Howard Hinnant's algorithm) keeps this free of a calendar dependency.
        let days = now_ms().div_euclid(86_400_000);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!("{y:04}.{m:02}.{d:02}")
    }

    async fn join(&mut self, rooms: &Rooms) -> Result<SeatGrant, RoomError> {
        if self.status != Status::Waiting {
            return Err(RoomError::SeatsTaken);
        }
        let Some(color) = Color::BOTH
            .into_iter()
            .find(|c| self.seats[c.index()].is_none())
        else {
            return Err(RoomError::SeatsTaken);
        };
        let secret = secrets::new_secret();
        let hash = secrets::hash(&secret);
        let seat = match color {
            Color::White => SeatColumn::White,
            Color::Black => SeatColumn::Black,
        };
        let at = now_ms();
        // Filling the second seat starts the game, and with it the clocks.
        let clock = self.start_clock(at);
        let op = WriteOp::ClaimSeat {
            id: self.id.clone(),
            seat,
            hash: hash.clone(),
            at,
            clock: clock.as_ref().map(clock_row),
        };
        if !rooms.store().write(op).await? {
            // Another server took it first: catch up with the store.
            self.reload(rooms).await;
            return Err(RoomError::SeatsTaken);
        }
        self.seats[color.index()] = Some(hash);
        self.clock = clock;
        self.status = Status::Playing;
        self.version += 1;
        self.broadcast_state();
        Ok(SeatGrant {
            id: self.id.clone(),
            color,
            secret,
        })
    }

    /// The seat an actor holds, or why it holds none. A player acting over HTTP is there now,
    /// as far as an absence claim is concerned.
    fn seat_for(&mut self, actor: Actor) -> Result<Color, RoomError> {
        let seat = match actor {
            Actor::Seat(seat) => seat,
            Actor::Secret(None) => return Err(RoomError::Unauthenticated),
            Actor::Secret(Some(secret)) => self.seat_of_secret(&secret),
        }
        .ok_or(RoomError::NotSeated)?;
        if let Some(since) = &mut self.away_since[seat.index()] {
            *since = now_ms();
        }
        Ok(seat)
    }

    async fn end_by(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
        ending: Ending,
    ) -> Result<GameState, RoomError> {
        let seat = self.seat_for(actor)?;
        if self.status == Status::Finished {
            return Err(RoomError::GameOver);
        }
        let outcome = match ending {
            Ending::Resign if self.status == Status::Waiting => {
                return Err(RoomError::NotAllowed(
                    "nobody has joined yet: abort the game instead",
                ));
            }
            Ending::Resign => Outcome::win(seat.opponent(), Termination::Resignation),
            // Each player has moved once when two turns are played; after that it is a game.
            Ending::Abort if self.game.turns().len() >= 2 => {
                return Err(RoomError::NotAllowed(
                    "both players have moved: resign or offer a draw instead",
                ));
            }
            Ending::Abort => Outcome::draw(Termination::Aborted),
            Ending::ClaimWin | Ending::ClaimDraw => {
                match self.claim_from() {
                    Some((by, at)) if by == seat && at <= now_ms() => {}
                    Some((by, _)) if by == seat => {
                        return Err(RoomError::NotAllowed(
                            "your opponent has not been gone long enough to claim the game",
                        ));
                    }
                    _ => {
                        return Err(RoomError::NotAllowed(
                            "you may claim the game only while your opponent is gone on their turn",
                        ));
                    }
                }
                if ending == Ending::ClaimWin {
                    Outcome::win(seat, Termination::Abandonment)
                } else {
                    Outcome::draw(Termination::Abandonment)
                }
            }
        };
        if !self.finish(rooms, outcome).await? {
            return Err(RoomError::GameOver);
        }
        Ok(self.state())
    }

    /// Stores an end decided off the board now, then applies and broadcasts it.
    async fn finish(&mut self, rooms: &Rooms, outcome: Outcome) -> Result<bool, RoomError> {
        self.finish_at(rooms, outcome, now_ms()).await
    }

    /// Stores an end decided off the board at `at` (with the clocks stopped then), then applies
    /// and broadcasts it; false if the store says the game had already ended (the room then
    /// reloads).
    async fn finish_at(
        &mut self,
        rooms: &Rooms,
        outcome: Outcome,
        at: i64,
    ) -> Result<bool, RoomError> {
        let clock = self.stopped_clock(at);
        let op = WriteOp::Finish {
            id: self.id.clone(),
            end: GameEnd {
                result: outcome.result().to_string(),
                termination: outcome.termination.as_str().to_string(),
            },
            at,
            clock: clock.as_ref().map(clock_row),
        };
        if !rooms.store().write(op).await? {
            self.reload(rooms).await;
            return Ok(false);
        }
        self.game.end(outcome);
        self.clock = clock;
        self.status = Status::Finished;
        self.version += 1;
        self.broadcast_state();
        Ok(true)
    }

    /// A turn from a connection: played, or refused to that connection alone.
    async fn take_turn(
        &mut self,
        rooms: &Rooms,
        actor: Actor,
        turn: &str,
        sent: Instant,
        outbox: &Outbox,
    ) {
        // As for every command: a deadline that has passed has ended the game.
        self.settle_time(rooms).await;
        let played = self.play(rooms, actor, turn).await;
        rooms.count_turn(sent, &played);
        if let Err(e) = played {
            outbox.push_event(error_frame(e.code(), e.to_string()), &self.latest);
        }
    }

    async fn play(&mut self, rooms: &Rooms, actor: Actor, text: &str) -> Result<(), RoomError> {
        let seat = self.seat_in_play(actor)?;
        if self.game.to_move() != seat {
            return Err(RoomError::NotYourTurn);
        }
        let variant = self.game.variant().clone();
        let turn = variant
            .parse_turn(text.trim())
            .map_err(|e| RoomError::BadNotation(e.to_string()))?;
        // Checked before it is stored, played once it is.
        let checked = self
            .game
            .preview(turn)
            .map_err(|e| RoomError::Illegal(e.describe(variant.board())))?;
        let end = checked.outcome().map(|o| GameEnd {
            result: o.result().to_string(),
            termination: o.termination.as_str().to_string(),
        });
        let at = now_ms();
        let plies = self.game.turns().len();
        let clock = self.clock.map(|c| c.after_turn(at, plies, seat));
        let op = WriteOp::AppendTurn {
            id: self.id.as_str().into(),
            ply: plies as i64,
            notation: checked.notation().clone(),
            at,
            clock: clock.map(|c| c.left),
            end,
        };
        // A reload (after a write lost to another server) is rare, and boxed so that this
        // future, made for every turn, needs no room for it.
        if !rooms.store().write(op).await? {
            Box::pin(self.reload(rooms)).await;
            return Err(RoomError::Conflict);
        }
        // Checked on this very game, which only this room changes; were it ever stale, the
        // store decides.
        if self.game.commit(checked).is_err() {
            Box::pin(self.reload(rooms)).await;
            return Err(RoomError::Conflict);
        }
        self.clock = clock;
        self.version += 1;
        if self.game.outcome().is_some() {
            self.status = Status::Finished;
        }
        self.broadcast_state();
        Ok(())
    }

    async fn abandon(&mut self, rooms: &Rooms) -> Result<bool, RoomError> {
        if self.status == Status::Finished {
            return Ok(false);
        }
        // Nobody wins a game that never really began; otherwise the player who let it lapse on
        // their turn loses.
        let outcome = if self.game.turns().len() < 2 {
            Outcome::draw(Termination::Aborted)
        } else {
            Outcome::win(self.game.to_move().opponent(), Termination::Abandonment)
        };
        self.finish(rooms, outcome).await
    }

    /// Replaces the game with what the store holds (after losing a write to another server), and
    /// pushes it to everyone.
    async fn reload(&mut self, rooms: &Rooms) {
        match rooms.store().load(&self.id).await {
            Ok(Some(stored)) => match room_from(rooms, stored) {
                Ok(mut fresh) => {
                    // What the store does not hold stays: the connections, who is away, and
                    // the new secrets of a rematch this room started.
                    fresh.conns = std::mem::take(&mut self.conns);
                    fresh.next_conn = self.next_conn;
                    fresh.away_since = self.away_since;
                    if let (Some((id, secrets)), Some((fresh_id, None))) =
                        (self.rematch.take(), fresh.rematch.as_mut())
                        && id == *fresh_id
                    {
                        fresh.rematch = Some((id, secrets));
                    }
                    fresh.version = fresh.version.max(self.version + 1);
                    *self = fresh;
                }
                Err(e) => tracing::error!(game = %self.id, error = %e, "reload failed"),
            },
            Ok(None) => tracing::error!(game = %self.id, "game vanished from the store"),
            Err(e) => tracing::error!(game = %self.id, error = %e, "reload failed"),
        }
        self.broadcast_state();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_counted_as_they_come_and_go() {
        let conn = |seat| Conn {
            seat,
            outbox: Arc::new(Outbox::new()),
        };
        let mut conns = Conns::default();
        conns.insert(0, conn(Some(Color::White)));
        conns.insert(1, conn(None));
        conns.insert(2, conn(None));
        conns.insert(3, conn(Some(Color::White)));
        assert!(conns.connected(Color::White));
        assert!(!conns.connected(Color::Black));
        assert_eq!(conns.spectators, 2);
        // The same id again replaces the connection, and its count.
        conns.insert(2, conn(Some(Color::Black)));
        assert!(conns.connected(Color::Black));
        assert_eq!(conns.spectators, 1);
        assert!(conns.remove(0).is_some());
        assert!(
            conns.connected(Color::White),
            "White's other tab is still there"
        );
        assert!(conns.remove(3).is_some());
        assert!(!conns.connected(Color::White));
        assert!(conns.remove(3).is_none(), "gone once");
        assert!(conns.remove(1).is_some());
        assert!(conns.remove(2).is_some());
        assert_eq!((conns.seated, conns.spectators), ([0, 0], 0));
        assert!(conns.is_empty());
    }
}
