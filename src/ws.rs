//! The WebSocket at `/api/games/{id}/ws`: the upgrade (with the seat found from the cookie or a
//! bearer token, and the size limits), then a send task that drains the connection's outbox and a
//! receive loop that parses each frame at the edge and hands typed commands to the room.
//!
//! A client that connects or reconnects gets `hello` and the whole state at once. Bad input gets
//! an `error` message and changes nothing; a frame over the size limit closes the connection with
//! 1009.

use crate::http::error::ApiError;
use crate::http::limits::{Bucket, client_ip, origin_allowed};
use crate::http::{AppState, base_url, presented_secret};
use crate::protocol::{ClientMessage, ErrorCode, ParseError, ServerMessage};
use crate::rooms::outbox::{Next, Outbox, error_frame};
use crate::rooms::{Actor, Connection, Ending, OfferAction, Rooms};
use crate::rules::Color;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// `GET /api/games/{id}/ws`: 404 for an unknown game, else the upgrade.
pub async fn upgrade(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let metrics = app.rooms.metrics().clone();
    if !origin_allowed(&app.config, &headers) {
        metrics.limit("origin");
        return ApiError::new(
            ErrorCode::ForbiddenOrigin,
            "game sockets open only from this site's own pages",
        )
        .into_response();
    }
    let Some(slot) = app.limits.connect(client_ip(&app.config, &headers, peer)) else {
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
    let secret = presented_secret(&headers, &id);
    let seat = match app.rooms.seat_of(&id, secret.clone()).await {
        Ok(seat) => seat,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    let handoff = seat
        .and(secret)
        .map(|s| format!("{}/g/{id}?seat={s}", base_url(&app.config, &headers)));
    let limit = app.config.max_message_bytes;
    let rooms = app.rooms.clone();
    let bucket = app.limits.message_bucket();
    // Small buffers: the default 128 KiB read buffer per socket dwarfs a Morris state, and what
    // clients send is smaller still (a turn is a few dozen bytes; a longer message is read in
    // more than one go).
    ws.read_buffer_size(1024)
        .write_buffer_size(4096)
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| async move {
            metrics.connections.inc();
            // Boxed, so that the connection's long-lived task does not also keep room for the
            // socket it has split and moved to the heap.
            serve(Box::new(socket), rooms, id, seat, handoff, bucket).await;
            metrics.connections.dec();
            drop(slot);
        })
}

/// Serves one connection until either side goes away.
async fn serve(
    mut socket: Box<WebSocket>,
    rooms: Rooms,
    id: String,
    seat: Option<Color>,
    handoff: Option<String>,
    mut bucket: Bucket,
) {
    let outbox = Arc::new(Outbox::new());
    let conn = match Box::pin(rooms.connect(&id, seat, handoff, outbox.clone())).await {
        Ok(conn) => conn,
        Err(e) => {
            let close = CloseFrame {
                code: ApiError::close_code(e.code()),
                reason: Utf8Bytes::from(e.to_string()),
            };
            let _ = socket.send(Message::Close(Some(close))).await;
            return;
        }
    };
    let (mut sink, mut stream) = (*socket).split();
    let send_box = outbox.clone();
    let sender = async move {
        let mut batch = VecDeque::new();
        loop {
            match send_box.next(&mut batch).await {
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
                Next::Close(code, reason) => {
                    let frame = CloseFrame {
                        code,
                        reason: Utf8Bytes::from(reason),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    return;
                }
            }
        }
    };
    let mut send = tokio::spawn(sender);

    // Messages over the rate are dropped with one `rate_limited` error per burst; a client that
    // keeps flooding is cut off.
    let mut strikes = 0u32;
    let close: Option<(u16, String)> = loop {
        tokio::select! {
            _ = &mut send => break None,
            frame = stream.next() => match frame {
                None | Some(Ok(Message::Close(_))) => break None,
                Some(Err(e)) => break too_big(&rooms, e),
                Some(Ok(Message::Text(_) | Message::Binary(_))) if !bucket.take() => {
                    rooms.metrics().limit("messages_per_sec");
                    strikes += 1;
                    if strikes == 1 {
                        Box::pin(reply(&rooms, &id, &conn, &outbox, ErrorCode::RateLimited,
                            "too many messages: slow down")).await;
                    }
                    if strikes > 200 {
                        break Some((ApiError::close_code(ErrorCode::RateLimited),
                            "too many messages".into()));
                    }
                }
                Some(Ok(Message::Text(text))) => {
                    strikes = 0;
                    // Boxed: an idle connection should not keep room for the largest exchange.
                    // A turn, the message sent most, has a future of its own, a fraction of
                    // that size: a small allocation is one the allocator serves from its
                    // per-thread cache.
                    match ClientMessage::parse(text.as_str()) {
                        Ok(ClientMessage::Move { turn }) => {
                            Box::pin(send_turn(&rooms, &id, &conn, seat, &outbox, turn)).await;
                        }
                        parsed => Box::pin(handle(&rooms, &id, &conn, seat, &outbox, parsed)).await,
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    Box::pin(reply(&rooms, &id, &conn, &outbox, ErrorCode::Malformed,
                        "binary frames are not part of the protocol: send JSON text")).await;
                }
                Some(Ok(_)) => {} // pings and pongs are answered by the library
            }
        }
    };
    if let Some((code, reason)) = close {
        outbox.close(code, &reason);
        let _ = tokio::time::timeout(Duration::from_secs(1), &mut send).await;
    }
    send.abort();
    Box::pin(rooms.disconnect(&id, conn)).await;
}

/// The close to send after a read error: 1009 for an oversized message, nothing otherwise (the
/// connection is already broken).
fn too_big(rooms: &Rooms, e: axum::Error) -> Option<(u16, String)> {
    match e.into_inner().downcast::<tungstenite::Error>() {
        Ok(e) if matches!(*e, tungstenite::Error::Capacity(_)) => {
            rooms.metrics().limit("message_size");
            Some((
                ApiError::close_code(ErrorCode::TooLarge),
                "message too big".into(),
            ))
        }
        _ => None,
    }
}

async fn reply(
    rooms: &Rooms,
    id: &str,
    conn: &Connection,
    outbox: &Outbox,
    code: ErrorCode,
    message: &str,
) {
    if outbox.push_reply(error_frame(code, message)) {
        let _ = rooms.resync(id, conn).await;
    }
}

/// A turn, sent to the room without waiting for it to be stored: the new state reaches everyone,
/// this connection included, and a refusal reaches this connection alone, through its outbox.
async fn send_turn(
    rooms: &Rooms,
    id: &str,
    conn: &Connection,
    seat: Option<Color>,
    outbox: &Arc<Outbox>,
    turn: String,
) {
    if let Err(e) = rooms
        .send_turn(id, conn, Actor::Seat(seat), turn, outbox.clone())
        .await
    {
        Box::pin(reply(rooms, id, conn, outbox, e.code(), &e.to_string())).await;
    }
}

async fn handle(
    rooms: &Rooms,
    id: &str,
    conn: &Connection,
    seat: Option<Color>,
    outbox: &Arc<Outbox>,
    message: Result<ClientMessage, ParseError>,
) {
    match message {
        Err(ParseError::Malformed(e)) => {
            let message = format!("malformed message: {e}");
            reply(rooms, id, conn, outbox, ErrorCode::Malformed, &message).await;
        }
        Err(ParseError::BadFields(e)) => {
            let message = format!("bad fields: {e}");
            reply(rooms, id, conn, outbox, ErrorCode::Malformed, &message).await;
        }
        Err(ParseError::UnknownType(kind)) => {
            let message = format!("unknown message type '{kind}' (see docs/protocol.md)");
            reply(rooms, id, conn, outbox, ErrorCode::UnknownType, &message).await;
        }
        Ok(ClientMessage::Move { turn }) => {
            send_turn(rooms, id, conn, seat, outbox, turn).await;
        }
        Ok(
            msg @ (ClientMessage::Resign
            | ClientMessage::Abort
            | ClientMessage::ClaimWin
            | ClientMessage::ClaimDraw),
        ) => {
            let ending = match msg {
                ClientMessage::Resign => Ending::Resign,
                ClientMessage::Abort => Ending::Abort,
                ClientMessage::ClaimWin => Ending::ClaimWin,
                _ => Ending::ClaimDraw,
            };
            if let Err(e) = rooms.end(id, Actor::Seat(seat), ending).await {
                reply(rooms, id, conn, outbox, e.code(), &e.to_string()).await;
            }
        }
        Ok(
            msg @ (ClientMessage::DrawOffer
            | ClientMessage::DrawAccept
            | ClientMessage::DrawDecline),
        ) => {
            let action = match msg {
                ClientMessage::DrawOffer => OfferAction::Offer,
                ClientMessage::DrawAccept => OfferAction::Accept,
                _ => OfferAction::Decline,
            };
            if let Err(e) = rooms.draw(id, Actor::Seat(seat), action).await {
                reply(rooms, id, conn, outbox, e.code(), &e.to_string()).await;
            }
        }
        Ok(
            msg @ (ClientMessage::TakebackOffer
            | ClientMessage::TakebackAccept
            | ClientMessage::TakebackDecline),
        ) => {
            let action = match msg {
                ClientMessage::TakebackOffer => OfferAction::Offer,
                ClientMessage::TakebackAccept => OfferAction::Accept,
                _ => OfferAction::Decline,
            };
            if let Err(e) = rooms.takeback(id, Actor::Seat(seat), action).await {
                reply(rooms, id, conn, outbox, e.code(), &e.to_string()).await;
            }
        }
        Ok(ClientMessage::Rematch) => {
            // The new seat reaches this connection as a `rematch` message.
            if let Err(e) = rooms.rematch(id, Actor::Seat(seat)).await {
                reply(rooms, id, conn, outbox, e.code(), &e.to_string()).await;
            }
        }
        Ok(ClientMessage::Sync) => {
            let _ = rooms.resync(id, conn).await;
        }
        Ok(ClientMessage::Ping) => {
            if outbox.push_reply(Utf8Bytes::from(ServerMessage::Pong.to_json())) {
                let _ = rooms.resync(id, conn).await;
            }
        }
    }
}
