//! Real parts for server tests: a merels server bound to 127.0.0.1:0 on a real SQLite file (or a
//! real PostgreSQL cluster started here), an HTTP client, WebSocket clients, and the release-like
//! binary run as its own process for crash tests. Nothing is mocked.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use merels::config::Config;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub use crate::pg::{PgCluster, free_port};

/// How long a test waits for any one message, or for anything to come true, before it fails.
pub const WAIT: Duration = Duration::from_secs(10);

/// Asks `check` every 25 ms until it answers true; fails the test, saying `what` never came
/// true, after [`WAIT`]. Tests wait for what they expect rather than sleep for a guess.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + WAIT;
    while !check().await {
        assert!(
            std::time::Instant::now() < deadline,
            "never came true: {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Whether `url` answers 2xx.
pub async fn answers(client: &reqwest::Client, url: &str) -> bool {
    client
        .get(url)
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

/// A server running in this process.
pub struct TestServer {
    pub addr: SocketAddr,
    pub base: String,
    pub database_url: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    _dir: Option<tempfile::TempDir>,
}

impl TestServer {
    /// A server on a fresh SQLite file in a temporary folder.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// A server on a fresh SQLite file in a temporary folder, with the configuration adjusted
    /// by `tweak`.
    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("merels.db").display());
        let mut server = TestServer::start_on(&url, tweak).await;
        server._dir = Some(dir);
        server
    }

    /// A server on the given database, with the configuration adjusted by `tweak`.
    pub async fn start_on(database_url: &str, tweak: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::start_at("127.0.0.1:0".parse().unwrap(), database_url, tweak).await
    }

    /// A server at a given address (to restart one where its clients expect it).
    pub async fn start_at(
        addr: SocketAddr,
        database_url: &str,
        tweak: impl FnOnce(&mut Config),
    ) -> TestServer {
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut config = Config::new(addr, database_url);
        tweak(&mut config);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            merels::server::run(listener, config, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        let server = TestServer {
            addr,
            base: format!("http://{addr}"),
            database_url: database_url.to_string(),
            stop: Some(stop),
            task: Some(task),
            _dir: None,
        };
        server.wait_ready().await;
        server
    }

    async fn wait_ready(&self) {
        let client = reqwest::Client::new();
        let url = format!("{}/readyz", self.base);
        eventually(&format!("{url} answers"), || answers(&client, &url)).await;
    }

    /// Shuts the server down gracefully and starts it again at the same address, on the same
    /// database.
    pub async fn restart(self) -> TestServer {
        self.restart_after(Duration::ZERO).await
    }

    /// Stops the server, waits `down`, and starts it again on the same address and database.
    pub async fn restart_after(mut self, down: Duration) -> TestServer {
        let dir = self._dir.take();
        let (addr, url) = (self.addr, self.database_url.clone());
        self.stop().await;
        tokio::time::sleep(down).await;
        let mut again = TestServer::start_at(addr, &url, |_| {}).await;
        again._dir = dir;
        again
    }

    /// Shuts the server down gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(WAIT, task).await.unwrap().unwrap();
        }
    }

    pub fn http(&self) -> Http {
        Http {
            base: self.base.clone(),
            client: reqwest::Client::new(),
        }
    }

    /// A browser: an HTTP client that keeps its cookies (its browser id, its seats' cookies).
    pub fn browser(&self) -> Http {
        Http {
            base: self.base.clone(),
            client: reqwest::Client::builder()
                .cookie_store(true)
                .build()
                .unwrap(),
        }
    }

    pub async fn ws(&self, id: &str, secret: Option<&str>) -> Ws {
        Ws::connect(self.addr, id, secret).await
    }
}

/// A JSON HTTP client for one server.
#[derive(Clone)]
pub struct Http {
    pub base: String,
    pub client: reqwest::Client,
}

/// A seat: the game and its secret.
#[derive(Debug, Clone)]
pub struct Seat {
    pub id: String,
    pub color: String,
    pub secret: String,
}

