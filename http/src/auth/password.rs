//! argon2id password hashes. Hashing is deliberately slow, so it runs on the blocking pool.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::error::{ApiError, ApiResult};

pub async fn hash(password: &str) -> ApiResult<String> {
    let password = password.to_string();
    actix_web::web::block(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::internal(format!("hashing: {e}")))
    })
    .await
    .map_err(ApiError::internal)?
}

/// True when `password` matches `stored`; a malformed stored hash never matches.
pub async fn verify(password: &str, stored: &str) -> ApiResult<bool> {
    let password = password.to_string();
    let stored = stored.to_string();
    actix_web::web::block(move || match PasswordHash::new(&stored) {
        Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
        Err(_) => false,
    })
    .await
    .map_err(ApiError::internal)
}

/// Verifies against a hash made at start-up when the email is unknown, so an unknown email
/// costs the same time as a wrong password and sign-in does not reveal which accounts exist.
pub async fn dummy_verify(password: &str, dummy_hash: &str) {
    let _ = verify(password, dummy_hash).await;
}

#[cfg(test)]
mod tests {
    #[actix_web::test]
    async fn round_trip() {
        let h = super::hash("correct horse").await.unwrap();
        assert!(super::verify("correct horse", &h).await.unwrap());
        assert!(!super::verify("wrong horse", &h).await.unwrap());
        assert!(!super::verify("x", "not a hash").await.unwrap());
    }
}
