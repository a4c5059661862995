//! The owner's side: connections of other instances served by rooms here. Each is taken into its
//! room on the edge's request, gets its frames from the edge's lane, and everything its room
//! queues for it goes to that edge's queue, drained onto the bus.

use super::wire::Record;
use super::{ConnectAsk, Relay, lock, pump};
use crate::http::error::ApiError;
use crate::http::ws::act;
use crate::protocol::{ClientMessage, ErrorCode};
use crate::rooms::Connection;
use crate::rooms::outbox::{Outbox, PeerFrame, PeerQueue};
use axum::body::Bytes;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

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
    /// What an owner is sent: connections to take, frames of theirs, and their leaving.
    pub(super) async fn as_owner(&self, message: async_nats::Message) {
        let inner = &self.inner;
        let rest = message.subject.as_str();
        let Some(rest) = rest
            .strip_prefix("merels.o.")
            .and_then(|r| r.strip_prefix(inner.me.as_str()))
            .and_then(|r| r.strip_prefix('.'))
        else {
            return;
        };
        if rest == "connect" {
            let Some(reply) = message.reply else { return };
            let Ok(ask) = serde_json::from_slice::<ConnectAsk>(&message.payload) else {
                return;
            };
            let key = (ask.edge.clone(), ask.conn);
            lock(&inner.remotes).insert(key.clone(), Remote::Connecting { gone: false });
            let relay = self.clone();
            // Taking a connection may load the game: the frames of every other wait for none.
            inner.tasks.spawn(async move {
                let answer = match relay.take(ask).await {
                    Ok(()) => Bytes::new(),
                    Err(e) => Bytes::from(serde_json::to_vec(&e).unwrap_or_default()),
                };
                let _ = relay.inner.client.publish(reply, answer).await;
            });
            return;
        }
        let Some(edge) = rest.strip_prefix("from.") else {
            return;
        };
        let Ok(records) = Record::read_all(message.payload) else {
            tracing::warn!(edge, "a relay message that does not parse");
            return;
        };
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
        if let Some((code, text)) = act(&inner.rooms, &game, &conn, &outbox, message).await {
            // A relayed outbox is never full here: the edge catches up its own client.
            outbox.push_reply(crate::rooms::outbox::error_frame(code, text));
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
            let seat = inner.rooms.seat_of(&ask.game, ask.secret).await?;
            let outbox = Arc::new(Outbox::relayed(self.queue_for(&ask.edge), ask.conn));
            let conn = inner
                .rooms
                .connect(&ask.game, seat, ask.from, outbox.clone())
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

    /// The queue of what goes to `edge`, and the task that drains it onto the bus.
    fn queue_for(&self, edge: &str) -> Arc<PeerQueue> {
        let mut peers = lock(&self.inner.peers);
        if let Some((queue, _)) = peers.get(edge) {
            return queue.clone();
        }
        let queue = Arc::new(PeerQueue::counting(
            self.inner.metrics.messages_skipped.clone(),
        ));
        let cut = CancellationToken::new();
        peers.insert(edge.to_string(), (queue.clone(), cut.clone()));
        let drained = queue.clone();
        let next = move || {
            let queue = drained.clone();
            async move {
                let mut batch = Vec::new();
                queue.next(&mut batch).await;
                batch
                    .into_iter()
                    .map(|frame| match frame {
                        PeerFrame::Text(text, conns) => Record::Text(conns, Bytes::from(text)),
                        PeerFrame::Close(conn, code, reason) => {
                            let why = serde_json::to_vec(&ApiError::new(code, reason));
                            Record::Close(conn, Bytes::from(why.unwrap_or_default()))
                        }
                    })
                    .collect()
            }
        };
        let pumping = pump(
            self.inner.client.clone(),
            format!("merels.e.{edge}"),
            cut,
            next,
        );
        self.inner.tasks.spawn(pumping);
        queue
    }
}
