//! Each connection's read budget: the bytes it may send, sustained and in a burst. A client that
//! sends faster is read slower (its own TCP window then holds it back); one that stays over its
//! budget for [`FLOOD_AFTER`] is flagged as a flood, which a WebSocket closes with 1008.
//!
//! Why bytes, below the WebSocket library: counting messages misses what never becomes one. One
//! connection sent 17 million empty continuation fragments a second, which the library gathers
//! into a message that never ends, and 880,000 pings a second: each a frame, each work. Every
//! frame is bytes, so a budget of bytes counts them all.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::{Instant, Sleep};

/// Bytes a second a connection may send, sustained: far above what a player sends (a turn, a
/// chat line, a ping every few seconds) and above the largest request body over a second.
pub const READ_RATE: u64 = 64 * 1024;
/// Bytes a connection may send at once.
pub const READ_BURST: u64 = 256 * 1024;
/// How long a connection may stay over its budget before it counts as a flood.
pub const FLOOD_AFTER: Duration = Duration::from_secs(3);

/// Raised when a connection floods; a WebSocket's loop waits on it.
#[derive(Debug, Default)]
pub struct Flood {
    raised: AtomicBool,
    notify: Notify,
}

impl Flood {
    fn raise(&self) {
        if !self.raised.swap(true, Ordering::Relaxed) {
            self.notify.notify_waiters();
        }
    }

    /// Returns once the connection has flooded.
    pub async fn raised(&self) {
        loop {
            let notified = self.notify.notified();
            if self.raised.load(Ordering::Relaxed) {
                return;
            }
            notified.await;
        }
    }
}

/// One connection's budget.
#[derive(Debug)]
pub struct ReadBudget {
    tokens: f64,
    last: Instant,
    /// Since when the budget has been spent without a break.
    dry_since: Option<Instant>,
    /// The wait for the budget to refill.
    wait: Option<std::pin::Pin<Box<Sleep>>>,
    flood: Arc<Flood>,
}

impl ReadBudget {
    /// A full budget, and the flag it raises.
    pub fn new() -> (ReadBudget, Arc<Flood>) {
        let flood = Arc::new(Flood::default());
        let budget = ReadBudget {
            tokens: READ_BURST as f64,
            last: Instant::now(),
            dry_since: None,
            wait: None,
            flood: flood.clone(),
        };
        (budget, flood)
    }

    /// Ready to read (`Ready`), or waiting for the budget to refill (`Pending`, with a wake-up
    /// set). Staying dry past [`FLOOD_AFTER`] raises the flood.
    pub fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        use std::task::Poll;
        loop {
            let now = Instant::now();
            let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
            self.last = now;
            self.tokens = (self.tokens + elapsed * READ_RATE as f64).min(READ_BURST as f64);
            if self.tokens > 0.0 {
                self.wait = None;
                return Poll::Ready(());
            }
            let since = *self.dry_since.get_or_insert(now);
            if now.saturating_duration_since(since) >= FLOOD_AFTER {
                self.flood.raise();
            }
            // Wait until a few kilobytes are back, so that a flood is read in lumps, not a
            // wake-up a frame.
            let refill = (4096.0 - self.tokens) / READ_RATE as f64;
            let until = now + Duration::from_secs_f64(refill);
            let wait = self
                .wait
                .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(until)));
            wait.as_mut().reset(until);
            match wait.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(()) => continue,
            }
        }
    }

    /// Spends what was read.
    pub fn spend(&mut self, bytes: usize) {
        self.tokens -= bytes as f64;
        // A sender counts as slowed down once half the burst has come back: one that keeps the
        // budget near empty is still flooding, however it is read in lumps.
        if self.tokens >= (READ_BURST / 2) as f64 {
            self.dry_since = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_sender_over_its_budget_waits_and_at_length_floods() {
        let (mut budget, flood) = ReadBudget::new();
        let ready = |budget: &mut ReadBudget| {
            let waker = futures_util::task::noop_waker();
            let mut cx = std::task::Context::from_waker(&waker);
            budget.poll_ready(&mut cx).is_ready()
        };
        assert!(ready(&mut budget));
        budget.spend(READ_BURST as usize);
        assert!(!ready(&mut budget), "the burst is spent");
        tokio::time::advance(Duration::from_millis(100)).await;
        assert!(ready(&mut budget), "it refills");
        // A sender that keeps it spent for long enough is a flood.
        for _ in 0..40 {
            budget.spend(READ_BURST as usize);
            tokio::time::advance(Duration::from_millis(100)).await;
            let _ = ready(&mut budget);
        }
        assert!(flood.raised.load(Ordering::Relaxed));
        // A sender within its budget, even in bursts, is never a flood.
        let (mut budget, calm) = ReadBudget::new();
        for _ in 0..100 {
            assert!(ready(&mut budget));
            budget.spend(READ_RATE as usize / 2);
            tokio::time::advance(Duration::from_millis(500)).await;
        }
        assert!(!calm.raised.load(Ordering::Relaxed));
        tokio::time::timeout(Duration::from_secs(1), flood.raised())
            .await
            .expect("raised");
    }
}
