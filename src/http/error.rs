//! The one place where errors become HTTP status codes and WebSocket close codes.

use crate::protocol::ErrorCode;
use crate::rooms::RoomError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Close code: the server is restarting; reconnect (RFC 6455 registry, 1012).
pub const CLOSE_RESTART: u16 = 1012;
/// Close code: the client stayed silent past the ping timeout ("going away").
pub const CLOSE_GOING_AWAY: u16 = 1001;
/// Close code: a message was larger than the limit (1009).
pub const CLOSE_TOO_BIG: u16 = 1009;
/// Close code: the client broke a rule of the connection, such as a rate limit (1008).
pub const CLOSE_POLICY: u16 = 1008;
/// Close code: a frame broke the WebSocket protocol (1002).
pub const CLOSE_PROTOCOL: u16 = 1002;
/// Close code: a text frame was not UTF-8 (1007).
pub const CLOSE_BAD_TEXT: u16 = 1007;
/// Close code: the server failed (1011).
pub const CLOSE_INTERNAL: u16 = 1011;
/// Close code: no such game (application range, 4000 + HTTP 404).
pub const CLOSE_NOT_FOUND: u16 = 4404;
/// Close code: the seat this connection held moved to another device; the page watches from
/// then on (application range, 4000 + HTTP 410 Gone).
pub const CLOSE_SEAT_MOVED: u16 = 4410;
/// Close code: the game is served at another address, named by the `moved` message before it
/// (application range, 4000 + HTTP 307).
pub const CLOSE_MOVED: u16 = 4307;

/// An error answered over HTTP: a status and a JSON body `{"error": code, "message": ...}`.
/// (Between instances, on the bus, it travels as `{"code": ..., "message": ...}`.)
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApiError {
    /// The protocol's word for it.
    pub code: ErrorCode,
    /// The reason in words.
    pub message: String,
}

impl ApiError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    /// The HTTP status for an error code.
    pub fn status(code: ErrorCode) -> StatusCode {
        match code {
            ErrorCode::Malformed | ErrorCode::UnknownType | ErrorCode::BadNotation => {
                StatusCode::BAD_REQUEST
            }
            ErrorCode::BadVariant
            | ErrorCode::BrokenFrame
            | ErrorCode::BadText
            | ErrorCode::BadName => StatusCode::BAD_REQUEST,
            ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorCode::NotSeated | ErrorCode::ForbiddenOrigin => StatusCode::FORBIDDEN,
            ErrorCode::Timeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::NotYourTurn
            | ErrorCode::GameOver
            | ErrorCode::NotStarted
            | ErrorCode::SeatsTaken
            | ErrorCode::NotAllowed
            | ErrorCode::Conflict => StatusCode::CONFLICT,
            ErrorCode::IllegalTurn => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::SeatMoved => StatusCode::GONE,
        }
    }

    /// The close code for an error that ends a WebSocket connection.
    pub fn close_code(code: ErrorCode) -> u16 {
        match code {
            ErrorCode::TooLarge => CLOSE_TOO_BIG,
            ErrorCode::RateLimited | ErrorCode::Malformed | ErrorCode::UnknownType => CLOSE_POLICY,
            ErrorCode::NotFound => CLOSE_NOT_FOUND,
            ErrorCode::Unavailable => CLOSE_RESTART,
            ErrorCode::Timeout => CLOSE_GOING_AWAY,
            ErrorCode::BrokenFrame => CLOSE_PROTOCOL,
            ErrorCode::BadText => CLOSE_BAD_TEXT,
            ErrorCode::SeatMoved => CLOSE_SEAT_MOVED,
            _ => CLOSE_INTERNAL,
        }
    }
}

impl From<RoomError> for ApiError {
    fn from(e: RoomError) -> Self {
        if let RoomError::Store(inner) = &e {
            tracing::error!(error = %inner, "store error");
        }
        ApiError::new(e.code(), e.to_string())
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: ErrorCode,
    message: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Body {
            error: self.code,
            message: &self.message,
        };
        (ApiError::status(self.code), Json(body)).into_response()
    }
}
