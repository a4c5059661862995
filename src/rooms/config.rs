//! How rooms are tuned ([`RoomsConfig`]): the delays, allowances and leases the server's
//! configuration sets.

use super::ComputerConfig;
use std::time::Duration;

/// Tuning for rooms.
#[derive(Debug, Clone)]
pub struct RoomsConfig {
    /// How long a room with nobody connected stays in memory.
    pub idle: Duration,
    /// How long presence changes are gathered before one state goes out.
    pub presence_delay: Duration,
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

impl Default for RoomsConfig {
    fn default() -> Self {
        RoomsConfig {
            idle: Duration::from_secs(60),
            presence_delay: Duration::from_millis(250),
            absent_timed: Duration::from_secs(30),
            absent_untimed: Duration::from_secs(120),
            challenge_grace: Duration::from_secs(15),
            challenge_expiry: Duration::from_secs(1800),
            games_per_minute: 10,
            computer_games_per_hour: 30,
            computer: ComputerConfig::default(),
            handoff: Duration::from_secs(600),
            peer_address: String::new(),
            direct_url: None,
            lease: Duration::from_secs(10),
        }
    }
}
