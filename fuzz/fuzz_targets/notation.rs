//! Any text as a turn or a position of every variant: parsed without a panic; a position that
//! parses writes back to itself, and a turn that parses writes back to a turn that parses alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use merels::catalog::Catalog;
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let catalog = Catalog::builtin();
    for info in catalog.variants() {
        let variant = catalog
            .configure(info.slug(), &BTreeMap::new())
            .expect("every variant configures with its defaults");
        if let Ok(turn) = variant.parse_turn(text) {
            let written = variant.turn_string(turn);
            assert_eq!(variant.parse_turn(&written).ok(), Some(turn), "{written}");
        }
        if let Ok(position) = variant.parse_position(text) {
            let written = variant.position_string(&position);
            let again = variant
                .parse_position(&written)
                .expect("a written position parses");
            assert_eq!(variant.position_string(&again), written);
        }
    }
});
