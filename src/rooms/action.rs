//! What players ask of a game: the actor, the action (one for each client message that acts,
//! whichever transport carried it), and what comes back.

use crate::protocol::{ClientMessage, GameState, PlayerName};
use crate::rules::Color;

/// Who is acting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A connection already known to hold this seat (or none: a spectator).
    Seat(Option<Color>),
    /// Whoever presents this secret (HTTP with a bearer token); `None` if none was presented.
    Secret(Option<String>),
}

/// An end a player can bring about off the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The player gives up; the opponent wins.
    Resign,
    /// The game is called off before both players have moved; nobody wins.
    Abort,
    /// The opponent has been gone too long on their turn: the claimer wins.
    ClaimWin,
    /// The opponent has been gone too long on their turn: a draw.
    ClaimDraw,
}

/// What a player does in a game: one for each client message that acts, whichever transport
/// carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Play a turn written in notation.
    Turn(String),
    /// Resign, abort or claim the game.
    End(Ending),
    /// Offer, accept or decline a draw.
    Draw(OfferAction),
    /// Ask for, accept or decline a takeback.
    Takeback(OfferAction),
    /// Ask for a rematch after the end.
    Rematch,
    /// Decline the opponent's rematch offer.
    RematchDecline,
    /// Name the seat's player (anew).
    Name(PlayerName),
    /// Call off a game nobody has joined yet (its creator; unlists an open challenge).
    Cancel,
}

impl Action {
    /// The action a client message asks for; `None` for the messages about the connection
    /// itself (`sync`, `ping`, `chat_settings`) and for chat, which is not the game.
    pub fn of(message: ClientMessage) -> Option<Action> {
        use ClientMessage as M;
        Some(match message {
            M::Move { turn } => Action::Turn(turn),
            M::Resign => Action::End(Ending::Resign),
            M::Abort => Action::End(Ending::Abort),
            M::ClaimWin => Action::End(Ending::ClaimWin),
            M::ClaimDraw => Action::End(Ending::ClaimDraw),
            M::DrawOffer => Action::Draw(OfferAction::Offer),
            M::DrawAccept => Action::Draw(OfferAction::Accept),
            M::DrawDecline => Action::Draw(OfferAction::Decline),
            M::TakebackOffer => Action::Takeback(OfferAction::Offer),
            M::TakebackAccept => Action::Takeback(OfferAction::Accept),
            M::TakebackDecline => Action::Takeback(OfferAction::Decline),
            M::Rematch => Action::Rematch,
            M::RematchDecline => Action::RematchDecline,
            M::Name { name } => Action::Name(name),
            M::Cancel => Action::Cancel,
            M::Sync | M::Ping | M::Chat { .. } | M::ChatSettings(_) => return None,
        })
    }
}

/// What an action waited on (over HTTP) is answered with.
#[derive(Debug, Clone)]
pub struct Acted {
    /// The game after the action.
    pub state: GameState,
    /// For a rematch once started: the actor's seat in it.
    pub rematch: Option<SeatGrant>,
}

/// What a player does about an offer (a draw, a takeback).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferAction {
    /// Make one (for a draw, this accepts a pending offer of the opponent's).
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline the opponent's offer.
    Decline,
}

/// Who the creator of a game plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opponent {
    /// Whoever the creator sends the link to.
    Friend,
    /// Anyone: the game is listed among the open challenges while it waits.
    Anyone,
    /// The computer at this level, seated at once.
    Computer(crate::engine::Level),
}

/// The colour the creator asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// Play White.
    White,
    /// Play Black.
    Black,
    /// Toss a coin.
    Random,
}

/// A seat handed out: the colour and its secret (shown once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatGrant {
    /// The game.
    pub id: String,
    /// The seat.
    pub color: Color,
    /// The secret that acts for it.
    pub secret: String,
}
