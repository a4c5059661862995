//! Notation (REFERENCE.md §4): points, turns (`d6`, `a1-a4`, `b6xf2`), position strings
//! (`a7,g7,c5 a1,d1 0/0 w`) and game records, each parsed and printed. Parsers take untrusted text
//! and answer with an error that names what is wrong; they never panic.

use super::board::{Board, Mask, Point, points};
use super::color::Color;
use super::position::{Position, Setup, SetupError, Turn};
use super::variant::Variant;
use std::fmt::Write;

/// Why a piece of notation could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// No point of this name on the board.
    Point(String),
    /// Not a turn in the `d6`, `a1-a4`, `b6xf2` form.
    Turn(String),
    /// Not a position string; the text says which part.
    Position(String),
    /// A position string that reads well but is not a position of the variant.
    Setup(SetupError),
    /// Not a game record; the text says which part.
    Record(String),
}

impl std::fmt::Display for NotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotationError::Point(p) => write!(f, "no point '{p}' on this board"),
            NotationError::Turn(t) => write!(
                f,
                "'{t}' is not a turn (write d6, a1-a4 or b6xf2, with points of this board)"
            ),
            NotationError::Position(why) => write!(f, "malformed position string: {why}"),
            NotationError::Setup(e) => write!(f, "impossible position: {e}"),
            NotationError::Record(why) => write!(f, "malformed game record: {why}"),
        }
    }
}

impl std::error::Error for NotationError {}

/// Reads a point name such as `d6`.
pub fn parse_point(board: &Board, s: &str) -> Result<Point, NotationError> {
    board
        .point(s)
        .ok_or_else(|| NotationError::Point(s.chars().take(16).collect()))
}

/// Reads a turn: `d6`, `a1-a4`, `b6xf2` or `a1-a4xg7`.
pub fn parse_turn(board: &Board, s: &str) -> Result<Turn, NotationError> {
    let bad = || NotationError::Turn(s.chars().take(32).collect());
    let (moving, remove) = match s.split_once('x') {
        Some((m, r)) => (m, Some(parse_point(board, r).map_err(|_| bad())?)),
        None => (s, None),
    };
    let (from, to) = match moving.split_once('-') {
        Some((f, t)) => (Some(parse_point(board, f).map_err(|_| bad())?), t),
        None => (None, moving),
    };
    let to = parse_point(board, to).map_err(|_| bad())?;
    Ok(Turn { from, to, remove })
}

/// Writes a turn into `out`: into whatever string type the caller keeps (a state message writes
/// every legal turn anew for every change, into strings that need no allocation).
pub fn write_turn(board: &Board, out: &mut impl Write, turn: Turn) -> std::fmt::Result {
    if let Some(from) = turn.from {
        out.write_str(board.name(from))?;
        out.write_char('-')?;
    }
    out.write_str(board.name(turn.to))?;
    if let Some(r) = turn.remove {
        out.write_char('x')?;
        out.write_str(board.name(r))?;
    }
    Ok(())
}

/// A turn in notation.
pub fn turn_to_string(board: &Board, turn: Turn) -> String {
    let mut s = String::new();
    let _ = write_turn(board, &mut s, turn);
    s
}

fn parse_men(board: &Board, field: &str) -> Result<Mask, NotationError> {
    if field == "-" {
        return Ok(0);
    }
    let mut mask = 0;
    for name in field.split(',') {
        let p = parse_point(board, name)?;
        if mask & p.bit() != 0 {
            return Err(NotationError::Position(format!("{name} is listed twice")));
        }
        mask |= p.bit();
    }
    Ok(mask)
}

fn write_men(out: &mut String, board: &Board, mask: Mask) {
    if mask == 0 {
        out.push('-');
    }
    for (i, p) in points(mask).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(board.name(p));
    }
}

/// Reads a position string `<white men> <black men> <white hand>/<black hand> <w|b>` into an
/// unchecked setup.
pub fn parse_setup(board: &Board, s: &str) -> Result<Setup, NotationError> {
    let fields: Vec<&str> = s.split_whitespace().collect();
    let [white, black, hands, side] = fields[..] else {
        return Err(NotationError::Position(format!(
            "expected 4 fields (white men, black men, hands, side to move), found {}",
            fields.len()
        )));
    };
    let hand = |h: &str| {
        h.parse::<u8>()
            .map_err(|_| NotationError::Position(format!("'{h}' is not a number of men in hand")))
    };
    let Some((wh, bh)) = hands.split_once('/') else {
        return Err(NotationError::Position(
            "the hands are written white/black, such as 9/9".into(),
        ));
    };
    let to_move = match side {
        "w" => Color::White,
        "b" => Color::Black,
        other => {
            return Err(NotationError::Position(format!(
                "the side to move is w or b, not '{}'",
                other.chars().take(8).collect::<String>()
            )));
        }
    };
    let men = [parse_men(board, white)?, parse_men(board, black)?];
    if men[0] & men[1] != 0 {
        return Err(NotationError::Setup(SetupError::Overlap(Point(
            (men[0] & men[1]).trailing_zeros() as u8,
        ))));
    }
    Ok(Setup {
        men,
        hand: [hand(wh)?, hand(bh)?],
        to_move,
    })
}

/// Writes a setup as a position string, men in point order.
pub fn setup_to_string(board: &Board, setup: &Setup) -> String {
    let mut out = String::with_capacity(64);
    write_setup(&mut out, board, setup);
    out
}

