//! How a room answers what it is asked ([`Command`]): each command to its step, a player's
//! action to the core's ask, and the asks that need more than the core (the seat an actor holds,
//! a joining player's new secret, a seat moved to another device). Every change goes through
//! [`Room::execute`].

use super::chat::Speaker;
use super::command::{Answer, Command};
use super::conns::Conn;
use super::core::{Ask, Change, Plan};
use super::outbox::Outbox;
use super::task::Room;
use super::{Acted, Action, Actor, Holder, RoomError, Rooms, SeatGrant, secrets};
use crate::protocol::{ErrorCode, Hearing};
use crate::rules::Color;
use crate::time::room_ms;
use std::net::IpAddr;
use std::sync::Arc;
use tokio::time::Instant;

impl Room {
    /// Answers one command: time settled first, then the command's own step.
    pub(super) async fn handle(&mut self, rooms: &Rooms, cmd: Command) {
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
                self.answer_act(rooms, (actor, from, action), sent, answer)
                    .await
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
                let _ = reply.send(Ok(self.connect(rooms, seat, browser, outbox)));
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
                self.disconnect(conn);
                let _ = reply.send(Ok(()));
            }
            Command::Abandon { reply } => {
                let _ = reply.send(self.abandon(rooms).await);
            }
            Command::SeatComputer { level, reply } => {
                let ask = Ask::Join {
                    holder: Holder::Computer(level),
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

    /// A player's action, answered as it asked: with the new state once stored, or (a
    /// connection's) through everyone's update; a refusal to the asker alone.
    async fn answer_act(
        &mut self,
        rooms: &Rooms,
        (actor, from, action): (Actor, IpAddr, Action),
        sent: Instant,
        answer: Answer,
    ) {
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

    /// Attaches a connection, which gets `hello` at once; returns its number.
    fn connect(
        &mut self,
        rooms: &Rooms,
        seat: Option<Color>,
        browser: Option<String>,
        outbox: Arc<Outbox>,
    ) -> u64 {
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
        // The newcomer gets the state with itself counted, and the chat it hears; others hear
        // of it shortly.
        self.push_whole(&outbox, hearing);
        id
    }

    /// Detaches a connection: the last one of a seat leaves it away from now; a spectator's
    /// chat allowance is forgotten.
    fn disconnect(&mut self, conn: u64) {
        match self.conns.remove(conn) {
            Some(Conn {
                seat: Some(seat), ..
            }) if !self.conns.connected(seat) => {
                self.table.away_since[seat.index()] = Some(room_ms());
            }
            Some(Conn { seat: None, .. }) => self.chat.forget(Speaker::Spectator(conn)),
            _ => {}
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
        let rematch = matches!(action, Action::Rematch);
        let ask = Ask::By { seat, action };
        let plan = self.table.decide(ask, now)?;
        if let Some(Plan {
            change: Change::Rematch,
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
            holder: Holder::Secret(secrets::hash(&secret)),
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
}
