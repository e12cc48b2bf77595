//! The secrets carried by emailed links (verification, email change, password reset,
//! invitations). A link carries a random secret; the store keeps only its SHA-256, so a leaked
//! database opens no account. Comparing hashes is constant-time, so how long a refusal takes
//! says nothing about how close a guess was.

use base64::Engine as _;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// 32 random bytes, URL-safe.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The hex SHA-256 of a secret, as stored.
pub fn hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// True when `secret` hashes to `stored`, compared in constant time.
pub fn matches(secret: &str, stored: &str) -> bool {
    let computed = hash(secret);
    computed.as_bytes().ct_eq(stored.as_bytes()).into()
}

/// An emailed token is `<row id>.<secret>`: the id finds the row, the secret proves the link.
pub fn compose(id: &str, secret: &str) -> String {
    format!("{id}.{secret}")
}

pub fn split(token: &str) -> Option<(&str, &str)> {
    let (id, secret) = token.trim().split_once('.')?;
    (!id.is_empty() && !secret.is_empty() && id.len() <= 64 && secret.len() <= 128).then_some((id, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_matches_only_its_own_hash() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        assert!(a.len() >= 43);
        assert!(matches(&a, &hash(&a)));
        assert!(!matches(&b, &hash(&a)));
        assert!(!matches(&a, ""));
        assert!(!matches(&a, &hash(&a)[..10]));
    }

    #[test]
    fn tokens_split_into_id_and_secret() {
        let t = compose("row-1", "s3cret");
        assert_eq!(split(&t), Some(("row-1", "s3cret")));
        assert_eq!(split("no-dot"), None);
        assert_eq!(split(".x"), None);
        assert_eq!(split("x."), None);
    }
}
