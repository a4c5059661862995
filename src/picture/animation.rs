//! A whole game as an animated GIF: a frame for the start and one for each turn, drawn as the
//! position pictures are ([`super`]), then encoded in one palette with only what changed in
//! each frame after the first.

use super::{FONT_FAMILY, Look, PictureError, View, board_group, escape, pixels, svg_open};
use crate::catalog::Geometry;
use crate::protocol::GameState;
use resvg::tiny_skia;
use std::collections::HashMap;
use std::fmt::Write;

/// The side of the board in a GIF's frames, in pixels.
pub const GIF_BOARD: u32 = 360;
/// The strip under the board in a GIF's frames, with the turn or the result.
pub(super) const GIF_CAPTION: u32 = 40;
/// How long a GIF shows each turn, in hundredths of a second, and its last frame.
const GIF_DELAY: u16 = 80;
pub(super) const GIF_LAST_DELAY: u16 = 400;

/// One frame of a game's GIF: the board, and under it `caption`.
fn frame_svg(geometry: &Geometry, view: &View, look: Look, caption: &str) -> String {
    let c = look.theme.palette();
    let mut svg = svg_open(GIF_BOARD, GIF_BOARD + GIF_CAPTION, &c);
    board_group(
        &mut svg,
        geometry,
        view,
        look,
        (0.0, 0.0, f64::from(GIF_BOARD)),
    );
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" font-family=\"{FONT_FAMILY}\" font-size=\"20\" fill=\"{}\" \
         text-anchor=\"middle\">{}</text></svg>",
        GIF_BOARD / 2,
        GIF_BOARD + GIF_CAPTION / 2 + 6,
        c.ink,
        escape(caption)
    );
    svg
}

/// What a frame's strip says: the start, each turn by number and side, and on the last frame
/// of a finished game its result.
fn caption(state: &GameState, view: &View, ply: usize, result: Option<&str>) -> String {
    let turn = match (ply, view.mover) {
        (0, _) => "Start".to_string(),
        (p, mover) => {
            let side = mover.map_or("", |m| if m == "white" { " White" } else { " Black" });
            let notation = state.turns.get(p - 1).map_or("", |t| t.as_str());
            format!("{p}.{side} {notation}")
        }
    };
    match result {
        Some(result) => format!("{turn} · {result}"),
        None => turn,
    }
}

/// The colours of a GIF: the commonest of its sampled frames, at most 256.
struct Colours {
    rgb: Vec<[u8; 3]>,
    index: HashMap<[u8; 3], u8>,
}

impl Colours {
    /// The palette of the pixels of `samples`.
    fn of(samples: &[&tiny_skia::Pixmap]) -> Colours {
        let mut count: HashMap<[u8; 3], u32> = HashMap::new();
        for pixmap in samples {
            for px in pixmap.data().chunks_exact(4) {
                *count.entry([px[0], px[1], px[2]]).or_default() += 1;
            }
        }
        let mut common: Vec<([u8; 3], u32)> = count.into_iter().collect();
        common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        common.truncate(256);
        let rgb: Vec<[u8; 3]> = common.into_iter().map(|(c, _)| c).collect();
        let index = rgb.iter().zip(0..=255u8).map(|(c, i)| (*c, i)).collect();
        Colours { rgb, index }
    }

    /// The palette's nearest colour to `c`, remembered.
    fn nearest(&mut self, c: [u8; 3]) -> u8 {
        if let Some(&i) = self.index.get(&c) {
            return i;
        }
        let distance = |p: &[u8; 3]| -> i32 {
            (0..3)
                .map(|k| (i32::from(p[k]) - i32::from(c[k])).pow(2))
                .sum()
        };
        let best = (0..=255u8)
            .zip(&self.rgb)
            .min_by_key(|(_, p)| distance(p))
            .map_or(0, |(i, _)| i);
        self.index.insert(c, best);
        best
    }

