//! The JWT signing secret: configured, or generated once and kept in the data directory so
//! tokens survive a restart. Never a constant in the code.

use std::io::Write;
use std::path::Path;

use base64::Engine as _;
use rand::RngCore;

use crate::{ConfigError, Settings};

const SECRET_FILE: &str = "jwt_secret";

/// Returns the configured secret, or the one stored in `<data_dir>/jwt_secret`, creating it
/// (0600 on Unix) on first start.
pub fn ensure_jwt_secret(settings: &Settings) -> Result<String, ConfigError> {
    if !settings.auth.jwt_secret.is_empty() {
        return Ok(settings.auth.jwt_secret.clone());
    }
    let path = settings.data_dir.join(SECRET_FILE);
    let err = |source| ConfigError::Secret { path: path.clone(), source };
    match std::fs::read_to_string(&path) {
        Ok(existing) if !existing.trim().is_empty() => return Ok(existing.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(e)),
    }
    std::fs::create_dir_all(&settings.data_dir).map_err(err)?;
    let mut bytes = [0u8; 48];
    rand::thread_rng().fill_bytes(&mut bytes);
    let secret = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    write_private(&path, &secret).map_err(err)?;
    Ok(secret)
}

fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_once_then_reused() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Settings::defaults().unwrap();
        s.data_dir = dir.path().join("nested");
        let first = ensure_jwt_secret(&s).unwrap();
        assert!(first.len() >= 60);
        assert_eq!(ensure_jwt_secret(&s).unwrap(), first);
        s.auth.jwt_secret = "configured-configured-configured".into();
        assert_eq!(ensure_jwt_secret(&s).unwrap(), "configured-configured-configured");
    }
}
