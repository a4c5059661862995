//! Positions and turns: an untrusted [`Setup`] is validated into a trusted [`Position`], legal
//! turns are generated from it, and [`Variant::play`] checks a turn and returns the next position
//! without ever touching the one it was given.
//!
//! A position holds what decides the legal turns: the men on the board, the men in hand, the side
//! to move and, for Morabaraba's move-back rule, each side's last slide. Draw rules that need the
//! whole history (repetition, ply counters) live in [`super::game::Game`].

use super::board::{Mask, Point, points};
use super::color::Color;
use super::outcome::{Outcome, Termination};
use super::variant::{MillEffect, Movement, Variant};
use serde::{Deserialize, Serialize};

/// One whole turn: a placement or a slide (or fly), and the man it removes if it closes a mill.
/// A turn is never half made: the removal travels with the move that earned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Turn {
    /// The point a man leaves, or `None` for a placement from the hand.
    pub from: Option<Point>,
    /// The point the man arrives at.
    pub to: Point,
    /// The opposing man removed because the turn closed a mill.
    pub remove: Option<Point>,
}

impl Turn {
    /// Places a man from the hand on `to`.
    pub fn place(to: Point) -> Turn {
        Turn {
            from: None,
            to,
            remove: None,
        }
    }

    /// Moves the man on `from` to `to`.
    pub fn slide(from: Point, to: Point) -> Turn {
        Turn {
            from: Some(from),
            to,
            remove: None,
        }
    }

    /// The same turn, removing the opposing man on `point`.
    pub fn removing(self, point: Point) -> Turn {
        Turn {
            remove: Some(point),
            ..self
        }
    }
}

/// A position as someone claims it to be: checked by [`Variant::setup`] before the engine uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The men on the board, White's then Black's.
    pub men: [Mask; 2],
    /// The men in hand, White's then Black's.
    pub hand: [u8; 2],
    /// Whose turn it is.
    pub to_move: Color,
}

/// Why a [`Setup`] is not a position of its variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// A man stands on a point the board does not have.
    OffBoard,
    /// Both sides have a man on the same point.
    Overlap(Point),
    /// A side has more men on the board and in hand than the variant gives it.
    TooManyMen(Color),
    /// The side that just moved has fewer than three men: the game ended before this position.
    LastMoverBelowThree(Color),
    /// The side to move already has a row of three, which would have ended the game.
    RowOfThreeToMove(Color),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::OffBoard => write!(f, "a man stands on a point the board does not have"),
            SetupError::Overlap(_) => write!(f, "two men stand on the same point"),
            SetupError::TooManyMen(c) => {
                write!(f, "{} has more men than the variant gives", c.name())
            }
            SetupError::LastMoverBelowThree(c) => write!(
                f,
                "{} has fewer than three men, so the game is already over",
                c.name()
            ),
            SetupError::RowOfThreeToMove(c) => write!(
                f,
                "{} is to move but already has a row of three, so the game is already over",
                c.name()
            ),
        }
    }
}

impl std::error::Error for SetupError {}

/// A legal position of a variant. Only [`Variant::start`], [`Variant::setup`] and
/// [`Variant::play`] make one, so the engine can trust it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    men: [Mask; 2],
    hand: [u8; 2],
    to_move: Color,
    /// Each side's last slide, kept only where the move-back rule needs it.
    last_slide: [Option<(Point, Point)>; 2],
}

impl Position {
    /// The men of `color` on the board.
    pub fn men(&self, color: Color) -> Mask {
        self.men[color.index()]
    }

    /// The men of `color` still in hand.
    pub fn hand(&self, color: Color) -> u8 {
        self.hand[color.index()]
    }

    /// The number of men of `color` on the board.
    pub fn on_board(&self, color: Color) -> u8 {
        self.men(color).count_ones() as u8
    }

    /// Men on the board plus in hand.
    pub fn total(&self, color: Color) -> u8 {
        self.on_board(color) + self.hand(color)
    }

    /// Whose turn it is.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Every occupied point.
    pub fn occupied(&self) -> Mask {
        self.men[0] | self.men[1]
    }

    /// The side whose man stands on `p`, if any.
    pub fn at(&self, p: Point) -> Option<Color> {
        Color::BOTH
            .into_iter()
            .find(|&c| self.men(c) & p.bit() != 0)
    }

