//! The WebSocket at `/api/games/{id}/ws`: the upgrade (with the seat found from the cookie or a
//! bearer token, and the size limits), then a send task that drains the connection's outbox and a
//! receive loop that parses each frame at the edge and hands typed commands to the room.
//!
//! A client that connects or reconnects gets `hello` and the whole state at once. Bad input gets
//! an `error` message and changes nothing; a frame over the size limit closes the connection with
//! 1009.

use super::budget::Flood;
use super::error::{ApiError, CLOSE_MOVED};
use super::forward::MoveTo;
use super::limits::{ClientIp, from_own_pages};
use super::relay::{EdgeConn, Relay, RelayTo};
use super::{AppState, presented_secret};
use crate::metrics::Metrics;
use crate::protocol::{ClientMessage, ErrorCode, ParseError, ServerMessage};
use crate::rooms::outbox::{Next, Outbox, error_frame};
use crate::rooms::{Connection, Rooms};
use crate::rules::Color;
use crate::store::owners::Owner;
use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use governor::DefaultDirectRateLimiter;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// What the upgrade reads of its request besides the client's address: the game, where the page
/// that opens it comes from, the seat it presents (none with `?watch=1`: the embed, which only
/// watches whatever seat its browser holds), and what the layers before it decided (a flood
/// budget, a relay to the owner, a move to the owner's address). Read in place: axum's
/// `HeaderMap` extractor would copy every header of every socket.
pub struct Arrival {
    id: String,
    /// The browser's id (its hash), if it sent one: spectators are counted by it.
    browser: Option<String>,
    own_pages: bool,
    secret: Option<String>,
    flood: Option<Arc<Flood>>,
    relay_to: Option<RelayTo>,
    move_to: Option<MoveTo>,
}

impl FromRequestParts<AppState> for Arrival {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &AppState) -> Result<Arrival, Response> {
        let Path(id) = Path::<String>::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        Ok(Arrival {
            browser: super::browser::BrowserId::of(&parts.headers).map(|b| b.0),
            own_pages: from_own_pages(&app.config, &parts.headers),
            secret: match super::query_has(&parts.uri, "watch=1") {
                true => None,
                false => presented_secret(&parts.headers, &id),
            },
            flood: parts.extensions.get::<Arc<Flood>>().cloned(),
            relay_to: parts.extensions.get::<RelayTo>().cloned(),
            move_to: parts.extensions.get::<MoveTo>().cloned(),
            id,
        })
    }
}

/// `GET /api/games/{id}/ws`: 404 for an unknown game, else the upgrade.
pub async fn upgrade(
    State(app): State<AppState>,
    ClientIp(from): ClientIp,
    Arrival {
        id,
        browser,
        own_pages,
        secret,
        flood,
        relay_to,
        move_to,
    }: Arrival,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let metrics = app.metrics.clone();
    if !own_pages {
        metrics.limit("origin");
        return ApiError::new(
            ErrorCode::ForbiddenOrigin,
            "game sockets open only from this site's own pages",
        )
        .into_response();
    }
    let Some(slot) = app.limits.connect(from) else {
        metrics.limit("connections_per_ip");
        return ApiError::new(
            ErrorCode::RateLimited,
            format!(
                "at most {} open connections from one address",
                app.config.connections_per_ip
            ),
        )
        .into_response();
    };
    if let Some(MoveTo(url)) = move_to {
        return match ws {
            Ok(ws) => ws.on_upgrade(move |socket| async move {
                metrics.moved.inc();
                send_elsewhere(socket, url).await;
                drop(slot);
            }),
            Err(rejection) => rejection.into_response(),
        };
    }
    let target = match (relay_to, &app.relay) {
        (Some(RelayTo(owner)), Some(relay)) => Target::Relayed(relay.clone(), owner, secret),
        _ => match app.rooms.seat_of(&id, secret).await {
            Ok(seat) => Target::Here(seat),
            Err(e) => return ApiError::from(e).into_response(),
        },
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    let limit = app.config.max_message_bytes;
    let rooms = app.rooms.clone();
    let rate = app.limits.message_rate();
    let ping = app.config.ws_ping();
    // Small buffers: the default 128 KiB read buffer per socket dwarfs a Morris state, and what
    // clients send is smaller still (a turn is a few dozen bytes; a longer message is read in
    // more than one go). Each frame is written as it is queued (a write buffer of 0): gathering
    // a connection's first frames (hello, state, chat) into one write made the library's buffer
    // double past them, and it keeps that size for the connection's life (5.3 KB a connection,
    // where one frame at a time keeps 2.6 KB). A turn sends one frame to each connection anyway.
    ws.read_buffer_size(1024)
        .write_buffer_size(0)
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| async move {
            metrics.connections.inc();
            // The socket is boxed where the connection's task begins: split, it moves to the
            // heap, and the task need not keep room for it all its life (2.8 KB a connection).
            let socket = Box::new(socket);
            let visitor = Visitor {
                target,
                from,
                browser,
                flood,
            };
            serve(socket, rooms, &metrics, id, visitor, rate, ping).await;
            metrics.connections.dec();
            drop(slot);
        })
}

