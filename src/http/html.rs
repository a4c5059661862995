//! The HTML that every page shares: the frame around a page (`static/layout.html`), rendering a
//! template, the short message page, and the markup still made in code, escaped here: the
//! table-setup form (with the ways to start a game and how its fields are read) and the static
//! board diagram. Pages (`pages`, `variants`) build on these and on nothing of each other's. The
//! pages' templates (askama, escaping by default) live in `static/` beside the scripts that use
//! their ids; the server renders them and does not serve them.

use super::lang::Reader;
use crate::catalog::VariantInfo;
use crate::i18n::Lang;
use crate::rules::Board;
use crate::rules::board::points;
use axum::http::StatusCode;
use axum::http::header::{CONTENT_LANGUAGE, VARY};
use axum::response::{Html, IntoResponse, Response};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The frame every page shares (`static/layout.html`).
#[derive(askama::Template)]
#[template(path = "layout.html")]
struct Layout<'a> {
    lang: crate::i18n::Lang,
    reader: &'a Reader,
    languages: &'static [crate::i18n::Language],
    title: &'a str,
    /// The page's own markup, rendered by its template.
    main: &'a str,
    script: Option<&'a str>,
    version: &'static str,
    commit: &'static str,
    preview: Option<&'a Preview>,
}

/// A page's link preview: what chat apps and forums show of a pasted link (`og:` and
/// `twitter:` tags). Pages without one show the site's.
#[derive(Debug, Clone)]
pub struct Preview {
    /// The page's address, absolute.
    pub url: String,
    /// The sentence under the title.
    pub description: String,
    /// The picture's address, absolute.
    pub image: String,
    /// The picture's width and height in pixels.
    pub size: (u32, u32),
    /// The picture in words.
    pub image_alt: String,
}

/// `main` (a page's markup) in the frame every page shares, in `reader`'s language, with
/// `script` (a module in `static/`) if the page has one.
pub fn layout(reader: &Reader, title: &str, main: &str, script: Option<&str>) -> Response {
    layout_with(reader, title, main, script, None)
}

/// [`layout`], with the page's own link preview.
pub fn layout_with(
    reader: &Reader,
    title: &str,
    main: &str,
    script: Option<&str>,
    preview: Option<&Preview>,
) -> Response {
    let page = Html(render(&Layout {
        lang: reader.lang,
        reader,
        languages: crate::i18n::languages(),
        title,
        main,
        script,
        version: env!("CARGO_PKG_VERSION"),
        commit: env!("MERELS_COMMIT"),
        preview,
    }));
    // The same address reads in the language its cookie or header asks for: a cache keys on both.
    let headers = [
        (VARY, "Accept-Language, Cookie"),
        (CONTENT_LANGUAGE, reader.lang.code()),
    ];
    (headers, page).into_response()
}

/// A template's markup. Rendering fails only when a value's `Display` does, which none of the
/// pages' values can; should one, the page says so rather than show half of itself.
pub fn render(template: &impl askama::Template) -> String {
    template.render().unwrap_or_else(|e| {
        tracing::error!(error = %e, "a page could not be rendered");
        "<main class=\"prose\"><h1>This page could not be made</h1></main>".to_string()
    })
}

/// JSON for a page's script, in a `<script type="application/json">` element: `</` escaped, the
/// only text that could end the element early.
pub fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace("</", "<\\/")
}

/// A short page: a heading, a sentence, and maybe a link to go on from
/// (`static/message.html`).
#[derive(askama::Template)]
#[template(path = "message.html")]
pub struct Message<'a> {
    /// The heading.
    pub heading: &'a str,
    /// The sentence.
    pub message: &'a str,
    /// Where to go on to: the link's address and its words.
    pub back: (String, &'a str),
}

