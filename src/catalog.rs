//! The variant catalog: the files under `variants/`, embedded in the binary, each a YAML front
//! matter (what the engine needs, plus what pages show) above a Markdown rules page.
//!
//! Parsing lives here rather than in `rules`, which knows only serde: this module turns the text
//! of a file into a [`VariantSpec`] and the page's metadata. It also gives each board to clients
//! as data to draw ([`Geometry`]), encoded once per kind of board.

use crate::rules::board::points;
use crate::rules::{
    Board, BoardSpec, Game, Record, ReplayError, Rules, TableOption, Variant, VariantError,
    VariantSpec,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(rust_embed::Embed)]
#[folder = "variants/"]
struct Files;

/// The front matter of a variant file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    title: String,
    slug: String,
    board: String,
    players: String,
    parent: String,
    order: u32,
    win: String,
    special: String,
    #[serde(default)]
    summary: String,
    engine: Engine,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Engine {
    topology: Topology,
    render: Render,
    players: Vec<String>,
    rules: Rules,
    #[serde(default)]
    options: Vec<TableOption>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Topology {
    #[serde(rename = "type")]
    kind: String,
    structure: String,
    params: BoardSpec,
}

/// How big a client should draw the board, from the file's `render` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Render {
    /// The side of the square canvas, in CSS pixels.
    #[serde(rename = "canvasSize")]
    pub canvas_size: u32,
}

/// One variant file, parsed: what pages show, and the engine's spec.
#[derive(Debug, Clone)]
pub struct VariantInfo {
    /// The game's name ("Nine Men's Morris").
    pub title: String,
    /// A line on the board ("24 points on three nested squares").
    pub board: String,
    /// How many play ("2").
    pub players: String,
    /// The family it belongs to; the catalog groups by it.
    pub parent: String,
    /// Its place in the catalog within its family.
    pub order: u32,
    /// How to win, in a line.
    pub win: String,
    /// What sets it apart, in a line.
    pub special: String,
    /// A sentence that introduces it.
    pub summary: String,
    /// Drawing hints.
    pub render: Render,
    /// The rule knobs and table options.
    pub spec: VariantSpec,
    /// The Markdown rules page below the front matter.
    pub body: String,
}

