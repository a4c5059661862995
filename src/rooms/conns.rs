//! A room's connections, with who is there counted as they come and go: the presence in every
//! state, and the check after every command whether it changed, then cost nothing however many
//! watch. Spectators are people, not sockets: the tabs of one browser (its browser id) count
//! once.

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
    /// The browser it comes from (the hash of its browser id), if it has one.
    pub browser: Option<String>,
}

/// Every connection of a room, by its number.
#[derive(Default)]
pub(super) struct Conns {
    by_id: HashMap<u64, Conn>,
    /// Connections per seat, White's and Black's.
    seated: [u32; 2],
    /// Spectators' connections per browser.
    browsers: HashMap<String, u32>,
    /// Spectators' connections without a browser id (a script's): each is someone.
    anonymous: u32,
}

impl Conns {
    /// Counts `conn` in (`by` 1) or out (`by` -1).
    fn count(&mut self, conn: &Conn, by: i32) {
        let n = match (conn.seat, &conn.browser) {
            (Some(c), _) => &mut self.seated[c.index()],
            (None, None) => &mut self.anonymous,
            (None, Some(browser)) => self.browsers.entry(browser.clone()).or_default(),
        };
        *n = n.saturating_add_signed(by);
        if let (None, Some(browser)) = (conn.seat, &conn.browser)
            && self.browsers.get(browser) == Some(&0)
        {
            self.browsers.remove(browser);
        }
    }

    /// Adds a connection (replacing one with the same number).
    pub fn insert(&mut self, id: u64, conn: Conn) {
        self.count(&conn, 1);
        if let Some(old) = self.by_id.insert(id, conn) {
            self.count(&old, -1);
        }
    }

    /// Removes a connection, if it is there.
    pub fn remove(&mut self, id: u64) -> Option<Conn> {
        let conn = self.by_id.remove(&id)?;
        self.count(&conn, -1);
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

    /// How many people watch without a seat: browsers, however many tabs each has open.
    pub fn spectators(&self) -> u32 {
        self.browsers.len() as u32 + self.anonymous
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
            browser: None,
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
        assert_eq!((conns.seated, conns.anonymous), ([0, 0], 0));
        assert!(conns.is_empty());
    }

    #[test]
    fn a_browser_watching_in_two_tabs_is_one_spectator() {
        let conn = |seat, browser: Option<&str>| Conn {
            seat,
            outbox: Arc::new(Outbox::new()),
            hearing: Hearing::default_for(seat),
            browser: browser.map(String::from),
        };
        let mut conns = Conns::default();
        conns.insert(0, conn(None, Some("a")));
        conns.insert(1, conn(None, Some("a")));
        assert_eq!(conns.spectators(), 1, "two tabs of one browser");
        conns.insert(2, conn(None, Some("b")));
        conns.insert(3, conn(None, None));
        assert_eq!(conns.spectators(), 3);
        // A player's own browser watching in another tab is its seat's, not a spectator: it
        // connects with the seat.
        conns.insert(4, conn(Some(Color::White), Some("a")));
        assert_eq!(conns.spectators(), 3);
        assert!(conns.remove(0).is_some());
        assert_eq!(
            conns.spectators(),
            3,
            "browser a still watches in its other tab"
        );
        assert!(conns.remove(1).is_some());
        assert_eq!(conns.spectators(), 2);
        assert!(conns.browsers.is_empty() || !conns.browsers.contains_key("a"));
    }
}
