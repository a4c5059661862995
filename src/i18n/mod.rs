//! The message system: every word a person reads on a page, in each language the site speaks
//! (Project Fluent). Each language is a folder `locales/<lang>/` of `.ftl` files, embedded in the
//! binary; `pages.ftl` holds the server's words and `client.ftl` the thin client's, which each
//! page carries as JSON ([`Language::client_json`]). Plurals and numbers follow the language's
//! own rules (CLDR, through `fluent-bundle`). Pure: no I/O but reading the embedded files.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use fluent_syntax::ast;
use std::sync::LazyLock;
use unic_langid::{CharacterDirection, LanguageIdentifier};

/// The `.ftl` files, `locales/<lang>/<file>.ftl`.
#[derive(rust_embed::Embed)]
#[folder = "locales/"]
#[include = "*.ftl"]
struct Files;

/// The file of each language whose messages the browser client uses.
pub const CLIENT_FILE: &str = "client.ftl";

/// The language every other falls back to, and the one a visitor gets when none of theirs is
/// spoken here.
pub const FALLBACK: &str = "en";

/// The message naming a language in itself (`Deutsch`), which its switcher shows.
const OWN_NAME: &str = "language-name";

/// A language the site speaks: its messages, its direction, and its client messages as JSON.
pub struct Language {
    code: String,
    id: LanguageIdentifier,
    name: String,
    bundle: FluentBundle<FluentResource>,
    client_json: String,
}

/// A language, chosen for one request: cheap to copy into every template.
pub type Lang = &'static Language;

/// Every language, the fallback first, then by code.
static LANGUAGES: LazyLock<Vec<Language>> = LazyLock::new(load);

/// Every language the site speaks, English first.
pub fn languages() -> &'static [Language] {
    &LANGUAGES
}

/// The fallback language (English).
pub fn fallback() -> Lang {
    &LANGUAGES[0]
}

/// The language with this code (`de`), if the site speaks it.
pub fn by_code(code: &str) -> Option<Lang> {
    LANGUAGES.iter().find(|l| l.code.eq_ignore_ascii_case(code))
}

/// The language an `Accept-Language` header asks for (`de-CH, de;q=0.9` → German): the best
/// spoken here, else the fallback.
pub fn negotiate(accept_language: &str) -> Lang {
    let requested = fluent_langneg::accepted_languages::parse(accept_language);
    let available: Vec<&LanguageIdentifier> = LANGUAGES.iter().map(|l| &l.id).collect();
    let default = &fallback().id;
    let chosen = fluent_langneg::negotiate_languages(
        &requested,
        &available,
        Some(&default),
        fluent_langneg::NegotiationStrategy::Lookup,
    );
    chosen
        .first()
        .and_then(|id| LANGUAGES.iter().find(|l| &&l.id == *id))
        .unwrap_or_else(fallback)
}

/// The messages a language's files define, each file's own: `(file, message ids)`. For tests
/// and tools that check the languages against each other.
pub fn message_ids(code: &str) -> Vec<(String, Vec<String>)> {
    files_of(code)
        .map(|(file, source)| {
            let resource = parse(code, &file, source);
            let ids = resource
                .entries()
                .filter_map(|e| match e {
                    ast::Entry::Message(m) => Some(m.id.name.to_string()),
                    ast::Entry::Term(t) => Some(format!("-{}", t.id.name)),
                    _ => None,
                })
                .collect();
            (file, ids)
        })
        .collect()
}

