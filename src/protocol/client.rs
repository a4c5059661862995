//! What a client may send ([`ClientMessage`]) and why a text is not one ([`ParseError`]):
//! parsed at the edge, strictly (no unknown type, no extra field).

use super::{Hearing, NameError, PlayerName};
use serde::{Deserialize, Serialize};

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Play a turn, in notation: `{"type":"move","move":"a1-a4xg7"}`.
    Move {
        /// The turn.
        #[serde(rename = "move")]
        turn: String,
    },
    /// Resign the game: the opponent wins.
    Resign,
    /// Offer a draw (or accept the opponent's, if they offered first).
    DrawOffer,
    /// Accept the opponent's draw offer.
    DrawAccept,
    /// Decline the opponent's draw offer.
    DrawDecline,
    /// Ask the opponent to take back the last turn(s), so that you are to move again.
    TakebackOffer,
    /// Accept the opponent's takeback request.
    TakebackAccept,
    /// Decline the opponent's takeback request.
    TakebackDecline,
    /// After the end: ask for a rematch with colours swapped (starts it if the opponent asked).
    Rematch,
    /// After the end: decline the opponent's rematch offer.
    RematchDecline,
    /// Call the game off before both players have moved: nobody wins.
    Abort,
    /// Call off a game nobody has joined yet (the creator's; an open challenge is unlisted).
    /// Refused once the opponent has come.
    Cancel,
    /// The opponent has been gone too long on their turn: claim the win.
    ClaimWin,
    /// The opponent has been gone too long on their turn: claim a draw.
    ClaimDraw,
    /// Say something in your chat (the players' for a seat, the spectators' otherwise).
    Chat {
        /// What is said: at most [`CHAT_MAX_CHARS`](super::CHAT_MAX_CHARS) characters.
        text: String,
    },
    /// Choose which chats to hear; answered with `chat_history`, the lines now heard.
    ChatSettings(Hearing),
    /// Name your seat: shown on the seat, on your chat lines from now on, and in the record.
    Name {
        /// The name, checked as it is read: a refused one is [`ParseError::BadName`].
        name: PlayerName,
    },
    /// Ask for the whole state again.
    Sync,
    /// Keep the connection alive; answered with `pong`.
    Ping,
}

/// Why a client message was not parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON, or not an object with a string `type`.
    Malformed(String),
    /// A `type` this protocol does not have.
    UnknownType(String),
    /// A known `type` with missing or extra fields.
    BadFields(String),
    /// A `name` message whose name is not one.
    BadName(NameError),
}

impl ClientMessage {
    /// Every `type` a client may send.
    pub const TYPES: [&'static str; 19] = [
        "move",
        "resign",
        "draw_offer",
        "draw_accept",
        "draw_decline",
        "takeback_offer",
        "takeback_accept",
        "takeback_decline",
        "rematch",
        "rematch_decline",
        "abort",
        "cancel",
        "claim_win",
        "claim_draw",
        "chat",
        "chat_settings",
        "name",
        "sync",
        "ping",
    ];

    /// The message of type `name` that has no fields (`resign`, `draw_offer`); `None` for an
    /// unknown type or one that has fields. The HTTP API names its actions this way.
    pub fn without_fields(name: &str) -> Option<ClientMessage> {
        serde_json::from_value(serde_json::json!({ "type": name })).ok()
    }

