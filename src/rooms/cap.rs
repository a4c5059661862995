//! The caps per address: on new games, one on every game, however it is made (the setup form, the
//! API, a rematch), and one of its own on games against the computer, a shared and costly
//! opponent; and on chat, in lines and in bytes, over every socket and game of the address. Each
//! is charged here, and only once the request has been found good.

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Addresses remembered before those whose allowance has refilled are forgotten.
const FORGET_ABOVE: usize = 10_000;

/// How often, at most, the remembered addresses are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// New games per address per period, with the whole period's allowance as a burst.
#[derive(Debug)]
pub(super) struct GameCap {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    /// When the remembered addresses were last swept: a full map is swept once a minute, not at
    /// every charge.
    swept: Mutex<Instant>,
}

impl GameCap {
    /// A cap of `per_minute` games a minute (at least one).
    pub fn per_minute(per_minute: u32) -> GameCap {
        GameCap::new(Quota::per_minute(
            NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN),
        ))
    }

    /// A cap of `per_hour` games an hour (at least one).
    pub fn per_hour(per_hour: u32) -> GameCap {
        GameCap::new(Quota::per_hour(
            NonZeroU32::new(per_hour).unwrap_or(NonZeroU32::MIN),
        ))
    }

    fn new(quota: Quota) -> GameCap {
        GameCap {
            limiter: RateLimiter::keyed(quota),
            swept: Mutex::new(Instant::now()),
        }
    }

    /// Takes one game from `ip`'s allowance; false if it has none left.
    pub fn charge(&self, ip: IpAddr) -> bool {
        self.charge_n(ip, NonZeroU32::MIN)
    }

    /// Takes `n` from `ip`'s allowance; false (and nothing taken) if it has not that many left.
    pub fn charge_n(&self, ip: IpAddr, n: NonZeroU32) -> bool {
        if self.limiter.len() > FORGET_ABOVE {
            let mut swept = self.swept.lock().unwrap_or_else(|e| e.into_inner());
            if swept.elapsed() >= SWEEP_EVERY {
                *swept = Instant::now();
                self.limiter.retain_recent();
                self.limiter.shrink_to_fit();
            }
        }
        matches!(self.limiter.check_key_n(&ip, n), Ok(Ok(_)))
    }
}

/// Chat lines one address may say over all its sockets and games: one a second, ten at once.
const CHAT_LINES_PER_SEC: u32 = 1;
/// The burst of [`CHAT_LINES_PER_SEC`].
const CHAT_LINES_BURST: u32 = 10;
/// Bytes of chat one address may say a second, and at once: a few long lines a minute.
const CHAT_BYTES_PER_SEC: u32 = 200;
/// The burst of [`CHAT_BYTES_PER_SEC`].
const CHAT_BYTES_BURST: u32 = 2_000;

/// What one address may say in the chats, in lines and in bytes: sixty-four sockets from one
/// address say no more than one would, and what reaches the store from it is bounded.
#[derive(Debug)]
pub(super) struct ChatCap {
    lines: GameCap,
    bytes: GameCap,
}

impl Default for ChatCap {
    fn default() -> Self {
        let quota = |per_sec: u32, burst: u32| {
            Quota::per_second(NonZeroU32::new(per_sec).unwrap_or(NonZeroU32::MIN))
                .allow_burst(NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN))
        };
        ChatCap {
            lines: GameCap::new(quota(CHAT_LINES_PER_SEC, CHAT_LINES_BURST)),
            bytes: GameCap::new(quota(CHAT_BYTES_PER_SEC, CHAT_BYTES_BURST)),
        }
    }
}

impl ChatCap {
    /// Takes a line of `bytes` from `ip`'s allowance; false if it has not that much left.
    pub fn charge(&self, ip: IpAddr, bytes: usize) -> bool {
        let bytes = u32::try_from(bytes).unwrap_or(u32::MAX);
        self.lines.charge(ip)
            && self
                .bytes
                .charge_n(ip, NonZeroU32::new(bytes).unwrap_or(NonZeroU32::MIN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_has_its_own_allowance() {
        let cap = GameCap::per_minute(3);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "::1".parse().unwrap());
        assert!(cap.charge(a) && cap.charge(a) && cap.charge(a));
        assert!(!cap.charge(a), "the minute's allowance is spent");
        assert!(cap.charge(b), "another address is not");
        // Many addresses are held without slowing the charge of any (the sweep waits its turn).
        for i in 0..=FORGET_ABOVE as u32 {
            cap.charge(IpAddr::from(i.to_be_bytes()));
        }
        assert!(!cap.charge(a));
    }

    #[test]
    fn an_hourly_cap_holds_its_whole_hour_as_the_burst() {
        let cap = GameCap::per_hour(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        assert!(cap.charge(a) && cap.charge(a));
        assert!(!cap.charge(a), "the next one is half an hour away");
    }
}
