//! Serving a game that another instance owns. A request or WebSocket naming a game (`/g/{id}...`,
//! `/api/games/{id}...`, `/embed/{id}`) that reaches an instance other than the game's owner is passed on to the
//! owner's internal address as it came (method, path, headers, body; for a WebSocket, the
//! upgrade, then bytes both ways), so the owner's room feeds every socket of its game itself and
//! the client never knows. Any load balancer works; one that hashes on the game id makes this
//! rare.
//!
//! An owner that clients can reach at an address of its own (`MERELS_DIRECT_URL`) is not
//! forwarded to for sockets: the client is told to reconnect there (`moved`), so that the owner
//! feeds it straight and nothing of the game crosses between instances but its HTTP requests.
//!
//! The internal address serves only peers: each forwarded request carries the peers' shared
//! secret (kept in the database) and the client's address, which the owner then uses for its
//! limits. A request there without the secret is refused, and its connection closed at once;
//! until its first request shows the secret, a connection there counts against its address's
//! caps ([`Place`]).

use super::AppState;
use super::error::ApiError;
use super::limits::{ClientIp, FromPeer};
use super::listen::Place;
use crate::config::Config;
use crate::protocol::ErrorCode;
use crate::store::owners::Owner;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The header that carries the peers' secret.
const PEER_HEADER: &str = "x-merels-peer";
/// The header that carries the client's address on a forwarded request.
const CLIENT_HEADER: &str = "x-merels-client";

/// What an instance needs to forward to its peers.
#[derive(Debug, Clone)]
pub struct Peers {
    secret: HeaderValue,
    client: Client<HttpConnector, Body>,
    /// For each peer (by internal address) that sockets are forwarded to: what cuts them all,
    /// should the peer stop holding a lease (dead, or paused) while they are open.
    links: Arc<Mutex<HashMap<String, CancellationToken>>>,
}

impl Peers {
    /// Peers that show each other `secret`.
    pub fn new(secret: &str) -> Result<Peers, axum::http::header::InvalidHeaderValue> {
        let mut connector = HttpConnector::new();
        // An owner that is gone refuses at once; one that is paused never answers, and the
        // request's own time limit ends the wait.
        connector.set_connect_timeout(Some(Duration::from_secs(2)));
        connector.set_nodelay(true);
        Ok(Peers {
            secret: HeaderValue::from_str(secret)?,
            client: Client::builder(TokioExecutor::new()).build(connector),
            links: Arc::default(),
        })
    }

