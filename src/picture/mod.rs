//! Pictures of games, drawn on the server: a position as PNG, a link preview (the board with
//! words beside it) as PNG, and a whole game as an animated GIF.
//!
//! Pure like the rules: no I/O, no clock, no async. A picture is an SVG string built from the
//! same geometry, colours and marks (last turn, fresh mill) as the browser's board
//! (`static/board.js`, `static/app.css`, `static/dark.css`), rendered with resvg and the one font bundled in the
//! binary (`fonts/DejaVuSans.ttf`), never a system font: the same picture on every machine.
//! Rendering takes milliseconds of CPU, so callers run it off the async runtime.

mod animation;

pub use animation::{GIF_BOARD, game_gif};

use crate::catalog::Geometry;
use crate::protocol::{GameState, Men, Sides};
use resvg::{tiny_skia, usvg};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// The side of a position's PNG, in pixels.
pub const POSITION_SIZE: u32 = 512;
/// A link preview's size, as the Open Graph and Twitter cards want it.
pub const PREVIEW_SIZE: (u32, u32) = (1200, 630);

/// The font every picture is written in, embedded (its licence is beside it).
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");
/// Its family name, as the SVG names it.
const FONT_FAMILY: &str = "DejaVu Sans";

/// Light or dark, as the page's colour scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Theme {
    /// The light page: the default.
    #[default]
    Light,
    /// The dark page.
    Dark,
}

impl Theme {
    /// The theme a query names (`light`, `dark`), or `None` for another word.
    pub fn parse(word: &str) -> Option<Theme> {
        match word {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// Its word in queries.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The colours of `static/app.css` (light) or `static/dark.css` in this scheme.
    fn palette(self) -> Palette {
        let men = Palette {
            white_man: "#fbfaf6",
            white_edge: "#6d6357",
            black_man: "#23201c",
            black_edge: "#000",
            ..Palette::LIGHT
        };
        match self {
            Theme::Light => men,
            Theme::Dark => Palette {
                paper: "#1b1a17",
                ink: "#ece6da",
                muted: "#a39c8e",
                wood: "#b8925a",
                line: "#3a2a17",
                gold: "#f0b400",
                mill: "#ff7a3d",
                ..men
            },
        }
    }
}

/// The colours a picture uses: the stylesheets' custom properties of the same names.
#[derive(Debug, Clone, Copy)]
struct Palette {
    paper: &'static str,
    ink: &'static str,
    muted: &'static str,
    wood: &'static str,
    line: &'static str,
    white_man: &'static str,
    white_edge: &'static str,
    black_man: &'static str,
    black_edge: &'static str,
    gold: &'static str,
    mill: &'static str,
}

impl Palette {
    const LIGHT: Palette = Palette {
        paper: "#f7f3ea",
        ink: "#1d1b16",
        muted: "#6b6457",
        wood: "#e4c58f",
        line: "#5b4326",
        white_man: "#fbfaf6",
        white_edge: "#6d6357",
        black_man: "#23201c",
        black_edge: "#000",
        gold: "#d69e00",
        mill: "#c2410c",
    };
}

/// How a picture is drawn: from whose side and in which colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Look {
    /// Drawn from Black's side (a1 at the top right), as the page's "Flip the board".
    pub flipped: bool,
    /// The colour scheme.
    pub theme: Theme,
}

/// A position to draw: the men, and the marks the browser puts on them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct View {
    /// The men on the board.
    pub men: Men,
    /// The points the last turn moved a man between (one for a placement).
    pub last: HashSet<String>,
    /// The points of the mills the last turn closed.
    pub mills: HashSet<String>,
    /// The side that played the last turn, if there was one.
    pub mover: Option<&'static str>,
}

impl View {
    /// The position after `ply` turns of `state` (0: the start), with the last turn and the mills
    /// it closed, found as the browser finds them: the mover is the side that has a man where
    /// it had none, its turn went from the point it left to that one. `None` past the last ply.
    pub fn at(state: &GameState, geometry: &Geometry, ply: usize) -> Option<View> {
        let men = state.boards.get(ply)?.clone();
        let mut view = View {
            men,
            ..View::default()
        };
        let Some(before) = ply.checked_sub(1).and_then(|p| state.boards.get(p)) else {
            return Some(view);
        };
        let sides = [
            ("white", &before.white, &view.men.white),
            ("black", &before.black, &view.men.black),
        ];
        let Some((mover, was, now)) = sides
            .into_iter()
            .find(|(_, was, now)| now.iter().any(|p| !was.contains(p)))
        else {
            return Some(view);
        };
        let arrived: Vec<&str> = now
            .iter()
            .filter(|p| !was.contains(p))
            .map(|p| p.as_str())
            .collect();
        let left = was.iter().filter(|p| !now.contains(p)).map(|p| p.as_str());
        view.last = arrived
            .iter()
            .copied()
            .chain(left)
            .map(String::from)
            .collect();
        view.mills = geometry
            .mills
            .iter()
            .filter(|mill| mill.iter().any(|p| arrived.contains(&p.as_str())))
            .filter(|mill| mill.iter().all(|p| now.iter().any(|m| m == p)))
            .flatten()
            .cloned()
            .collect();
        view.mover = Some(mover);
        Some(view)
    }

