//! This instance's registration: its id, the internal address where its peers reach it, and the
//! lease under which it may run rooms.
//!
//! The store is what keeps two owners of a game apart (every write carries the owner's epoch,
//! see [`crate::store::owners`]); the lease is how the others know when they may take this
//! instance's games. An instance that finds its own lease lapsed (it was paused, or could not
//! reach the database) registers again first, then ends every room it runs, closing their
//! sockets so that clients reconnect to whoever owns the game now: by then its peers take it for
//! alive again and serve the clients that come back through it. (Its rooms answer nobody while
//! the lease has run out, see [`Lease::lapsed`].)

use crate::store::owners::Owner;
use crate::time::wall_ms;
use std::sync::Mutex;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How many times in a row a renewal is stored again when it was stored too late to hold (the
/// process was paused while writing it): beyond that the database is slower than the lease is
/// long, and the next period tries again.
pub(super) const RENEWALS: u32 = 3;

/// The lease of one running instance.
#[derive(Debug)]
pub struct Lease {
    /// This instance as the others find it in the store: its id (made afresh at every start),
    /// where its peers reach it (empty with SQLite, which has no peers), and where clients can
    /// reach it themselves, if they can.
    pub me: Owner,
    /// How long a registration holds without renewal.
    pub length: Duration,
    held: Mutex<Held>,
    /// Told each renewal's end (wall ms), for those waiting on one ([`Lease::renewal`]).
    renewals: tokio::sync::watch::Sender<i64>,
}

#[derive(Debug)]
struct Held {
    /// Until when (wall ms) the last renewal holds; 0 before the first.
    until: i64,
    /// Cancelled when the lease lapses: every room running under it ends.
    rooms: CancellationToken,
}

/// What a renewal found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// The lease holds, renewed or not.
    Held,
    /// The lease had lapsed: the rooms under it were told to end.
    Lapsed,
}

impl Lease {
    /// A lease not yet registered, for an instance its peers reach at `address` and clients at
    /// `direct`, if they can.
    pub fn new(address: String, direct: Option<String>, length: Duration) -> Lease {
        Lease {
            me: Owner {
                instance: super::secrets::new_id(wall_ms()),
                address,
                direct,
            },
            length,
            held: Mutex::new(Held {
                until: 0,
                rooms: CancellationToken::new(),
            }),
            renewals: tokio::sync::watch::Sender::new(0),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the lease holds now.
    pub fn holds(&self) -> bool {
        wall_ms() < self.held().until
    }

    /// Whether a lease this instance had has run out by its own clock (not renewed in time):
    /// another instance may have taken its games, so its rooms must not answer for them, not
    /// even with what they hold. (An instance that never registered, as rooms driven by a test
    /// alone, has nothing to lose.)
    pub fn lapsed(&self) -> bool {
        let until = self.held().until;
        until != 0 && wall_ms() >= until
    }

    /// The token a room started now ends on.
    pub(super) fn rooms_token(&self) -> CancellationToken {
        self.held().rooms.clone()
    }

    /// Once a renewal is stored at `now` (it may have come too late): if the lease had lapsed
    /// by then, ends the rooms that ran under it.
    pub(super) fn check(&self, now: i64) -> Renewal {
        let mut held = self.held();
        if held.until != 0 && now >= held.until {
            held.rooms.cancel();
            held.rooms = CancellationToken::new();
            held.until = 0;
            return Renewal::Lapsed;
        }
        Renewal::Held
    }

    /// Records a renewal stored at `at`.
    pub(super) fn renewed(&self, at: i64) {
        let until = self.until(at);
        self.held().until = until;
        self.renewals.send_replace(until);
    }

    /// Waits, at most `bound`, while a lease this instance had does not hold (it ran out while
    /// the process was paused, and the renewal that follows is under way). Its peers take it
    /// for dead until then, and would drop a client it sent them meanwhile. An instance that
    /// never registered (rooms driven by a test alone) does not wait.
    pub(super) async fn renewal(&self, bound: Duration) {
        let mut renewals = self.renewals.subscribe();
        let waiting = |until: &i64| *until != 0 && wall_ms() >= self.held().until;
        if !waiting(&renewals.borrow_and_update()) {
            return;
        }
        let _ = tokio::time::timeout(bound, renewals.wait_for(|u| !waiting(u))).await;
    }

    /// The registration's end for a renewal at `at`.
    pub(super) fn until(&self, at: i64) -> i64 {
        at + self.length.as_millis() as i64
    }
}
