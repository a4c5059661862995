//! Variants as data: the rule knobs of a Morris game, the table options a player may change, and
//! the configured [`Variant`] (knobs plus generated board) that the engine plays.
//!
//! A variant file's front matter deserializes into [`VariantSpec`]; choosing table options turns
//! it into a [`Variant`]. A new variant that needs no new knob needs no Rust change.

use super::board::{Board, BoardError, BoardSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a man moves once its owner slides rather than places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Movement {
    /// Along a line to a neighbouring empty point.
    Adjacent,
    /// To any empty point (Three Men's Morris as its source plays it).
    Anywhere,
}

/// What closing a mill does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MillEffect {
    /// Remove one opposing man (the Morris games).
    Remove,
    /// Win at once (Three Men's Morris).
    Win,
}

/// The rule knobs of a variant. Everything the engine does differently between variants is here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Rules {
    /// The board's generating parameters. Variant files give them as `topology.params`, beside
    /// the rules, so they are not read from (or written to) the rules' own section.
    #[serde(skip)]
    pub board: BoardSpec,
    /// Men per player.
    pub men: u8,
    /// How men move after placement.
    pub movement: Movement,
    /// A player whose men on the board plus in hand are exactly three moves to any empty point.
    #[serde(default)]
    pub flying: bool,
    /// A player may slide instead of placing while men are still in hand (Lasker Morris).
    #[serde(default)]
    pub place_or_slide: bool,
    /// What closing a mill does.
    #[serde(default = "default_mill")]
    pub mill: MillEffect,
    /// A board with no empty point is a draw (rather than a loss for the blocked player).
    #[serde(default)]
    pub full_board_draw: bool,
    /// A man may not move straight back to the point it just left if that re-forms a mill.
    #[serde(default)]
    pub no_move_back_into_mill: bool,
    /// Once both hands are empty, this many plies in a row without a removal are a draw.
    #[serde(default)]
    pub quiet_plies_draw: Option<u16>,
    /// When both players have three men, this many plies without a removal are a draw.
    #[serde(default)]
    pub three_against_three_draw: Option<u16>,
}

fn default_mill() -> MillEffect {
    MillEffect::Remove
}

/// Changes that one value of a table option makes to the rule knobs. Every field is optional;
/// only the ones named in the variant file change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RulePatch {
    /// Sets [`BoardSpec::midpoints`].
    pub midpoints: Option<bool>,
    /// Sets [`BoardSpec::diagonals`].
    pub diagonals: Option<bool>,
    /// Sets [`BoardSpec::centre`].
    pub centre: Option<bool>,
    /// Sets [`Rules::men`].
    pub men: Option<u8>,
    /// Sets [`Rules::movement`].
    pub movement: Option<Movement>,
    /// Sets [`Rules::flying`].
    pub flying: Option<bool>,
    /// Sets [`Rules::place_or_slide`].
    pub place_or_slide: Option<bool>,
    /// Sets [`Rules::full_board_draw`].
    pub full_board_draw: Option<bool>,
    /// Sets [`Rules::no_move_back_into_mill`].
    pub no_move_back_into_mill: Option<bool>,
}

impl RulePatch {
    fn apply(&self, rules: &mut Rules) {
        fn set<T: Copy>(slot: &mut T, value: Option<T>) {
            if let Some(v) = value {
                *slot = v;
            }
        }
        set(&mut rules.board.midpoints, self.midpoints);
        set(&mut rules.board.diagonals, self.diagonals);
        set(&mut rules.board.centre, self.centre);
        set(&mut rules.men, self.men);
        set(&mut rules.movement, self.movement);
        set(&mut rules.flying, self.flying);
        set(&mut rules.place_or_slide, self.place_or_slide);
        set(&mut rules.full_board_draw, self.full_board_draw);
        set(
            &mut rules.no_move_back_into_mill,
            self.no_move_back_into_mill,
        );
    }
}

/// One value a table option can take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionValue {
    /// The value as written on the command line and in records (`on`, `off`, `anywhere`).
    pub value: String,
    /// How the table setup shows it.
    pub label: String,
    /// What choosing it changes.
    #[serde(default)]
    pub set: RulePatch,
}

/// A table option: a rule the players may change when they set up a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableOption {
    /// The option's key (`flying`, `diagonals`, `movement`).
    pub key: String,
    /// How the table setup names it.
    pub label: String,
    /// A sentence on what it does.
    #[serde(default)]
    pub description: String,
    /// The value a game has unless the players choose another.
    pub default: String,
    /// The values to choose from.
    pub values: Vec<OptionValue>,
}