    /// Who stands on `point`: `white`, `black` or `None`.
    fn at_point(&self, point: &str) -> Option<&'static str> {
        let Sides { white, black } = &self.men;
        if white.iter().any(|p| p == point) {
            Some("white")
        } else if black.iter().any(|p| p == point) {
            Some("black")
        } else {
            None
        }
    }
}

/// Why a picture could not be made: only a defect of the drawing itself (its SVG) or of a size,
/// never the caller's input, which is a position already checked.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The SVG built here did not parse.
    #[error("the picture's SVG is not valid: {0}")]
    Svg(#[from] usvg::Error),
    /// A pixmap of a zero or enormous size.
    #[error("a picture of {0}x{1} pixels cannot be made")]
    Size(u32, u32),
    /// The PNG encoder failed.
    #[error("the PNG could not be encoded: {0}")]
    Png(String),
    /// The GIF encoder failed.
    #[error("the GIF could not be encoded: {0}")]
    Gif(#[from] gif::EncodingError),
}

/// The margin around the grid, in grid steps (as `static/board.js`).
const PAD: f64 = 0.75;

/// Where the centre of point (`x`, `y`) of `geometry` falls in a board drawn in a square of
/// `side` pixels from (0, 0): the same placing as the browser's.
pub fn point_pixel(geometry: &Geometry, x: u8, y: u8, flipped: bool, side: u32) -> (f64, f64) {
    let n = f64::from(geometry.size - 1);
    let (x, y) = (f64::from(x), f64::from(y));
    let (sx, sy) = if flipped { (n - x, y) } else { (x, n - y) };
    let scale = f64::from(side) / (n + 2.0 * PAD);
    ((sx + PAD) * scale, (sy + PAD) * scale)
}

/// Escapes text for SVG content and attributes.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The board with `view` on it, as an SVG group filling a square of `side` pixels at
/// (`left`, `top`): the wood, the lines, the coordinates and the points, as `static/board.js`
/// draws them and `static/app.css` colours them.
fn board_group(
    out: &mut String,
    geometry: &Geometry,
    view: &View,
    look: Look,
    (left, top, side): (f64, f64, f64),
) {
    let c = look.theme.palette();
    let n = f64::from(geometry.size - 1);
    let scale = side / (n + 2.0 * PAD);
    let at = |x: u8, y: u8| {
        let (x, y) = (f64::from(x), f64::from(y));
        if look.flipped { (n - x, y) } else { (x, n - y) }
    };
    let named: HashMap<&str, (f64, f64)> = geometry
        .points
        .iter()
        .map(|p| (p.name.as_str(), at(p.x, p.y)))
        .collect();
    let _ = write!(
        out,
        "<g transform=\"translate({} {}) scale({scale})\">\
         <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"0.3\" fill=\"{}\"/>\
         <g stroke=\"{}\" stroke-width=\"0.06\" stroke-linecap=\"round\">",
        left + PAD * scale,
        top + PAD * scale,
        -PAD,
        -PAD,
        n + 2.0 * PAD,
        n + 2.0 * PAD,
        c.wood,
        c.line,
    );
    for line in &geometry.lines {
        let ends = line.first().zip(line.last());
        let Some(((x1, y1), (x2, y2))) =
            ends.and_then(|(a, b)| Some((*named.get(a.as_str())?, *named.get(b.as_str())?)))
        else {
            continue;
        };
        let _ = write!(
            out,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/>"
        );
    }
    let _ = write!(
        out,
        "</g><g font-family=\"{FONT_FAMILY}\" font-size=\"0.28\" fill=\"{}\" \
         text-anchor=\"middle\" dominant-baseline=\"central\">",
        c.line
    );
    for i in 0..geometry.size {
        let f = f64::from(i);
        let (x, y) = if look.flipped { (n - f, f) } else { (f, n - f) };
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{y}\">{}</text>",
            n + PAD * 0.8,
            char::from(b'a' + i),
            -PAD * 0.8,
            i + 1
        );
    }
    out.push_str("</g>");
    for p in &geometry.points {
        let (x, y) = named[p.name.as_str()];
        let last = view.last.contains(&p.name);
        let _ = write!(out, "<g transform=\"translate({x} {y})\">");
        let spot = if last && view.at_point(&p.name).is_none() {
            c.gold
        } else {
            c.line
        };
        let _ = write!(out, "<circle r=\"0.11\" fill=\"{spot}\"/>");
        if view.mills.contains(&p.name) {
            let _ = write!(
                out,
                "<circle r=\"0.42\" fill=\"none\" stroke=\"{}\" stroke-width=\"0.1\"/>",
                c.mill
            );
        }
        if let Some(who) = view.at_point(&p.name) {
            let (fill, edge) = match who {
                "white" => (c.white_man, c.white_edge),
                _ => (c.black_man, c.black_edge),
            };
            let (edge, width) = if last { (c.gold, 0.09) } else { (edge, 0.05) };
            let _ = write!(
                out,
                "<circle r=\"0.3\" fill=\"{fill}\" stroke=\"{edge}\" stroke-width=\"{width}\"/>"
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</g>");
}

/// The opening of an SVG of `width` x `height` pixels on the page's colour.
fn svg_open(width: u32, height: u32, c: &Palette) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\"><rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>",
        c.paper
    )
}

/// A position as an SVG of `side` pixels square.
pub fn position_svg(geometry: &Geometry, view: &View, look: Look, side: u32) -> String {
    let mut svg = svg_open(side, side, &look.theme.palette());
    board_group(&mut svg, geometry, view, look, (0.0, 0.0, f64::from(side)));
    svg.push_str("</svg>");
    svg
}

/// The parsing options: the bundled font only, loaded once.
fn options() -> &'static usvg::Options<'static> {
    static OPTIONS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let mut fonts = usvg::fontdb::Database::new();
        fonts.load_font_data(FONT.to_vec());
        usvg::Options {
            font_family: FONT_FAMILY.to_string(),
            fontdb: Arc::new(fonts),
            ..usvg::Options::default()
        }
    })
}

