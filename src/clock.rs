//! Time controls and the arithmetic of game clocks. Pure like the rules: every function is told
//! the time it is asked about (Unix milliseconds), so the room that owns a clock decides where
//! time comes from, and a test can drive it with tokio's paused clock.
//!
//! A real-time clock (base plus increment) starts once both players have made their first move,
//! as on lichess; until then each first move has [`FIRST_MOVE_MS`] before the game is aborted.
//! A days-per-turn clock gives the player to move that many days, afresh after every turn.

use crate::rules::Color;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How long each player has for their first move in a real-time game before it is aborted.
pub const FIRST_MOVE_MS: i64 = 30_000;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;

/// The time controls offered at table setup, as (value, label); `custom` comes after them.
pub const PRESETS: [TimeControl; 8] = [
    TimeControl::Untimed,
    TimeControl::fischer(1, 1),
    TimeControl::fischer(3, 2),
    TimeControl::fischer(5, 3),
    TimeControl::fischer(10, 5),
    TimeControl::fischer(15, 10),
    TimeControl::Days(1),
    TimeControl::Days(3),
];

/// A game's time control, written `untimed`, `M+S` (minutes in quarters, then seconds added
/// per turn: `3+2`, `0.5+0`) or `Nd` (days per turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeControl {
    /// No clocks.
    #[default]
    Untimed,
    /// A base time for the game, and an increment added after each turn.
    Fischer {
        /// The base time, milliseconds.
        base_ms: i64,
        /// Added to the mover's clock after each turn, milliseconds.
        increment_ms: i64,
    },
    /// A number of days for each turn.
    Days(u8),
}

/// Why a time control was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTimeControl(String);

impl fmt::Display for BadTimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad time control '{}': use untimed, minutes+seconds (0.25 to 180 minutes, 0 to 180 \
             seconds, such as 3+2) or days per turn (1d to 14d)",
            self.0
        )
    }
}

impl std::error::Error for BadTimeControl {}

impl TimeControl {
    /// Reads the written form.
    pub fn parse(text: &str) -> Result<TimeControl, BadTimeControl> {
        let bad = || BadTimeControl(text.chars().take(24).collect());
        let text = text.trim();
        if text.is_empty() || text == "untimed" {
            return Ok(TimeControl::Untimed);
        }
        if let Some(days) = text.strip_suffix('d') {
            let days: u8 = days.parse().map_err(|_| bad())?;
            return (1..=14)
                .contains(&days)
                .then_some(TimeControl::Days(days))
                .ok_or_else(bad);
        }
        let (minutes, seconds) = text.split_once('+').ok_or_else(bad)?;
        // Minutes come in quarters (15 seconds), so that every base is a whole number of them.
        let quarters = minutes.parse::<f64>().map_err(|_| bad())? * 4.0;
        if !(quarters.is_finite() && quarters.fract() == 0.0 && (0.0..=720.0).contains(&quarters)) {
            return Err(bad());
        }
        let base_ms = quarters as i64 * MINUTE_MS / 4;
        let increment_ms = seconds.parse::<u16>().map_err(|_| bad())? as i64 * 1000;
        if base_ms == 0 || base_ms > 180 * MINUTE_MS || increment_ms > 180_000 {
            return Err(bad());
        }
        Ok(TimeControl::Fischer {
            base_ms,
            increment_ms,
        })
    }

    /// `minutes` for the game and `seconds` more after each turn.
    pub const fn fischer(minutes: i64, seconds: i64) -> TimeControl {
        TimeControl::Fischer {
            base_ms: minutes * MINUTE_MS,
            increment_ms: seconds * 1000,
        }
    }

    /// The time control as people write it: `Untimed`, `3 min + 2 s`, `15 s + 0 s`,
    /// `1 min 30 s + 5 s`, `1 day per turn`, `3 days per turn`.
    pub fn words(self) -> String {
        match self {
            TimeControl::Untimed => "Untimed".to_string(),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => {
                let (minutes, seconds) = (base_ms / MINUTE_MS, base_ms % MINUTE_MS / 1000);
                let base = match (minutes, seconds) {
                    (0, s) => format!("{s} s"),
                    (m, 0) => format!("{m} min"),
                    (m, s) => format!("{m} min {s} s"),
                };
                format!("{base} + {} s", increment_ms / 1000)
            }
            TimeControl::Days(1) => "1 day per turn".to_string(),
            TimeControl::Days(days) => format!("{days} days per turn"),
        }
    }

    /// The record's `TimeControl` tag, as PGN writes one: `300+3` (seconds, plus seconds a
    /// turn), `1/86400` (a turn a day), `-` (none).
    pub fn record_tag(self) -> String {
        match self {
            TimeControl::Untimed => "-".to_string(),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => format!("{}+{}", base_ms / 1000, increment_ms / 1000),
            TimeControl::Days(days) => format!("1/{}", i64::from(days) * DAY_MS / 1000),
        }
    }

