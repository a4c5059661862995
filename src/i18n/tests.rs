//! The languages against each other and against the code: every language has every message
//! and no other, every message is used, every message used exists, and no word meant for
//! people is left in a template's text or a client's string outside the message system.

use super::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The files under `dir` (recursively) whose names end in one of `exts`.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, exts, out);
        } else if exts
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e))
        {
            out.push(path);
        }
    }
}

/// The sources that may use a message: the server's code, the templates and the client.
fn sources() -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    files(&root().join("src"), &["rs"], &mut paths);
    files(&root().join("static"), &["html", "js"], &mut paths);
    paths
        .into_iter()
        .filter(|p| !p.ends_with("i18n/tests.rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

fn english() -> BTreeSet<(String, String)> {
    message_ids(FALLBACK)
        .into_iter()
        .flat_map(|(file, ids)| ids.into_iter().map(move |id| (file.clone(), id)))
        .collect()
}

#[test]
fn every_language_has_every_message_and_no_other() {
    let english = english();
    assert!(
        english.len() > 100,
        "English has {} messages",
        english.len()
    );
    let codes: Vec<&str> = languages().iter().map(|l| l.code()).collect();
    assert!(codes.contains(&"de"), "German is spoken: {codes:?}");
    for code in codes {
        let theirs: BTreeSet<(String, String)> = message_ids(code)
            .into_iter()
            .flat_map(|(file, ids)| ids.into_iter().map(move |id| (file.clone(), id)))
            .collect();
        let missing: Vec<_> = english.difference(&theirs).collect();
        let extra: Vec<_> = theirs.difference(&english).collect();
        assert!(missing.is_empty(), "locales/{code} lacks {missing:?}");
        assert!(
            extra.is_empty(),
            "locales/{code} has messages English lacks: {extra:?}"
        );
    }
}

#[test]
fn every_message_is_used() {
    let sources = sources();
    let unused: Vec<String> = english()
        .into_iter()
        .map(|(_, id)| id)
        .filter(|id| !id.starts_with('-'))
        .filter(|id| {
            let (double, single) = (format!("\"{id}\""), format!("'{id}'"));
            !sources
                .iter()
                .any(|(_, text)| text.contains(&double) || text.contains(&single))
        })
        .collect();
    assert!(unused.is_empty(), "messages nothing uses: {unused:?}");
}

#[test]
fn every_message_used_exists() {
    let known: BTreeSet<String> = english().into_iter().map(|(_, id)| id).collect();
    // `t("key"`, `t1("key"`, `t2("key"`, and the client's `t('key'`.
    let mut unknown = Vec::new();
    for (path, text) in sources() {
        for quote in ['"', '\''] {
            for call in ["t(", "t1(", "t2("] {
                let opening = format!("{call}{quote}");
                for (at, _) in text.match_indices(&opening) {
                    let before = text[..at].chars().next_back();
                    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                        continue; // another function whose name ends in t
                    }
                    let rest = &text[at + opening.len()..];
                    let Some(end) = rest.find(quote) else {
                        continue;
                    };
                    let key = &rest[..end];
                    let is_key = !key.is_empty()
                        && key
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
                    if is_key && !known.contains(key) {
                        unknown.push(format!("{}: {key}", path.display()));
                    }
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "messages used but not in English: {unknown:?}"
    );
}

#[test]
fn each_language_names_itself_and_writes_its_direction() {
    assert_eq!(fallback().code(), "en");
    assert_eq!(fallback().dir(), "ltr");
    let german = by_code("de").unwrap();
    assert_eq!(german.name(), "Deutsch");
    assert_eq!(german.dir(), "ltr");
    let persian = by_code("fa").unwrap();
    assert_eq!((persian.name(), persian.dir()), ("فارسی", "rtl"));
    assert_eq!(german.t1("turns-so-far", "count", 1), "bisher 1 Zug");
    assert_eq!(german.t1("turns-so-far", "count", 7), "bisher 7 Züge");
    assert_eq!(fallback().t1("turns-so-far", "count", 1), "1 turn so far");
    for lang in languages() {
        let json: serde_json::Value = serde_json::from_str(lang.client_json()).unwrap();
        let plural = &json["spectators"];
        assert_eq!(plural["$"], "count", "{}: {plural}", lang.code());
        assert!(plural["other"].as_str().unwrap().contains("{$count}"));
    }
}

#[test]
fn negotiation_takes_the_best_language_spoken_here() {
    assert_eq!(negotiate("de-CH, de;q=0.9").code(), "de");
    assert_eq!(negotiate("de-AT").code(), "de");
    assert_eq!(negotiate("fa-IR, en;q=0.5").code(), "fa");
    assert_eq!(negotiate("ja, zh;q=0.8").code(), "en");
    assert_eq!(negotiate("").code(), "en");
    assert_eq!(negotiate("fr;q=0.9, de;q=0.8, en;q=0.5").code(), "de");
}

/// The "words" of a text: runs of two or more letters that stand alone (`d7xa1` and `a1` are
/// notation, not words).
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .filter(|w| {
            w.chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '’')
        })
        .collect()
}

/// Words a page may show as they are, in every language: the site's name.
const NOT_WORDS: &[&str] = &["merels"];

/// Text between `open` and `close` (and the markers) replaced by a space.
fn strip(text: &str, open: &str, close: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        out.push(' ');
        let after = &rest[at + open.len()..];
        rest = after
            .find(close)
            .map_or("", |end| &after[end + close.len()..]);
    }
    out.push_str(rest);
    out
}

/// The attributes whose values people read (or hear).
const READ_ATTRIBUTES: &[&str] = &["title", "placeholder", "aria-label", "alt", "label"];

/// What people read of a template: its text nodes and read attributes, its template code, its
/// comments and its scripts' contents left out.
fn template_text(source: &str) -> Vec<String> {
    let mut text = strip(source, "{#", "#}");
    text = strip(&text, "{%", "%}");
    text = strip(&text, "{{", "}}");
    text = strip(&text, "<script", "</script>");
    let mut read = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('<') {
        read.push(rest[..open].to_string());
        let tag_end = rest[open..].find('>').map_or(rest.len(), |e| open + e + 1);
        let tag = &rest[open..tag_end];
        for attribute in READ_ATTRIBUTES {
            let marker = format!(" {attribute}=\"");
            if let Some(at) = tag.find(&marker) {
                let value = &tag[at + marker.len()..];
                read.push(value[..value.find('"').unwrap_or(value.len())].to_string());
            }
        }
        rest = &rest[tag_end..];
    }
    read.push(rest.to_string());
    read
}

/// The string literals of a script, each a template literal's `${…}` left out, comments and
/// regular expressions skipped.
fn string_literals(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // The last character that was not space: whether a `/` starts a regular expression.
    let mut last = ' ';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '/' && "(,=:[!&|?{};".contains(last) {
            i += 1;
            while i < chars.len() && chars[i] != '/' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            last = '/';
            continue;
        }
        if c == '\'' || c == '"' || c == '`' {
            let mut literal = String::new();
            let mut depth = 0;
            i += 1;
            while i < chars.len() {
                let d = chars[i];
                if depth == 0 && d == c {
                    break;
                }
                if d == '\\' {
                    i += 2;
                    continue;
                }
                if c == '`' && d == '$' && chars.get(i + 1) == Some(&'{') {
                    depth += 1;
                    literal.push(' ');
                    i += 2;
                    continue;
                }
                if depth > 0 {
                    if d == '{' {
                        depth += 1;
                    } else if d == '}' {
                        depth -= 1;
                    }
                } else {
                    literal.push(d);
                }
                i += 1;
            }
            out.push(literal);
            i += 1;
            last = c;
            continue;
        }
        if !c.is_whitespace() {
            last = c;
        }
        i += 1;
    }
    out
}