    /// Parses a text frame. Extra fields are refused, on messages without fields too.
    pub fn parse(text: &str) -> Result<ClientMessage, ParseError> {
        #[derive(Deserialize)]
        struct Envelope {
            #[serde(rename = "type")]
            kind: String,
        }
        // serde lets a unit variant of an internally tagged enum ignore the rest of the
        // object, whatever `deny_unknown_fields` says: `{"type":"resign","seat":"black"}`
        // would resign. Those messages are held to `type` alone here.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct TypeAlone {
            #[serde(rename = "type")]
            _kind: serde::de::IgnoredAny,
        }
        // A `name` message of the right shape whose name is refused: the name's own error.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RawName {
            #[serde(rename = "type")]
            _kind: serde::de::IgnoredAny,
            name: String,
        }
        let message: ClientMessage = serde_json::from_str(text).map_err(|e| {
            match serde_json::from_str::<Envelope>(text) {
                Err(_) => ParseError::Malformed(e.to_string()),
                Ok(env) if env.kind == "name" => match serde_json::from_str::<RawName>(text)
                    .map(|raw| PlayerName::parse(&raw.name))
                {
                    Ok(Err(bad)) => ParseError::BadName(bad),
                    _ => ParseError::BadFields(e.to_string()),
                },
                Ok(env) if ClientMessage::TYPES.contains(&env.kind.as_str()) => {
                    ParseError::BadFields(e.to_string())
                }
                Ok(env) => ParseError::UnknownType(env.kind.chars().take(32).collect()),
            }
        })?;
        if !matches!(
            message,
            ClientMessage::Move { .. }
                | ClientMessage::Chat { .. }
                | ClientMessage::ChatSettings(_)
                | ClientMessage::Name { .. }
        ) {
            serde_json::from_str::<TypeAlone>(text)
                .map_err(|e| ParseError::BadFields(format!("this message has no fields: {e}")))?;
        }
        Ok(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One message of each kind a client may send. The `match` has no catch-all: a new kind
    /// does not compile until it is listed here, and the test below then holds `TYPES` to it.
    fn one_of_each() -> Vec<ClientMessage> {
        let all = vec![
            ClientMessage::Move { turn: "a1".into() },
            ClientMessage::Resign,
            ClientMessage::DrawOffer,
            ClientMessage::DrawAccept,
            ClientMessage::DrawDecline,
            ClientMessage::TakebackOffer,
            ClientMessage::TakebackAccept,
            ClientMessage::TakebackDecline,
            ClientMessage::Rematch,
            ClientMessage::RematchDecline,
            ClientMessage::Abort,
            ClientMessage::Cancel,
            ClientMessage::ClaimWin,
            ClientMessage::ClaimDraw,
            ClientMessage::Chat { text: "hi".into() },
            ClientMessage::ChatSettings(Hearing::default_for(None)),
            ClientMessage::Name {
                name: PlayerName::parse("Ann").unwrap(),
            },
            ClientMessage::Sync,
            ClientMessage::Ping,
        ];
        for message in &all {
            match message {
                ClientMessage::Move { .. }
                | ClientMessage::Resign
                | ClientMessage::DrawOffer
                | ClientMessage::DrawAccept
                | ClientMessage::DrawDecline
                | ClientMessage::TakebackOffer
                | ClientMessage::TakebackAccept
                | ClientMessage::TakebackDecline
                | ClientMessage::Rematch
                | ClientMessage::RematchDecline
                | ClientMessage::Cancel
                | ClientMessage::Abort
                | ClientMessage::ClaimWin
                | ClientMessage::ClaimDraw
                | ClientMessage::Chat { .. }
                | ClientMessage::ChatSettings(_)
                | ClientMessage::Name { .. }
                | ClientMessage::Sync
                | ClientMessage::Ping => {}
            }
        }
        all
    }

    /// `TYPES` (which tells a known type with bad fields from an unknown one, and names the
    /// HTTP actions) is exactly the enum's tags, and every kind reads back as written.
    #[test]
    fn the_list_of_client_types_is_the_enums() {
        let all = one_of_each();
        let tags: Vec<String> = all
            .iter()
            .map(|m| {
                let text = serde_json::to_string(m).unwrap();
                assert_eq!(ClientMessage::parse(&text).as_ref(), Ok(m), "{text}");
                serde_json::to_value(m).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(tags, ClientMessage::TYPES, "TYPES in the enum's order");
    }

    #[test]
    fn messages_without_fields_are_named_by_their_type() {
        assert_eq!(
            ClientMessage::without_fields("draw_offer"),
            Some(ClientMessage::DrawOffer)
        );
        assert_eq!(
            ClientMessage::without_fields("move"),
            None,
            "it has a field"
        );
        assert_eq!(ClientMessage::without_fields("nope"), None);
    }

    #[test]
    fn extra_fields_are_refused_on_every_message() {
        let bad = |text: &str| {
            assert!(
                matches!(ClientMessage::parse(text), Err(ParseError::BadFields(_))),
                "{text} was taken"
            )
        };
        bad(r#"{"type":"resign","seat":"black","x":[1]}"#);
        bad(r#"{"type":"draw_offer","x":null}"#);
        bad(r#"{"type":"ping","type2":1}"#);
        bad(r#"{"type":"move","move":"a1","seat":"black"}"#);
        bad(r#"{"type":"move"}"#);
        bad(r#"{"type":"chat","text":"hi","to":"white"}"#);
        bad(r#"{"type":"chat_settings","players":true}"#);
        bad(r#"{"type":"chat_settings","players":true,"spectators":true,"x":0}"#);
        assert_eq!(
            ClientMessage::parse(r#"{"type":"chat_settings","players":false,"spectators":true}"#),
            Ok(ClientMessage::ChatSettings(Hearing {
                players: false,
                spectators: true
            }))
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"chat","text":"gg"}"#),
            Ok(ClientMessage::Chat { text: "gg".into() })
        );
        assert_eq!(
            ClientMessage::parse(r#"{"type":"resign"}"#),
            Ok(ClientMessage::Resign)
        );
        assert_eq!(
            ClientMessage::parse(r#" { "move" : "a1", "type" : "move" } "#),
            Ok(ClientMessage::Move { turn: "a1".into() })
        );
        assert!(matches!(
            ClientMessage::parse(r#"{"type":"resign_now"}"#),
            Err(ParseError::UnknownType(_))
        ));
    }

    #[test]
    fn a_name_message_is_read_with_its_name_checked() {
        assert_eq!(
            ClientMessage::parse(r#"{"type":"name","name":"  Ana  María "}"#),
            Ok(ClientMessage::Name {
                name: PlayerName::parse("Ana María").unwrap()
            })
        );
        let refused = |text: &str| match ClientMessage::parse(text) {
            Err(ParseError::BadName(e)) => e,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(
            refused(r#"{"type":"name","name":"<b>Ana</b>"}"#),
            NameError::Forbidden('<')
        );
        assert_eq!(
            refused(r#"{"type":"name","name":"Ana\u202eBob"}"#),
            NameError::Invisible
        );
        assert_eq!(
            refused(r#"{"type":"name","name":"Ana\nBob"}"#),
            NameError::Control
        );
        assert_eq!(
            refused(&format!(r#"{{"type":"name","name":"{}"}}"#, "x".repeat(21))),
            NameError::TooLong
        );
        // The wrong shape is the message's fault, not the name's.
        for text in [
            r#"{"type":"name"}"#,
            r#"{"type":"name","name":7}"#,
            r#"{"type":"name","name":"Ana","seat":"white"}"#,
        ] {
            assert!(
                matches!(ClientMessage::parse(text), Err(ParseError::BadFields(_))),
                "{text}"
            );
        }
    }
}
