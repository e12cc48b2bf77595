//! The per-user disk quota for uploads (`uploads.quota_bytes_per_user`). A user's uploads are
//! the training PDFs and icons of the bots they own, and their avatar; an upload into a bot
//! counts against the bot's owner, whoever sends it. Checked before a file is written.
//!
//! Two uploads racing may both pass and overshoot by one file each: the quota bounds the disk
//! a user can fill, it is not billing.

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::uploads;

/// Refuses an upload of `adding` bytes that would take `owner_id` over their quota.
pub async fn check(state: &AppState, owner_id: &str, adding: usize) -> ApiResult<()> {
    let quota = state.settings.uploads.quota_bytes_per_user;
    if quota == 0 {
        return Ok(());
    }
    let used = used_bytes(state, owner_id).await?;
    let adding = u64::try_from(adding).unwrap_or(u64::MAX);
    if used.saturating_add(adding) > quota {
        return Err(ApiError::new(
            actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
            "quota_exceeded",
            format!("The storage for uploaded files is full (the limit is {} MB). Delete some files and try again.", quota.div_ceil(1024 * 1024)),
        ));
    }
    Ok(())
}

/// What `owner_id`'s uploads take on disk now.
pub async fn used_bytes(state: &AppState, owner_id: &str) -> ApiResult<u64> {
    let footprint = state.store.upload_footprint(owner_id).await?;
    let mut used = footprint.pdf_bytes;
    for url in &footprint.pictures {
        if let Some(path) = uploads::public_file(&state.settings.data_dir, url) {
            used = used.saturating_add(uploads::file_size(path).await);
        }
    }
    Ok(used)
}