impl Http {
    /// The text of the page at `path` (`/g/{id}`), whatever its status.
    pub async fn page(&self, path: &str) -> String {
        let url = format!("{}{path}", self.base);
        self.client
            .get(url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    pub async fn create(&self, variant: &str, color: &str) -> Seat {
        self.create_timed(variant, color, "untimed").await
    }

    /// A new game with a time control (`untimed`, `M+S`, `Nd`).
    pub async fn create_timed(&self, variant: &str, color: &str, clock: &str) -> Seat {
        self.create_with(json!({"variant": variant, "options": {}, "color": color, "clock": clock}))
            .await
    }

    /// A new game from a `POST /api/games` body; the creator's seat.
    pub async fn create_with(&self, request: Value) -> Seat {
        let (status, body) = self
            .request("POST", "/api/games", None, Some(request))
            .await;
        assert_eq!(status, 201, "{body}");
        Seat {
            id: body["id"].as_str().unwrap().into(),
            color: body["seat"].as_str().unwrap().into(),
            secret: body["secret"].as_str().unwrap().into(),
        }
    }

    pub async fn join(&self, id: &str) -> Seat {
        let (status, body) = self
            .request("POST", &format!("/api/games/{id}/join"), None, None)
            .await;
        assert_eq!(status, 200, "{body}");
        Seat {
            id: id.into(),
            color: body["seat"].as_str().unwrap().into(),
            secret: body["secret"].as_str().unwrap().into(),
        }
    }

    /// The game record, as `/g/{id}/record` serves it.
    /// A one-time "continue on another device" link for a seat that keeps it here too (so the
    /// test's secret still acts): its URL and its code.
    pub async fn handoff(&self, seat: &Seat) -> (String, String) {
        self.handoff_with(seat, true).await
    }

    /// A one-time link for a seat that moves it (`keep: false`: the seat's secret stops working
    /// once the link is used) or opens it there too (`keep: true`): its URL and its code.
    pub async fn handoff_with(&self, seat: &Seat, keep: bool) -> (String, String) {
        let (status, body) = self
            .request(
                "POST",
                &format!("/api/games/{}/handoff", seat.id),
                Some(&seat.secret),
                Some(json!({ "keep": keep })),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["keep"], keep, "{body}");
        (
            body["url"].as_str().unwrap().to_string(),
            body["code"].as_str().unwrap().to_string(),
        )
    }

    pub async fn record(&self, id: &str) -> String {
        let res = self
            .client
            .get(format!("{}/g/{id}/record", self.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        res.text().await.unwrap()
    }

    pub async fn state(&self, id: &str) -> Value {
        let (status, body) = self
            .request("GET", &format!("/api/games/{id}"), None, None)
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// The seat resigns its game.
    pub async fn resign(&self, seat: &Seat) -> (u16, Value) {
        let path = format!("/api/games/{}/resign", seat.id);
        self.request("POST", &path, Some(&seat.secret), None).await
    }

    pub async fn play(&self, seat: &Seat, turn: &str) -> (u16, Value) {
        self.request(
            "POST",
            &format!("/api/games/{}/move", seat.id),
            Some(&seat.secret),
            Some(json!({"move": turn})),
        )
        .await
    }
}

/// The value of the first line of the server's `/metrics` that starts with `line_start`, or 0.
pub async fn metric(server: &TestServer, line_start: &str) -> f64 {
    let text = reqwest::get(format!("{}/metrics", server.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

/// A WebSocket client.
pub struct Ws {
    pub stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The `hello` message.
    pub hello: Value,
    /// The last state seen.
    pub state: Value,
    /// The `chat_history` that followed the state on connecting.
    pub chat: Value,
    /// Where a `moved` sent the connection, if one did.
    pub moved: Option<String>,
}

impl Ws {
    /// Connects to game `id` at `addr`, following a `moved` (the game served at an address of
    /// its own) as a browser does.
    pub async fn connect(addr: SocketAddr, id: &str, secret: Option<&str>) -> Ws {
        Ws::connect_url(&format!("ws://{addr}/api/games/{id}/ws"), secret).await
    }

    /// [`Ws::connect`] at a socket's whole address.
    pub async fn connect_url(url: &str, secret: Option<&str>) -> Ws {
        Ws::connect_url_from(url, secret, None).await
    }

    /// [`Ws::connect`] as a spectator from another loopback address (`127.0.0.2`, ...): another
    /// client, as the server's limits by address see it.
    pub async fn connect_from(source: IpAddr, addr: SocketAddr, id: &str) -> Ws {
        Ws::connect_url_from(
            &format!("ws://{addr}/api/games/{id}/ws"),
            None,
            Some(source),
        )
        .await
    }

    /// [`Ws::connect`] as a spectator from a browser: the `merels_browser` cookie it sends
    /// (22 URL-safe characters).
    pub async fn connect_browser(addr: SocketAddr, id: &str, cookie: &str) -> Ws {
        let url = format!("ws://{addr}/api/games/{id}/ws");
        Ws::connect_url_as(&url, None, None, Some(cookie)).await
    }

    async fn connect_url_from(url: &str, secret: Option<&str>, source: Option<IpAddr>) -> Ws {
        Ws::connect_url_as(url, secret, source, None).await
    }

    async fn connect_url_as(
        url: &str,
        secret: Option<&str>,
        source: Option<IpAddr>,
        cookie: Option<&str>,
    ) -> Ws {
        let mut url = url.to_string();
        let mut moved = None;
        loop {
            let mut ws = Ws::open(&url, secret, source, cookie).await;
            let first = ws.next().await;
            if first["type"] == "moved" {
                assert!(moved.is_none(), "moved twice: {first}");
                assert_eq!(ws.closed().await, Some(4307));
                url = first["url"].as_str().unwrap().to_string();
                moved = Some(url.clone());
                continue;
            }
            ws.moved = moved;
            ws.hello = first;
            assert_eq!(ws.hello["type"], "hello", "{}", ws.hello);
            let state = ws.next().await;
            assert_eq!(state["type"], "state", "{state}");
            ws.state = state;
            ws.chat = ws.next().await;
            assert_eq!(ws.chat["type"], "chat_history", "{}", ws.chat);
            return ws;
        }
    }

    /// A socket at `url` (from the `source` address, if given), nothing read yet.
    async fn open(
        url: &str,
        secret: Option<&str>,
        source: Option<IpAddr>,
        cookie: Option<&str>,
    ) -> Ws {
        let mut request = url.into_client_request().unwrap();
        if let Some(c) = cookie {
            request
                .headers_mut()
                .insert("cookie", format!("merels_browser={c}").parse().unwrap());
        }
        if let Some(s) = secret {
            request
                .headers_mut()
                .insert("authorization", format!("Bearer {s}").parse().unwrap());
        }
        let stream = match source {
            None => tokio_tungstenite::connect_async(request).await.unwrap().0,
            Some(source) => {
                let uri = request.uri();
                let to = format!("{}:{}", uri.host().unwrap(), uri.port_u16().unwrap());
                let socket = tokio::net::TcpSocket::new_v4().unwrap();
                socket.bind(SocketAddr::new(source, 0)).unwrap();
                let tcp = socket.connect(to.parse().unwrap()).await.unwrap();
                let plain = MaybeTlsStream::Plain(tcp);
                tokio_tungstenite::client_async(request, plain)
                    .await
                    .unwrap()
                    .0
            }
        };
        Ws {
            stream,
            hello: Value::Null,
            state: Value::Null,
            chat: Value::Null,
            moved: None,
        }
    }

    /// The next JSON message (text frames only); panics on close or after [`WAIT`].
    pub async fn next(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.stream.next())
                .await
                .expect("a message in time")
                .expect("the connection is open")
                .expect("a frame");
            match msg {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    match v["type"].as_str() {
                        Some("state") => self.state = v.clone(),
                        Some("update") => merge(&mut self.state, &v),
                        _ => {}
                    }
                    return v;
                }
                Message::Close(frame) => panic!("closed: {frame:?}"),
                _ => continue,
            }
        }
    }

    /// Waits for the next message of a type, skipping others.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    /// Waits for the next `state` or `update`; returns the game as it then stands.
    pub async fn next_state(&mut self) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == "state" || v["type"] == "update" {
                return self.state.clone();
            }
        }
    }

    /// Waits for a state with at least this many turns.
    pub async fn state_with_turns(&mut self, turns: usize) -> Value {
        while self.state["turns"].as_array().map_or(0, |t| t.len()) < turns {
            self.next_state().await;
        }
        self.state.clone()
    }

    pub async fn send_json(&mut self, v: Value) {
        self.stream
            .send(Message::text(v.to_string()))
            .await
            .unwrap();
    }

    pub async fn send_text(&mut self, text: &str) {
        self.stream
            .send(Message::text(text.to_string()))
            .await
            .unwrap();
    }

    pub async fn play(&mut self, turn: &str) {
        self.send_json(json!({"type": "move", "move": turn})).await;
    }

    /// Waits for the connection to close; returns its close code.
    pub async fn closed(&mut self) -> Option<u16> {
        loop {
            match tokio::time::timeout(WAIT, self.stream.next())
                .await
                .expect("closed in time")
            {
                None => return None,
                Some(Err(_)) => return None,
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
            }
        }
    }
}

/// Applies an `update` to the whole state, as a client does: its turn list grows by the last
/// turn or is cut after a takeback, and every other field is replaced. An update that skips a
/// version fails the test: the server sends the whole state instead.
pub fn merge(state: &mut Value, update: &Value) {
    let (have, next) = (
        state["version"].as_u64().unwrap(),
        update["version"].as_u64().unwrap(),
    );
    assert!(
        next <= have + 1,
        "an update skipped from {have} to {next}: {update}"
    );
    if next < have {
        return;
    }
    let plies = update["plies"].as_u64().unwrap() as usize;
    let turns = state["turns"].as_array_mut().unwrap();
    if plies == turns.len() + 1 {
        turns.push(update["last_turn"]["turn"].clone());
    } else {
        assert!(plies <= turns.len(), "{plies} plies after {}", turns.len());
        turns.truncate(plies);
    }
    for (key, value) in update.as_object().unwrap() {
        if key != "type" {
            state[key] = value.clone();
        }
    }
}

/// The turns of a state, in notation.
pub fn turns(state: &Value) -> Vec<String> {
    state["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// Picks a turn from a state's legal turns: the first that removes a man, else the first.
/// Deterministic, and it ends games: removals accumulate.
pub fn eager_turn(state: &Value) -> String {
    let legal: Vec<&str> = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["turn"].as_str().unwrap())
        .collect();
    legal
        .iter()
        .find(|t| t.contains('x'))
        .or(legal.first())
        .expect("a legal turn")
        .to_string()
}

/// The merels binary run as its own process (for crash and restart tests).
pub struct Process {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Process {
    /// Starts `merels serve` on `addr` with `database_url`, from folder `cwd`.
    pub async fn start(cwd: &Path, addr: SocketAddr, database_url: &str) -> Process {
        Process::start_with(cwd, addr, database_url, &[]).await
    }

    /// [`Process::start`] with more settings in the environment.
    pub async fn start_with(
        cwd: &Path,
        addr: SocketAddr,
        database_url: &str,
        env: &[(&str, &str)],
    ) -> Process {
        Process::start_logging(cwd, addr, database_url, env, None).await
    }

    /// [`Process::start_with`], its logs (standard output and error) written to `log` when given.
    pub async fn start_logging(
        cwd: &Path,
        addr: SocketAddr,
        database_url: &str,
        env: &[(&str, &str)],
        log: Option<&Path>,
    ) -> Process {
        let mut command = Command::new(env!("CARGO_BIN_EXE_merels"));
        command
            .arg("serve")
            .current_dir(cwd)
            .env("MERELS_BIND", addr.to_string())
            .env("DATABASE_URL", database_url)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        if let Some(log) = log {
            let file = std::fs::File::create(log).unwrap();
            command.stdout(file.try_clone().unwrap()).stderr(file);
        }
        let child = command.spawn().unwrap();
        let process = Process { child, addr };
        let client = reqwest::Client::new();
        let url = format!("http://{addr}/readyz");
        eventually(&format!("{url} answers"), || answers(&client, &url)).await;
        process
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn http(&self) -> Http {
        Http {
            base: self.base(),
            client: reqwest::Client::new(),
        }
    }

    /// Sends the process a signal (`STOP`, `CONT`, ...).
    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then wait for a clean exit.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
        self.child.wait().unwrap()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback address.
pub fn free_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], free_port()))
}
