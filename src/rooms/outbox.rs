//! A connection's outgoing queue: bounded, and never waited on. The room pushes and moves on; the
//! connection's send task drains. A connection that falls behind loses its backlog, not its
//! game: a full queue is replaced by the whole state as it is now, and what was skipped is
//! counted (`merels_messages_skipped_total`).
//!
//! A connection that another instance serves (its socket is there, its game here) has a relayed
//! outbox: what the room queues joins the [`PeerQueue`] of that instance, which the relay drains.

use crate::protocol::{ErrorCode, ServerMessage};
use axum::extract::ws::Utf8Bytes;
use prometheus_client::metrics::counter::Counter;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Messages a connection may have queued before its backlog is dropped.
pub const CAPACITY: usize = 64;

/// An `error` message, encoded to be queued.
pub fn error_frame(code: ErrorCode, message: impl Into<String>) -> Utf8Bytes {
    Utf8Bytes::from(
        ServerMessage::Error {
            code,
            message: message.into(),
        }
        .to_json(),
    )
}

/// What the send task should do next.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Send the text frames now in the caller's buffer, in order.
    Send,
    /// Send a WebSocket ping.
    Ping,
    /// Close the connection for this reason, then stop (the transport picks the close code).
    Close(ErrorCode, String),
    /// The client closed: send what the transport owes it (the answer to its Close), then stop.
    Finish,
}

#[derive(Debug, Default)]
struct Inner {
    queue: VecDeque<Utf8Bytes>,
    close: Option<(ErrorCode, String)>,
    finish: bool,
    /// A ping is due.
    ping: bool,
    dropped: u64,
}

impl Inner {
    /// Whether the queue is full; if so it is emptied and what it held counted as skipped.
    fn clear_if_full(&mut self, skipped: Option<&Counter>) -> bool {
        let n = self.queue.len();
        if n < CAPACITY {
            return false;
        }
        self.dropped += n as u64;
        if let Some(counter) = skipped {
            counter.inc_by(n as u64);
        }
        self.queue.clear();
        true
    }
}

/// One connection's queue.
#[derive(Debug, Default)]
pub struct Outbox {
    inner: Mutex<Inner>,
    notify: Notify,
    /// Where skipped messages are counted, if anywhere.
    skipped: Option<Counter>,
    /// For a connection another instance serves: that instance's queue, and the connection's
    /// number there. Its own queue then stays empty.
    relay: Option<(Arc<PeerQueue>, u64)>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Outbox {
        Outbox::default()
    }

    /// An empty outbox that counts the messages it skips into `skipped`.
    pub fn counting(skipped: Counter) -> Outbox {
        Outbox {
            skipped: Some(skipped),
            ..Outbox::default()
        }
    }

    /// The outbox of connection `conn` of another instance, whose frames join `queue`.
    pub fn relayed(queue: Arc<PeerQueue>, conn: u64) -> Outbox {
        Outbox {
            relay: Some((queue, conn)),
            ..Outbox::default()
        }
    }