/// Tells the client that its game is served at `url` (`moved`), and closes (4307): it reconnects
/// there, to the game's owner, which then sends it every change itself.
async fn send_elsewhere(mut socket: WebSocket, url: String) {
    let moved = ServerMessage::Moved { url }.to_json();
    let close = CloseFrame {
        code: CLOSE_MOVED,
        reason: Utf8Bytes::from_static("the game is served at another address"),
    };
    if socket.send(Message::Text(moved.into())).await.is_err()
        || socket.send(Message::Close(Some(close))).await.is_err()
    {
        return;
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), until_close(&mut socket)).await;
}

/// Reads on, dropping what the client still sends, until it closes too (as RFC 6455 asks): a
/// socket closed with data unread is reset, and the reset can overtake the Close frame, so that
/// the client never learns why.
async fn until_close(
    frames: &mut (impl futures_util::Stream<Item = Result<Message, axum::Error>> + Unpin),
) {
    while let Some(Ok(frame)) = frames.next().await {
        if matches!(frame, Message::Close(_)) {
            break;
        }
    }
}

/// Where the connection's game runs: here (with the seat the visitor holds; none: they watch),
/// or on another instance, reached over the bus, which checks the secret itself.
enum Target {
    Here(Option<Color>),
    Relayed(Relay, Owner, Option<String>),
}

/// Who is connecting, to which game's room, and from where.
struct Visitor {
    target: Target,
    from: IpAddr,
    /// The browser's id (its hash), if it has one.
    browser: Option<String>,
    /// Raised when the connection sends more bytes than its budget for too long.
    flood: Option<Arc<Flood>>,
}

/// A connection in its game's room: here, or another instance's over the bus.
enum Link {
    Here {
        rooms: Rooms,
        id: String,
        conn: Connection,
    },
    Relayed(EdgeConn),
}

impl Link {
    /// Joins the game's room, which queues `hello` and the state on `outbox` at once.
    async fn join(
        rooms: Rooms,
        id: String,
        target: Target,
        (from, browser): (IpAddr, Option<String>),
        outbox: &Arc<Outbox>,
    ) -> Result<Link, ApiError> {
        match target {
            Target::Here(seat) => {
                let conn = rooms
                    .connect(&id, seat, browser, from, outbox.clone())
                    .await?;
                Ok(Link::Here { rooms, id, conn })
            }
            Target::Relayed(relay, owner, secret) => relay
                .connect(&owner, &id, secret, (from, browser), outbox.clone())
                .await
                .map(Link::Relayed),
        }
    }

    /// Asks for the whole state again (the connection's queue overflowed).
    async fn resync(&self) {
        match self {
            Link::Here { rooms, id, conn } => {
                let _ = rooms.resync(id, conn).await;
            }
            Link::Relayed(edge) => edge.resync(),
        }
    }

    /// Leaves the room.
    async fn leave(self) {
        match self {
            Link::Here { rooms, id, conn } => rooms.disconnect(&id, &conn).await,
            Link::Relayed(edge) => edge.leave(),
        }
    }
}

/// Serves one connection until either side goes away, or the client stays silent for the
/// second of `ping` (every first of `ping`, the server pings it; browsers answer by themselves).
async fn serve(
    mut socket: Box<WebSocket>,
    rooms: Rooms,
    metrics: &Metrics,
    id: String,
    Visitor {
        target,
        from,
        browser,
        flood,
    }: Visitor,
    rate: DefaultDirectRateLimiter,
    ping: (Duration, Duration),
) {
    let outbox = Arc::new(Outbox::counting(metrics.messages_skipped.clone()));
    let link = match Link::join(rooms, id, target, (from, browser), &outbox).await {
        Ok(link) => link,
        Err(e) => {
            let close = CloseFrame {
                code: ApiError::close_code(e.code),
                reason: Utf8Bytes::from(e.message),
            };
            let _ = socket.send(Message::Close(Some(close))).await;
            return;
        }
    };
    let (sink, mut stream) = (*socket).split();
    let mut send = tokio::spawn(write_frames(sink, outbox.clone()));
    let mut reader = Reader {
        link: &link,
        outbox: &outbox,
        metrics,
        rate,
        strikes: 0,
    };
    let close = reader
        .read_frames(&mut stream, &mut send, flood, ping)
        .await;
    if let Some((code, reason)) = close {
        outbox.close(code, reason);
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            let _ = (&mut send).await;
            until_close(&mut stream).await;
        })
        .await;
    }
    send.abort();
    link.leave().await;
}

