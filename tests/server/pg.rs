//! A throwaway PostgreSQL cluster for the tests that need a real server: `initdb` and `pg_ctl`
//! on a free port, in a temporary folder. Shared by the server's tests and the benchmark's
//! (`bench/tests`), so it uses nothing but std and `tempfile`.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A throwaway PostgreSQL cluster on a free port, stopped when dropped. A cluster that cannot be
/// started fails the test: it never skips.
pub struct PgCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    as_postgres: bool,
}

fn pg_bin() -> PathBuf {
    if let Ok(dir) = std::env::var("MERELS_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/test installs it)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").exists())
        .collect();
    versions.sort();
    versions
        .pop()
        .expect("a PostgreSQL server under /usr/lib/postgresql")
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl PgCluster {
    pub fn start() -> PgCluster {
        let bin = pg_bin();
        let dir = tempfile::tempdir().unwrap();
        let as_postgres = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| o.stdout == b"0\n")
            .unwrap_or(false);
        if as_postgres {
            // PostgreSQL refuses to run as root: hand the folder to the postgres user.
            let ok = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(ok.success());
        }
        let port = free_port();
        let cluster = PgCluster {
            dir,
            bin,
            port,
            as_postgres,
        };
        let data = cluster.dir.path().join("data");
        cluster.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        cluster.start_server();
        cluster
    }

    /// Starts the cluster's server (again, after [`PgCluster::stop_server`]) on its port.
    pub fn start_server(&self) {
        let data = self.dir.path().join("data");
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &opts,
                "-w",
                "-t",
                "30",
                "-l",
                self.dir.path().join("log").to_str().unwrap(),
                "start",
            ],
        );
    }

    /// Stops the cluster's server as an administrator would (`pg_ctl stop -m fast`: every
    /// session is ended), keeping its data: an outage, until [`PgCluster::start_server`].
    pub fn stop_server(&self) {
        let data = self.dir.path().join("data");
        self.run(
            "pg_ctl",
            &["-D", data.to_str().unwrap(), "-m", "fast", "-w", "stop"],
        );
    }

    /// One of PostgreSQL's programs, run as the `postgres` user when this is root.
    fn command(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        }
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let out = self
            .command(tool)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert!(
            out.status.success(),
            "{tool} failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A URL for a new, empty database in this cluster. (Made with PostgreSQL's own `createdb`,
    /// so that this file needs no database crate and serves the benchmark's tests too; async, as
    /// the tests that call it are.)
    pub async fn database(&self, name: &str) -> String {
        let port = self.port.to_string();
        self.run(
            "createdb",
            &["-h", "127.0.0.1", "-p", &port, "-U", "postgres", name],
        );
        self.url(name)
    }

    /// The URL of database `name` in this cluster (made by [`PgCluster::database`]).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // A failing test may have stopped the server itself: stop it if it runs, quietly,
            // so that the test's own message is what is seen.
            let data = self.dir.path().join("data");
            let _ = self
                .command("pg_ctl")
                .args(["-D", data.to_str().unwrap(), "-m", "immediate", "stop"])
                .output();
            return;
        }
        let data = self.dir.path().join("data");
        self.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }
}
