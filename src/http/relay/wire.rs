//! What crosses the bus between an owner and an edge, many records to one NATS message: a drain
//! of the relay's queue sends everything it found in one publish (split past [`MESSAGE_BYTES`]),
//! so that the bus carries one message per wake-up rather than one per frame.
//!
//! A record is a kind (one byte), the number of connections it concerns (two bytes), each
//! connection's number (eight bytes), the length of its body (four bytes) and the body; all
//! numbers big-endian.

use axum::body::Bytes;
use bytes::{Buf, BufMut, BytesMut};

/// A NATS message is cut after the record that takes it past this size (the server's own
/// limit is 1 MiB by default; a record is at most a few KiB).
pub const MESSAGE_BYTES: usize = 256 * 1024;

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// To an edge: a text frame for each of these connections.
    Text(Vec<u64>, Bytes),
    /// To an edge: close this connection; the body is an `ApiError` as JSON.
    Close(u64, Bytes),
    /// To an owner: a frame this connection's client sent.
    Frame(u64, Bytes),
    /// To an owner: this connection's client left.
    Bye(u64),
}

/// Why a message could not be read (it was not written by a merels instance of this version).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a relay message that does not parse")]
pub struct Garbled;

impl Record {
    fn parts(&self) -> (u8, &[u64], &[u8]) {
        match self {
            Record::Text(conns, body) => (0, conns, body),
            Record::Close(conn, body) => (1, std::slice::from_ref(conn), body),
            Record::Frame(conn, body) => (2, std::slice::from_ref(conn), body),
            Record::Bye(conn) => (3, std::slice::from_ref(conn), &[]),
        }
    }

    /// Whether the record is for the owner of the connection (from its edge), not for the edge.
    pub fn is_for_owner(&self) -> bool {
        matches!(self, Record::Frame(..) | Record::Bye(..))
    }

    /// Appends the record to `out`.
    pub fn write(&self, out: &mut BytesMut) {
        let (kind, conns, body) = self.parts();
        out.reserve(7 + conns.len() * 8 + body.len());
        out.put_u8(kind);
        out.put_u16(conns.len() as u16);
        for &conn in conns {
            out.put_u64(conn);
        }
        out.put_u32(body.len() as u32);
        out.put_slice(body);
    }

    /// Reads every record of a message; bodies share the message's bytes.
    pub fn read_all(mut message: Bytes) -> Result<Vec<Record>, Garbled> {
        let mut records = Vec::new();
        while message.has_remaining() {
            if message.remaining() < 3 {
                return Err(Garbled);
            }
            let kind = message.get_u8();
            let n = message.get_u16() as usize;
            if message.remaining() < n * 8 + 4 {
                return Err(Garbled);
            }
            let conns: Vec<u64> = (0..n).map(|_| message.get_u64()).collect();
            let len = message.get_u32() as usize;
            if message.remaining() < len {
                return Err(Garbled);
            }
            let body = message.split_to(len);
            let one = || match conns[..] {
                [conn] => Ok(conn),
                _ => Err(Garbled),
            };
            records.push(match kind {
                0 => Record::Text(conns, body),
                1 => Record::Close(one()?, body),
                2 => Record::Frame(one()?, body),
                3 => Record::Bye(one()?),
                _ => return Err(Garbled),
            });
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_cross_as_they_were_written() {
        let records = vec![
            Record::Text(
                vec![1, 2, u64::MAX],
                Bytes::from_static(b"{\"type\":\"update\"}"),
            ),
            Record::Close(7, Bytes::from_static(b"{}")),
            Record::Frame(3, Bytes::from_static(b"{\"type\":\"sync\"}")),
            Record::Bye(9),
            Record::Text(vec![], Bytes::new()),
        ];
        let mut out = BytesMut::new();
        for r in &records {
            r.write(&mut out);
        }
        assert_eq!(Record::read_all(out.freeze()).unwrap(), records);
    }

    #[test]
    fn a_cut_or_foreign_message_is_refused() {
        let mut out = BytesMut::new();
        Record::Frame(3, Bytes::from_static(b"hello")).write(&mut out);
        let whole = out.freeze();
        for cut in 1..whole.len() {
            assert_eq!(
                Record::read_all(whole.slice(..cut)),
                Err(Garbled),
                "cut at {cut}"
            );
        }
        assert_eq!(
            Record::read_all(Bytes::from_static(&[9, 0, 0, 0, 0, 0, 0])),
            Err(Garbled)
        );
        // A close names one connection.
        let mut two = BytesMut::new();
        Record::Text(vec![1, 2], Bytes::new()).write(&mut two);
        two[0] = 1;
        assert_eq!(Record::read_all(two.freeze()), Err(Garbled));
    }
}
