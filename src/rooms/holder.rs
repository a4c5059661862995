//! Who holds a seat ([`Holder`]): a player's secret, known by its hash, or the computer at a
//! level. The store keeps it as one text column; it is parsed here, once, when a game is loaded,
//! so the core asks a seat who holds it rather than reading a marker out of a string.

use crate::engine::Level;

/// What a computer's seat holds in the store where a player's holds the hash of a secret: no
/// SHA-256 in hex starts so, so no secret can ever take it.
const COMPUTER_PREFIX: &str = "computer:";

/// Who holds a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// Whoever presents the secret whose hash (SHA-256, hex) this is.
    Secret(String),
    /// The computer, playing at this level.
    Computer(Level),
}

impl Holder {
    /// The holder a stored seat column names.
    pub fn from_column(column: String) -> Holder {
        let level = column
            .strip_prefix(COMPUTER_PREFIX)
            .and_then(|n| n.parse().ok())
            .and_then(Level::new);
        match level {
            Some(level) => Holder::Computer(level),
            None => Holder::Secret(column),
        }
    }

    /// The seat column the store keeps for this holder.
    pub fn column(&self) -> String {
        match self {
            Holder::Secret(hash) => hash.clone(),
            Holder::Computer(level) => format!("{COMPUTER_PREFIX}{}", level.number()),
        }
    }

    /// The secret's hash, for a player's seat.
    pub fn hash(&self) -> Option<&str> {
        match self {
            Holder::Secret(hash) => Some(hash),
            Holder::Computer(_) => None,
        }
    }

    /// The computer's level, for the computer's seat.
    pub fn level(&self) -> Option<Level> {
        match self {
            Holder::Computer(level) => Some(*level),
            Holder::Secret(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_is_read_back_from_its_column() {
        for level in Level::all() {
            let computer = Holder::Computer(level);
            assert_eq!(Holder::from_column(computer.column()), computer);
        }
        let hash = crate::rooms::secrets::hash("a secret");
        let player = Holder::Secret(hash.clone());
        assert_eq!(Holder::from_column(player.column()), player);
        assert_eq!(player.hash(), Some(hash.as_str()));
        assert_eq!(player.level(), None);
        // No secret takes the computer's seat: its column is no secret's hash.
        let computer = Holder::Computer(Level::MAX).column();
        assert!(!crate::rooms::secrets::matches("computer:6", &computer));
        assert!(!crate::rooms::secrets::matches(&computer, &computer));
    }

    #[test]
    fn only_a_level_there_is_makes_the_computer() {
        for column in ["computer:9", "computer:0", "computer:x", "computer:"] {
            assert_eq!(
                Holder::from_column(column.to_string()),
                Holder::Secret(column.to_string())
            );
        }
    }
}