    /// Hands `frame` to the peer's queue if the connection is relayed; true if it was.
    fn relay(&self, frame: &Utf8Bytes) -> bool {
        match &self.relay {
            Some((queue, conn)) => {
                queue.push(*conn, frame);
                true
            }
            None => false,
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let r = f(&mut self.inner.lock().unwrap_or_else(|e| e.into_inner()));
        self.notify.notify_one();
        r
    }

    /// Queues a whole state. A full queue is cleared first: this state supersedes it.
    pub fn push_state(&self, state: Utf8Bytes) {
        if self.relay(&state) {
            return;
        }
        self.with(|inner| {
            inner.clear_if_full(self.skipped.as_ref());
            inner.queue.push_back(state);
        });
    }

    /// Queues a change. A full queue is replaced by `whole()`, the whole state now, which
    /// includes the change.
    pub fn push_update(&self, update: Utf8Bytes, whole: impl FnOnce() -> Utf8Bytes) {
        // A relayed connection that falls behind is the serving instance's to catch up.
        if self.relay(&update) {
            return;
        }
        self.with(|inner| {
            let frame = if inner.clear_if_full(self.skipped.as_ref()) {
                whole()
            } else {
                update
            };
            inner.queue.push_back(frame);
        });
    }

    /// Queues an event (an error, a rematch). A full queue is replaced by `whole()` and the
    /// event, so that the client still ends up with the whole, current game.
    pub fn push_event(&self, event: Utf8Bytes, whole: impl FnOnce() -> Utf8Bytes) {
        if self.relay(&event) {
            return;
        }
        self.with(|inner| {
            if inner.clear_if_full(self.skipped.as_ref()) {
                inner.queue.push_back(whole());
            }
            inner.queue.push_back(event);
        });
    }

    /// Queues a reply to this connection alone (an error, a pong). Returns true if the queue was
    /// full and had to be cleared: the caller should then ask the room for the whole state.
    pub fn push_reply(&self, reply: Utf8Bytes) -> bool {
        if self.relay(&reply) {
            return false;
        }
        self.with(|inner| {
            let full = inner.clear_if_full(self.skipped.as_ref());
            inner.queue.push_back(reply);
            full
        })
    }

    /// Asks the send task to close the connection once what is queued has gone.
    pub fn close(&self, code: ErrorCode, reason: &str) {
        if let Some((queue, conn)) = &self.relay {
            queue.close(*conn, code, reason);
            return;
        }
        self.with(|inner| {
            inner
                .close
                .get_or_insert_with(|| (code, reason.to_string()));
        });
    }

    /// Asks the send task to ping the client. The connection's reader keeps the one timer
    /// (when a ping is due, how long the client has been silent), so the send task waits on its
    /// queue alone and nothing touches a timer for each frame.
    pub fn ping(&self) {
        self.with(|inner| inner.ping = true);
    }

    /// Asks the send task to answer the client's Close and stop, sending nothing more.
    pub fn finish(&self) {
        self.with(|inner| inner.finish = true);
    }

    /// How many messages were dropped because the connection fell behind.
    pub fn dropped(&self) -> u64 {
        self.inner.lock().map_or(0, |i| i.dropped)
    }

    /// Waits for the next thing to do. Messages to send are handed over in `batch`, which must
    /// be empty: the queue and the batch swap buffers, so that a busy connection allocates none.
    pub async fn next(&self, batch: &mut VecDeque<Utf8Bytes>) -> Next {
        debug_assert!(batch.is_empty(), "the last batch was sent");
        loop {
            {
                let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
                if inner.finish {
                    return Next::Finish;
                }
                if std::mem::take(&mut inner.ping) {
                    return Next::Ping;
                }
                if !inner.queue.is_empty() {
                    std::mem::swap(&mut inner.queue, batch);
                    return Next::Send;
                }
                if let Some((code, reason)) = inner.close.take() {
                    return Next::Close(code, reason);
                }
            }
            // A notification sent between the check and here is kept as a permit.
            self.notify.notified().await;
        }
    }
}

/// Messages a peer's queue holds before it is dropped (the relay that drains it is stuck).
pub const PEER_CAPACITY: usize = 8192;

/// What goes to another instance for the connections it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerFrame {
    /// A text frame, for each of these connections.
    Text(Utf8Bytes, Vec<u64>),
    /// Close this connection for this reason.
    Close(u64, ErrorCode, String),
}

/// The queue of everything bound for the connections that one other instance serves, in order.
/// A room queues a change on each of its connections in turn, the same shared bytes each time,
/// so consecutive copies of one frame join one entry: a change crosses to the other instance
/// once, however many of its clients see it. Bounded: should the relay fall far behind, the
/// backlog is dropped and counted, and those clients, seeing a gap in the versions, ask for the
/// whole state.
#[derive(Debug, Default)]
pub struct PeerQueue {
    queue: Mutex<Vec<PeerFrame>>,
    notify: Notify,
    /// Where dropped messages are counted, if anywhere.
    skipped: Option<Counter>,
}

impl PeerQueue {
    /// An empty queue that counts what it drops into `skipped`.
    pub fn counting(skipped: Counter) -> PeerQueue {
        PeerQueue {
            skipped: Some(skipped),
            ..PeerQueue::default()
        }
    }

    fn with(&self, f: impl FnOnce(&mut Vec<PeerFrame>)) {
        {
            let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            if queue.len() >= PEER_CAPACITY {
                if let Some(counter) = &self.skipped {
                    counter.inc_by(queue.len() as u64);
                }
                queue.clear();
            }
            f(&mut queue);
        }
        self.notify.notify_one();
    }

    fn push(&self, conn: u64, frame: &Utf8Bytes) {
        self.with(|queue| {
            if let Some(PeerFrame::Text(last, conns)) = queue.last_mut() {
                // The same bytes (not merely equal ones): one change, queued for another client.
                let same =
                    last.as_str().as_ptr() == frame.as_str().as_ptr() && last.len() == frame.len();
                if same && !conns.contains(&conn) {
                    conns.push(conn);
                    return;
                }
            }
            queue.push(PeerFrame::Text(frame.clone(), vec![conn]));
        });
    }