/// Why the catalog could not give a variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    /// No variant with this slug.
    UnknownVariant {
        /// The slug asked for.
        slug: String,
        /// The slugs there are.
        known: Vec<String>,
    },
    /// A variant file that does not parse.
    File {
        /// The file's name.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The options chosen are not the variant's.
    Variant(VariantError),
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogError::UnknownVariant { slug, known } => write!(
                f,
                "unknown variant '{}' (known: {})",
                slug.chars().take(40).collect::<String>(),
                known.join(", ")
            ),
            CatalogError::File { name, message } => write!(f, "variant file {name}: {message}"),
            CatalogError::Variant(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CatalogError {}

impl From<VariantError> for CatalogError {
    fn from(e: VariantError) -> Self {
        CatalogError::Variant(e)
    }
}

/// Splits a file into its YAML front matter and its Markdown body.
fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---")?.trim_start_matches('\r');
    let rest = rest.strip_prefix('\n')?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

impl VariantInfo {
    /// Parses one variant file; `name` is for messages.
    pub fn parse(name: &str, text: &str) -> Result<VariantInfo, CatalogError> {
        let err = |message: String| CatalogError::File {
            name: name.to_string(),
            message,
        };
        let (yaml, body) = split_front_matter(text)
            .ok_or_else(|| err("no front matter between '---' lines".into()))?;
        let fm: FrontMatter = serde_saphyr::from_str(yaml).map_err(|e| err(e.to_string()))?;
        let engine = fm.engine;
        if engine.topology.kind != "graph" || engine.topology.structure != "concentric-rings" {
            return Err(err(format!(
                "topology {}/{} is not known (graph/concentric-rings is)",
                engine.topology.kind, engine.topology.structure
            )));
        }
        if engine.players != ["white", "black"] {
            return Err(err("players must be [white, black]".into()));
        }
        let mut rules = engine.rules;
        rules.board = engine.topology.params;
        let spec = VariantSpec {
            slug: fm.slug,
            rules,
            options: engine.options,
        };
        spec.validate().map_err(|e| err(e.to_string()))?;
        Ok(VariantInfo {
            title: fm.title,
            board: fm.board,
            players: fm.players,
            parent: fm.parent,
            order: fm.order,
            win: fm.win,
            special: fm.special,
            summary: fm.summary,
            render: engine.render,
            spec,
            body: body.to_string(),
        })
    }

    /// The variant's slug.
    pub fn slug(&self) -> &str {
        &self.spec.slug
    }
}

/// A variant's slug and the table options chosen for it.
type Configuration = (String, BTreeMap<String, String>);

/// Every variant, in catalog order: grouped by family, then by each file's `order`.
#[derive(Debug)]
pub struct Catalog {
    variants: Vec<VariantInfo>,
    /// Each playable variant built so far, by slug and choices: all the games of one variant
    /// share it (a board is a few kilobytes, and building one is most of creating a game). The
    /// choices that get here have been checked, so there are as many entries as combinations of
    /// valid options, at most.
    configured: Mutex<HashMap<Configuration, Arc<Variant>>>,
    /// Each kind of board's [`Geometry`] as JSON, made once: every connection's `hello`
    /// carries it. A board is generated from its spec, so the spec names it (a few at most).
    boards: Mutex<HashMap<BoardSpec, Arc<RawValue>>>,
}

impl Catalog {
    /// Parses a set of variant files (name, text).
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Catalog, CatalogError> {
        let mut variants = files
            .into_iter()
            .map(|(name, text)| VariantInfo::parse(name, text))
            .collect::<Result<Vec<_>, _>>()?;
        variants
            .sort_by(|a, b| (&a.parent, a.order, a.slug()).cmp(&(&b.parent, b.order, b.slug())));
        for pair in variants.windows(2) {
            if pair[0].slug() == pair[1].slug() {
                return Err(CatalogError::File {
                    name: pair[1].slug().to_string(),
                    message: "two files declare this slug".into(),
                });
            }
        }
        Ok(Catalog {
            variants,
            configured: Mutex::default(),
            boards: Mutex::default(),
        })
    }

    /// The variant files embedded in the binary.
    pub fn embedded() -> Result<Catalog, CatalogError> {
        let files: Vec<(String, String)> = Files::iter()
            .filter(|name| name.ends_with(".md"))
            .filter_map(|name| {
                let file = Files::get(&name)?;
                Some((
                    name.to_string(),
                    String::from_utf8_lossy(&file.data).into_owned(),
                ))
            })
            .collect();
        Catalog::from_files(files.iter().map(|(n, t)| (n.as_str(), t.as_str())))
    }

    /// The embedded catalog, parsed once. The files are part of the binary and tested, so a
    /// broken one is a build defect, not a runtime condition.
    pub fn builtin() -> &'static Catalog {
        static CATALOG: OnceLock<Catalog> = OnceLock::new();
        CATALOG.get_or_init(|| Catalog::embedded().expect("embedded variant files are valid"))
    }

    /// The geometry of `board` as JSON, encoded once per kind of board.
    pub fn board_json(&self, board: &Board) -> Arc<RawValue> {
        let mut boards = self.boards.lock().unwrap_or_else(|e| e.into_inner());
        boards
            .entry(board.spec())
            .or_insert_with(|| {
                let json = serde_json::value::to_raw_value(&Geometry::of(board));
                Arc::from(json.expect("a geometry serializes"))
            })
            .clone()
    }

    /// Every variant in catalog order.
    pub fn variants(&self) -> &[VariantInfo] {
        &self.variants
    }

    /// The variant with this slug.
    pub fn get(&self, slug: &str) -> Result<&VariantInfo, CatalogError> {
        self.variants
            .iter()
            .find(|v| v.slug() == slug)
            .ok_or_else(|| CatalogError::UnknownVariant {
                slug: slug.to_string(),
                known: self.variants.iter().map(|v| v.slug().to_string()).collect(),
            })
    }

    /// The playable variant with these table options (the others at their defaults).
    pub fn configure(
        &self,
        slug: &str,
        choices: &BTreeMap<String, String>,
    ) -> Result<Arc<Variant>, CatalogError> {
        let key = (slug.to_string(), choices.clone());
        let cache = || self.configured.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(variant) = cache().get(&key) {
            return Ok(variant.clone());
        }
        let variant = Arc::new(self.get(slug)?.spec.configure(choices)?);
        Ok(cache().entry(key).or_insert(variant).clone())
    }

    /// Rebuilds a game from its record: the `Variant`, `Options` and `Position` tags, then the
    /// turns.
    pub fn replay(&self, record: &Record) -> Result<Game, RecordError> {
        let slug = record.tag("Variant").ok_or(RecordError::NoVariant)?;
        let choices = record
            .tag("Options")
            .map(parse_options)
            .transpose()?
            .unwrap_or_default();
        let variant = self.configure(slug, &choices)?;
        let start = record
            .tag("Position")
            .map(|p| variant.parse_position(p))
            .transpose()
            .map_err(|e| RecordError::Position(e.to_string()))?;
        Ok(Game::replay(variant, start, &record.turns)?)
    }
}

/// Reads `key=value,key=value` (the record's `Options` tag, and `--set` lists).
pub fn parse_options(s: &str) -> Result<BTreeMap<String, String>, RecordError> {
    s.split(',')
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| RecordError::Options(part.chars().take(40).collect()))
        })
        .collect()
}

