//! The caps on new games per address: one on every game, however it is made (the setup form, the
//! API, a rematch), and one of its own on games against the computer, a shared and costly
//! opponent. Both are charged here, and only once the request has been found good.

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
        if self.limiter.len() > FORGET_ABOVE {
            let mut swept = self.swept.lock().unwrap_or_else(|e| e.into_inner());
            if swept.elapsed() >= SWEEP_EVERY {
                *swept = Instant::now();
                self.limiter.retain_recent();
                self.limiter.shrink_to_fit();
            }
        }
        self.limiter.check_key(&ip).is_ok()
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