    /// The last slide of `color` (`from`, `to`), where the variant's move-back rule tracks it.
    pub fn last_slide(&self, color: Color) -> Option<(Point, Point)> {
        self.last_slide[color.index()]
    }

    /// The position as a setup (what its position string says).
    pub fn setup(&self) -> Setup {
        Setup {
            men: self.men,
            hand: self.hand,
            to_move: self.to_move,
        }
    }

    /// What threefold repetition compares: men, hands and side to move.
    pub fn repetition_key(&self) -> (Mask, Mask, u8, u8, Color) {
        (
            self.men[0],
            self.men[1],
            self.hand[0],
            self.hand[1],
            self.to_move,
        )
    }
}

/// Why [`Variant::play`] refused a turn. The position is unchanged whatever the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalTurn {
    /// The game is over.
    GameOver,
    /// A point the board does not have.
    OffBoard,
    /// A placement by a side with no men in hand.
    NoMenInHand,
    /// A slide while the variant still requires placing from the hand.
    MustPlace,
    /// The destination is occupied.
    Occupied(Point),
    /// The point a man should leave holds no man of the side to move.
    NotYourMan(Point),
    /// The destination is not joined to the starting point, and the man may not fly.
    NotAdjacent(Point, Point),
    /// The man would go straight back to the point it just left and re-form a mill.
    MoveBack(Point, Point),
    /// The turn closes a mill but names no man to remove.
    RemovalRequired,
    /// The turn names a removal but closes no mill.
    NoMill,
    /// The named man is not an opposing man.
    NotOpponentMan(Point),
    /// The named man stands in a mill while others do not.
    ProtectedMan(Point),
}

impl IllegalTurn {
    /// The reason in words, naming points on `board`.
    pub fn describe(&self, board: &super::board::Board) -> String {
        let n = |p: &Point| board.name(*p).to_string();
        match self {
            IllegalTurn::GameOver => "the game is over".into(),
            IllegalTurn::OffBoard => "the turn names a point the board does not have".into(),
            IllegalTurn::NoMenInHand => "no men are left in hand to place".into(),
            IllegalTurn::MustPlace => "men in hand must be placed before any man moves".into(),
            IllegalTurn::Occupied(p) => format!("{} is not empty", n(p)),
            IllegalTurn::NotYourMan(p) => format!("{} holds none of your men", n(p)),
            IllegalTurn::NotAdjacent(a, b) => format!("{} is not next to {}", n(b), n(a)),
            IllegalTurn::MoveBack(a, b) => format!(
                "the man on {} may not go straight back to {} to re-form a mill",
                n(a),
                n(b)
            ),
            IllegalTurn::RemovalRequired => {
                "the turn closes a mill: name the man to remove (x...)".into()
            }
            IllegalTurn::NoMill => "the turn closes no mill, so it removes nothing".into(),
            IllegalTurn::NotOpponentMan(p) => format!("{} holds no opposing man", n(p)),
            IllegalTurn::ProtectedMan(p) => {
                format!("the man on {} stands in a mill and other men do not", n(p))
            }
        }
    }
}

impl Variant {
    /// The start: an empty board, every man in hand, White to move.
    pub fn start(&self) -> Position {
        let men = self.rules().men;
        Position {
            men: [0, 0],
            hand: [men, men],
            to_move: Color::White,
            last_slide: [None, None],
        }
    }

    /// Validates an untrusted setup into a position of this variant.
    pub fn setup(&self, setup: &Setup) -> Result<Position, SetupError> {
        let board = self.board();
        let [w, b] = setup.men;
        if (w | b) & !board.all() != 0 {
            return Err(SetupError::OffBoard);
        }
        if let Some(p) = points(w & b).next() {
            return Err(SetupError::Overlap(p));
        }
        let pos = Position {
            men: setup.men,
            hand: setup.hand,
            to_move: setup.to_move,
            last_slide: [None, None],
        };
        for c in Color::BOTH {
            if u32::from(pos.hand(c)) + pos.men(c).count_ones() > u32::from(self.rules().men) {
                return Err(SetupError::TooManyMen(c));
            }
        }
        let last = setup.to_move.opponent();
        if self.rules().mill == MillEffect::Remove && pos.total(last) < 3 {
            return Err(SetupError::LastMoverBelowThree(last));
        }
        if self.rules().mill == MillEffect::Win && board.in_mills(pos.men(setup.to_move)) != 0 {
            return Err(SetupError::RowOfThreeToMove(setup.to_move));
        }
        Ok(pos)
    }

