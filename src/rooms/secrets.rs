//! Game ids and seat secrets: random, URL-safe, and for secrets stored only as a hash and
//! compared in constant time. The id is public (it is the share and watch link); a seat's secret
//! is given once to its holder and is all it takes to act for the seat.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Random bytes in a game id: 128 bits.
const ID_BYTES: usize = 16;
/// Random bytes in a seat secret: 256 bits.
const SECRET_BYTES: usize = 32;

fn random_token(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the operating system's random source works");
    URL_SAFE_NO_PAD.encode(buf)
}

/// A new game id (22 URL-safe characters).
pub fn new_id() -> String {
    random_token(ID_BYTES)
}

/// Whether `s` looks like a game id, so that junk is refused before any lookup.
pub fn is_id(s: &str) -> bool {
    s.len() == 22
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A new seat secret (43 URL-safe characters).
pub fn new_secret() -> String {
    random_token(SECRET_BYTES)
}

/// The hash stored for a secret: hex SHA-256.
pub fn hash(secret: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Written digit by digit: every connection with a seat hashes its secret, and a string per
    // byte was most of that.
    let mut out = String::with_capacity(64);
    for b in Sha256::digest(secret.as_bytes()) {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 0xf)] as char);
    }
    out
}

/// Whether `secret` hashes to `stored`, compared in constant time.
pub fn matches(secret: &str, stored: &str) -> bool {
    hash(secret).as_bytes().ct_eq(stored.as_bytes()).into()
}

/// A fair coin, for "random colour".
pub fn coin() -> bool {
    getrandom::u64().is_ok_and(|v| v & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_secrets_are_random_url_safe_and_hashed() {
        let (a, b) = (new_id(), new_id());
        assert_ne!(a, b);
        assert!(is_id(&a) && is_id(&b));
        assert!(!is_id("../etc/passwd") && !is_id(""));
        let s = new_secret();
        assert_eq!(s.len(), 43);
        let h = hash(&s);
        assert_eq!(h.len(), 64);
        // SHA-256 of "abc", from FIPS 180-2.
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(matches(&s, &h));
        assert!(!matches(&new_secret(), &h));
    }
}
