//! A game as clients see it, in two typed values built from the room's game:
//!
//! - [`Snapshot`]: where the game stands now. Its size does not grow with the game's length, so
//!   it is what every change sends (the `update` message).
//! - [`GameState`]: the whole game, the snapshot with the turn list (and, once finished, the
//!   board after every turn for the replay). A client gets it when it connects, asks again, or
//!   finds it has skipped a change; `GET /api/games/{id}` answers with it.
//!
//! Point names and turns in notation are [`CompactString`]s: a few bytes each, kept inline.

use super::{SeatView, Sides, Status};
use crate::clock::TimeControl;
use crate::rules::{Color, Game, Mask, Termination, Turn, Variant, board::points};
use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The men of each side on the board, by point name.
pub type Men = Sides<Vec<CompactString>>;

/// A turn in notation (what a `move` sends) and in its parts, so that a client need not parse
/// notation to know which points a turn touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnView {
    /// The turn in notation.
    pub turn: CompactString,
    /// The point a man leaves; absent for a placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<CompactString>,
    /// The point a man arrives at.
    pub to: CompactString,
    /// The opposing man the turn removes; absent unless it closes a mill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<CompactString>,
}

impl TurnView {
    /// `turn` of `variant`, written out.
    pub fn of(variant: &Variant, turn: Turn) -> TurnView {
        let board = variant.board();
        let name = |p| CompactString::from(board.name(p));
        let mut text = CompactString::default();
        let _ = variant.write_turn(&mut text, turn);
        TurnView {
            turn: text,
            from: turn.from.map(name),
            to: name(turn.to),
            remove: turn.remove.map(name),
        }
    }
}

/// Where a game stands now: everything a client draws, and nothing that grows with the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Bumped by every stored change of the game; a presence or clock refresh keeps it.
    pub version: u64,
    /// How many turns have been played: a client extends its turn list by `last_turn` when this
    /// grows by one, and cuts it to this length after a takeback.
    pub plies: usize,
    /// The position string.
    pub position: String,
    /// The men on the board.
    pub men: Men,
    /// Whose turn it is.
    pub to_move: Color,
    /// The legal turns of the player to move; empty unless the game is playing.
    pub legal: Vec<TurnView>,
    /// Waiting for a player, playing or finished.
    pub status: Status,
    /// `1-0`, `0-1`, `1/2-1/2`, or `null` while the game is on.
    pub result: Option<CompactString>,
    /// Why the game ended.
    pub termination: Option<Termination>,
    /// The winner, if the game ended with one.
    pub winner: Option<Color>,
    /// The end in words (`White wins (row of three)`, `Game aborted`), or `null` while the
    /// game is on: the one wording of every end, for clients to show as it is.
    pub summary: Option<String>,
    /// Men in hand.
    pub hand: Sides<u8>,
    /// Men on the board.
    pub on_board: Sides<u8>,
    /// Men removed.
    pub removed: Sides<u8>,
    /// Whether each side is down to three men with flying on: it may move a man to any empty
    /// point once its hand is empty.
    pub flying: Sides<bool>,
    /// The last turn.
    pub last_turn: Option<TurnView>,
    /// The mills the last turn closed, each as three points.
    pub fresh_mills: Vec<Vec<CompactString>>,
    /// Who holds the seats and whether they are connected.
    pub seats: Sides<SeatView>,
    /// How many others are watching.
    pub spectators: u32,
    /// The side whose draw offer is pending; it lapses with the next turn.
    pub draw_offer: Option<Color>,
    /// The side whose takeback request is pending; it lapses with the next turn.
    pub takeback_offer: Option<Color>,
    /// After the end: the side that asked for a rematch.
    pub rematch_offer: Option<Color>,
    /// The rematch's game id, once it has started.
    pub rematch: Option<String>,
    /// The time control: `untimed`, `M+S` or `Nd`.
    pub time_control: TimeControl,
    /// The clocks of a timed game once both seats are filled, as of this message.
    pub clock: Option<ClockView>,
    /// While the player to move has been gone: who may claim the game, and when.
    pub claim: Option<ClaimView>,
    /// How many lines each chat holds.
    pub chat: super::ChatCounts,
}

