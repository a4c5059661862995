//! Any text a client could send is parsed without a panic, and what parses writes back as a
//! message that parses to the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use merels::protocol::ClientMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(message) = ClientMessage::parse(text) {
        let again = serde_json::to_string(&message).expect("a message serializes");
        assert_eq!(ClientMessage::parse(&again), Ok(message));
    }
});
