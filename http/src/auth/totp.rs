//! Time-based one-time codes (TOTP, RFC 6238) as authenticator apps make them: HMAC-SHA1 over
//! the number of 30-second steps since the Unix epoch, six digits, the secret shown to the
//! person in base32. A code is taken one step either side of now, for a phone's clock that is a
//! little off.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use data_encoding::BASE32_NOPAD;
use hmac::{Hmac, Mac};
use rand::RngCore;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Seconds per step (RFC 6238's default, and the only one every app supports).
pub const STEP_SECS: i64 = 30;
pub const DIGITS: u32 = 6;
/// Steps either side of now a code is accepted from.
const WINDOW: i64 = 1;

/// A new secret: 20 random bytes (RFC 4226's recommended length), in base32.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 20];
    rand::thread_rng().fill_bytes(&mut bytes);
    BASE32_NOPAD.encode(&bytes)
}

/// The step `unix_secs` falls in.
pub fn step_at(unix_secs: i64) -> i64 {
    unix_secs.div_euclid(STEP_SECS)
}

/// The code of `step` for `key` (the secret's bytes), `digits` long.
fn code_of(key: &[u8], step: i64, digits: u32) -> Option<String> {
    let mut mac = Hmac::<Sha1>::new_from_slice(key).ok()?;
    mac.update(&step.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    // RFC 4226 §5.3, dynamic truncation: the low nibble of the last byte picks four bytes.
    let offset = usize::from(digest.get(19)? & 0x0f);
    let word = digest.get(offset..offset + 4)?;
    let value = u32::from_be_bytes([word[0] & 0x7f, word[1], word[2], word[3]]);
    Some(format!("{:0width$}", value % 10u32.pow(digits), width = digits as usize))
}

/// The six-digit code of `step` for a base32 `secret`; `None` for a secret that is not base32.
pub fn code(secret: &str, step: i64) -> Option<String> {
    let key = BASE32_NOPAD.decode(secret.as_bytes()).ok()?;
    code_of(&key, step, DIGITS)
}

/// The step whose code `given` is, within the window around `unix_secs`; `None` when it is no
/// code of the window. Spaces and dashes people type between the digits are ignored.
pub fn matching_step(secret: &str, given: &str, unix_secs: i64) -> Option<i64> {
    let given: String = given.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    if given.len() != DIGITS as usize || !given.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let now = step_at(unix_secs);
    // Every step of the window is computed and compared, so how long a refusal takes says
    // nothing about which step came close.
    let mut found = None;
    for step in now - WINDOW..=now + WINDOW {
        let expected = code(secret, step)?;
        if bool::from(expected.as_bytes().ct_eq(given.as_bytes())) && found.is_none() {
            found = Some(step);
        }
    }
    found
}

/// Seals TOTP secrets for the database: ChaCha20-Poly1305 under a key derived from the server's
/// secret, bound to the account's id. A copy of the database alone (a backup, a leak) then gives
/// no one the codes; a row moved to another account does not open. If the server's secret
/// changes, the sealed secrets no longer open: the app's codes stop working and the recovery
/// codes (hashes, not sealed) still sign in, so the owner can set two-factor up again.
pub struct SecretSeal {
    key: [u8; 32],
}

/// The version prefix of a sealed secret.
const SEALED_V1: &str = "v1.";

impl SecretSeal {
    pub fn new(server_secret: &str) -> SecretSeal {
        let mut hasher = Sha256::new();
        hasher.update(b"parley two-factor secrets v1\0");
        hasher.update(server_secret.as_bytes());
        SecretSeal { key: hasher.finalize().into() }
    }

    fn key(&self) -> Option<LessSafeKey> {
        UnboundKey::new(&CHACHA20_POLY1305, &self.key).ok().map(LessSafeKey::new)
    }

    /// `secret` sealed for `user_id`, as stored: `v1.` and base64url of nonce, ciphertext, tag.
    pub fn seal(&self, secret: &str, user_id: &str) -> Option<String> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::thread_rng().fill_bytes(&mut nonce);
        let mut sealed = secret.as_bytes().to_vec();
        self.key()?.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(user_id.as_bytes()), &mut sealed).ok()?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Some(format!("{SEALED_V1}{}", URL_SAFE_NO_PAD.encode(out)))
    }

    /// The secret a stored value seals for `user_id`; `None` when it does not open (another
    /// account's, another server secret's, altered).
    pub fn open(&self, stored: &str, user_id: &str) -> Option<String> {
        let bytes = URL_SAFE_NO_PAD.decode(stored.strip_prefix(SEALED_V1)?).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut sealed = sealed.to_vec();
        let plain = self.key()?.open_in_place(nonce, Aad::from(user_id.as_bytes()), &mut sealed).ok()?;
        String::from_utf8(plain.to_vec()).ok()
    }
}