impl Message<'_> {
    /// The page, titled after its heading, with `status`, in `reader`'s language.
    pub fn page(&self, reader: &Reader, status: StatusCode) -> Response {
        let title = format!("{} · merels", self.heading);
        (status, layout(reader, &title, &render(self), None)).into_response()
    }
}

/// A game's table options in words, as the setup form names them (`Flying: Yes · Diagonals:
/// No`), every option of the variant with its default where none was chosen; empty for a
/// variant without options. Text, not markup: the templates escape it.
pub fn options_in_words(info: &VariantInfo, chosen: &BTreeMap<String, String>) -> String {
    info.spec
        .options
        .iter()
        .map(|o| {
            let value = chosen.get(&o.key).unwrap_or(&o.default);
            let label = o
                .values
                .iter()
                .find(|v| &v.value == value)
                .map_or(value.as_str(), |v| v.label.as_str());
            format!("{}: {label}", o.label)
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A QR code of `text` as an inline SVG (no XML declaration), `label` for screen readers; dark
/// on white whatever the page's colours, as scanners want.
pub fn qr_svg(text: &str, label: &str) -> String {
    let Ok(code) = qrcode::QrCode::new(text.as_bytes()) else {
        return String::new();
    };
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(180, 180)
        .build();
    let svg = svg.find("<svg").map_or(svg.as_str(), |at| &svg[at..]);
    svg.replacen(
        "<svg ",
        &format!("<svg role=\"img\" aria-label=\"{}\" ", escape(label)),
        1,
    )
}

/// Whom a new game is against: what a setup form's buttons send as `opponent`, and their words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A friend, who gets the link.
    Friend,
    /// Anyone: the game is listed under the home page's open challenges.
    Open,
    /// The computer, at the form's `level`.
    Computer,
}

impl Start {
    /// Every way to start, in the order the forms offer them (the first is the main button).
    pub const ALL: [Start; 3] = [Start::Friend, Start::Open, Start::Computer];

    /// The form value (`opponent=...`).
    pub fn value(self) -> &'static str {
        match self {
            Start::Friend => "friend",
            Start::Open => "open",
            Start::Computer => "computer",
        }
    }

    /// The start a form value names, if any does.
    pub fn from_value(value: &str) -> Option<Start> {
        Start::ALL.into_iter().find(|s| s.value() == value)
    }

    /// The button's words, in `lang`.
    pub fn words(self, lang: Lang) -> String {
        lang.t(match self {
            Start::Friend => "start-friend",
            Start::Open => "start-open",
            Start::Computer => "start-computer",
        })
    }

    /// Whether the computer takes the other seat (the form then sends a level).
    pub fn is_computer(self) -> bool {
        self == Start::Computer
    }

    /// Whether this is the forms' main button.
    pub fn is_first(self) -> bool {
        self == Start::ALL[0]
    }
}

/// The computer's level a form offers first: strong enough to play a game, weak enough to lose.
pub const DEFAULT_LEVEL: u8 = 3;

/// What every table setup offers after the variant's own options (`play` in
/// `static/setup-parts.html`): the time controls, the computer's levels and the ways to start.
pub struct Play {
    pub(super) lang: Lang,
    pub(super) presets: &'static [crate::clock::TimeControl],
    pub(super) levels: Vec<crate::engine::Level>,
    pub(super) default_level: u8,
    pub(super) starts: [Start; 3],
}

impl Play {
    /// The one set of choices every setup form offers, in `lang`.
    pub fn new(lang: Lang) -> Play {
        Play {
            lang,
            presets: &crate::clock::PRESETS,
            levels: crate::engine::Level::all().collect(),
            default_level: DEFAULT_LEVEL,
            starts: Start::ALL,
        }
    }

    /// A time control in the form's language.
    pub fn clock(&self, control: &crate::clock::TimeControl) -> String {
        clock_words(self.lang, *control)
    }

    /// A computer's level in the form's language: `3 (club)`.
    pub fn level(&self, level: &crate::engine::Level) -> String {
        level_words(self.lang, *level)
    }
}

/// A time control in `lang`: `Untimed`, or its minutes and seconds (`5 min + 3 s`, the units'
/// symbols, which the languages here share).
pub fn clock_words(lang: Lang, control: crate::clock::TimeControl) -> String {
    if control.is_timed() {
        control.words()
    } else {
        lang.t("clock-untimed")
    }
}

/// A computer's level in `lang`, its number and its name: `3 (club)`.
pub fn level_words(lang: Lang, level: crate::engine::Level) -> String {
    const NAMES: [&str; 6] = [
        "level-beginner",
        "level-casual",
        "level-club",
        "level-strong",
        "level-expert",
        "level-master",
    ];
    let name = NAMES
        .get(usize::from(level.number().saturating_sub(1)))
        .map_or_else(|| level.name().to_string(), |key| lang.t(key));
    lang.t2("level-named", ("number", level.number()), ("name", name))
}

/// The table setup for a variant (`static/setup.html`).
#[derive(askama::Template)]
#[template(path = "setup.html")]
struct Setup<'a> {
    slug: &'a str,
    options: &'a [crate::rules::variant::TableOption],
    play: Play,
}

