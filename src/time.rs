//! The server's two clocks, both in Unix milliseconds, and nothing else reads the time:
//!
//! - [`wall_ms`]: the operating system's wall clock, for what is compared with times stored by
//!   an earlier run (the stale-game sweep) and for the load generator's own reports.
//! - [`room_ms`]: the rooms' clock, which game clocks, deadlines, claims and stored times read:
//!   the wall clock when first asked, advanced by tokio's clock from then on, so that a test that
//!   pauses tokio's clock drives every one of them, and a jump of the wall clock moves none.

use std::sync::OnceLock;
use tokio::time::Instant;

/// The wall clock: milliseconds since the Unix epoch.
pub fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The rooms' clock: the wall clock when first asked, then tokio's clock.
pub fn room_ms() -> i64 {
    static EPOCH: OnceLock<(i64, Instant)> = OnceLock::new();
    let (wall, start) = *EPOCH.get_or_init(|| (wall_ms(), Instant::now()));
    wall + Instant::now().saturating_duration_since(start).as_millis() as i64
}