/// The whole state of a game: the `state` message and the body of `GET /api/games/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The game's id.
    pub id: CompactString,
    /// The variant's slug.
    pub variant: CompactString,
    /// The table options.
    pub options: BTreeMap<String, String>,
    /// The turns so far, in notation.
    pub turns: Vec<CompactString>,
    /// Where it stands now.
    #[serde(flatten)]
    pub now: Snapshot,
    /// The men on the board before the first turn and after each turn, for going back through
    /// the game (during play too; a client extends them by each update's `men`).
    #[serde(default)]
    pub boards: Vec<Men>,
}

fn men(variant: &Variant, mask: impl Fn(Color) -> Mask) -> Men {
    let board = variant.board();
    Sides::from_fn(|c| points(mask(c)).map(|p| board.name(p).into()).collect())
}

impl Snapshot {
    /// Where `game` stands, at `version`, with the room's presence; untimed, with no offers
    /// (the room sets the rest).
    pub fn new(
        version: u64,
        game: &Game,
        status: Status,
        seats: Sides<SeatView>,
        spectators: u32,
    ) -> Snapshot {
        let variant = game.variant();
        let board = variant.board();
        let pos = game.position();
        let rules_men = variant.rules().men;
        let outcome = game.outcome();
        let last = game.turns().last().copied();
        let legal = match status {
            Status::Playing => game
                .legal_turns()
                .into_iter()
                .map(|t| TurnView::of(variant, t))
                .collect(),
            _ => Vec::new(),
        };
        // The mills the last turn closed: those at its point made wholly of the mover's men.
        let mover = pos.men(pos.to_move().opponent());
        let fresh_mills = last
            .map_or(&[][..], |t| board.mills_at(t.to))
            .iter()
            .filter(|&&m| m & !mover == 0)
            .map(|&m| points(m).map(|p| board.name(p).into()).collect())
            .collect();
        Snapshot {
            version,
            plies: game.turns().len(),
            position: variant.position_string(pos),
            men: men(variant, |c| pos.men(c)),
            to_move: pos.to_move(),
            legal,
            status,
            result: outcome.map(|o| o.result().into()),
            termination: outcome.map(|o| o.termination),
            winner: outcome.and_then(|o| o.winner),
            summary: outcome.map(|o| o.summary()),
            hand: Sides::from_fn(|c| pos.hand(c)),
            on_board: Sides::from_fn(|c| pos.on_board(c)),
            removed: Sides::from_fn(|c| rules_men.saturating_sub(pos.total(c))),
            flying: Sides::from_fn(|c| variant.flying(pos, c)),
            last_turn: last.map(|t| TurnView::of(variant, t)),
            fresh_mills,
            seats,
            spectators,
            draw_offer: None,
            takeback_offer: None,
            rematch_offer: None,
            rematch: None,
            time_control: TimeControl::Untimed,
            clock: None,
            claim: None,
            chat: super::ChatCounts::default(),
        }
    }
}

impl GameState {
    /// The whole of game `id`, standing at `now`.
    pub fn new(id: &str, game: &Game, now: Snapshot) -> GameState {
        let variant = game.variant();
        let boards = game
            .positions()
            .map(|pos| men(variant, |c| pos.men(c)))
            .collect();
        GameState {
            id: id.into(),
            variant: variant.slug().into(),
            options: variant.options().clone(),
            turns: game
                .turn_strings()
                .iter()
                .map(|t| t.as_str().into())
                .collect(),
            now,
            boards,
        }
    }
}

