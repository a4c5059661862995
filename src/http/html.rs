//! The HTML that every page shares: escaping, the frame around a page, the table-setup form and
//! the static board diagram. Pages (`pages`, `variants`) build on these and on nothing of each
//! other's.

use crate::catalog::VariantInfo;
use crate::rules::Board;
use crate::rules::board::points;
use axum::response::Html;
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

/// The frame every page shares.
pub fn layout(title: &str, main: &str, script: Option<&str>) -> Html<String> {
    let script = script
        .map(|s| format!("<script type=\"module\" src=\"/static/{s}\"></script>"))
        .unwrap_or_default();
    Html(format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/static/app.css\">\n\
         <meta property=\"og:title\" content=\"{title}\">\n\
         <meta property=\"og:site_name\" content=\"merels\">\n\
         <meta property=\"og:description\" content=\"Play mill games with a friend: send a link, \
         no sign-up.\">\n<meta name=\"description\" content=\"Play mill games with a friend: \
         send a link, no sign-up.\">\n\
         <link rel=\"icon\" href=\"/static/favicon.svg\" type=\"image/svg+xml\">\n</head>\n\
         <body>\n<header class=\"top\"><a class=\"brand\" href=\"/\">merels</a></header>\n\
         {main}\n<footer class=\"foot\">No sign-up required. Share a link and start playing. \
         <span class=\"version\">v{version} · {commit}</span></footer>\n{script}\n</body>\n</html>\n",
        title = escape(title),
        version = env!("CARGO_PKG_VERSION"),
        commit = env!("MERELS_COMMIT"),
    ))
}

/// The buttons that step through a finished game (hidden until a script has a game to step
/// through): the game page's replay and the analysis page's. Icons are drawn, not characters:
/// common fonts lack the media-control glyphs.
pub const REPLAY_CONTROLS: &str = "<div id=\"replay\" class=\"replay\" hidden>\
     <button type=\"button\" data-step=\"first\" aria-label=\"First position\">\
     <svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M3 3h2v10H3zM13 3 6 8l7 5z\"/></svg></button>\
     <button type=\"button\" data-step=\"prev\" aria-label=\"Previous turn\">\
     <svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M11 3 4 8l7 5z\"/></svg></button>\
     <span id=\"replay-at\"></span>\
     <button type=\"button\" data-step=\"next\" aria-label=\"Next turn\">\
     <svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M5 3l7 5-7 5z\"/></svg></button>\
     <button type=\"button\" data-step=\"last\" aria-label=\"Last position\">\
     <svg viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"M11 3h2v10h-2zM3 3l7 5-7 5z\"/></svg></button>\
     </div>";

/// The game page's chat (hidden until a script is connected): its lines, a line to say, and
/// what to hear. `static/chat.js` fills it in.
pub fn chat_section() -> String {
    format!(
        "<section id=\"chat\" class=\"chat\" aria-labelledby=\"chat-title\" hidden>\
     <h2 id=\"chat-title\">Chat</h2>\
     <ol id=\"chat-lines\" class=\"chat-lines\" aria-live=\"polite\" hidden></ol>\
     <p id=\"chat-muted\" class=\"notice\" hidden>The chat is muted.</p>\
     <form id=\"chat-form\" class=\"chat-form\"><label for=\"chat-text\" class=\"sr-only\">\
     Say something</label><input id=\"chat-text\" maxlength=\"{max}\" autocomplete=\"off\" \
     placeholder=\"Say something…\"><button type=\"submit\">Send</button></form>\
     <p id=\"chat-note\" class=\"chat-note\" role=\"status\" hidden></p>\
     <p class=\"chat-options\"><label id=\"chat-mute-option\"><input type=\"checkbox\" \
     id=\"chat-mute\"> Mute the chat</label> <label id=\"chat-spectators-option\" hidden>\
     <input type=\"checkbox\" id=\"chat-spectators\"> Show the spectators' chat</label></p>\
     </section>",
        max = crate::protocol::CHAT_MAX_CHARS
    )
}

/// A game's table options in words, as the setup form names them (`Flying: Yes · Diagonals:
/// No`), every option of the variant with its default where none was chosen; empty for a
/// variant without options.
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
            format!("{}: {}", escape(&o.label), escape(label))
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

/// The table setup for a variant: its own options only, the colour, and the button.
pub fn setup_form(info: &VariantInfo) -> String {
    let slug = escape(info.slug());
    let mut form = format!(
        "<form method=\"post\" action=\"/games\" class=\"setup\">\n\
         <input type=\"hidden\" name=\"variant\" value=\"{slug}\">\n"
    );
    for opt in &info.spec.options {
        let _ = write!(
            form,
            "<label>{} <select name=\"opt.{}\" title=\"{}\">",
            escape(&opt.label),
            escape(&opt.key),
            escape(&opt.description)
        );
        for v in &opt.values {
            let selected = if v.value == opt.default {
                " selected"
            } else {
                ""
            };
            let _ = write!(
                form,
                "<option value=\"{}\"{selected}>{}</option>",
                escape(&v.value),
                escape(&v.label)
            );
        }
        form.push_str("</select></label>\n");
    }
    form.push_str("<label>Time <select name=\"clock\" class=\"clock-choice\">");
    for control in crate::clock::PRESETS {
        let _ = write!(
            form,
            "<option value=\"{control}\">{}</option>",
            control.words()
        );
    }
    form.push_str(
        "<option value=\"custom\">Custom</option></select></label>\n\
         <span class=\"custom-clock\"><label>Minutes <input name=\"clock_minutes\" \
         type=\"number\" min=\"0.25\" max=\"180\" step=\"0.25\" value=\"5\"></label> \
         <label>+ seconds <input name=\"clock_increment\" type=\"number\" min=\"0\" \
         max=\"180\" value=\"3\"></label></span>\n",
    );
    form.push_str("<fieldset class=\"colour\"><legend>Play as</legend>");
    for (value, label) in [("white", "White"), ("black", "Black"), ("random", "Random")] {
        let checked = if value == "random" { " checked" } else { "" };
        let _ = write!(
            form,
            "<label><input type=\"radio\" name=\"color\" value=\"{value}\"{checked}> \
             {label}</label>"
        );
    }
    form.push_str(
        "</fieldset>\n<label class=\"open\"><input type=\"checkbox\" name=\"open\"> Let anyone \
         take the seat (listed under Open challenges)</label>\n\
         <div class=\"opponents\"><button type=\"submit\" name=\"opponent\" \
         value=\"friend\">Play a friend</button>\n<span class=\"computer\"><label>Level \
         <select name=\"level\">",
    );
    for level in crate::engine::Level::all() {
        let selected = if level.number() == 3 { " selected" } else { "" };
        let _ = write!(
            form,
            "<option value=\"{}\"{selected}>{} ({})</option>",
            level.number(),
            level.number(),
            level.name()
        );
    }
    form.push_str(
        "</select></label> <button type=\"submit\" name=\"opponent\" value=\"computer\" \
         class=\"secondary\">Play the computer</button></span></div>\n</form>\n",
    );
    form
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