/// Renders an SVG made here to pixels, at its own size.
fn pixels(svg: &str) -> Result<tiny_skia::Pixmap, PictureError> {
    let tree = usvg::Tree::from_str(svg, options())?;
    let size = tree.size().to_int_size();
    let (w, h) = (size.width(), size.height());
    let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or(PictureError::Size(w, h))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap)
}

fn png(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, PictureError> {
    pixmap
        .encode_png()
        .map_err(|e| PictureError::Png(e.to_string()))
}

/// A position as a PNG of [`POSITION_SIZE`] pixels square.
pub fn position_png(geometry: &Geometry, view: &View, look: Look) -> Result<Vec<u8>, PictureError> {
    png(&pixels(&position_svg(geometry, view, look, POSITION_SIZE))?)
}

/// Cuts `text` into lines of at most about `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Lines of text at `x` from `y` down, `size` pixels high, wrapped to `chars` a line; returns
/// where the next line would go.
fn text_block(
    out: &mut String,
    text: &str,
    (x, y): (f64, f64),
    size: f64,
    chars: usize,
    attrs: &str,
) -> f64 {
    let mut y = y;
    for line in wrap(text, chars) {
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\" {attrs}>{}</text>",
            escape(&line)
        );
        y += size * 1.25;
    }
    y
}

/// A link preview of [`PREVIEW_SIZE`]: the board on the left, and on the right `heading` (the
/// game's name) above `text` (the invitation, or the result and how), with `footer` under them.
pub fn preview_png(
    geometry: &Geometry,
    view: &View,
    look: Look,
    heading: &str,
    text: &str,
    footer: &str,
) -> Result<Vec<u8>, PictureError> {
    let (w, h) = PREVIEW_SIZE;
    let c = look.theme.palette();
    let mut svg = svg_open(w, h, &c);
    let margin = 35.0;
    let side = f64::from(h) - 2.0 * margin;
    board_group(&mut svg, geometry, view, look, (margin, margin, side));
    let x = side + 2.0 * margin + 10.0;
    let _ = write!(svg, "<g font-family=\"{FONT_FAMILY}\">");
    let attrs = format!("fill=\"{}\"", c.muted);
    let y = text_block(&mut svg, "merels", (x, 80.0), 30.0, 30, &attrs);
    let attrs = format!("fill=\"{}\" font-weight=\"bold\"", c.ink);
    let y = text_block(&mut svg, heading, (x, y + 40.0), 46.0, 19, &attrs);
    let attrs = format!("fill=\"{}\"", c.ink);
    text_block(&mut svg, text, (x, y + 20.0), 34.0, 27, &attrs);
    let attrs = format!("fill=\"{}\"", c.muted);
    text_block(&mut svg, footer, (x, f64::from(h) - 60.0), 26.0, 42, &attrs);
    svg.push_str("</g></svg>");
    png(&pixels(&svg)?)
}