/// The table setup for a variant: its own options only, the clock, the colour, and the
/// opponent.
pub fn setup_form(lang: Lang, info: &VariantInfo) -> String {
    render(&Setup {
        slug: info.slug(),
        options: &info.spec.options,
        play: Play::new(lang),
    })
}

/// The options a setup form sent for `variant`: its fields `opt.KEY`, and `opt.VARIANT.KEY`
/// (the home page's form holds every variant's options, each named after its variant; those of
/// the variants not chosen are not this game's).
pub fn form_options(
    form: &std::collections::HashMap<String, String>,
    variant: &str,
) -> BTreeMap<String, String> {
    form.iter()
        .filter_map(|(k, v)| {
            let key = k.strip_prefix("opt.")?;
            let key = match key.split_once('.') {
                Some((slug, key)) if slug == variant => key,
                Some(_) => return None,
                None => key,
            };
            Some((key.to_string(), v.clone()))
        })
        .collect()
}

/// A board as a static SVG diagram: lines, points and coordinates, from the generated geometry.
pub fn board_svg(board: &Board, title: &str) -> String {
    let n = f64::from(board.size() - 1);
    let pad = 0.75;
    let y = |rank: u8| n - f64::from(rank);
    let mut svg = format!(
        "<svg class=\"diagram\" viewBox=\"{} {} {} {}\" role=\"img\" aria-label=\"{}\">\
         <title>{}</title><rect class=\"wood\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"0.3\"/>\
         <g class=\"lines\">",
        -pad,
        -pad,
        n + 2.0 * pad,
        n + 2.0 * pad,
        escape(title),
        escape(title),
        -pad,
        -pad,
        n + 2.0 * pad,
        n + 2.0 * pad,
    );
    for line in board.lines() {
        let (a, b) = (board.coord(line[0]), board.coord(line[line.len() - 1]));
        let _ = write!(
            svg,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            a.0,
            y(a.1),
            b.0,
            y(b.1)
        );
    }
    svg.push_str("</g><g class=\"spots\">");
    for p in points(board.all()) {
        let (x, rank) = board.coord(p);
        let _ = write!(
            svg,
            "<circle cx=\"{x}\" cy=\"{}\" r=\"0.11\"><title>{}</title></circle>",
            y(rank),
            board.name(p)
        );
    }
    svg.push_str("</g><g class=\"labels\" aria-hidden=\"true\">");
    for i in 0..board.size() {
        let _ = write!(
            svg,
            "<text x=\"{i}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\">{}</text>",
            n + pad * 0.8,
            char::from(b'a' + i),
            -pad * 0.8,
            y(i),
            i + 1
        );
    }
    svg.push_str("</g></svg>");
    svg
}
