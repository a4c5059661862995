//! A throwaway NATS server for the tests of several instances over a bus: `nats-server` on a
//! free port, stopped when dropped. Shared by the server's tests and the benchmark's, like
//! `pg.rs`. A server that cannot be started fails the test: it never skips.

use crate::pg::free_port;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A NATS server of its own for one test.
pub struct NatsServer {
    child: Child,
    /// Where it listens: `nats://127.0.0.1:{port}`.
    pub url: String,
}

impl NatsServer {
    pub fn start() -> NatsServer {
        // Debian installs it under /usr/sbin, which a test's PATH may lack.
        let bin = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("nats-server");
        let port = free_port();
        let mut child = Command::new(bin)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server is installed (scripts/test installs it)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("nats-server exited at start: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "nats-server listening within 10 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        NatsServer {
            child,
            url: format!("nats://127.0.0.1:{port}"),
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