    /// Whether `color` may move a man to any empty point.
    fn flies(&self, pos: &Position, color: Color) -> bool {
        self.rules().movement == Movement::Anywhere || self.flying(pos, color)
    }

    /// Whether `color` is down to three men where the flying rule lets such a side move a man
    /// to any empty point (once its men are all placed).
    pub fn flying(&self, pos: &Position, color: Color) -> bool {
        self.rules().flying && pos.total(color) == 3
    }

    /// The opposing men that a mill closed now may remove: those not in a mill, or any if all are.
    pub fn removable(&self, pos: &Position) -> Mask {
        let opp = pos.men(pos.to_move.opponent());
        let free = opp & !self.board().in_mills(opp);
        if free != 0 { free } else { opp }
    }

    /// The end the position itself decides before any turn is generated (everything but "no
    /// legal move").
    fn decided(&self, pos: &Position) -> Option<Outcome> {
        let side = pos.to_move;
        let last = side.opponent();
        let rules = self.rules();
        if rules.mill == MillEffect::Win && self.board().in_mills(pos.men(last)) != 0 {
            return Some(Outcome::win(last, Termination::RowOfThree));
        }
        if pos.total(side) < 3 {
            return Some(Outcome::win(last, Termination::FewerThanThree));
        }
        if rules.full_board_draw && pos.occupied() == self.board().all() {
            return Some(Outcome::draw(Termination::BoardFull));
        }
        None
    }

    /// How the position ends the game under the rules of play, if it does. Draws that need the
    /// game's history (repetition, ply counters) are [`super::game::Game`]'s to add.
    pub fn status(&self, pos: &Position) -> Option<Outcome> {
        self.decided(pos).or_else(|| {
            (self.count_turns(pos) == 0)
                .then(|| Outcome::win(pos.to_move.opponent(), Termination::NoLegalMove))
        })
    }

