//! The variant pages, `/variants/{slug}`: each variant file's Markdown rules page, its board drawn
//! as SVG from the engine's own geometry, and a "Rule changes" table against Nine Men's Morris
//! derived from the rule knobs (never typed), with the table setup to start a game.

use super::AppState;
use super::base_url;
use super::html::{Message, Preview, board_svg, escape, layout_with, render, setup_form};
use super::lang::Reader;
use crate::catalog::{Catalog, VariantInfo};
use crate::i18n::Lang;
use crate::rules::board::points;
use crate::rules::{Board, MillEffect, Movement, Variant};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::collections::BTreeMap;

/// The variant the "Rule changes" tables compare against.
pub const STANDARD: &str = "nine-mens-morris";

fn number(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "None", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
        "Eleven", "Twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

fn describe_board(board: &Board) -> String {
    let spec = board.spec();
    let squares = match spec.rings {
        1 => "a square".to_string(),
        r => format!("{} nested squares", number(usize::from(r)).to_lowercase()),
    };
    let mut text = format!("{} points on {squares}", board.len());
    let mut joins = Vec::new();
    if spec.midpoints && spec.rings > 1 {
        joins.push("joined at the midpoints of their sides");
    }
    if spec.diagonals && spec.rings > 1 {
        joins.push("with diagonals joining the corners");
    }
    if spec.centre {
        joins.push(if spec.diagonals {
            "with a centre point on the middle row, column and diagonals"
        } else {
            "with a centre point on the middle row and column"
        });
    }
    if !joins.is_empty() {
        text.push_str(", ");
        text.push_str(&joins.join(", "));
    }
    text.push('.');
    text
}

fn describe_mills(board: &Board) -> String {
    let spec = board.spec();
    let last = board.size() - 1;
    let (mut sides, mut straight, mut diagonal) = (0, 0, 0);
    // Which square a point lies on: its distance from the edge of the grid (the centre point's
    // is past every square's).
    let ring = |(x, y): (u8, u8)| x.min(y).min(last - x).min(last - y);
    for &mill in board.mills() {
        let coords: Vec<(u8, u8)> = points(mill).map(|p| board.coord(p)).collect();
        let same_x = coords.iter().all(|c| c.0 == coords[0].0);
        let same_y = coords.iter().all(|c| c.1 == coords[0].1);
        if coords.iter().all(|&c| ring(c) == ring(coords[0])) {
            sides += 1;
        } else if same_x || same_y {
            straight += 1;
        } else {
            diagonal += 1;
        }
    }
    let mut parts = vec![format!(
        "{sides} along the sides of the square{}",
        if spec.rings > 1 { "s" } else { "" }
    )];
    if straight > 0 {
        parts.push(format!(
            "{straight} along the lines through the midpoints{}",
            if spec.centre { " and the centre" } else { "" }
        ));
    }
    if diagonal > 0 {
        parts.push(format!("{diagonal} along the diagonals"));
    }
    let mut text = format!(
        "{} possible mills: {}.",
        board.mills().len(),
        parts.join(", ")
    );
    if spec.midpoints && !spec.centre && spec.rings == 2 {
        text.push_str(" The lines that join the squares have only two points.");
    }
    text
}

fn describe_movement(variant: &Variant, has_option: bool) -> String {
    let rules = variant.rules();
    if rules.movement == Movement::Anywhere {
        return "After placing, a man moves to any empty point.".into();
    }
    let mut text = String::new();
    if rules.place_or_slide {
        text.push_str("Every turn places a man or slides one, from the first turn on. ");
    }
    if rules.flying {
        text.push_str(if rules.place_or_slide {
            "A player whose men on the board and in hand number three may move a man to any \
             empty point."
        } else {
            "A player with three men left may move a man to any empty point."
        });
        if has_option {
            text.push_str(" It is on by default and can be switched off in the table setup.");
        }
    } else {
        text.push_str("Never. Men always slide to a neighbouring point.");
    }
    text
}

fn describe_win(variant: &Variant) -> String {
    let rules = variant.rules();
    if rules.mill == MillEffect::Win {
        return "Make a row of three. Nothing is ever removed; only threefold repetition draws."
            .into();
    }
    let mut text =
        "Reduce the opponent to two men, or leave them without a legal move.".to_string();
    if rules.full_board_draw {
        text.push_str(" A board filled while placing is a draw.");
    }
    if rules.no_move_back_into_mill {
        text.push_str(" A man may not move straight back to re-form the mill it just opened.");
    }
    if let Some(n) = rules.three_against_three_draw {
        text.push_str(&format!(
            " With three men each, {n} plies (turns of either player) without a removal are a draw."
        ));
    }
    text
}

/// Words for one aspect of a variant; the flag says whether flying is a table option.
type Describe = fn(&Variant, bool) -> String;

/// One row of a "Rule changes" table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRow {
    /// What the row compares.
    pub aspect: &'static str,
    /// Nine Men's Morris.
    pub standard: String,
    /// This variant, or "The same." where it does not differ.
    pub this: String,
}

