//! Records the commit the binary was built from, for the page footer ("v0.1.0 · a38d0e2").
//! `MERELS_COMMIT` set by the builder wins (a Docker build has no .git); else git; else "unknown".

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MERELS_COMMIT");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    let commit = std::env::var("MERELS_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let out = Command::new("git")
                .args(["rev-parse", "--short=7", "HEAD"])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        });
    println!(
        "cargo:rustc-env=MERELS_COMMIT={}",
        commit.unwrap_or_else(|| "unknown".into())
    );
}
