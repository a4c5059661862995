//! A room's connections, with who is there counted as they come and go: the presence in every
//! state, and the check after every command whether it changed, then cost nothing however many
//! watch.

use super::outbox::Outbox;
use crate::protocol::Hearing;
use crate::rules::Color;
use std::collections::HashMap;
use std::sync::Arc;

/// One connection: the seat it holds (none: a spectator) and where its messages go.
pub(super) struct Conn {
    pub seat: Option<Color>,
    pub outbox: Arc<Outbox>,
    /// The chats it hears.
    pub hearing: Hearing,
}

/// Every connection of a room, by its number.
#[derive(Default)]
pub(super) struct Conns {
    by_id: HashMap<u64, Conn>,
    /// Connections per seat, White's and Black's.
    seated: [u32; 2],
    spectators: u32,
}

impl Conns {
    fn count(&mut self, seat: Option<Color>) -> &mut u32 {
        match seat {
            Some(c) => &mut self.seated[c.index()],
            None => &mut self.spectators,
        }
    }

    /// Adds a connection (replacing one with the same number).
    pub fn insert(&mut self, id: u64, conn: Conn) {
        *self.count(conn.seat) += 1;
        if let Some(old) = self.by_id.insert(id, conn) {
            *self.count(old.seat) -= 1;
        }
    }

    /// Removes a connection, if it is there.
    pub fn remove(&mut self, id: u64) -> Option<Conn> {
        let conn = self.by_id.remove(&id)?;
        *self.count(conn.seat) -= 1;
        Some(conn)
    }

    /// A connection by its number.
    pub fn get(&self, id: u64) -> Option<&Conn> {
        self.by_id.get(&id)
    }

    /// A connection by its number, to change.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut Conn> {
        self.by_id.get_mut(&id)
    }

    /// Every connection.
    pub fn values(&self) -> impl Iterator<Item = &Conn> {
        self.by_id.values()
    }

    /// Whether nobody is connected.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Whether `seat` has a connection.
    pub fn connected(&self, seat: Color) -> bool {
        self.seated[seat.index()] > 0
    }

    /// How many connections watch without a seat.
    pub fn spectators(&self) -> u32 {
        self.spectators
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_counted_as_they_come_and_go() {
        let conn = |seat| Conn {
            seat,
            outbox: Arc::new(Outbox::new()),
            hearing: Hearing::default_for(seat),
        };
        let mut conns = Conns::default();
        conns.insert(0, conn(Some(Color::White)));
        conns.insert(1, conn(None));
        conns.insert(2, conn(None));
        conns.insert(3, conn(Some(Color::White)));
        assert!(conns.connected(Color::White));
        assert!(!conns.connected(Color::Black));
        assert_eq!(conns.spectators(), 2);
        // The same id again replaces the connection, and its count.
        conns.insert(2, conn(Some(Color::Black)));
        assert!(conns.connected(Color::Black));
        assert_eq!(conns.spectators(), 1);
        assert!(conns.remove(0).is_some());
        assert!(
            conns.connected(Color::White),
            "White's other tab is still there"
        );
        assert!(conns.remove(3).is_some());
        assert!(!conns.connected(Color::White));
        assert!(conns.remove(3).is_none(), "gone once");
        assert!(conns.remove(1).is_some());
        assert!(conns.remove(2).is_some());
        assert_eq!((conns.seated, conns.spectators), ([0, 0], 0));
        assert!(conns.is_empty());
    }
}
