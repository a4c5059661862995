//! The variant files: all eight of REFERENCE.md §3 with their knobs and table options, and a new
//! variant made from a file alone.

use merels::catalog::{Catalog, CatalogError};
use merels::rules::{Game, MillEffect, Movement};
use std::collections::BTreeMap;

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_eight_variants_in_catalog_order() {
    let catalog = Catalog::builtin();
    let slugs: Vec<&str> = catalog.variants().iter().map(|v| v.slug()).collect();
    assert_eq!(
        slugs,
        [
            "three-mens-morris",
            "five-mens-morris",
            "six-mens-morris",
            "seven-mens-morris",
            "nine-mens-morris",
            "lasker-morris",
            "twelve-mens-morris",
            "morabaraba"
        ]
    );
    for info in catalog.variants() {
        assert!(!info.title.is_empty() && !info.body.is_empty() && info.body.contains("##"));
        assert!(
            info.body
                .contains(&format!("{{{{svg:{}-board.svg", info.slug()))
        );
    }
}

#[test]
fn knobs_and_options_follow_the_reference() {
    let catalog = Catalog::builtin();
    // slug, points, men, flies by default, option keys
    let table: [(&str, usize, u8, bool, &[&str]); 8] = [
        ("three-mens-morris", 9, 3, false, &["diagonals", "movement"]),
        ("five-mens-morris", 16, 5, false, &[]),
        ("six-mens-morris", 16, 6, false, &[]),
        ("seven-mens-morris", 17, 7, false, &[]),
        ("nine-mens-morris", 24, 9, true, &["flying"]),
        ("lasker-morris", 24, 10, true, &["flying"]),
        ("twelve-mens-morris", 24, 12, true, &["flying"]),
        ("morabaraba", 24, 12, true, &[]),
    ];
    for (slug, points, men, flies, keys) in table {
        let v = catalog.configure(slug, &BTreeMap::new()).unwrap();
        assert_eq!(v.board().len(), points, "{slug}");
        assert_eq!(v.rules().men, men, "{slug}");
        assert_eq!(v.rules().flying, flies, "{slug}");
        let info = catalog.get(slug).unwrap();
        let got: Vec<&str> = info.spec.options.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(got, keys, "{slug}");
    }
    let three = catalog
        .configure("three-mens-morris", &BTreeMap::new())
        .unwrap();
    assert_eq!(
        (three.rules().mill, three.rules().movement),
        (MillEffect::Win, Movement::Anywhere)
    );
    assert_eq!(three.board().mills().len(), 8);
    let three = catalog
        .configure(
            "three-mens-morris",
            &options(&[("diagonals", "off"), ("movement", "adjacent")]),
        )
        .unwrap();
    assert_eq!(three.board().mills().len(), 6);
    assert_eq!(three.rules().movement, Movement::Adjacent);
    assert_eq!(three.options_string(), "diagonals=off,movement=adjacent");
    let lasker = catalog
        .configure("lasker-morris", &BTreeMap::new())
        .unwrap();
    assert!(lasker.rules().place_or_slide);
    let twelve = catalog
        .configure("twelve-mens-morris", &options(&[("flying", "off")]))
        .unwrap();
    assert!(twelve.rules().full_board_draw && !twelve.rules().flying);
    assert_eq!(twelve.board().mills().len(), 20);
    let mora = catalog.configure("morabaraba", &BTreeMap::new()).unwrap();
    assert!(mora.rules().no_move_back_into_mill && mora.rules().full_board_draw);
    assert_eq!(mora.rules().three_against_three_draw, Some(20));
}

#[test]
fn unknown_variants_options_and_values_are_named() {
    let catalog = Catalog::builtin();
    let err = catalog
        .configure("ten-mens-morris", &BTreeMap::new())
        .unwrap_err();
    assert!(matches!(err, CatalogError::UnknownVariant { .. }));
    assert!(err.to_string().contains("ten-mens-morris"));
    let err = catalog
        .configure("six-mens-morris", &options(&[("flying", "on")]))
        .unwrap_err();
    assert!(err.to_string().contains("flying"), "{err}");
    let err = catalog
        .configure("nine-mens-morris", &options(&[("flying", "sometimes")]))
        .unwrap_err();
    assert!(
        err.to_string().contains("sometimes") && err.to_string().contains("on, off"),
        "{err}"
    );
}

const NEW_VARIANT: &str = r#"---
title: "Eleven Men's Morris"
slug: eleven-mens-morris
board: "24 points, with diagonals"
players: "2"
parent: morris
order: 9
win: "Reduce the opponent to two men"
special: "A variant that exists only in this test."
engine:
  topology:
    type: graph
    structure: concentric-rings
    params:
      rings: 3
      midpoints: true
      diagonals: true
  render:
    canvasSize: 300
  players: [white, black]
  rules:
    men: 11
    movement: adjacent
    flying: false
  options:
    - key: hop
      label: Hopping
      default: "no"
      values:
        - { value: "no", label: "No" }
        - { value: "yes", label: "Yes", set: { movement: anywhere } }
---
## Eleven Men's Morris
"#;

#[test]
fn a_new_variant_is_a_file_not_code() {
    let catalog = Catalog::from_files([("eleven.md", NEW_VARIANT)]).unwrap();
    let v = catalog
        .configure("eleven-mens-morris", &BTreeMap::new())
        .unwrap();
    assert_eq!(v.rules().men, 11);
    assert_eq!(v.perft(&v.start(), 2), 24 * 23);
    let hop = catalog
        .configure("eleven-mens-morris", &options(&[("hop", "yes")]))
        .unwrap();
    assert_eq!(hop.rules().movement, Movement::Anywhere);
    let mut g = Game::new(v);
    let t = g.legal_turns()[0];
    g.play(t).unwrap();
}

#[test]
fn broken_variant_files_are_refused_with_a_reason() {
    let cases = [
        ("no front matter", "## just markdown"),
        ("four rings", &*NEW_VARIANT.replace("rings: 3", "rings: 4")),
        (
            "unknown knob",
            &*NEW_VARIANT.replace("flying: false", "flying: false\n    teleport: true"),
        ),
        (
            "bad default",
            &*NEW_VARIANT.replace("default: \"no\"", "default: \"maybe\""),
        ),
        ("two men", &*NEW_VARIANT.replace("men: 11", "men: 2")),
        (
            "bad topology",
            &*NEW_VARIANT.replace("concentric-rings", "hexagon"),
        ),
    ];
    for (what, text) in cases {
        let err = Catalog::from_files([("broken.md", text)]).unwrap_err();
        assert!(matches!(err, CatalogError::File { .. }), "{what}: {err}");
    }
    let twice = Catalog::from_files([("a.md", NEW_VARIANT), ("b.md", NEW_VARIANT)]);
    assert!(twice.is_err());
}
