//! The container image, as far as a machine without a container engine can check it: the release
//! binary run the way the Dockerfile's entrypoint runs it (its user id, its environment, its data
//! in a /data-like folder, its health check), through a whole game and a SIGTERM restart with
//! nothing lost. scripts/test builds the release binary first and lints the Dockerfile.

use crate::harness::{Http, Ws, eager_turn, free_addr, turns};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The final stage of the Dockerfile, as far as running the binary goes.
#[derive(Debug, Default)]
struct Image {
    env: Vec<(String, String)>,
    user: Option<(u32, u32)>,
    workdir: String,
    volume: String,
    expose: u16,
    entrypoint: Vec<String>,
    cmd: Vec<String>,
    healthcheck: Vec<String>,
}

fn json_array(s: &str) -> Vec<String> {
    serde_json::from_str(s.trim()).unwrap_or_else(|e| panic!("not a JSON array: {s}: {e}"))
}

fn parse_dockerfile(text: &str) -> Image {
    let joined = text.replace("\\\n", " ");
    let lines: Vec<&str> = joined
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let last_from = lines
        .iter()
        .rposition(|l| l.starts_with("FROM "))
        .expect("a FROM");
    let mut image = Image::default();
    for line in &lines[last_from..] {
        let (instruction, rest) = line.split_once(' ').unwrap_or((line, ""));
        match instruction {
            "ENV" => {
                for pair in rest.split_whitespace() {
                    let (k, v) = pair.split_once('=').expect("ENV KEY=VALUE");
                    image.env.push((k.into(), v.into()));
                }
            }
            "USER" => {
                let (u, g) = rest.split_once(':').unwrap_or((rest, rest));
                image.user = Some((
                    u.parse().expect("a numeric uid"),
                    g.parse().expect("a numeric gid"),
                ));
            }
            "WORKDIR" => image.workdir = rest.into(),
            "VOLUME" => image.volume = json_array(rest).remove(0),
            "EXPOSE" => image.expose = rest.parse().unwrap(),
            "ENTRYPOINT" => image.entrypoint = json_array(rest),
            "CMD" => image.cmd = json_array(rest),
            "HEALTHCHECK" => {
                let cmd = rest.split_once("CMD ").expect("HEALTHCHECK ... CMD").1;
                image.healthcheck = json_array(cmd);
            }
            _ => {}
        }
    }
    image
}

fn release_binary() -> PathBuf {
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let bin = target.join("release/merels");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build --release` (scripts/test does)",
        bin.display()
    );
    bin
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false)
}

/// Runs a command of the image: its binary path mapped to the release build, its environment
/// with /data mapped to `data` and the port to `addr`, as the image's user when we can be.
fn image_command(
    image: &Image,
    argv: &[String],
    data: &Path,
    addr: std::net::SocketAddr,
) -> Command {
    let bin = release_binary();
    let mut cmd = match (image.user, is_root()) {
        (Some((uid, gid)), true) => {
            let mut c = Command::new("setpriv");
            c.args([
                format!("--reuid={uid}"),
                format!("--regid={gid}"),
                "--clear-groups".into(),
                "--".into(),
            ]);
            c.arg(&bin);
            c
        }
        _ => Command::new(&bin),
    };
    assert!(
        argv[0].ends_with("/merels"),
        "the image runs merels: {argv:?}"
    );
    cmd.args(&argv[1..]);
    for (k, v) in &image.env {
        let v = v.replace(&image.volume, &data.display().to_string());
        let v = if k == "MERELS_BIND" {
            addr.to_string()
        } else {
            v
        };
        cmd.env(k, v);
    }
    cmd.env("RUST_LOG", "warn");
    cmd.current_dir(if image.workdir == image.volume {
        data.to_path_buf()
    } else {
        PathBuf::from(&image.workdir)
    });
    cmd.stdin(Stdio::null());
    cmd
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(image: &Image, data: &Path, addr: std::net::SocketAddr) -> Running {
    let argv: Vec<String> = image.entrypoint.iter().chain(&image.cmd).cloned().collect();
    let child = image_command(image, &argv, data, addr)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let running = Running(child);
    // Healthy as the HEALTHCHECK says, within its start period.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = image_command(image, &image.healthcheck, data, addr)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        if status.success() {
            return running;
        }
        assert!(Instant::now() < deadline, "never healthy");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_release_binary_runs_as_the_image_runs_it() {
    let dockerfile =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Dockerfile")).unwrap();
    let image = parse_dockerfile(&dockerfile);
    assert_eq!(image.volume, "/data");
    assert_eq!(image.expose, 8080);
    assert!(
        image.user.is_some_and(|(uid, _)| uid != 0),
        "the image runs as a non-root user"
    );
    assert!(
        image
            .env
            .iter()
            .any(|(k, v)| k == "DATABASE_URL" && v.contains("/data/"))
    );

    let data = tempfile::tempdir().unwrap();
    if let (Some((uid, gid)), true) = (image.user, is_root()) {
        assert!(
            Command::new("chown")
                .arg(format!("{uid}:{gid}"))
                .arg(data.path())
                .status()
                .unwrap()
                .success()
        );
    }
    let addr = free_addr();
    let server = start(&image, data.path(), addr);
    let http = Http {
        base: format!("http://{addr}"),
        client: reqwest::Client::new(),
    };
    let (status, _) = http.request("GET", "/readyz", None, None).await;
    assert_eq!(status, 200);

    // A whole game.
    let white = http.create("three-mens-morris", "white").await;
    let black = http.join(&white.id).await;
    loop {
        let state = http.state(&white.id).await;
        if state["status"] == "finished" {
            break;
        }
        let seat = if state["to_move"] == "white" {
            &white
        } else {
            &black
        };
        let (status, body) = http.play(seat, &eager_turn(&state)).await;
        assert_eq!(status, 200, "{body}");
    }

    // A game in progress, then SIGTERM: a clean, prompt exit, and nothing lost on restart.
    let w = http.create("nine-mens-morris", "white").await;
    let b = http.join(&w.id).await;
    let mut ws = Ws::connect(addr, &w.id, Some(&w.secret)).await;
    for ply in 0..7 {
        let state = http.state(&w.id).await;
        let seat = if state["to_move"] == "white" { &w } else { &b };
        assert_eq!(http.play(seat, &eager_turn(&state)).await.0, 200);
        ws.state_with_turns(ply + 1).await;
    }
    let before = turns(&http.state(&w.id).await);
    let mut server = server;
    let started = Instant::now();
    assert!(
        Command::new("kill")
            .args(["-TERM", &server.0.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let status = server.0.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "shutdown took {:?}",
        started.elapsed()
    );
    assert_eq!(
        ws.closed().await,
        Some(1012),
        "clients are told to reconnect"
    );

    let db = data.path().join("merels.db");
    assert!(db.exists(), "the database lives in the volume");
    if let (Some((uid, _)), true) = (image.user, is_root()) {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(&db).unwrap().uid(),
            uid,
            "written by the image's user"
        );
    }
    let _server = start(&image, data.path(), addr);
    assert_eq!(turns(&http.state(&w.id).await), before);
    let state = http.state(&w.id).await;
    let seat = if state["to_move"] == "white" { &w } else { &b };
    assert_eq!(http.play(seat, &eager_turn(&state)).await.0, 200);
}
