//! A throwaway NATS server for the tests of several instances over a bus: `nats-server` on a
//! free port, stopped when dropped. Shared by the server's tests and the benchmark's, like
//! `pg.rs`. A server that cannot be started fails the test: it never skips.

use crate::pg::free_port;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A NATS server of its own for one test.
pub struct NatsServer {
    child: Child,
    /// Where it listens, with the credentials it asks for: `nats://127.0.0.1:{port}`, or
    /// `nats://user:password@127.0.0.1:{port}`.
    pub url: String,
    /// Where it listens, without credentials.
    pub bare: String,
}

impl NatsServer {
    pub fn start() -> NatsServer {
        NatsServer::start_with(None)
    }

    /// A server that lets in only clients with this user name and password.
    pub fn with_user(user: &str, password: &str) -> NatsServer {
        NatsServer::start_with(Some((user, password)))
    }

    fn start_with(credentials: Option<(&str, &str)>) -> NatsServer {
        // Debian installs it under /usr/sbin, which a test's PATH may lack.
        let bin = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("nats-server");
        let port = free_port();
        let mut args = vec![
            "-a".to_string(),
            "127.0.0.1".into(),
            "-p".into(),
            port.to_string(),
        ];
        if let Some((user, password)) = credentials {
            args.extend([
                "--user".into(),
                user.into(),
                "--pass".into(),
                password.into(),
            ]);
        }
        let mut child = Command::new(bin)
            .args(&args)
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
        let bare = format!("nats://127.0.0.1:{port}");
        let url = match credentials {
            Some((user, password)) => {
                let encode = |s: &str| {
                    s.bytes()
                        .map(|b| match b {
                            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                                (b as char).to_string()
                            }
                            _ => format!("%{b:02X}"),
                        })
                        .collect::<String>()
                };
                format!(
                    "nats://{}:{}@127.0.0.1:{port}",
                    encode(user),
                    encode(password)
                )
            }
            None => bare.clone(),
        };
        NatsServer { child, url, bare }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
