//! Game ids and seat secrets: URL-safe, unguessable, and for secrets stored only as a hash and
//! compared in constant time. The id is public (it is the share and watch link); a seat's secret
//! is given once to its holder and is all it takes to act for the seat.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Characters in a game id.
const ID_LEN: usize = 22;
/// Of those, the leading ones that tell when the game was created: 42 bits of milliseconds
/// since 1970 (until the year 2109). The other 15 are random: 90 bits.
const ID_TIME_LEN: usize = 7;
/// The 64 URL-safe characters in ASCII order, so that ids sort as their times do.
const SORTED_ALPHABET: &[u8; 64] =
    b"-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
/// Random bytes in a seat secret: 256 bits.
const SECRET_BYTES: usize = 32;

fn random_token(n: usize) -> String {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).expect("the operating system's random source works");
    URL_SAFE_NO_PAD.encode(buf)
}

/// A new game id (22 URL-safe characters): the game's creation time `at` (Unix milliseconds, its
/// `created_at`), then random characters.
///
/// Why the time first: the store keys a game's turns by its id, so ids made close in time sort
/// close together, and the turns of the games in play share pages of the table and of its
/// cache, instead of each game's turns sitting on a page of their own among every game ever
/// stored. Each commit then writes fewer pages. What the id tells, when the game was created,
/// is little more than the date its record shows to anyone who watches it; the 90 random bits
/// keep ids unguessable.
pub fn new_id(at: i64) -> String {
    let millis = at.max(0) as u64;
    let mut id = [0u8; ID_LEN];
    getrandom::fill(&mut id[ID_TIME_LEN..]).expect("the operating system's random source works");
    for (i, c) in id[..ID_TIME_LEN].iter_mut().enumerate() {
        *c = (millis >> (6 * (ID_TIME_LEN - 1 - i))) as u8;
    }
    id.iter()
        .map(|&b| char::from(SORTED_ALPHABET[usize::from(b & 63)]))
        .collect()
}

/// Whether `s` looks like a game id, so that junk is refused before any lookup.
pub fn is_id(s: &str) -> bool {
    s.len() == ID_LEN
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A new seat secret (43 URL-safe characters).
pub fn new_secret() -> String {
    random_token(SECRET_BYTES)
}

/// The hash stored for a secret: hex SHA-256.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` hashes to `stored`, compared in constant time.
pub fn matches(secret: &str, stored: &str) -> bool {
    hash(secret).as_bytes().ct_eq(stored.as_bytes()).into()
}

/// Random bytes in a one-time hand-off code: 128 bits.
const CODE_BYTES: usize = 16;

/// Whether `s` looks like a hand-off code.
pub fn is_code(s: &str) -> bool {
    s.len() == 22
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A new one-time code that moves a seat to another device (22 URL-safe characters).
pub fn new_code() -> String {
    random_token(CODE_BYTES)
}

/// The key stream that seals a secret under `code`: SHA-256 of the code and a counter, block
/// after block.
fn key_stream(code: &str, len: usize) -> Vec<u8> {
    (0u32..)
        .flat_map(|block| {
            Sha256::new()
                .chain_update(b"merels hand-off seal")
                .chain_update(code.as_bytes())
                .chain_update(block.to_be_bytes())
                .finalize()
        })
        .take(len)
        .collect()
}

/// `secret` sealed under `code`, to be stored beside the code's hash: the store alone then holds
/// no seat, and whoever has the code (and can use it once, for minutes) can open it. The code
/// is random and used once, so the key stream is never reused.
pub fn seal(secret: &str, code: &str) -> String {
    let stream = key_stream(code, secret.len());
    hex::encode(
        secret
            .bytes()
            .zip(stream)
            .map(|(b, k)| b ^ k)
            .collect::<Vec<u8>>(),
    )
}

/// Opens what [`seal`] sealed under `code`; `None` if it does not open to a secret.
pub fn unseal(sealed: &str, code: &str) -> Option<String> {
    let bytes = hex::decode(sealed).ok()?;
    let stream = key_stream(code, bytes.len());
    let opened: Vec<u8> = bytes.iter().zip(stream).map(|(b, k)| b ^ k).collect();
    String::from_utf8(opened).ok()
}

/// Random bytes in a browser's cookie (`merels_browser`): 128 bits.
const BROWSER_BYTES: usize = 16;

/// A new browser cookie's value (22 URL-safe characters).
pub fn new_browser_cookie() -> String {
    random_token(BROWSER_BYTES)
}

/// Whether `s` looks like a browser cookie's value.
pub fn is_browser_cookie(s: &str) -> bool {
    is_code(s)
}

/// A fair coin, for "random colour".
pub fn coin() -> bool {
    getrandom::u64().is_ok_and(|v| v & 1 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_with_its_code_alone() {
        let secret = new_secret();
        let code = new_code();
        assert_eq!(code.len(), 22);
        let sealed = seal(&secret, &code);
        assert!(!sealed.contains(&secret) && sealed.len() == 2 * secret.len());
        assert_eq!(unseal(&sealed, &code).as_deref(), Some(secret.as_str()));
        let other = unseal(&sealed, &new_code());
        assert_ne!(other.as_deref(), Some(secret.as_str()));
        assert_eq!(unseal("not hex", &code), None);
    }

    #[test]
    fn ids_and_secrets_are_random_url_safe_and_hashed() {
        let (a, b) = (new_id(1_796_000_000_000), new_id(1_796_000_000_000));
        assert_ne!(a, b);
        assert!(is_id(&a) && is_id(&b));
        assert!(!is_id("../etc/passwd") && !is_id(""));
        // Ids sort as the times they were made, whatever their random part.
        let times = [
            0,
            1,
            63,
            64,
            1_796_000_000_000,
            1_796_000_000_001,
            (1 << 42) - 1,
        ];
        let ids: Vec<String> = times.iter().map(|&t| new_id(t)).collect();
        assert!(ids.iter().all(|id| is_id(id)));
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert_eq!(&ids[0][..ID_TIME_LEN], "-------");
        assert_ne!(new_id(5)[ID_TIME_LEN..], new_id(5)[ID_TIME_LEN..]);
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