    /// The palette as the encoder takes it, padded to a power of two.
    fn flat(&self) -> Vec<u8> {
        let mut flat: Vec<u8> = self.rgb.iter().flatten().copied().collect();
        let len = self.rgb.len().max(2).next_power_of_two();
        flat.resize(len * 3, 0);
        flat
    }
}

/// The smallest rectangle (left, top, width, height) where `a` and `b` differ, if they do.
fn changed(a: &tiny_skia::Pixmap, b: &tiny_skia::Pixmap) -> Option<(u32, u32, u32, u32)> {
    let w = a.width() as usize;
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    let rows = a
        .data()
        .chunks_exact(w * 4)
        .zip(b.data().chunks_exact(w * 4));
    for (y, (ra, rb)) in rows.enumerate() {
        if ra == rb {
            continue;
        }
        let pixels = ra.chunks_exact(4).zip(rb.chunks_exact(4));
        for (x, _) in pixels.enumerate().filter(|(_, (pa, pb))| pa != pb) {
            x0 = x0.min(x);
            x1 = x1.max(x);
        }
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let px = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    (x0 != usize::MAX).then(|| (px(x0), px(y0), px(x1 - x0 + 1), px(y1 - y0 + 1)))
}

/// The whole of `state` as an animated GIF: a frame for the start and one for each turn, the
/// turn marked and named under the board, the last frame held longer and, for a finished game,
/// with the result written on it. After the first, a frame holds only the rectangle that
/// changed, in one palette for the whole game, so a long game stays small.
pub fn game_gif(
    state: &GameState,
    geometry: &Geometry,
    look: Look,
) -> Result<Vec<u8>, PictureError> {
    let plies = state.boards.len().saturating_sub(1);
    let result = state
        .now
        .summary
        .as_deref()
        .filter(|_| state.now.status == crate::protocol::Status::Finished);
    let mut frames = Vec::with_capacity(plies + 1);
    for ply in 0..=plies {
        let view = View::at(state, geometry, ply).unwrap_or_default();
        let words = caption(state, &view, ply, result.filter(|_| ply == plies));
        frames.push(pixels(&frame_svg(geometry, &view, look, &words))?);
    }
    let samples: Vec<&tiny_skia::Pixmap> = [0, plies / 2, plies]
        .iter()
        .filter_map(|&i| frames.get(i))
        .collect();
    let mut colours = Colours::of(&samples);
    let (w, h) = (GIF_BOARD, GIF_BOARD + GIF_CAPTION);
    let to_u16 = |v: u32| u16::try_from(v).unwrap_or(u16::MAX);
    let mut out = Vec::new();
    {
        let flat = colours.flat();
        let mut encoder = gif::Encoder::new(&mut out, to_u16(w), to_u16(h), &flat)?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        for (i, frame) in frames.iter().enumerate() {
            let (left, top, fw, fh) = match i.checked_sub(1).map(|p| &frames[p]) {
                None => (0, 0, w, h),
                // An unchanged frame still shows, as a pixel drawn again.
                Some(previous) => changed(previous, frame).unwrap_or((0, 0, 1, 1)),
            };
            let mut buffer = Vec::with_capacity((fw * fh) as usize);
            for y in top..top + fh {
                let row = (y * w + left) as usize * 4;
                for px in frame.data()[row..row + fw as usize * 4].chunks_exact(4) {
                    buffer.push(colours.nearest([px[0], px[1], px[2]]));
                }
            }
            let delay = if i == plies {
                GIF_LAST_DELAY
            } else {
                GIF_DELAY
            };
            encoder.write_frame(&gif::Frame {
                left: to_u16(left),
                top: to_u16(top),
                width: to_u16(fw),
                height: to_u16(fh),
                delay,
                dispose: gif::DisposalMethod::Keep,
                buffer: buffer.into(),
                ..gif::Frame::default()
            })?;
        }
    }
    Ok(out)
}