/// How `info` (with default options) differs from the standard, row by row, in words derived
/// from the rule knobs and the generated boards.
pub fn rule_changes(standard: &VariantInfo, info: &VariantInfo) -> Vec<RuleRow> {
    let base = standard.spec.configure(&BTreeMap::new());
    let this = info.spec.configure(&BTreeMap::new());
    let (Ok(base), Ok(this)) = (base, this) else {
        return Vec::new();
    };
    let flying_option = |i: &VariantInfo| i.spec.options.iter().any(|o| o.key == "flying");
    let rows: [(&'static str, Describe); 5] = [
        ("Board", |v, _| describe_board(v.board())),
        ("Men per player", |v, _| {
            format!("{}.", number(usize::from(v.rules().men)))
        }),
        ("Where a mill can be made", |v, _| describe_mills(v.board())),
        ("Moving and flying", describe_movement),
        ("How to win", |v, _| describe_win(v)),
    ];
    rows.into_iter()
        .map(|(aspect, describe)| {
            let s = describe(&base, flying_option(standard));
            let t = describe(&this, flying_option(info));
            RuleRow {
                aspect,
                this: if s == t { "The same.".into() } else { t },
                standard: s,
            }
        })
        .collect()
}

/// Renders a variant file's Markdown, with `{{svg:SLUG-board.svg "Caption"}}` directives
/// replaced by that variant's board diagram.
pub fn render_markdown(markdown: &str, catalog: &Catalog) -> String {
    let mut source = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        match diagram(line.trim(), catalog) {
            Some(html) => {
                source.push('\n');
                source.push_str(&html);
                source.push_str("\n\n");
            }
            None => {
                source.push_str(line);
                source.push('\n');
            }
        }
    }
    let parser = pulldown_cmark::Parser::new_ext(&source, pulldown_cmark::Options::ENABLE_TABLES);
    let mut html = String::with_capacity(source.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, parser);
    html
}

/// The figure for a `{{svg:...}}` line, if the line is one.
fn diagram(line: &str, catalog: &Catalog) -> Option<String> {
    let inner = line.strip_prefix("{{svg:")?.strip_suffix("}}")?;
    let (file, caption) = match inner.split_once(' ') {
        Some((f, c)) => (f, c.trim().trim_matches('"')),
        None => (inner, ""),
    };
    let slug = file.strip_suffix("-board.svg")?;
    let figure = match catalog.configure(slug, &BTreeMap::new()) {
        Ok(v) => board_svg(v.board(), if caption.is_empty() { slug } else { caption }),
        Err(_) => format!("<p class=\"missing\">No board named {}.</p>", escape(file)),
    };
    Some(format!(
        "<figure class=\"board-figure\">{figure}<figcaption>{}</figcaption></figure>",
        escape(caption)
    ))
}

/// `GET /variants/{slug}`, with a link preview of the variant's board.
pub async fn page(
    State(app): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    reader: Reader,
) -> Response {
    let lang = reader.lang;
    let catalog = app.rooms.catalog();
    let Ok(info) = catalog.get(&slug) else {
        let back = lang.t("all-games");
        let message = Message {
            heading: &lang.t("no-such-variant"),
            message: &lang.t("no-such-variant-why"),
            back: ("/".into(), &back),
        };
        return message.page(&reader, StatusCode::NOT_FOUND);
    };
    let url = format!(
        "{}/variants/{}",
        base_url(&app.config, &headers),
        info.slug()
    );
    let size = crate::picture::POSITION_SIZE;
    let preview = Preview {
        image: format!("{url}/image.png"),
        image_alt: lang.t1("board-of", "variant", info.title.as_str()),
        size: (size, size),
        description: info.summary.clone(),
        url,
    };
    render_page(&reader, catalog, info, &preview)
}

/// A variant's page (`static/variant.html`).
#[derive(askama::Template)]
#[template(path = "variant.html")]
struct VariantPage<'a> {
    lang: Lang,
    family: String,
    title: &'a str,
    summary: &'a str,
    /// Markup: the rules page's body.
    body: String,
    /// How the variant differs from the standard game; none on the standard game's own page.
    changes: Vec<RuleRow>,
    /// Markup: the setup form.
    form: String,
}