/// The connection's send task: writes what its outbox gives, a batch at a time, and the pings
/// and the Close it is asked for, until the client goes or the connection is closed.
async fn write_frames(mut sink: SplitSink<WebSocket, Message>, outbox: Arc<Outbox>) {
    let mut batch = VecDeque::new();
    loop {
        match outbox.next(&mut batch).await {
            Next::Send => {
                for m in batch.drain(..) {
                    if sink.feed(Message::Text(m)).await.is_err() {
                        return;
                    }
                }
                if sink.flush().await.is_err() {
                    return;
                }
            }
            Next::Ping => {
                if sink.send(Message::Ping(Bytes::new())).await.is_err() {
                    return;
                }
            }
            Next::Finish => {
                // Closing the sink sends the library's answer to the client's Close.
                let _ = sink.close().await;
                return;
            }
            Next::Close(code, reason) => {
                let frame = CloseFrame {
                    code: ApiError::close_code(code),
                    reason: Utf8Bytes::from(reason),
                };
                let _ = sink.send(Message::Close(Some(frame))).await;
                return;
            }
        }
    }
}

/// Why the server closes a connection, and the reason it gives.
type Close = (ErrorCode, &'static str);

/// The receiving side of a connection: its room, its queue, and how fast it may send.
struct Reader<'a> {
    link: &'a Link,
    outbox: &'a Arc<Outbox>,
    metrics: &'a Metrics,
    rate: DefaultDirectRateLimiter,
    /// Frames over the rate since the last one within it.
    strikes: u32,
}

impl Reader<'_> {
    /// Reads the client's frames until the connection ends: `None` when the client or the send
    /// task ended it, else the close the server is to send. Frames over the rate are dropped
    /// with one `rate_limited` error per burst; a client that keeps flooding is cut off (1008).
    /// One that sends nothing, not even a pong, is gone (1001).
    async fn read_frames(
        &mut self,
        stream: &mut SplitStream<WebSocket>,
        send: &mut JoinHandle<()>,
        flood: Option<Arc<Flood>>,
        (ping_every, silence): (Duration, Duration),
    ) -> Option<Close> {
        let metrics = self.metrics;
        let mut flooded = std::pin::pin!(async {
            match &flood {
                Some(flood) => flood.raised().await,
                None => std::future::pending().await,
            }
        });
        // One timer for the connection, moved only when it fires: when the next ping is due, or
        // when the client will have been silent too long. A frame only notes when it came.
        let mut heard = Instant::now();
        let mut ping_at = heard + ping_every;
        let mut beat = std::pin::pin!(tokio::time::sleep_until(ping_at));
        loop {
            let frame = tokio::select! {
                _ = &mut *send => return None,
                () = &mut flooded => {
                    // Bytes past the budget for seconds: frames that may never make a message.
                    metrics.limit("ws_flood");
                    return Some((ErrorCode::RateLimited, "too many frames"));
                }
                () = &mut beat => {
                    let now = Instant::now();
                    if now >= heard + silence {
                        metrics.limit("ws_silence");
                        return Some((ErrorCode::Timeout, "no answer to pings"));
                    }
                    if now >= ping_at {
                        self.outbox.ping();
                        ping_at = now + ping_every;
                    }
                    beat.as_mut().reset(ping_at.min(heard + silence));
                    continue;
                }
                frame = stream.next() => frame,
            };
            heard = Instant::now();
            if let ControlFlow::Break(close) = self.take(frame, send).await {
                return close;
            }
        }
    }

    /// Takes one frame (`None`: the stream ended): breaks when it ends the connection.
    async fn take(
        &mut self,
        frame: Option<Result<Message, axum::Error>>,
        send: &mut JoinHandle<()>,
    ) -> ControlFlow<Option<Close>> {
        let (link, outbox) = (self.link, self.outbox);
        match frame {
            None => return ControlFlow::Break(None),
            Some(Ok(Message::Close(_))) => {
                // Answered with a Close (the library echoes the client's code), as RFC 6455 asks.
                outbox.finish();
                let _ = tokio::time::timeout(Duration::from_secs(1), send).await;
                return ControlFlow::Break(None);
            }
            Some(Err(e)) => return ControlFlow::Break(read_error(self.metrics, e)),
            // Every frame counts, pings and pongs too (the library answers pings itself).
            Some(Ok(_)) if self.rate.check().is_err() => {
                self.metrics.limit("messages_per_sec");
                self.strikes += 1;
                if self.strikes == 1 {
                    let slow_down = "too many messages: slow down";
                    reply(link, outbox, ErrorCode::RateLimited, slow_down).await;
                }
                if self.strikes > 200 {
                    return ControlFlow::Break(Some((ErrorCode::RateLimited, "too many messages")));
                }
            }
            Some(Ok(Message::Text(text))) => {
                self.strikes = 0;
                deliver(link, outbox, text).await;
            }
            Some(Ok(Message::Binary(_))) => {
                let binary = "binary frames are not part of the protocol: send JSON text";
                reply(link, outbox, ErrorCode::Malformed, binary).await;
            }
            Some(Ok(_)) => {} // pings and pongs are answered by the library
        }
        ControlFlow::Continue(())
    }
}