/// The clocks of a timed game, as of the message that carries them: a client counts the running
/// one down from the moment it receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// White's time left, milliseconds.
    pub white_ms: i64,
    /// Black's time left, milliseconds.
    pub black_ms: i64,
    /// Whose clock is running, if any (none before both players have moved in a real-time game,
    /// and none once it is over).
    pub running: Option<Color>,
    /// Before both players have moved: how long the player to move has left to make a first
    /// move before the game is aborted.
    pub first_move_ms: Option<i64>,
}

/// The player to move has no connection: the opponent may claim the win or a draw once
/// `in_ms` reaches zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimView {
    /// Who may claim.
    pub by: Color,
    /// How long until they may, milliseconds (0: now).
    pub in_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::protocol::ServerMessage;

    fn nine(turns: &[&str]) -> Game {
        let variant = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        Game::replay(variant, None, turns).unwrap()
    }

    fn seats() -> Sides<SeatView> {
        Sides::from_fn(|_| SeatView {
            taken: true,
            connected: true,
            name: None,
            computer: None,
        })
    }

    /// A state through its message and back: what a client reads is what was built.
    fn read_back(state: GameState) -> GameState {
        let json = ServerMessage::State(Box::new(state.clone())).to_json();
        assert!(json.starts_with(r#"{"type":"state","#), "{json}");
        match serde_json::from_str::<ServerMessage>(&json).unwrap() {
            ServerMessage::State(read) => {
                assert_eq!(*read, state);
                *read
            }
            other => panic!("not a state: {other:?}"),
        }
    }

    #[test]
    fn a_state_shows_the_game_as_it_stands() {
        // White's d7 closes a7-d7-g7 and removes a1.
        let turns = [
            "c4", "f4", "f2", "b4", "d6", "f6", "a7", "a1", "g7", "c5", "d7xa1",
        ];
        let game = nine(&turns);
        let now = Snapshot {
            draw_offer: Some(Color::Black),
            rematch: Some("next".into()),
            ..Snapshot::new(12, &game, Status::Playing, seats(), 3)
        };
        let state = read_back(GameState::new("abc", &game, now));
        assert_eq!((state.id.as_str(), state.now.version), ("abc", 12));
        assert_eq!(state.variant, "nine-mens-morris");
        assert_eq!(state.turns, turns);
        let now = &state.now;
        assert_eq!(now.plies, turns.len());
        let last = now.last_turn.clone().unwrap();
        assert_eq!(
            (last.turn.as_str(), last.remove.as_deref()),
            ("d7xa1", Some("a1"))
        );
        assert_eq!(now.to_move, Color::Black);
        assert_eq!(now.legal.len(), 24 - 10, "every empty point");
        let notation: Vec<_> = game
            .legal_turns()
            .into_iter()
            .map(|t| CompactString::from(game.variant().turn_string(t)))
            .collect();
        assert_eq!(
            now.legal.iter().map(|t| t.turn.clone()).collect::<Vec<_>>(),
            notation
        );
        assert!(now.legal.iter().all(|t| t.from.is_none() && t.to == t.turn));
        let mut mills = now.fresh_mills.clone();
        mills.iter_mut().for_each(|m| m.sort());
        assert_eq!(mills, [["a7", "d7", "g7"]]);
        assert_eq!((now.hand.white, now.hand.black), (3, 4));
        assert_eq!((now.on_board.white, now.on_board.black), (6, 4));
        assert_eq!((now.removed.white, now.removed.black), (0, 1));
        assert_eq!(now.men.white.len(), 6);
        assert!(now.men.black.iter().all(|p| p != "a1"), "a1 was removed");
        assert_eq!(
            now.position,
            game.variant().position_string(game.position())
        );
        assert_eq!(now.status, Status::Playing);
        assert_eq!((now.result.clone(), now.winner), (None, None));
        assert_eq!(now.spectators, 3);
        assert_eq!(now.draw_offer, Some(Color::Black));
        assert_eq!(now.rematch.as_deref(), Some("next"));
        assert_eq!(
            state.boards.len(),
            turns.len() + 1,
            "the boards review the game so far"
        );
        assert_eq!(state.boards.last(), Some(&state.now.men));
        assert_eq!((now.flying.white, now.flying.black), (false, false));
        // No mill on the next turn: none is fresh.
        let game = nine(&[&turns[..], &["e4"]].concat());
        let now = Snapshot::new(13, &game, Status::Playing, seats(), 3);
        assert!(now.fresh_mills.is_empty());
    }

    #[test]
    fn a_side_down_to_three_flies_where_flying_is_on() {
        let variant = nine(&[]).variant().clone();
        let pos = variant
            .parse_position("a1,a4,a7 d1,d2,d3,g1 0/0 w")
            .unwrap();
        let game = Game::from_position(variant, pos);
        let now = Snapshot::new(1, &game, Status::Playing, seats(), 0);
        assert_eq!((now.flying.white, now.flying.black), (true, false));
        let grounded = Catalog::builtin()
            .configure(
                "nine-mens-morris",
                &BTreeMap::from([("flying".into(), "off".into())]),
            )
            .unwrap();
        let pos = grounded
            .parse_position("a1,a4,a7 d1,d2,d3,g1 0/0 w")
            .unwrap();
        let game = Game::from_position(grounded, pos);
        let now = Snapshot::new(1, &game, Status::Playing, seats(), 0);
        assert!(!now.flying.white);
    }

    #[test]
    fn a_turn_names_its_points() {
        let variant = nine(&[]).variant().clone();
        let board = variant.board();
        let at = |name| board.point(name).unwrap();
        let turn = Turn::slide(at("a1"), at("a4")).removing(at("g7"));
        let legal = TurnView::of(&variant, turn);
        assert_eq!(legal.turn, "a1-a4xg7");
        assert_eq!(
            (
                legal.from.as_deref(),
                legal.to.as_str(),
                legal.remove.as_deref()
            ),
            (Some("a1"), "a4", Some("g7"))
        );
        let json = serde_json::to_string(&TurnView::of(&variant, Turn::place(at("d6")))).unwrap();
        assert_eq!(json, r#"{"turn":"d6","to":"d6"}"#);
    }

    #[test]
    fn only_a_game_in_play_has_legal_turns_and_every_game_its_boards() {
        let game = nine(&[]);
        let waiting = GameState::new(
            "w",
            &game,
            Snapshot::new(1, &game, Status::Waiting, seats(), 0),
        );
        assert!(waiting.now.legal.is_empty() && waiting.boards.len() == 1);
        assert!(waiting.now.last_turn.is_none() && waiting.now.fresh_mills.is_empty());

        let mut game = nine(&[]);
        while game.outcome().is_none() {
            let legal = game.legal_turns();
            game.play(legal[legal.len() / 2]).unwrap();
        }
        let plies = game.turns().len();
        let now = Snapshot::new(9, &game, Status::Finished, seats(), 0);
        let over = read_back(GameState::new("f", &game, now));
        assert!(over.now.legal.is_empty());
        assert_eq!(
            over.boards.len(),
            plies + 1,
            "one before the first turn, one after each"
        );
        assert_eq!(over.boards.last(), Some(&over.now.men));
        // Each is the board the game reached, as playing its turns again shows.
        let mut replay = nine(&[]);
        let mut expected = vec![men(replay.variant(), |c| replay.position().men(c))];
        for &turn in game.turns() {
            replay.play(turn).unwrap();
            expected.push(men(replay.variant(), |c| replay.position().men(c)));
        }
        assert_eq!(over.boards, expected);
        let outcome = game.outcome().unwrap();
        assert_eq!(over.now.result.as_deref(), Some(outcome.result()));
        assert_eq!(over.now.termination, Some(outcome.termination));
        assert_eq!(over.now.winner, outcome.winner);
        assert_eq!(over.now.summary, Some(outcome.summary()));
    }
}
