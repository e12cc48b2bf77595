//! Multipart uploads: reading a form whose fields are known in advance, each with a size cap
//! and the whole request with one too (refusing, never cutting); recognising files by their
//! bytes rather than their claimed type; keeping them under the data dir, and removing them
//! when nothing names them any more. Public images (icons, avatars) are served from
//! `/uploads/public/`; training PDFs are not.

use std::path::{Path, PathBuf};

use actix_multipart::{Field, Multipart};
use actix_web::dev::Payload;
use actix_web::error::PayloadError;
use actix_web::http::header::{HeaderMap, CONTENT_TYPE};
use actix_web::{FromRequest, HttpRequest};
use bytes::Bytes;
use futures_util::future::{ready, Ready};
use futures_util::{Stream, StreamExt};

use crate::error::{ApiError, ApiResult};

/// A multipart form body, taken only with a boundary actix-multipart can parse: with a
/// one-byte boundary its parser slices past the end of a one-byte line and panics (found by
/// `tests/fuzz_decoders.rs`), which would take down the worker with every request on it.
/// Handlers take this instead of `Multipart`.
pub struct Form(pub Multipart);

/// The boundary of a `multipart/*` Content-Type, if it has one.
fn boundary(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    value.split(';').skip(1).find_map(|param| {
        let (name, v) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("boundary").then(|| v.trim().trim_matches('"').to_string())
    })
}

/// A form reader over `stream`, or the refusal for a boundary too short to parse safely.
pub fn multipart<S>(headers: &HeaderMap, stream: S) -> ApiResult<Multipart>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + 'static,
{
    if boundary(headers).is_some_and(|b| b.len() < 2) {
        return Err(ApiError::bad_request("Invalid form data: the multipart boundary is too short"));
    }
    Ok(Multipart::new(headers, stream))
}

impl FromRequest for Form {
    type Error = ApiError;
    type Future = Ready<Result<Form, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        ready(multipart(req.headers(), payload.take()).map(Form))
    }
}

/// One part of a multipart form, read whole.
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub bytes: Vec<u8>,
}

/// What one form may hold: its fields, each at most once and with its own byte cap, and a cap
/// on all of them together. Memory held by one request is bounded by `total`, whatever the
/// client sends (unknown and repeated fields are refused before they are read).
pub struct FormRules<'a> {
    pub fields: &'a [(&'a str, usize)],
    pub total: usize,
}

/// Reads every part. A part over its field's cap is refused with `too_large(name)`; a form
/// over `rules.total` with the form's own 413.
pub async fn read_form(mut form: Multipart, rules: &FormRules<'_>, too_large: impl Fn(&str) -> ApiError) -> ApiResult<Vec<Part>> {
    let mut parts: Vec<Part> = Vec::new();
    let mut used = 0usize;
    while let Some(field) = form.next().await {
        let field = field.map_err(|e| ApiError::bad_request(format!("Invalid form data: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let Some(&(_, field_limit)) = rules.fields.iter().find(|(known, _)| *known == name) else {
            return Err(ApiError::bad_request(format!("Unexpected form field: {name}")));
        };
        if parts.iter().any(|p| p.name == name) {
            return Err(ApiError::bad_request(format!("Field {name} was sent more than once")));
        }
        let filename = field.content_disposition().and_then(|cd| cd.get_filename()).map(str::to_string);
        let room = rules.total.saturating_sub(used);
        let bytes = read_field(field, field_limit.min(room)).await.map_err(|e| match e {
            FieldError::TooLarge if room < field_limit => form_too_large(rules.total),
            FieldError::TooLarge => too_large(&name),
            FieldError::Broken(msg) => ApiError::bad_request(format!("Invalid form data: {msg}")),
        })?;
        used += bytes.len();
        parts.push(Part { name, filename, bytes });
    }
    Ok(parts)
}

fn form_too_large(total: usize) -> ApiError {
    ApiError::too_large(format!("The upload is too large (the limit is {} MB per request)", total.div_ceil(1024 * 1024)))
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

/// Best-effort removal of a file written for a request that then failed, or that nothing
/// names any more.
pub async fn discard(path: PathBuf) {
    let _ = actix_web::web::block(move || std::fs::remove_file(path)).await;
}

/// The file behind a public upload's URL (`/uploads/public/{name}`), if `url` is one: a bare
/// file name, so a stored URL can never point the removal elsewhere.
pub fn public_file(data_dir: &Path, url: &str) -> Option<PathBuf> {
    let name = url.strip_prefix("/uploads/public/")?;
    let plain = !name.is_empty() && !name.starts_with('.') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_');
    plain.then(|| public_dir(data_dir).join(name))
}

/// Removes the public upload `url` names (an icon or avatar that was replaced or whose owner
/// is gone). URLs that are not our uploads (an external picture) are left alone.
pub async fn discard_public(data_dir: &Path, url: Option<&str>) {
    if let Some(path) = url.and_then(|u| public_file(data_dir, u)) {
        discard(path).await;
    }
}

/// The size of a file, 0 when it is gone.
pub async fn file_size(path: PathBuf) -> u64 {
    actix_web::web::block(move || std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)).await.unwrap_or(0)
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

    #[test]
    fn only_our_own_public_uploads_are_ever_removed() {
        let data = Path::new("/data");
        assert_eq!(public_file(data, "/uploads/public/ab12.png"), Some(PathBuf::from("/data/uploads/public/ab12.png")));
        for foreign in ["https://cdn.example/a.png", "/uploads/public/../../parley.db", "/uploads/public/", "/uploads/public/.x.tmp", "/uploads/private/a.pdf", "/uploads/public/a/b.png"] {
            assert_eq!(public_file(data, foreign), None, "{foreign}");
        }
    }
}