/// The close to send after a read error, as RFC 6455 asks: 1009 for an oversized message, 1002
/// for a frame that breaks the protocol (unmasked, a bad opcode, a bad close code, a control
/// frame fragmented), 1007 for text that is not UTF-8; nothing when the connection itself broke.
fn read_error(metrics: &Metrics, e: axum::Error) -> Option<Close> {
    let Ok(e) = e.into_inner().downcast::<tungstenite::Error>() else {
        return None;
    };
    let (limit, close) = match *e {
        tungstenite::Error::Capacity(_) => {
            ("message_size", (ErrorCode::TooLarge, "message too big"))
        }
        tungstenite::Error::Protocol(_) => (
            "ws_protocol",
            (
                ErrorCode::BrokenFrame,
                "the frame breaks the WebSocket protocol",
            ),
        ),
        tungstenite::Error::Utf8(_) => (
            "ws_protocol",
            (ErrorCode::BadText, "a text frame that is not UTF-8"),
        ),
        _ => return None,
    };
    metrics.limit(limit);
    Some(close)
}

/// Queues an error for this connection alone; should its queue have been full, the whole state
/// follows.
async fn reply(link: &Link, outbox: &Outbox, code: ErrorCode, message: &str) {
    if outbox.push_reply(error_frame(code, message)) {
        link.resync().await;
    }
}

/// A `pong`, encoded to be queued.
fn pong() -> Utf8Bytes {
    Utf8Bytes::from(ServerMessage::Pong.to_json())
}

/// One frame from the client, parsed here, at the edge: a bad one is answered here, as is a
/// ping; the rest goes to the game's room (over the bus when another instance runs it).
async fn deliver(link: &Link, outbox: &Arc<Outbox>, text: Utf8Bytes) {
    let message = ClientMessage::parse(text.as_str());
    let refusal = match message {
        Ok(ClientMessage::Ping) => {
            if outbox.push_reply(pong()) {
                link.resync().await;
            }
            return;
        }
        Ok(message) => match link {
            Link::Here { rooms, id, conn } => rooms
                .deliver(id, conn, message, outbox)
                .await
                .err()
                .map(|e| (e.code(), e.to_string())),
            Link::Relayed(edge) if edge.send(text) => return,
            Link::Relayed(_) => Some((
                ErrorCode::Unavailable,
                "the game's server is not keeping up: try again".to_string(),
            )),
        },
        Err(ParseError::Malformed(e)) => {
            Some((ErrorCode::Malformed, format!("malformed message: {e}")))
        }
        Err(ParseError::BadFields(e)) => Some((ErrorCode::Malformed, format!("bad fields: {e}"))),
        Err(ParseError::BadName(e)) => Some((ErrorCode::BadName, e.to_string())),
        Err(ParseError::UnknownType(kind)) => Some((
            ErrorCode::UnknownType,
            format!("unknown message type '{kind}' (see docs/protocol.md)"),
        )),
    };
    if let Some((code, text)) = refusal {
        reply(link, outbox, code, &text).await;
    }
}