/// Why a record could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// The record has no `Variant` tag.
    NoVariant,
    /// An `Options` entry that is not `key=value`.
    Options(String),
    /// The variant or its options.
    Catalog(CatalogError),
    /// A `Position` tag that is not a position of the variant.
    Position(String),
    /// A turn that is not notation or not legal.
    Replay(ReplayError),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::NoVariant => write!(f, "the record has no Variant tag"),
            RecordError::Options(part) => write!(f, "option '{part}' is not key=value"),
            RecordError::Catalog(e) => write!(f, "{e}"),
            RecordError::Position(e) => write!(f, "Position tag: {e}"),
            RecordError::Replay(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<CatalogError> for RecordError {
    fn from(e: CatalogError) -> Self {
        RecordError::Catalog(e)
    }
}

impl From<ReplayError> for RecordError {
    fn from(e: ReplayError) -> Self {
        RecordError::Replay(e)
    }
}

/// A point of the board as a client draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeometryPoint {
    /// Its name, such as `d6`.
    pub name: String,
    /// Column on the grid, from the left, starting at 0.
    pub x: u8,
    /// Row on the grid, from the bottom, starting at 0.
    pub y: u8,
}

/// A board as data, enough to draw it: the points with grid positions and the lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Points per side of the grid (3, 5 or 7).
    pub size: u8,
    /// Every point.
    pub points: Vec<GeometryPoint>,
    /// The lines to draw, each a straight run of points named.
    pub lines: Vec<Vec<String>>,
    /// Every mill, as three points.
    pub mills: Vec<Vec<String>>,
}

impl Geometry {
    /// The geometry of a generated board.
    pub fn of(board: &Board) -> Geometry {
        let name = |p| board.name(p).to_string();
        Geometry {
            size: board.size(),
            points: points(board.all())
                .map(|p| {
                    let (x, y) = board.coord(p);
                    GeometryPoint {
                        name: name(p),
                        x,
                        y,
                    }
                })
                .collect(),
            lines: board
                .lines()
                .iter()
                .map(|l| l.iter().map(|&p| name(p)).collect())
                .collect(),
            mills: board
                .mills()
                .iter()
                .map(|&m| points(m).map(name).collect())
                .collect(),
        }
    }
}