/// The `otpauth://` address an authenticator app reads from the set-up QR code.
pub fn otpauth_url(issuer: &str, account: &str, secret: &str) -> String {
    let escape = |s: &str| -> String { url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20") };
    format!(
        "otpauth://totp/{}:{}?secret={secret}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECS}",
        escape(issuer),
        escape(account),
        escape(issuer)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1: the secret "12345678901234567890", eight digits.
    #[test]
    fn codes_match_the_rfc_test_vectors() {
        let key = b"12345678901234567890";
        for (secs, expected) in [
            (59, "94287082"),
            (1_111_111_109, "07081804"),
            (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"),
            (20_000_000_000, "65353130"),
        ] {
            assert_eq!(code_of(key, step_at(secs), 8).as_deref(), Some(expected), "at {secs}");
        }
        // Six digits are the last six of those.
        let secret = BASE32_NOPAD.encode(key);
        assert_eq!(code(&secret, step_at(59)).as_deref(), Some("287082"));
    }

    #[test]
    fn a_code_is_taken_one_step_either_side_and_no_further() {
        let secret = new_secret();
        let now = 1_700_000_000;
        let at = |offset: i64| code(&secret, step_at(now) + offset).unwrap();
        assert_eq!(matching_step(&secret, &at(0), now), Some(step_at(now)));
        assert_eq!(matching_step(&secret, &at(-1), now), Some(step_at(now) - 1));
        assert_eq!(matching_step(&secret, &at(1), now), Some(step_at(now) + 1));
        let far = at(3);
        if far != at(0) && far != at(-1) && far != at(1) {
            assert_eq!(matching_step(&secret, &far, now), None);
        }
        let spaced = format!("{} {}", &at(0)[..3], &at(0)[3..]);
        assert_eq!(matching_step(&secret, &spaced, now), Some(step_at(now)), "spaces are ignored");
        for bad in ["", "12345", "1234567", "abcdef", "12345a"] {
            assert_eq!(matching_step(&secret, bad, now), None, "{bad:?}");
        }
        assert_eq!(matching_step("not base32!", "123456", now), None);
    }

    #[test]
    fn sealed_secrets_open_only_for_their_account_and_server_secret() {
        let seal = SecretSeal::new("server-secret-of-at-least-32-characters");
        let secret = new_secret();
        let stored = seal.seal(&secret, "user-1").unwrap();
        assert!(stored.starts_with("v1.") && !stored.contains(&secret), "{stored}");
        assert_ne!(seal.seal(&secret, "user-1").unwrap(), stored, "a fresh nonce each time");
        assert_eq!(seal.open(&stored, "user-1").as_deref(), Some(secret.as_str()));
        assert_eq!(seal.open(&stored, "user-2"), None, "another account's row");
        assert_eq!(SecretSeal::new("another-server-secret-of-32-characters").open(&stored, "user-1"), None);
        let mut altered = stored.clone().into_bytes();
        let last = altered.len() - 3;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(seal.open(&String::from_utf8(altered).unwrap(), "user-1"), None, "altered");
        for junk in ["", "v1.", "v1.AAAA", &secret] {
            assert_eq!(seal.open(junk, "user-1"), None, "{junk:?}");
        }
    }

    #[test]
    fn secrets_are_base32_of_twenty_bytes_and_the_url_names_them() {
        let secret = new_secret();
        assert_eq!(BASE32_NOPAD.decode(secret.as_bytes()).unwrap().len(), 20);
        assert_ne!(secret, new_secret());
        let url = otpauth_url("Parley", "ann@example.com", &secret);
        assert!(url.starts_with("otpauth://totp/Parley:ann%40example.com?secret="), "{url}");
        assert!(url.contains(&format!("secret={secret}&issuer=Parley")), "{url}");
    }
}