/// Appends a setup's position string to `out`.
pub fn write_setup(out: &mut String, board: &Board, setup: &Setup) {
    write_men(out, board, setup.men[0]);
    out.push(' ');
    write_men(out, board, setup.men[1]);
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        " {}/{} {}",
        setup.hand[0],
        setup.hand[1],
        setup.to_move.letter()
    );
}

impl Variant {
    /// Reads and validates a position string of this variant.
    pub fn parse_position(&self, s: &str) -> Result<Position, NotationError> {
        let setup = parse_setup(self.board(), s)?;
        self.setup(&setup).map_err(NotationError::Setup)
    }

    /// Writes a position string.
    pub fn position_string(&self, pos: &Position) -> String {
        setup_to_string(self.board(), &pos.setup())
    }

    /// Appends a position string to `out`.
    pub fn write_position(&self, out: &mut String, pos: &Position) {
        write_setup(out, self.board(), &pos.setup());
    }

    /// Reads a turn with this variant's point names.
    pub fn parse_turn(&self, s: &str) -> Result<Turn, NotationError> {
        parse_turn(self.board(), s)
    }

    /// A turn in notation, with this variant's point names.
    pub fn turn_string(&self, turn: Turn) -> String {
        turn_to_string(self.board(), turn)
    }

    /// Writes a turn with this variant's point names into `out`.
    pub fn write_turn(&self, out: &mut impl Write, turn: Turn) -> std::fmt::Result {
        write_turn(self.board(), out, turn)
    }
}

/// A game record: tag pairs and the turns in notation, as text (REFERENCE.md §4).
///
/// ```text
/// [Variant "nine-mens-morris"]
/// [Result "1-0"]
///
/// 1. d6 f4 2. b6 d2 3. f6xf4 1-0
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// Tag pairs in order, such as `("Variant", "nine-mens-morris")`.
    pub tags: Vec<(String, String)>,
    /// The turns in notation, White's first.
    pub turns: Vec<String>,
}

/// Results a record's movetext may end with.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

impl Record {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag, replacing an earlier value.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }

    /// Reads a record.
    pub fn parse(text: &str) -> Result<Record, NotationError> {
        let mut record = Record::default();
        let mut lines = text.lines().map(str::trim).peekable();
        while let Some(line) = lines.next_if(|l| l.is_empty() || l.starts_with('[')) {
            if !line.is_empty() {
                let (name, value) = parse_tag(line)?;
                record.tags.push((name, value));
            }
        }
        let movetext: Vec<&str> = lines.collect();
        let mut tokens = movetext
            .iter()
            .flat_map(|l| l.split_whitespace())
            .peekable();
        let mut expected_number = 1usize;
        let mut white_to_write = true;
        while let Some(token) = tokens.next() {
            if RESULTS.contains(&token) {
                if tokens.peek().is_some() {
                    return Err(NotationError::Record(format!(
                        "text after the result '{token}'"
                    )));
                }
                break;
            }
            let turn = match token.split_once('.') {
                Some((number, rest)) => {
                    if number.parse::<usize>().ok() != Some(expected_number) || !white_to_write {
                        return Err(NotationError::Record(format!(
                            "expected turn number {expected_number}., found '{}'",
                            token.chars().take(16).collect::<String>()
                        )));
                    }
                    let rest = rest.trim_start_matches('.');
                    if rest.is_empty() {
                        continue;
                    }
                    rest
                }
                None => token,
            };
            if turn.is_empty() || turn.len() > 16 {
                return Err(NotationError::Record(format!(
                    "'{}' is not a turn",
                    turn.chars().take(16).collect::<String>()
                )));
            }
            record.turns.push(turn.to_string());
            if !white_to_write {
                expected_number += 1;
            }
            white_to_write = !white_to_write;
        }
        Ok(record)
    }
}

fn parse_tag(line: &str) -> Result<(String, String), NotationError> {
    let bad = |why: &str| {
        NotationError::Record(format!(
            "{why} in tag line '{}'",
            line.chars().take(40).collect::<String>()
        ))
    };
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| bad("missing brackets"))?;
    let (name, rest) = inner.split_once(' ').ok_or_else(|| bad("no value"))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("a bad tag name"));
    }
    let quoted = rest
        .trim()
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| bad("an unquoted value"))?;
    let mut value = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | '"')) => value.push(e),
                _ => return Err(bad("a bad escape")),
            },
            '"' => return Err(bad("an unescaped quote")),
            c => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

impl std::fmt::Display for Record {
    /// Writes tags, a blank line, then numbered turns wrapped near 80 columns and the result.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, value) in &self.tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(f, "[{name} \"{escaped}\"]")?;
        }
        writeln!(f)?;
        let mut words = Vec::with_capacity(self.turns.len() * 3 / 2 + 1);
        for (i, turn) in self.turns.iter().enumerate() {
            if i % 2 == 0 {
                words.push(format!("{}. {turn}", i / 2 + 1));
            } else {
                words.push(turn.clone());
            }
        }
        let result = self
            .tag("Result")
            .filter(|r| RESULTS.contains(r))
            .unwrap_or("*");
        words.push(result.to_string());
        let mut width = 0;
        for word in words {
            if width > 0 && width + 1 + word.len() > 80 {
                writeln!(f)?;
                width = 0;
            } else if width > 0 {
                write!(f, " ")?;
                width += 1;
            }
            write!(f, "{word}")?;
            width += word.len();
        }
        writeln!(f)
    }
}