#[cfg(test)]
mod tests {
    use super::animation::{GIF_CAPTION, GIF_LAST_DELAY};
    use super::*;
    use crate::catalog::Catalog;
    use crate::protocol::{SeatView, Snapshot, Status};
    use crate::rules::Game;
    use std::collections::BTreeMap;

    /// White's d7 closes a7-d7-g7 and removes a1.
    const TURNS: [&str; 11] = [
        "c4", "f4", "f2", "b4", "d6", "f6", "a7", "a1", "g7", "c5", "d7xa1",
    ];

    fn nine(turns: &[&str]) -> (GameState, Geometry) {
        let variant = Catalog::builtin()
            .configure("nine-mens-morris", &BTreeMap::new())
            .unwrap();
        let game = Game::replay(variant.clone(), None, turns).unwrap();
        let now = Snapshot::new(1, &game, Status::Playing, Sides::<SeatView>::default(), 0);
        (
            GameState::new("abc", &game, now),
            Geometry::of(variant.board()),
        )
    }

    fn set(points: &[&str]) -> HashSet<String> {
        points.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_view_marks_the_turn_and_mill_as_the_server_sees_them() {
        let (state, geometry) = nine(&TURNS);
        let end = View::at(&state, &geometry, TURNS.len()).unwrap();
        assert_eq!(end.mover, Some("white"));
        // The snapshot's own last turn and fresh mills, found from the rules.
        let last = state.now.last_turn.as_ref().unwrap();
        assert_eq!(end.last, set(&[last.to.as_str()]));
        let mills: HashSet<String> = state
            .now
            .fresh_mills
            .iter()
            .flatten()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(end.mills, mills);
        assert_eq!(end.mills, set(&["a7", "d7", "g7"]));
        assert!(!end.men.black.iter().any(|p| p == "a1"));

        let second = View::at(&state, &geometry, 2).unwrap();
        assert_eq!(
            (second.mover, second.last.clone()),
            (Some("black"), set(&["f4"]))
        );
        assert!(second.mills.is_empty());
        let start = View::at(&state, &geometry, 0).unwrap();
        assert!(start.last.is_empty() && start.men.white.is_empty() && start.mover.is_none());
        assert!(View::at(&state, &geometry, TURNS.len() + 1).is_none());
    }

    /// The colour of the pixel at the centre of `point` in a decoded PNG.
    fn colour_at(png_bytes: &[u8], geometry: &Geometry, point: &str, flipped: bool) -> [u8; 3] {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (POSITION_SIZE, POSITION_SIZE));
        let p = geometry.points.iter().find(|p| p.name == point).unwrap();
        let (x, y) = point_pixel(geometry, p.x, p.y, flipped, POSITION_SIZE);
        let at = (y as usize * info.width as usize + x as usize) * info.color_type.samples();
        [buf[at], buf[at + 1], buf[at + 2]]
    }

    fn hex(c: &str) -> [u8; 3] {
        let v = u32::from_str_radix(&c[1..], 16).unwrap();
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    }

    #[test]
    fn a_position_png_shows_each_man_in_its_colour() {
        let (state, geometry) = nine(&TURNS);
        let view = View::at(&state, &geometry, TURNS.len()).unwrap();
        for flipped in [false, true] {
            for theme in [Theme::Light, Theme::Dark] {
                let look = Look { flipped, theme };
                let png = position_png(&geometry, &view, look).unwrap();
                let c = theme.palette();
                assert_eq!(colour_at(&png, &geometry, "c4", flipped), hex(c.white_man));
                assert_eq!(colour_at(&png, &geometry, "f4", flipped), hex(c.black_man));
                // a1 lost its man; an empty point shows its spot.
                assert_eq!(colour_at(&png, &geometry, "a1", flipped), hex(c.line));
                assert_eq!(colour_at(&png, &geometry, "d1", flipped), hex(c.line));
            }
        }
    }

    #[test]
    fn a_gif_has_a_frame_per_turn_and_the_start() {
        let (state, geometry) = nine(&TURNS);
        let bytes = game_gif(&state, &geometry, Look::default()).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(std::io::Cursor::new(&bytes)).unwrap();
        assert_eq!(
            (decoder.width(), decoder.height()),
            (GIF_BOARD as u16, (GIF_BOARD + GIF_CAPTION) as u16)
        );
        let mut delays = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            delays.push(frame.delay);
        }
        assert_eq!(delays.len(), TURNS.len() + 1);
        assert_eq!(delays.last(), Some(&GIF_LAST_DELAY));
    }

    #[test]
    fn text_wraps_at_spaces() {
        assert_eq!(
            wrap("White invites you to play", 12),
            ["White", "invites you", "to play"]
        );
    }
}