impl Language {
    /// Its code, as `lang` attributes and the cookie write it (`de`).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// Its name in itself (`Deutsch`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its writing direction, as the `dir` attribute takes it: `ltr` or `rtl`.
    pub fn dir(&self) -> &'static str {
        match self.id.character_direction() {
            CharacterDirection::RTL => "rtl",
            _ => "ltr",
        }
    }

    /// The message `key`, without arguments.
    pub fn t(&self, key: &str) -> String {
        self.format(key, None)
    }

    /// The message `key` with one argument.
    pub fn t1<'a>(&self, key: &str, name: &'a str, value: impl Arg<'a>) -> String {
        let mut args = FluentArgs::new();
        args.set(name, value.value());
        self.format(key, Some(&args))
    }

    /// The message `key` with two arguments.
    pub fn t2<'a>(
        &self,
        key: &str,
        (n1, v1): (&'a str, impl Arg<'a>),
        (n2, v2): (&'a str, impl Arg<'a>),
    ) -> String {
        let mut args = FluentArgs::new();
        args.set(n1, v1.value());
        args.set(n2, v2.value());
        self.format(key, Some(&args))
    }

    /// The message `key` with any arguments.
    pub fn format(&self, key: &str, args: Option<&FluentArgs>) -> String {
        // A message missing here is English's (the tests keep every language complete); missing
        // from English too, its key shows, which a test catches before a person does.
        let (bundle, message) = match self.bundle.get_message(key) {
            Some(m) => (&self.bundle, m),
            None => match fallback().bundle.get_message(key) {
                Some(m) => (&fallback().bundle, m),
                None => return key.to_string(),
            },
        };
        let Some(pattern) = message.value() else {
            return key.to_string();
        };
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, args, &mut errors);
        if !errors.is_empty() {
            tracing::warn!(key, lang = %self.code, ?errors, "a message did not format cleanly");
        }
        text.into_owned()
    }

    /// The client's messages (`client.ftl`) as JSON, made once: each key to its pattern, a
    /// string with `{$name}` for each argument, or, for a message that chooses by a number, an
    /// object of its variants by CLDR plural category (or exact number), the argument it
    /// chooses by under `$` and the default variant's key under `*`. `static/i18n.js` reads it.
    pub fn client_json(&self) -> &str {
        &self.client_json
    }
}

/// A message's argument: text, or a number (which chooses a plural by the language's rules).
/// The templates pass their values as they hold them, by reference or not.
pub trait Arg<'a> {
    /// The value as Fluent takes it.
    fn value(self) -> FluentValue<'a>;
}

impl<'a> Arg<'a> for &'a str {
    fn value(self) -> FluentValue<'a> {
        FluentValue::from(self)
    }
}

impl<'a> Arg<'a> for &&'a str {
    fn value(self) -> FluentValue<'a> {
        FluentValue::from(*self)
    }
}

impl<'a> Arg<'a> for String {
    fn value(self) -> FluentValue<'a> {
        FluentValue::from(self)
    }
}

impl<'a> Arg<'a> for &'a String {
    fn value(self) -> FluentValue<'a> {
        FluentValue::from(self.as_str())
    }
}

macro_rules! number_args {
    ($($t:ty),*) => {$(
        impl<'a> Arg<'a> for $t {
            fn value(self) -> FluentValue<'a> {
                FluentValue::from(self)
            }
        }
        impl<'a> Arg<'a> for &$t {
            fn value(self) -> FluentValue<'a> {
                FluentValue::from(*self)
            }
        }
    )*};
}

number_args!(u8, u16, u32, u64, usize, i32, i64);

/// The `(file name, source)` of each of a language's files.
fn files_of(code: &str) -> impl Iterator<Item = (String, String)> {
    let prefix = format!("{code}/");
    let mut names: Vec<String> = Files::iter()
        .filter(|p| p.starts_with(&prefix))
        .map(|p| p.into_owned())
        .collect();
    names.sort();
    names.into_iter().filter_map(move |path| {
        let file = Files::get(&path)?;
        let source = String::from_utf8_lossy(&file.data).into_owned();
        Some((path[prefix.len()..].to_string(), source))
    })
}

/// A file's messages. A file that does not parse is a mistake of the build, not of a visitor:
/// the tests load every language, so it never reaches a server.
fn parse(code: &str, file: &str, source: String) -> FluentResource {
    FluentResource::try_new(source)
        .unwrap_or_else(|(_, errors)| panic!("locales/{code}/{file} does not parse: {errors:?}"))
}

/// Every language of `locales/`, the fallback first.
fn load() -> Vec<Language> {
    let mut codes: Vec<String> = Files::iter()
        .filter_map(|p| p.split_once('/').map(|(code, _)| code.to_string()))
        .collect();
    codes.sort();
    codes.dedup();
    codes.sort_by_key(|c| c != FALLBACK);
    codes.into_iter().map(|code| language(&code)).collect()
}