    fn links(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.links.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What cuts the sockets forwarded to the peer at `address`.
    fn link(&self, address: &str) -> CancellationToken {
        self.links().entry(address.to_string()).or_default().clone()
    }

    /// Cuts every socket forwarded to a peer not among the `live` addresses (those whose lease
    /// holds): its clients reconnect, and reach whoever takes its games. A paused owner would
    /// otherwise keep them waiting until it woke.
    pub fn cut_all_but(&self, live: &[Owner]) {
        self.links().retain(|address, cut| {
            let keep = live.iter().any(|o| &o.address == address);
            if !keep {
                cut.cancel();
            }
            keep
        });
    }

    fn shown_by(&self, headers: &HeaderMap) -> bool {
        headers.get(PEER_HEADER).is_some_and(|v| {
            subtle::ConstantTimeEq::ct_eq(v.as_bytes(), self.secret.as_bytes()).into()
        })
    }
}

/// The game a path names, if any.
fn game_in_path(path: &str) -> Option<&str> {
    let rest = path
        .strip_prefix("/g/")
        .or_else(|| path.strip_prefix("/api/games/"))
        .or_else(|| path.strip_prefix("/embed/"))?;
    let id = rest.split('/').next()?;
    crate::rooms::secrets::is_id(id).then_some(id)
}

/// Whether a path is a game's WebSocket.
fn is_socket(path: &str) -> bool {
    path.starts_with("/api/games/") && path.ends_with("/ws")
}

/// Marks a game's socket whose owner clients reach themselves: the socket is told to go there.
#[derive(Debug, Clone)]
pub struct MoveTo(pub String);

/// The WebSocket origin of the instance clients reach at `direct` (`https://host` gives
/// `wss://host`).
pub fn socket_origin(direct: &str) -> String {
    match direct.strip_prefix("https://") {
        Some(host) => format!("wss://{host}"),
        None => format!("ws://{}", direct.strip_prefix("http://").unwrap_or(direct)),
    }
}

/// The socket of game `id` on the instance clients reach at `direct`.
fn socket_url(direct: &str, id: &str) -> String {
    format!("{}/api/games/{id}/ws", socket_origin(direct))
}

/// Where clients open game `id`'s socket, when this instance, which runs it, is reached at an
/// address of its own: its pages and seat answers name it, so that their sockets go straight
/// there rather than landing anywhere and being sent on.
pub fn own_socket(config: &Config, id: &str) -> Option<String> {
    config.direct_url.as_deref().map(|d| socket_url(d, id))
}

/// Whether a socket asks to be served where it landed (`?direct=0`): a client that could not
/// reach the address it was sent to (a firewall, a page whose policy does not allow it) comes
/// back so, and is forwarded or relayed instead.
fn stays(uri: &Uri) -> bool {
    super::query_has(uri, "direct=0")
}

/// Middleware of the public router: a request for a game that another live instance owns is
/// served by forwarding it there; a socket is sent there itself when clients can reach the
/// owner, or, with a bus, served here over the bus.
pub async fn to_owner(
    State(app): State<AppState>,
    ClientIp(client): ClientIp,
    request: Request,
    next: Next,
) -> Response {
    let Some(peers) = &app.peers else {
        return next.run(request).await;
    };
    if request.extensions().get::<FromPeer>().is_some() {
        // Forwarded once already: served here, whatever this instance finds (never a loop).
        return next.run(request).await;
    }
    let Some(id) = game_in_path(request.uri().path()) else {
        return next.run(request).await;
    };
    match app.rooms.locate(id).await {
        Ok(None) => next.run(request).await,
        // Never to this instance's own address: an owner registered there is an earlier run of
        // this instance, gone before its lease lapsed, and sending the client back here would
        // only bring it round again.
        Ok(Some(Owner {
            direct: Some(direct),
            ..
        })) if is_socket(request.uri().path())
            && !stays(request.uri())
            && app.config.direct_url.as_ref() != Some(&direct) =>
        {
            let to = MoveTo(socket_url(&direct, id));
            let mut request = request;
            request.extensions_mut().insert(to);
            next.run(request).await
        }
        Ok(Some(owner)) if app.relay.is_some() && is_socket(request.uri().path()) => {
            // Served here, its frames and the room's relayed over the bus.
            let mut request = request;
            request
                .extensions_mut()
                .insert(super::relay::RelayTo(owner));
            next.run(request).await
        }
        Ok(Some(owner)) => {
            app.metrics.forwarded.inc();
            forward(peers, &owner.address, client, request).await
        }
        Err(e) => ApiError::new(ErrorCode::Unavailable, e.to_string()).into_response(),
    }
}

/// Middleware of the internal router: only peers may use it; their requests are marked with the
/// client they came for, and their connection vouched for. Any other request is refused and its
/// connection closed.
pub async fn from_peer(State(app): State<AppState>, mut request: Request, next: Next) -> Response {
    let client = app.peers.as_ref().and_then(|peers| {
        let headers = request.headers();
        peers.shown_by(headers).then(|| {
            headers
                .get(CLIENT_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<IpAddr>().ok())
        })?
    });
    let Some(client) = client else {
        let mut refused = ApiError::new(
            ErrorCode::ForbiddenOrigin,
            "this address serves the other instances only",
        )
        .into_response();
        refused
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return refused;
    };
    if let Some(place) = request.extensions().get::<Place>() {
        place.vouch();
    }
    request.headers_mut().remove(PEER_HEADER);
    request.headers_mut().remove(CLIENT_HEADER);
    request.extensions_mut().insert(FromPeer(client));
    next.run(request).await
}

/// Headers that describe one connection, not the message: not passed on (RFC 9110 §7.6.1),
/// except that an upgrade keeps `Connection` and `Upgrade`.
const HOP_BY_HOP: [header::HeaderName; 6] = [
    header::CONNECTION,
    header::UPGRADE,
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
    header::PROXY_AUTHORIZATION,
];

fn strip_hop_by_hop(headers: &mut HeaderMap, upgrade: bool) {
    for name in &HOP_BY_HOP {
        if !(upgrade && (name == header::CONNECTION || name == header::UPGRADE)) {
            headers.remove(name);
        }
    }
    headers.remove("keep-alive");
}

/// Passes `request` to the instance at `address` and its answer back; for a WebSocket, joins
/// the two connections once the owner has accepted the upgrade, until either end closes.
async fn forward(peers: &Peers, address: &str, client: IpAddr, mut request: Request) -> Response {
    let upgrading = request.headers().contains_key(header::UPGRADE);
    let from_client = upgrading.then(|| hyper::upgrade::on(&mut request));
    let (mut parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = match format!("http://{address}{path}").parse::<Uri>() {
        Ok(uri) => uri,
        Err(e) => return unreachable_owner(e),
    };
    parts.extensions = Default::default();
    strip_hop_by_hop(&mut parts.headers, upgrading);
    parts.headers.insert(PEER_HEADER, peers.secret.clone());
    if let Ok(value) = HeaderValue::from_str(&client.to_string()) {
        parts.headers.insert(CLIENT_HEADER, value);
    }
    let mut response = match peers.client.request(Request::from_parts(parts, body)).await {
        Ok(response) => response,
        Err(e) => return unreachable_owner(e),
    };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS
        && let Some(from_client) = from_client
    {
        let from_owner = hyper::upgrade::on(&mut response);
        let cut = peers.link(address);
        // Ends when either side closes (the owner's room closes its sockets when it ends), or
        // when the owner no longer holds a lease.
        tokio::spawn(async move {
            let (Ok(client_side), Ok(owner_side)) = tokio::join!(from_client, from_owner) else {
                return;
            };
            let (mut client_side, mut owner_side) =
                (TokioIo::new(client_side), TokioIo::new(owner_side));
            tokio::select! {
                _ = tokio::io::copy_bidirectional(&mut client_side, &mut owner_side) => {}
                () = cut.cancelled() => {}
            }
        });
    } else {
        strip_hop_by_hop(response.headers_mut(), false);
    }
    response.map(Body::new)
}

fn unreachable_owner(e: impl std::fmt::Display) -> Response {
    tracing::warn!(error = %e, "the game's owner did not answer");
    ApiError::new(
        ErrorCode::Unavailable,
        "the server running this game did not answer; try again shortly",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::{game_in_path, socket_url};

    #[test]
    fn a_socket_on_an_address_of_its_own() {
        assert_eq!(
            socket_url("https://a.merels.example", "abc"),
            "wss://a.merels.example/api/games/abc/ws"
        );
        assert_eq!(
            socket_url("http://127.0.0.1:8080", "abc"),
            "ws://127.0.0.1:8080/api/games/abc/ws"
        );
    }

    #[test]
    fn paths_that_name_a_game() {
        let id = crate::rooms::secrets::new_id(0);
        assert_eq!(game_in_path(&format!("/g/{id}")), Some(id.as_str()));
        assert_eq!(game_in_path(&format!("/g/{id}/record")), Some(id.as_str()));
        assert_eq!(
            game_in_path(&format!("/api/games/{id}/ws")),
            Some(id.as_str())
        );
        assert_eq!(game_in_path(&format!("/embed/{id}")), Some(id.as_str()));
        assert_eq!(game_in_path("/api/games"), None);
        assert_eq!(game_in_path("/api/games/not-an-id/move"), None);
        assert_eq!(game_in_path("/variants/nine-mens-morris"), None);
    }
}