    /// Whether the game has clocks.
    pub fn is_timed(self) -> bool {
        self != TimeControl::Untimed
    }

    /// The time each side starts with.
    fn full_ms(self) -> i64 {
        match self {
            TimeControl::Untimed => 0,
            TimeControl::Fischer { base_ms, .. } => base_ms,
            TimeControl::Days(days) => i64::from(days) * DAY_MS,
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Untimed => f.write_str("untimed"),
            TimeControl::Fischer {
                base_ms,
                increment_ms,
            } => {
                let minutes = base_ms as f64 / MINUTE_MS as f64;
                write!(f, "{minutes}+{}", increment_ms / 1000)
            }
            TimeControl::Days(days) => write!(f, "{days}d"),
        }
    }
}

impl Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        TimeControl::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// What happens when a clock's deadline passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// A first move was not made in time: the game is aborted, nobody wins.
    Abort,
    /// The player to move ran out of time and loses.
    Flag,
}

/// Both clocks of a timed game: the time each side had left when the current turn began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Time left for White and Black (by [`Color::index`]) as of `since`, milliseconds.
    pub left: [i64; 2],
    /// When the current turn began, Unix milliseconds.
    pub since: i64,
}

impl Clock {
    /// Fresh clocks for a game whose seats were both filled at `at`.
    pub fn start(control: TimeControl, at: i64) -> Clock {
        Clock {
            control,
            left: [control.full_ms(); 2],
            since: at,
        }
    }

    /// Whether the clock of the side to move runs after `plies` turns.
    pub fn runs(&self, plies: usize) -> bool {
        match self.control {
            TimeControl::Untimed => false,
            TimeControl::Fischer { .. } => plies >= 2,
            TimeControl::Days(_) => true,
        }
    }

    /// Time left for each side at `now`, with `to_move` to move after `plies` turns; never
    /// below zero.
    pub fn left_at(&self, now: i64, plies: usize, to_move: Color) -> [i64; 2] {
        let mut left = self.left;
        if self.runs(plies) {
            let side = &mut left[to_move.index()];
            *side = (*side - (now - self.since).max(0)).max(0);
        }
        left
    }

    /// When the turn of `to_move` (after `plies` turns) runs out, and what happens then.
    pub fn deadline(&self, plies: usize, to_move: Color) -> Option<(i64, Expiry)> {
        match self.control {
            TimeControl::Untimed => None,
            TimeControl::Fischer { .. } if plies < 2 => {
                Some((self.since + FIRST_MOVE_MS, Expiry::Abort))
            }
            TimeControl::Fischer { .. } => {
                Some((self.since + self.left[to_move.index()], Expiry::Flag))
            }
            TimeControl::Days(_) => {
                let expiry = if plies < 2 {
                    Expiry::Abort
                } else {
                    Expiry::Flag
                };
                Some((self.since + self.left[to_move.index()], expiry))
            }
        }
    }

    /// The clocks after `mover` completes a turn at `now`, having been the side to move after
    /// `plies` turns: its time is charged, then the increment added (or the day count renewed).
    pub fn after_turn(&self, now: i64, plies: usize, mover: Color) -> Clock {
        let mut left = self.left_at(now, plies, mover);
        match self.control {
            TimeControl::Fischer { increment_ms, .. } if self.runs(plies) => {
                left[mover.index()] += increment_ms;
            }
            TimeControl::Days(_) => left[mover.index()] = self.control.full_ms(),
            _ => {}
        }
        Clock {
            control: self.control,
            left,
            since: now,
        }
    }

    /// The clocks as they stand at `now`, charged up to then: what a takeback or the end of the
    /// game freezes and stores.
    pub fn stopped_at(&self, now: i64, plies: usize, to_move: Color) -> Clock {
        Clock {
            control: self.control,
            left: self.left_at(now, plies, to_move),
            since: now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TimeControl;

    #[test]
    fn time_controls_are_written_as_people_write_them() {
        let words = |text: &str| TimeControl::parse(text).unwrap().words();
        assert_eq!(words("untimed"), "Untimed");
        assert_eq!(words("3+2"), "3 min + 2 s");
        assert_eq!(words("0.25+0"), "15 s + 0 s");
        assert_eq!(words("1.5+5"), "1 min 30 s + 5 s");
        assert_eq!(words("1d"), "1 day per turn");
        assert_eq!(words("3d"), "3 days per turn");
        let tag = |text: &str| TimeControl::parse(text).unwrap().record_tag();
        assert_eq!(
            [tag("5+3"), tag("0.25+0"), tag("2d"), tag("untimed")],
            ["300+3", "15+0", "1/172800", "-"]
        );
        // Every preset reads back as itself.
        for preset in super::PRESETS {
            assert_eq!(TimeControl::parse(&preset.to_string()).unwrap(), preset);
        }
    }
}
