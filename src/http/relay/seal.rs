//! Every message on the bus is sealed with a key only the instances hold: an HMAC-SHA256, keyed
//! by the secret they share in the database, over the message's subject, a sequence number and
//! its body. A client of the NATS server that is not an instance can read the bus (nothing on it
//! is a secret: a seat crosses as its hash), but can neither forge a message nor replay one: a
//! message whose seal fails, or whose sender already used its number, is refused and changes
//! nothing.
//!
//! A sealed message is the body, then the sender's sequence number (eight bytes, big-endian),
//! then the tag (32 bytes). Each instance numbers everything it sends from one counter, from 1
//! at each start (and each start is a new instance id, which the subjects and connects carry);
//! the receiver keeps, for each sender, a [`Window`] of the numbers it has seen.

use axum::body::Bytes;
use bytes::{BufMut, BytesMut};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a seal adds to a body: the sequence number and the tag.
const TRAILER: usize = 8 + 32;

/// Why a message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Not sealed with the instances' key (forged, altered, or sent to another subject).
    #[error("its seal does not hold")]
    Forged,
    /// A number its sender already used (a replay), or one too old to tell.
    #[error("a replay")]
    Replayed,
}

/// The instances' key, and this instance's counter.
pub(super) struct Seal {
    key: Hmac<Sha256>,
    next: AtomicU64,
}

impl std::fmt::Debug for Seal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seal").finish_non_exhaustive()
    }
}

impl Seal {
    /// A seal keyed by the instances' shared `secret`.
    pub(super) fn new(secret: &str) -> Seal {
        Seal {
            key: <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
                .expect("HMAC takes a key of any length"),
            next: AtomicU64::new(1),
        }
    }

    fn mac(&self, subject: &str, seq: u64, body: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.key.clone();
        mac.update(b"merels bus 1\0");
        mac.update(&(subject.len() as u32).to_be_bytes());
        mac.update(subject.as_bytes());
        mac.update(&seq.to_be_bytes());
        mac.update(body);
        mac
    }

    /// Seals the body in `out` (all of it) for `subject`, with the next number.
    pub(super) fn seal(&self, subject: &str, out: &mut BytesMut) {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let tag = self.mac(subject, seq, out).finalize().into_bytes();
        out.reserve(TRAILER);
        out.put_u64(seq);
        out.put_slice(&tag);
    }

    /// `body` sealed for `subject`.
    pub(super) fn sealed(&self, subject: &str, body: &[u8]) -> Bytes {
        let mut out = BytesMut::with_capacity(body.len() + TRAILER);
        out.put_slice(body);
        self.seal(subject, &mut out);
        out.freeze()
    }

    /// The body of a message on `subject` and its sender's number, if its seal holds.
    pub(super) fn open(&self, subject: &str, mut message: Bytes) -> Result<(Bytes, u64), Refused> {
        let Some(at) = message.len().checked_sub(TRAILER) else {
            return Err(Refused::Forged);
        };
        let trailer = message.split_off(at);
        let seq = u64::from_be_bytes(trailer[..8].try_into().map_err(|_| Refused::Forged)?);
        self.mac(subject, seq, &message)
            .verify_slice(&trailer[8..])
            .map_err(|_| Refused::Forged)?;
        Ok((message, seq))
    }
}

/// How far behind the highest number seen a message may arrive (messages from one sender may
/// cross a little out of order: its connects leave from tasks of their own).
const WINDOW: u64 = 4096;

/// The numbers one sender has used, as far back as [`WINDOW`]: each is taken once.
#[derive(Debug)]
pub(super) struct Window {
    highest: u64,
    seen: Box<[u64; (WINDOW / 64) as usize]>,
}

impl Default for Window {
    fn default() -> Window {
        Window {
            highest: 0,
            seen: Box::new([0; (WINDOW / 64) as usize]),
        }
    }
}

impl Window {
    fn bit(seq: u64) -> (usize, u64) {
        let i = seq % WINDOW;
        ((i / 64) as usize, 1 << (i % 64))
    }

    /// Takes `seq`: refused if it was taken before, or is too far behind to tell.
    pub(super) fn take(&mut self, seq: u64) -> Result<(), Refused> {
        if seq == 0 || seq.saturating_add(WINDOW) <= self.highest {
            return Err(Refused::Replayed);
        }
        if seq > self.highest {
            if seq - self.highest >= WINDOW {
                self.seen.fill(0);
            } else {
                for skipped in self.highest + 1..seq {
                    let (word, bit) = Window::bit(skipped);
                    self.seen[word] &= !bit;
                }
            }
            self.highest = seq;
        } else {
            let (word, bit) = Window::bit(seq);
            if self.seen[word] & bit != 0 {
                return Err(Refused::Replayed);
            }
        }
        let (word, bit) = Window::bit(seq);
        self.seen[word] |= bit;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_holds_for_its_subject_and_body_alone() {
        let seal = Seal::new("the instances' secret");
        let sealed = seal.sealed("merels.a.from.b", b"{\"type\":\"resign\"}");
        let (body, seq) = seal.open("merels.a.from.b", sealed.clone()).unwrap();
        assert_eq!((&body[..], seq), (&b"{\"type\":\"resign\"}"[..], 1));
        assert_eq!(
            seal.open("merels.c.from.b", sealed.clone()),
            Err(Refused::Forged),
            "another subject"
        );
        let mut altered = sealed.to_vec();
        altered[2] ^= 1;
        assert_eq!(
            seal.open("merels.a.from.b", altered.into()),
            Err(Refused::Forged)
        );
        let other = Seal::new("another secret");
        assert_eq!(
            other.open("merels.a.from.b", sealed),
            Err(Refused::Forged),
            "another key"
        );
        assert_eq!(
            seal.open("merels.a.from.b", Bytes::from_static(b"short")),
            Err(Refused::Forged)
        );
        let next = seal.sealed("merels.a.from.b", b"");
        assert_eq!(seal.open("merels.a.from.b", next).unwrap().1, 2);
    }

    #[test]
    fn each_number_is_taken_once() {
        let mut window = Window::default();
        assert_eq!(window.take(0), Err(Refused::Replayed));
        for seq in [1, 2, 5, 3] {
            assert_eq!(window.take(seq), Ok(()), "{seq}");
        }
        for seq in [1, 2, 3, 5] {
            assert_eq!(window.take(seq), Err(Refused::Replayed), "{seq}");
        }
        assert_eq!(window.take(4), Ok(()), "late, but never seen");
        assert_eq!(window.take(5 + WINDOW), Ok(()));
        assert_eq!(window.take(6), Ok(()), "just inside the window");
        assert_eq!(window.take(5), Err(Refused::Replayed), "past the window");
        assert_eq!(window.take(10 * WINDOW), Ok(()));
        assert_eq!(window.take(10 * WINDOW), Err(Refused::Replayed));
        assert_eq!(window.take(10 * WINDOW - 1), Ok(()));
    }
}
