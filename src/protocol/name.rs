//! What a player's name is: the one definition, parsed at the protocol's edge (a `name` message,
//! `POST /api/games/{id}/name`, or `name` when creating or joining a game) and trusted after.
//!
//! A name is a label a visitor gives themselves, not an identity: no account, no uniqueness.
//! It is 1 to [`NAME_MAX_CHARS`] characters after NFC normalisation and trimming: letters of
//! any script (with their combining marks), decimal digits, spaces (runs of them made one) and
//! `.`, `_`, `-`, with at least one letter or digit. Control characters, direction marks and
//! overrides, other invisible characters, and anything that could be markup (`<`, `&`, `"`) are
//! refused with [`NameError`], so a name is safe in a record tag and shown as text everywhere.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// The longest name, in characters (after normalisation).
pub const NAME_MAX_CHARS: usize = 20;

/// Letters that show as nothing (the Hangul fillers): a name of them would look empty.
const INVISIBLE_LETTERS: [char; 4] = ['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'];

/// A valid player's name, normalised (NFC, trimmed, single spaces).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerName(CompactString);

/// Why a name was refused; each says what a name may be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing but spaces, or punctuation alone.
    #[error("a name needs at least one letter or digit")]
    Empty,
    /// More than [`NAME_MAX_CHARS`] characters.
    #[error("a name is at most {NAME_MAX_CHARS} characters")]
    TooLong,
    /// A control character (a line break, a tab, ...).
    #[error("a name may not hold control characters")]
    Control,
    /// A direction mark or override, or another invisible formatting character.
    #[error("a name may not hold direction marks, overrides or invisible characters")]
    Invisible,
    /// A combining mark with no letter before it.
    #[error("a name may not begin with a combining mark")]
    LoneMark,
    /// Anything else: markup, symbols, emoji.
    #[error("a name holds only letters, digits, spaces and . _ - (not '{0}')")]
    Forbidden(char),
}