    /// Calls `f(from, to)` for every placement (`from` is `None`) and slide, before removals.
    fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Option<Point>, Point)) {
        if self.decided(pos).is_some() {
            return;
        }
        let board = self.board();
        let side = pos.to_move;
        let empty = board.all() & !pos.occupied();
        if pos.hand(side) > 0 {
            for to in points(empty) {
                f(None, to);
            }
        }
        if pos.hand(side) == 0 || self.rules().place_or_slide {
            let flies = self.flies(pos, side);
            for from in points(pos.men(side)) {
                let mut targets = if flies {
                    empty
                } else {
                    board.neighbours(from) & empty
                };
                if let Some(back) = self.move_back_forbidden(pos, from) {
                    targets &= !back.bit();
                }
                for to in points(targets) {
                    f(Some(from), to);
                }
            }
        }
    }

    /// The point the man on `from` may not return to under the move-back rule, if any.
    fn move_back_forbidden(&self, pos: &Position, from: Point) -> Option<Point> {
        let side = pos.to_move;
        let (left, arrived) = pos.last_slide(side)?;
        if arrived != from || pos.occupied() & left.bit() != 0 {
            return None;
        }
        let men = pos.men(side) & !from.bit() | left.bit();
        self.board().closes_mill(men, left).then_some(left)
    }

    /// The side's men after a man goes from `from` (or the hand) to `to`.
    fn men_after(pos: &Position, from: Option<Point>, to: Point) -> Mask {
        let men = pos.men(pos.to_move);
        from.map_or(men, |f| men & !f.bit()) | to.bit()
    }

    /// Whether a man arriving at `to` closes a mill that removes a man.
    fn earns_removal(&self, pos: &Position, from: Option<Point>, to: Point) -> bool {
        self.rules().mill == MillEffect::Remove
            && pos.men(pos.to_move.opponent()) != 0
            && self.board().closes_mill(Self::men_after(pos, from, to), to)
    }

    /// Calls `f` with every legal turn.
    pub fn for_each_turn(&self, pos: &Position, mut f: impl FnMut(Turn)) {
        let removable = self.removable(pos);
        self.for_each_move(pos, |from, to| {
            let turn = Turn {
                from,
                to,
                remove: None,
            };
            if self.earns_removal(pos, from, to) {
                for r in points(removable) {
                    f(turn.removing(r));
                }
            } else {
                f(turn);
            }
        });
    }

    /// Calls `f` with every legal turn and the position it leads to: how a search walks the game
    /// tree without checking each turn a second time.
    pub fn for_each_successor(&self, pos: &Position, mut f: impl FnMut(Turn, Position)) {
        self.for_each_turn(pos, |turn| f(turn, self.apply(pos, turn)));
    }

    /// Every legal turn: placements, then slides, each in point order.
    pub fn legal_turns(&self, pos: &Position) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.for_each_turn(pos, |t| turns.push(t));
        turns
    }

    /// How many legal turns there are, counted without making them.
    pub fn count_turns(&self, pos: &Position) -> u64 {
        let removals = u64::from(self.removable(pos).count_ones());
        let mut n = 0;
        self.for_each_move(pos, |from, to| {
            n += if self.earns_removal(pos, from, to) {
                removals
            } else {
                1
            };
        });
        n
    }

    /// Checks `turn` and returns the position after it; `pos` itself is never changed.
    pub fn play(&self, pos: &Position, turn: Turn) -> Result<Position, IllegalTurn> {
        self.check(pos, turn)?;
        Ok(self.apply(pos, turn))
    }

    /// Whether `turn` is legal in `pos`.
    pub fn is_legal(&self, pos: &Position, turn: Turn) -> bool {
        self.check(pos, turn).is_ok()
    }

    fn check(&self, pos: &Position, turn: Turn) -> Result<(), IllegalTurn> {
        let board = self.board();
        let on_board = |p: Option<Point>| p.is_none_or(|p| board.contains(p));
        if !on_board(Some(turn.to)) || !on_board(turn.from) || !on_board(turn.remove) {
            return Err(IllegalTurn::OffBoard);
        }
        // "No legal move" needs no check here: a turn that passes every check below is one.
        if self.decided(pos).is_some() {
            return Err(IllegalTurn::GameOver);
        }
        let side = pos.to_move;
        match turn.from {
            None if pos.hand(side) == 0 => return Err(IllegalTurn::NoMenInHand),
            Some(_) if pos.hand(side) > 0 && !self.rules().place_or_slide => {
                return Err(IllegalTurn::MustPlace);
            }
            Some(from) if pos.men(side) & from.bit() == 0 => {
                return Err(IllegalTurn::NotYourMan(from));
            }
            _ => {}
        }
        if pos.occupied() & turn.to.bit() != 0 {
            return Err(IllegalTurn::Occupied(turn.to));
        }
        if let Some(from) = turn.from {
            if !self.flies(pos, side) && board.neighbours(from) & turn.to.bit() == 0 {
                return Err(IllegalTurn::NotAdjacent(from, turn.to));
            }
            if self.move_back_forbidden(pos, from) == Some(turn.to) {
                return Err(IllegalTurn::MoveBack(from, turn.to));
            }
        }
        match (self.earns_removal(pos, turn.from, turn.to), turn.remove) {
            (true, None) => Err(IllegalTurn::RemovalRequired),
            (false, Some(_)) => Err(IllegalTurn::NoMill),
            (true, Some(r)) if pos.men(side.opponent()) & r.bit() == 0 => {
                Err(IllegalTurn::NotOpponentMan(r))
            }
            (true, Some(r)) if self.removable(pos) & r.bit() == 0 => {
                Err(IllegalTurn::ProtectedMan(r))
            }
            _ => Ok(()),
        }
    }

    /// Makes a turn already known to be legal.
    pub(super) fn apply(&self, pos: &Position, turn: Turn) -> Position {
        let mut next = *pos;
        let side = pos.to_move.index();
        match turn.from {
            Some(from) => next.men[side] &= !from.bit(),
            None => next.hand[side] -= 1,
        }
        next.men[side] |= turn.to.bit();
        if let Some(r) = turn.remove {
            next.men[1 - side] &= !r.bit();
        }
        if self.rules().no_move_back_into_mill {
            next.last_slide[side] = turn.from.map(|f| (f, turn.to));
        }
        next.to_move = pos.to_move.opponent();
        next
    }
}