/// Whether a client's string literal holds words meant for people: a capitalised word (`Copied`,
/// `White`), a word ending a sentence or a clause (`lost.`, `seat:`), or three words in a row.
/// Markup inside it (`<span class="who">`) is not read.
fn reads_as_words(literal: &str) -> bool {
    let text = strip(literal, "<", ">");
    let found = words(&text);
    let capital = found.iter().any(|w| {
        let mut cs = w.chars();
        cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
    });
    let spaced = text
        .split_whitespace()
        .filter(|t| t.chars().any(char::is_alphabetic))
        .count();
    let sentence = spaced >= 2
        && found.iter().any(|w| {
            [".", ":", "!", "?", "…"].iter().any(|p| {
                text.contains(&format!("{w}{p} ")) || text.trim_end().ends_with(&format!("{w}{p}"))
            })
        });
    let phrase = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(3)
        .any(|w| w.iter().all(|t| words(t).len() == 1 && words(t)[0] == *t));
    capital || sentence || phrase
}

/// String literals of the client that read as words but are not for people: keys of the
/// keyboard and of the browser's APIs, and the reasons a socket is closed with (which only the
/// server's log sees).
const CLIENT_NOT_WORDS: &[&str] = &[
    "Enter",
    "Escape",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Home",
    "End",
    "Notification",
    "Content-Type",
    "the server is silent",
    "seated: reconnecting with the seat",
    "page left",
];

#[test]
fn no_word_for_people_is_outside_the_messages() {
    let mut found = Vec::new();
    for (path, text) in sources() {
        let name = path.display().to_string();
        if name.ends_with(".html") {
            for read in template_text(&text) {
                let left: Vec<&str> = words(&read)
                    .into_iter()
                    .filter(|w| !NOT_WORDS.contains(w))
                    .collect();
                if !left.is_empty() {
                    found.push(format!("{name}: {:?}", read.trim()));
                }
            }
        } else if name.ends_with(".js") {
            for literal in string_literals(&text) {
                if reads_as_words(&literal) && !CLIENT_NOT_WORDS.contains(&literal.as_str()) {
                    found.push(format!("{name}: {literal:?}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "words outside the messages:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_words() {
    // The scan itself, on what it must find and what it must let pass.
    let read = template_text("<p title=\"Flip it\">{{ lang.t(\"x\") }} · <b>Resign</b></p>");
    let read: Vec<&str> = read.iter().flat_map(|r| words(r)).collect();
    assert_eq!(read, ["Flip", "it", "Resign"]);
    assert!(words("d6, a1-a4, d7xa1").is_empty());
    let literals =
        string_literals("const a = 'Copied'; // 'Not this'\nb(`${n} turns left`, /x'y/g, \"id\");");
    assert_eq!(literals, ["Copied", "  turns left", "id"]);
    assert!(reads_as_words("Copied"));
    assert!(reads_as_words(" is not a legal turn here."));
    assert!(reads_as_words("waiting for someone"));
    assert!(!reads_as_words("presence online"));
    assert!(!reads_as_words(
        "<span class=\"who\"></span> <b class=\"hand\"></b>"
    ));
    assert!(!reads_as_words("application/json"));
}
