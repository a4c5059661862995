//! How rooms are tuned ([`RoomsConfig`]): the delays, allowances and leases the server's
//! configuration sets. The defaults are the configuration's (clap's), written once there;
//! `server::rooms_config` makes one from it.

use super::ComputerConfig;
use std::time::Duration;

/// How long presence changes are gathered before one state goes out: a reload's leaving and
/// coming back become one state, or none.
pub const PRESENCE_DELAY: Duration = Duration::from_millis(250);

/// Tuning for rooms.
#[derive(Debug, Clone)]
pub struct RoomsConfig {
    /// How long a room with nobody connected stays in memory.
    pub idle: Duration,
    /// How long a player with a real-time clock may be gone on their turn before the opponent
    /// may claim the game.
    pub absent_timed: Duration,
    /// The same for an untimed game. (Days per turn has no claims: the turn's deadline decides.)
    pub absent_untimed: Duration,
    /// How long an open challenge stays listed after its creator's last connection closes.
    pub challenge_grace: Duration,
    /// How long an open challenge waits for an opponent before it is called off.
    pub challenge_expiry: Duration,
    /// Games one address may create per minute, by any way there is (at least one).
    pub games_per_minute: u32,
    /// Of those, games against the computer one address may start per hour (at least one).
    pub computer_games_per_hour: u32,
    /// The computer's threads and tables.
    pub computer: ComputerConfig,
    /// How long a one-time code that moves a seat to another device works.
    pub handoff: Duration,
    /// Where this instance's peers reach it (`host:port`; empty without peers).
    pub peer_address: String,
    /// Where clients can reach this instance itself, if they can (see `Config::direct_url`).
    pub direct_url: Option<String>,
    /// How long this instance's hold on its games lasts without renewal.
    pub lease: Duration,
}