impl PlayerName {
    /// Reads a name as a visitor typed it: normalised, then checked.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let normal: String = text.nfc().collect();
        let mut name = CompactString::default();
        let mut meaningful = false;
        for word in normal.split(' ').filter(|w| !w.is_empty()) {
            if !name.is_empty() {
                name.push(' ');
            }
            for (i, c) in word.chars().enumerate() {
                match c.general_category_group() {
                    GeneralCategoryGroup::Letter if !INVISIBLE_LETTERS.contains(&c) => {
                        meaningful = true
                    }
                    GeneralCategoryGroup::Letter => return Err(NameError::Invisible),
                    // A mark at the start of a word would sit on the space before it.
                    GeneralCategoryGroup::Mark if i == 0 => {
                        return Err(NameError::LoneMark);
                    }
                    GeneralCategoryGroup::Mark => {}
                    _ if c.general_category() == GeneralCategory::DecimalNumber => {
                        meaningful = true
                    }
                    _ if matches!(c, '.' | '_' | '-') => {}
                    _ if c.general_category() == GeneralCategory::Control => {
                        return Err(NameError::Control);
                    }
                    _ if matches!(
                        c.general_category(),
                        GeneralCategory::Format
                            | GeneralCategory::SpaceSeparator
                            | GeneralCategory::LineSeparator
                            | GeneralCategory::ParagraphSeparator
                    ) =>
                    {
                        return Err(NameError::Invisible);
                    }
                    _ => return Err(NameError::Forbidden(c)),
                }
                name.push(c);
            }
        }
        if name.chars().count() > NAME_MAX_CHARS {
            return Err(NameError::TooLong);
        }
        if !meaningful {
            return Err(NameError::Empty);
        }
        Ok(PlayerName(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for PlayerName {
    type Error = NameError;
    fn try_from(text: String) -> Result<PlayerName, NameError> {
        PlayerName::parse(&text)
    }
}

impl From<PlayerName> for String {
    fn from(name: PlayerName) -> String {
        name.0.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> String {
        match PlayerName::parse(text) {
            Ok(name) => name.to_string(),
            Err(e) => panic!("{text:?} was refused: {e}"),
        }
    }

    fn refused(text: &str) -> NameError {
        match PlayerName::parse(text) {
            Ok(name) => panic!("{text:?} was taken as {name:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn names_of_every_script_are_taken_normalised() {
        assert_eq!(ok("Ana"), "Ana");
        assert_eq!(ok("  jo.smith_2-b  "), "jo.smith_2-b", "trimmed");
        assert_eq!(ok("Ana   María"), "Ana María", "one space between words");
        assert_eq!(ok("مريم"), "مريم", "right to left");
        assert_eq!(ok("Ωμέγα"), "Ωμέγα");
        assert_eq!(ok("हिन्दी"), "हिन्दी", "with its combining marks");
        assert_eq!(ok("李小龙"), "李小龙");
        assert_eq!(ok("٣٤ Ali"), "٣٤ Ali", "digits of any script");
        assert_eq!(ok("R2-D2"), "R2-D2");
        // "e" and a combining acute become the one character "é": the same name, the same bytes.
        assert_eq!(ok("Rene\u{301}"), "René");
        assert_eq!(ok("Rene\u{301}").chars().count(), 4);
        assert_eq!(ok(&"x".repeat(NAME_MAX_CHARS)).len(), NAME_MAX_CHARS);
        assert_eq!(
            ok(&"é".repeat(NAME_MAX_CHARS)).chars().count(),
            NAME_MAX_CHARS,
            "characters, not bytes"
        );
    }

    #[test]
    fn overlong_invisible_control_and_markup_names_are_refused() {
        assert_eq!(refused(&"x".repeat(NAME_MAX_CHARS + 1)), NameError::TooLong);
        assert_eq!(refused(""), NameError::Empty);
        assert_eq!(refused("   "), NameError::Empty);
        assert_eq!(refused("..."), NameError::Empty);
        assert_eq!(refused("Ana\nBob"), NameError::Control);
        assert_eq!(refused("Ana\tBob"), NameError::Control);
        assert_eq!(refused("a\u{0}b"), NameError::Control);
        // Direction overrides and isolates, marks, zero-width characters: invisible.
        for c in [
            '\u{202E}', '\u{202D}', '\u{2066}', '\u{2069}', '\u{200F}', '\u{200B}', '\u{FEFF}',
        ] {
            assert_eq!(refused(&format!("Ana{c}")), NameError::Invisible, "{c:?}");
        }
        assert_eq!(
            refused("Ana\u{A0}Bob"),
            NameError::Invisible,
            "a no-break space"
        );
        assert_eq!(
            refused("\u{3164}\u{3164}"),
            NameError::Invisible,
            "Hangul fillers"
        );
        assert_eq!(refused("\u{301}Ana"), NameError::LoneMark);
        assert_eq!(refused("Ana \u{301}b"), NameError::LoneMark);
        assert_eq!(refused("<b>Ana</b>"), NameError::Forbidden('<'));
        assert_eq!(refused("Tom & Jerry"), NameError::Forbidden('&'));
        assert_eq!(refused("say \"hi\""), NameError::Forbidden('"'));
        assert_eq!(refused("Ana😀"), NameError::Forbidden('😀'));
        assert!(refused("<script>").to_string().contains("letters, digits"));
    }

    #[test]
    fn a_name_travels_as_a_string_and_is_checked_when_read() {
        let name = PlayerName::parse("Ana").unwrap();
        assert_eq!(serde_json::to_string(&name).unwrap(), r#""Ana""#);
        assert_eq!(
            serde_json::from_str::<PlayerName>(r#"" Ana ""#).unwrap(),
            name
        );
        assert!(serde_json::from_str::<PlayerName>(r#""<i>""#).is_err());
    }
}
