//! Any text as a variant file (YAML front matter over a Markdown page): read without a panic,
//! and a file that reads builds its board and its variant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use merels::catalog::VariantInfo;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = VariantInfo::parse("fuzz.md", text);
});