/// A variant as its file describes it: rule knobs and table options, before any are chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantSpec {
    /// The variant's slug (`nine-mens-morris`).
    pub slug: String,
    /// The rules before any table option is applied.
    pub rules: Rules,
    /// The table options, in the order the setup shows them.
    pub options: Vec<TableOption>,
}

/// Why a variant or a choice of its table options is not playable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantError {
    /// The variant has no option with this key.
    UnknownOption {
        /// The variant's slug.
        variant: String,
        /// The key asked for.
        key: String,
    },
    /// The option has no such value.
    UnknownValue {
        /// The option's key.
        key: String,
        /// The value asked for.
        value: String,
        /// The values it has.
        allowed: Vec<String>,
    },
    /// The same option key twice in the variant file.
    DuplicateOption(String),
    /// An option's default is not one of its values.
    BadDefault(String),
    /// The board parameters describe no board.
    Board(BoardError),
    /// Fewer than three men, or more men than the board has points.
    Men(u8),
}

impl std::fmt::Display for VariantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VariantError::UnknownOption { variant, key } => {
                write!(f, "{variant} has no option '{key}'")
            }
            VariantError::UnknownValue {
                key,
                value,
                allowed,
            } => write!(
                f,
                "option '{key}' has no value '{value}' (allowed: {})",
                allowed.join(", ")
            ),
            VariantError::DuplicateOption(key) => write!(f, "option '{key}' is declared twice"),
            VariantError::BadDefault(key) => {
                write!(f, "the default of option '{key}' is not one of its values")
            }
            VariantError::Board(e) => write!(f, "{e}"),
            VariantError::Men(n) => write!(f, "{n} men per player do not fit the board"),
        }
    }
}

impl std::error::Error for VariantError {}

impl From<BoardError> for VariantError {
    fn from(e: BoardError) -> Self {
        VariantError::Board(e)
    }
}

impl VariantSpec {
    /// Checks the spec itself: unique option keys, defaults among the values, and a playable
    /// variant with every option at its default.
    pub fn validate(&self) -> Result<(), VariantError> {
        for (i, opt) in self.options.iter().enumerate() {
            if self.options[..i].iter().any(|o| o.key == opt.key) {
                return Err(VariantError::DuplicateOption(opt.key.clone()));
            }
            if !opt.values.iter().any(|v| v.value == opt.default) {
                return Err(VariantError::BadDefault(opt.key.clone()));
            }
        }
        self.configure(&BTreeMap::new()).map(|_| ())
    }

    /// The variant with the given table options; options not named take their defaults.
    pub fn configure(&self, choices: &BTreeMap<String, String>) -> Result<Variant, VariantError> {
        for key in choices.keys() {
            if !self.options.iter().any(|o| &o.key == key) {
                return Err(VariantError::UnknownOption {
                    variant: self.slug.clone(),
                    key: key.clone(),
                });
            }
        }
        let mut rules = self.rules.clone();
        let mut chosen = BTreeMap::new();
        for opt in &self.options {
            let value = choices.get(&opt.key).unwrap_or(&opt.default);
            let Some(v) = opt.values.iter().find(|v| &v.value == value) else {
                return Err(VariantError::UnknownValue {
                    key: opt.key.clone(),
                    value: value.clone(),
                    allowed: opt.values.iter().map(|v| v.value.clone()).collect(),
                });
            };
            v.set.apply(&mut rules);
            chosen.insert(opt.key.clone(), value.clone());
        }
        Variant::new(self.slug.clone(), rules, chosen)
    }
}

/// A playable variant: its rules with every option chosen, and its generated board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    slug: String,
    rules: Rules,
    options: BTreeMap<String, String>,
    board: Board,
}

impl Variant {
    /// A variant from its rules directly (`options` records the choices that produced them).
    pub fn new(
        slug: String,
        rules: Rules,
        options: BTreeMap<String, String>,
    ) -> Result<Variant, VariantError> {
        let board = Board::new(rules.board)?;
        if rules.men < 3 || usize::from(rules.men) > board.len() {
            return Err(VariantError::Men(rules.men));
        }
        Ok(Variant {
            slug,
            rules,
            options,
            board,
        })
    }

    /// The variant's slug.
    pub fn slug(&self) -> &str {
        &self.slug
    }

    /// The rule knobs in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The generated board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The chosen value of every table option.
    pub fn options(&self) -> &BTreeMap<String, String> {
        &self.options
    }

    /// The options as the game record writes them: `flying=off,...`, or empty when there are none.
    pub fn options_string(&self) -> String {
        self.options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}
