//! The server that `chaos` and `hostile` attack: merels, from this very binary, started as a
//! child process on a fixed address and database, its log kept to be read after.

use super::workload::until_ready;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A server child process.
pub(super) struct Server {
    child: Child,
    log: std::path::PathBuf,
}

impl Server {
    /// Starts `merels serve` on `addr` and `url` with the extra settings `env`, its log
    /// appended to `log`; returns once it is ready.
    pub async fn start(
        addr: SocketAddr,
        url: &str,
        env: &[(&str, &str)],
        log: &Path,
    ) -> Result<Server, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| e.to_string())?;
        let child = Command::new(exe)
            .arg("serve")
            .env("MERELS_BIND", addr.to_string())
            .env("DATABASE_URL", url)
            .env("MERELS_SHUTDOWN_TIMEOUT_SECS", "5")
            // Its peers' address on a free port of its own, so that several can run at once.
            .env("MERELS_INTERNAL_BIND", "127.0.0.1:0")
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            // The server logs to stdout; a panic's message goes to stderr.
            .stdout(file.try_clone().map_err(|e| e.to_string())?)
            .stderr(file)
            .spawn()
            .map_err(|e| format!("starting the server: {e}"))?;
        let server = Server {
            child,
            log: log.to_path_buf(),
        };
        until_ready(addr).await?;
        Ok(server)
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// How many lines of its log mention `needle`.
    pub fn log_mentions(&self, needle: &str) -> usize {
        std::fs::read_to_string(&self.log)
            .map(|log| log.lines().filter(|l| l.contains(needle)).count())
            .unwrap_or(0)
    }

    /// Kills the server, hard (SIGKILL) or gracefully (SIGTERM), and waits for it to go.
    pub fn kill(&mut self, hard: bool) {
        #[cfg(target_os = "linux")]
        if !hard {
            use rustix::process::{Pid, Signal, kill_process};
            if let Some(pid) = Pid::from_raw(self.child.id() as i32) {
                let _ = kill_process(pid, Signal::TERM);
                let _ = self.child.wait();
                return;
            }
        }
        let _ = hard;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A NATS server of its own, for instances that share a bus (`--bus`): `nats-server` from the
/// PATH or /usr/sbin (where Debian puts it), on a free loopback port; stopped when dropped.
pub(super) struct Bus {
    child: Child,
    /// Where it listens.
    pub url: String,
}

impl Bus {
    /// Starts one through `launch` (which may pin it to a core), and waits until it listens.
    pub async fn start(launch: impl FnOnce(&str) -> Command) -> Result<Bus, String> {
        let bin = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .unwrap_or("nats-server");
        let port = super::free_port()?;
        let child = launch(bin)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting nats-server (is it installed?): {e}"))?;
        let bus = Bus {
            child,
            url: format!("nats://127.0.0.1:{port}"),
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            if std::time::Instant::now() > deadline {
                return Err("nats-server did not listen within 10 s".into());
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        Ok(bus)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