fn language(code: &str) -> Language {
    let id: LanguageIdentifier = code
        .parse()
        .unwrap_or_else(|e| panic!("locales/{code} is not a language code: {e}"));
    let mut bundle = FluentBundle::new_concurrent(vec![id.clone()]);
    // Names and other values are isolated by the markup (`<bdi>`), not by invisible marks that
    // would travel into copied text.
    bundle.set_use_isolating(false);
    let mut client = serde_json::Map::new();
    for (file, source) in files_of(code) {
        let resource = parse(code, &file, source);
        if file == CLIENT_FILE {
            for entry in resource.entries() {
                if let ast::Entry::Message(m) = entry {
                    let pattern = m.value.as_ref().map(|p| client_pattern(code, m.id.name, p));
                    client.insert(m.id.name.to_string(), pattern.unwrap_or_default());
                }
            }
        }
        bundle
            .add_resource(resource)
            .unwrap_or_else(|e| panic!("locales/{code}/{file}: {e:?}"));
    }
    let name = match bundle.get_message(OWN_NAME).and_then(|m| m.value()) {
        Some(pattern) => bundle
            .format_pattern(pattern, None, &mut Vec::new())
            .into_owned(),
        None => code.to_string(),
    };
    Language {
        code: code.to_string(),
        id,
        name,
        bundle,
        // It goes into a `<script>` element, which only `</` could end early.
        client_json: serde_json::Value::Object(client)
            .to_string()
            .replace("</", "<\\/"),
    }
}

/// A client message's pattern as `client_json` writes it. The client's messages keep to what
/// its small formatter reads: text, arguments, and at most one choice by a number.
fn client_pattern(code: &str, key: &str, pattern: &ast::Pattern<&str>) -> serde_json::Value {
    let mut before = String::new();
    let mut choice: Option<(String, Vec<Variant>)> = None;
    let mut after = String::new();
    for element in &pattern.elements {
        let out = if choice.is_some() {
            &mut after
        } else {
            &mut before
        };
        match element {
            ast::PatternElement::TextElement { value } => out.push_str(value),
            ast::PatternElement::Placeable { expression } => match expression {
                ast::Expression::Inline(inline) => inline_text(code, key, inline, out),
                ast::Expression::Select { selector, variants } => {
                    let ast::InlineExpression::VariableReference { id } = selector else {
                        unsupported(code, key, "a choice by anything but an argument")
                    };
                    if choice.is_some() {
                        unsupported(code, key, "a second choice");
                    }
                    let variants = variants
                        .iter()
                        .map(|v| {
                            let variant = match &v.key {
                                ast::VariantKey::Identifier { name } => name.to_string(),
                                ast::VariantKey::NumberLiteral { value } => value.to_string(),
                            };
                            let mut text = String::new();
                            for e in &v.value.elements {
                                match e {
                                    ast::PatternElement::TextElement { value } => {
                                        text.push_str(value)
                                    }
                                    ast::PatternElement::Placeable {
                                        expression: ast::Expression::Inline(inline),
                                    } => inline_text(code, key, inline, &mut text),
                                    _ => unsupported(code, key, "a choice within a choice"),
                                }
                            }
                            (variant, text, v.default)
                        })
                        .collect();
                    choice = Some((id.name.to_string(), variants));
                }
            },
        }
    }
    match choice {
        None => serde_json::Value::String(before),
        Some((selector, variants)) => {
            let mut object = serde_json::Map::new();
            object.insert("$".into(), selector.into());
            for (key, text, default) in variants {
                if default {
                    object.insert("*".into(), key.clone().into());
                }
                object.insert(key, format!("{before}{text}{after}").into());
            }
            serde_json::Value::Object(object)
        }
    }
}

/// A variant of a client message's choice: its key, its text, and whether it is the default.
type Variant = (String, String, bool);

/// An argument or a literal of a client message, as the client's formatter reads it.
fn inline_text(code: &str, key: &str, inline: &ast::InlineExpression<&str>, out: &mut String) {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            out.push_str(&format!("{{${}}}", id.name));
        }
        ast::InlineExpression::StringLiteral { value } => out.push_str(value),
        ast::InlineExpression::NumberLiteral { value } => out.push_str(value),
        _ => unsupported(code, key, "a reference or a function"),
    }
}

/// A client message the client's formatter could not read: a mistake in a file, which the
/// tests find (they load every language).
fn unsupported(code: &str, key: &str, what: &str) -> ! {
    panic!("locales/{code}/{CLIENT_FILE}: {key}: {what} is more than the client reads")
}

#[cfg(test)]
mod tests;
