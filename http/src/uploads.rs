//! Multipart uploads: reading fields with a size cap (refusing, never cutting), recognising
//! files by their bytes rather than their claimed type, and keeping them under the data dir.
//! Public images (icons, avatars) are served from `/uploads/public/`; training PDFs are not.

use std::path::{Path, PathBuf};

use actix_multipart::{Field, Multipart};
use futures_util::StreamExt;

use crate::error::{ApiError, ApiResult};

/// No form of the product has more than a handful of fields.
const MAX_PARTS: usize = 20;

/// One part of a multipart form, read whole.
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub bytes: Vec<u8>,
}

/// Reads every part. A part over `limit_for(name)` bytes is refused with `too_large(name)`.
pub async fn read_parts(
    mut form: Multipart,
    limit_for: impl Fn(&str) -> usize,
    too_large: impl Fn(&str) -> ApiError,
) -> ApiResult<Vec<Part>> {
    let mut parts = Vec::new();
    while let Some(field) = form.next().await {
        if parts.len() >= MAX_PARTS {
            return Err(ApiError::bad_request("Too many form fields"));
        }
        let field = field.map_err(|e| ApiError::bad_request(format!("Invalid form data: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let filename = field.content_disposition().and_then(|cd| cd.get_filename()).map(str::to_string);
        let limit = limit_for(&name);
        let bytes = read_field(field, limit).await.map_err(|e| match e {
            FieldError::TooLarge => too_large(&name),
            FieldError::Broken(msg) => ApiError::bad_request(format!("Invalid form data: {msg}")),
        })?;
        parts.push(Part { name, filename, bytes });
    }
    Ok(parts)
}

enum FieldError {
    TooLarge,
    Broken(String),
}

async fn read_field(mut field: Field, limit: usize) -> Result<Vec<u8>, FieldError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.next().await {
        let chunk = chunk.map_err(|e| FieldError::Broken(e.to_string()))?;
        if bytes.len() + chunk.len() > limit {
            return Err(FieldError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

pub fn text(part: &Part) -> ApiResult<String> {
    String::from_utf8(part.bytes.clone()).map_err(|_| ApiError::bad_request(format!("Field {} is not text", part.name)))
}

/// Image kinds accepted for icons and avatars, recognised by their first bytes. SVG is not
/// accepted: it can carry script.
pub fn image_extension(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("jpg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("webp")
    } else {
        None
    }
}

pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"%PDF-")
}

pub fn public_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("uploads").join("public")
}

pub fn private_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("uploads").join("private")
}

/// Writes a file under `dir` with a fresh random name and returns that name. The write goes to
/// a temporary name first, so a crash never leaves a half-written file under the real one.
pub async fn save(dir: PathBuf, extension: &str, bytes: Vec<u8>) -> ApiResult<String> {
    let name = format!("{}.{extension}", uuid::Uuid::new_v4().simple());
    let final_path = dir.join(&name);
    let tmp_path = dir.join(format!(".{name}.tmp"));
    actix_web::web::block(move || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(&tmp_path, &bytes)?;
        std::fs::rename(&tmp_path, &final_path)
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?;
    Ok(name)
}

/// Best-effort removal of a file written for a request that then failed.
pub async fn discard(path: PathBuf) {
    let _ = actix_web::web::block(move || std::fs::remove_file(path)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_images_and_pdfs_by_their_bytes() {
        assert_eq!(image_extension(b"\x89PNG\r\n\x1a\nrest"), Some("png"));
        assert_eq!(image_extension(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("jpg"));
        assert_eq!(image_extension(b"RIFF\0\0\0\0WEBPVP8 "), Some("webp"));
        assert_eq!(image_extension(b"<svg onload=alert(1)>"), None);
        assert!(is_pdf(b"%PDF-1.7\n"));
        assert!(!is_pdf(b"PK\x03\x04"));
    }
}