fn render_page(
    reader: &Reader,
    catalog: &Catalog,
    info: &VariantInfo,
    preview: &Preview,
) -> Response {
    let lang = reader.lang;
    // The page already has the title as its heading; a body that repeats it drops the repeat.
    let repeat = format!("## {}", info.title);
    let body = info.body.trim_start();
    let body = body.strip_prefix(repeat.as_str()).unwrap_or(body);
    let changes = match catalog.get(STANDARD) {
        Ok(standard) if standard.slug() != info.slug() => rule_changes(standard, info),
        _ => Vec::new(),
    };
    let main = render(&VariantPage {
        lang,
        family: family_name(catalog, info),
        title: &info.title,
        summary: &info.summary,
        body: render_markdown(body, catalog),
        changes,
        form: setup_form(lang, info),
    });
    let title = lang.t1("title-page", "page", info.title.as_str());
    layout_with(reader, &title, &main, None, Some(preview))
}

fn family_name(catalog: &Catalog, info: &VariantInfo) -> String {
    match info.parent.as_str() {
        "morris" => catalog
            .get(STANDARD)
            .map(|s| s.title.clone())
            .unwrap_or_else(|_| "Morris".into()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_changes_follow_the_knobs() {
        let catalog = Catalog::builtin();
        let nine = catalog.get(STANDARD).unwrap();
        let six = catalog.get("six-mens-morris").unwrap();
        let rows = rule_changes(nine, six);
        let row = |a: &str| rows.iter().find(|r| r.aspect == a).unwrap().this.clone();
        assert_eq!(row("Men per player"), "Six.");
        assert!(row("Board").starts_with("16 points on two nested squares"));
        assert!(row("Where a mill can be made").starts_with("8 possible mills"));
        assert!(row("Moving and flying").starts_with("Never."));
        assert_eq!(row("How to win"), "The same.");
        assert_eq!(
            rows.iter().find(|r| r.aspect == "Board").unwrap().standard,
            "24 points on three nested squares, joined at the midpoints of their sides."
        );
        assert!(
            rows[2]
                .standard
                .starts_with("16 possible mills: 12 along the sides")
        );

        // Change a knob in the data, and the table changes with it.
        let mut changed = six.clone();
        changed.spec.rules.men = 11;
        changed.spec.rules.board.rings = 3;
        changed.spec.rules.board.diagonals = true;
        let rows = rule_changes(nine, &changed);
        let row = |a: &str| rows.iter().find(|r| r.aspect == a).unwrap().this.clone();
        assert_eq!(row("Men per player"), "Eleven.");
        assert_eq!(
            row("Board"),
            "24 points on three nested squares, joined at the midpoints of their sides, \
             with diagonals joining the corners."
        );
        assert!(row("Where a mill can be made").contains("along the diagonals"));

        let mut flying = changed.clone();
        flying.spec.rules.flying = true;
        let rows = rule_changes(nine, &flying);
        assert!(
            rows[3].this.starts_with("A player with three men left"),
            "{}",
            rows[3].this
        );
    }

    #[test]
    fn every_board_is_described_and_drawn() {
        let catalog = Catalog::builtin();
        let nine = catalog.get(STANDARD).unwrap();
        for info in catalog.variants() {
            let v = info.spec.configure(&BTreeMap::new()).unwrap();
            let svg = board_svg(v.board(), &info.title);
            assert_eq!(svg.matches("<circle").count(), v.board().len());
            assert_eq!(svg.matches("<line").count(), v.board().lines().len());
            let rows = rule_changes(nine, info);
            assert_eq!(rows.len(), 5);
            let mills = &rows[2];
            let text = if mills.this == "The same." {
                &mills.standard
            } else {
                &mills.this
            };
            assert!(text.starts_with(&format!("{} possible mills", v.board().mills().len())));
        }
    }

    #[test]
    fn the_seed_directive_renders_a_board() {
        let catalog = Catalog::builtin();
        let html = render_markdown(
            "## Title\n\n{{svg:three-mens-morris-board.svg \"Three Men's Morris — board layout\"}}\n\ntext",
            catalog,
        );
        assert!(html.contains("<figure class=\"board-figure\"><svg"));
        assert!(html.contains("<figcaption>Three Men&#39;s Morris — board layout</figcaption>"));
        assert_eq!(html.matches("<circle").count(), 9);
        assert!(html.contains("<h2>Title</h2>") && html.contains("<p>text</p>"));
        let missing = render_markdown("{{svg:nowhere-board.svg \"x\"}}", catalog);
        assert!(missing.contains("No board named"));
    }
}
