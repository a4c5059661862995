//! The owner's side: connections of other instances served by rooms here. Each is taken into its
//! room on the edge's request, gets its frames from the edge's lane, and everything its room
//! queues for it goes to that edge's queue, drained onto the bus.

use super::wire::Record;
use super::{ConnectAsk, Relay, lock, seal};
use crate::http::error::ApiError;
use crate::protocol::{ClientMessage, ErrorCode};
use crate::rooms::Connection;
use crate::rooms::outbox::Outbox;
use axum::body::Bytes;
use std::sync::Arc;

/// A connection of another instance, as the owner holds it.
#[derive(Debug)]
pub(super) enum Remote {
    /// Its room is taking it: should the client leave meanwhile, it is let go at once after.
    Connecting { gone: bool },
    /// In its room.
    Live {
        game: String,
        conn: Arc<Connection>,
        outbox: Arc<Outbox>,
    },
}

impl Relay {
    /// An edge asks this instance, the game's owner, to take a connection into its room: the
    /// answer (empty, or the refusal), sealed, goes to the request's reply subject. A request
    /// that is not sealed with the instances' key, or that its edge sent before (a replay), is
    /// refused unanswered.
    pub(super) fn asked(&self, message: async_nats::Message) {
        let inner = &self.inner;
        let Some(reply) = message.reply else { return };
        let Ok((body, seq)) = inner.seal.open(&message.subject, message.payload.clone()) else {
            return self.refused("connect", seal::Refused::Forged);
        };
        let Ok(ask) = serde_json::from_slice::<ConnectAsk>(&body) else {
            return;
        };
        if let Err(why) = self.take_number(&ask.edge, seq) {
            return self.refused("connect", why);
        }
        let key = (ask.edge.clone(), ask.conn);
        lock(&inner.remotes).insert(key.clone(), Remote::Connecting { gone: false });
        let relay = self.clone();
        // Taking a connection may load the game: the frames of every other wait for none.
        inner.tasks.spawn(async move {
            let answer = match relay.take(ask).await {
                Ok(()) => Bytes::new(),
                Err(e) => Bytes::from(serde_json::to_vec(&e).unwrap_or_default()),
            };
            let answer = relay.inner.seal.sealed(&reply, &answer);
            let _ = relay.inner.client.publish(reply, answer).await;
        });
    }

    /// What this instance, as an owner, is sent by `edge`: its clients' frames and leavings.
    pub(super) async fn as_owner(&self, edge: &str, records: Vec<Record>) {
        for record in records {
            match record {
                Record::Frame(conn, text) => self.frame(edge, conn, &text).await,
                Record::Bye(conn) => self.bye(edge, conn),
                Record::Text(..) | Record::Close(..) => {}
            }
        }
    }

    /// A frame from a client of `edge`, for the room that holds its connection.
    async fn frame(&self, edge: &str, conn: u64, text: &[u8]) {
        let inner = &self.inner;
        let live = match lock(&inner.remotes).get(&(edge.to_string(), conn)) {
            Some(Remote::Live { game, conn, outbox }) => {
                Some((game.clone(), conn.clone(), outbox.clone()))
            }
            _ => None,
        };
        let Some((game, conn, outbox)) = live else {
            return;
        };
        // The edge parsed it already; what fails here was not sent by a merels edge.
        let Ok(Ok(message)) = std::str::from_utf8(text).map(ClientMessage::parse) else {
            return;
        };
        if let Err(e) = inner.rooms.deliver(&game, &conn, message, &outbox).await {
            // A relayed outbox is never full here: the edge catches up its own client.
            outbox.push_reply(crate::rooms::outbox::error_frame(e.code(), e.to_string()));
        }
    }

    /// A client of `edge` left.
    fn bye(&self, edge: &str, conn: u64) {
        let key = (edge.to_string(), conn);
        let mut remotes = lock(&self.inner.remotes);
        match remotes.get_mut(&key) {
            Some(Remote::Connecting { gone }) => *gone = true,
            Some(Remote::Live { .. }) => {
                if let Some(Remote::Live { game, conn, .. }) = remotes.remove(&key) {
                    drop(remotes);
                    self.let_go(game, conn);
                }
            }
            None => {}
        }
    }

    /// Takes an edge's connection into its game's room (on this instance, which owns the game).
    async fn take(&self, ask: ConnectAsk) -> Result<(), ApiError> {
        let inner = &self.inner;
        let key = (ask.edge.clone(), ask.conn);
        let taken = async {
            let seat = inner.rooms.seat_of_hash(&ask.game, ask.seat).await?;
            let outbox = Arc::new(Outbox::relayed(self.peer(&ask.edge).queue, ask.conn));
            let conn = inner
                .rooms
                .connect(
                    &ask.game,
                    seat,
                    ask.browser.clone(),
                    ask.from,
                    outbox.clone(),
                )
                .await?;
            Ok::<_, crate::rooms::RoomError>((Arc::new(conn), outbox))
        }
        .await;
        let mut remotes = lock(&inner.remotes);
        let gone = matches!(
            remotes.get(&key),
            Some(Remote::Connecting { gone: true }) | None
        );
        match taken {
            Ok((conn, outbox)) if !gone => {
                remotes.insert(
                    key,
                    Remote::Live {
                        game: ask.game,
                        conn,
                        outbox,
                    },
                );
                Ok(())
            }
            Ok((conn, _)) => {
                remotes.remove(&key);
                drop(remotes);
                self.let_go(ask.game, conn);
                Err(ApiError::new(ErrorCode::Unavailable, "the client left"))
            }
            Err(e) => {
                remotes.remove(&key);
                Err(ApiError::from(e))
            }
        }
    }

    /// Detaches a connection of another instance from its room.
    pub(super) fn let_go(&self, game: String, conn: Arc<Connection>) {
        let rooms = self.inner.rooms.clone();
        self.inner
            .tasks
            .spawn(async move { rooms.disconnect(&game, &conn).await });
    }
}