    fn close(&self, conn: u64, code: ErrorCode, reason: &str) {
        self.with(|queue| queue.push(PeerFrame::Close(conn, code, reason.to_string())));
    }

    /// Whether nothing is waiting to go.
    pub fn is_empty(&self) -> bool {
        self.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Waits until something is queued (a drain waits on this, then [`take`](Self::take)s).
    pub async fn ready(&self) {
        while self.is_empty() {
            // A notification sent between the check and here is kept as a permit.
            self.notify.notified().await;
        }
    }

    /// Hands over everything queued, in order.
    pub fn take(&self) -> Vec<PeerFrame> {
        std::mem::take(&mut *self.queue.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slow_reader_gets_the_newest_state_not_a_backlog() {
        let outbox = Outbox::new();
        for i in 0..CAPACITY + 5 {
            outbox.push_state(Utf8Bytes::from(format!("state {i}")));
        }
        let mut msgs = VecDeque::new();
        assert_eq!(outbox.next(&mut msgs).await, Next::Send);
        assert_eq!(msgs.len(), 5);
        assert_eq!(
            msgs.back().unwrap().as_str(),
            format!("state {}", CAPACITY + 4)
        );
        assert_eq!(outbox.dropped(), CAPACITY as u64);

        for i in 0..CAPACITY {
            outbox.push_state(Utf8Bytes::from(format!("state {i}")));
        }
        outbox.push_event("error".into(), || "latest".into());
        msgs.clear();
        assert_eq!(outbox.next(&mut msgs).await, Next::Send);
        assert_eq!(msgs, [Utf8Bytes::from("latest"), Utf8Bytes::from("error")]);

        msgs.clear();
        outbox.close(ErrorCode::Unavailable, "restart");
        assert_eq!(
            outbox.next(&mut msgs).await,
            Next::Close(ErrorCode::Unavailable, "restart".into())
        );
    }

    #[tokio::test]
    async fn pings_asked_for_go_once_and_before_what_is_queued() {
        let outbox = Outbox::new();
        outbox.push_state("state".into());
        outbox.ping();
        outbox.ping();
        let mut msgs = VecDeque::new();
        assert_eq!(outbox.next(&mut msgs).await, Next::Ping);
        assert!(msgs.is_empty());
        assert_eq!(outbox.next(&mut msgs).await, Next::Send);
        assert_eq!(msgs, [Utf8Bytes::from("state")]);
        msgs.clear();
        // Nothing more is due: the send task waits until a ping is asked for.
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(20), async {
            outbox.next(&mut msgs).await
        });
        assert!(waiting.await.is_err());
        outbox.ping();
        assert_eq!(outbox.next(&mut msgs).await, Next::Ping);
    }

    #[tokio::test]
    async fn a_change_that_finds_the_queue_full_goes_as_the_whole_state() {
        let skipped = Counter::default();
        let outbox = Outbox::counting(skipped.clone());
        for i in 0..CAPACITY {
            outbox.push_update(format!("update {i}").into(), || unreachable!());
        }
        outbox.push_update("update last".into(), || "whole".into());
        let mut msgs = VecDeque::new();
        assert_eq!(outbox.next(&mut msgs).await, Next::Send);
        assert_eq!(msgs, [Utf8Bytes::from("whole")]);
        assert_eq!(skipped.get(), CAPACITY as u64);
    }

    #[tokio::test]
    async fn a_change_for_several_relayed_connections_crosses_once() {
        let queue = Arc::new(PeerQueue::default());
        let (a, b, c) = (
            Outbox::relayed(queue.clone(), 1),
            Outbox::relayed(queue.clone(), 2),
            Outbox::relayed(queue.clone(), 3),
        );
        let change = Utf8Bytes::from("change");
        a.push_update(change.clone(), || unreachable!());
        b.push_update(change.clone(), || unreachable!());
        // Equal bytes that are not the same frame, and the same frame twice for one
        // connection, go apart.
        c.push_reply(Utf8Bytes::from("change"));
        b.push_state(change.clone());
        b.push_state(change.clone());
        a.close(ErrorCode::Unavailable, "restart");
        queue.ready().await;
        assert_eq!(
            queue.take(),
            [
                PeerFrame::Text(change.clone(), vec![1, 2]),
                PeerFrame::Text("change".into(), vec![3]),
                PeerFrame::Text(change.clone(), vec![2]),
                PeerFrame::Text(change, vec![2]),
                PeerFrame::Close(1, ErrorCode::Unavailable, "restart".into()),
            ]
        );
        assert!(queue.is_empty());
    }
}
