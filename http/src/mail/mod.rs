//! Outgoing mail. A handler writes a mail to the store's outbox (`Outbox::send`) and returns;
//! the sender task (`spawn_sender`) delivers it through the transport with retries and
//! backoff, so a mail server that is down or slow never fails or slows the request.

pub mod templates;
mod transport;

use std::sync::Arc;
use std::time::Duration;

use parley_config::Settings;
use parley_store::mail::NewMail;
use parley_store::models::OutboxMail;
use parley_store::{time, Store};
use tokio::sync::Notify;

pub use templates::Template;
pub use transport::Transport;

use crate::error::ApiResult;

/// Mail read from the outbox per round.
const BATCH: i64 = 20;
/// How long a claimed mail is left to its sender before another may try it.
const LEASE: chrono::Duration = chrono::Duration::minutes(5);
/// Longest sleep between looks at the outbox (mail written by another node is seen by then).
const IDLE: Duration = Duration::from_secs(30);
const FIRST_RETRY_SECS: i64 = 5;
const MAX_RETRY_SECS: i64 = 3600;

/// Writes mail for the sender; cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    store: Store,
    wake: Arc<Notify>,
    public_base: Arc<str>,
}

impl Outbox {
    pub fn new(store: Store, public_base: &str) -> Outbox {
        Outbox { store, wake: Arc::new(Notify::new()), public_base: public_base.trim_end_matches('/').into() }
    }

    /// An absolute link to `path_and_query` on this server, as people reach it.
    pub fn link(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.public_base)
    }

    /// Queues a mail and wakes the sender. Fails only if the database does.
    pub async fn send(&self, to: &str, template: Template, link: Option<String>) -> ApiResult<()> {
        self.store
            .enqueue_mail(NewMail { to: to.to_string(), subject: template.subject, text: template.text, html: template.html, link })
            .await?;
        self.wake.notify_one();
        Ok(())
    }

    /// Tells the sender that mail was queued by other means (the store wrote it in a
    /// transaction of its own, as the weekly report does).
    pub fn wake_sender(&self) {
        self.wake.notify_one();
    }
}

/// The delay before attempt `attempts + 1`, after `attempts` failures: 5 s, doubling, an hour
/// at most.
pub fn backoff(attempts: i32) -> chrono::Duration {
    let exp = u32::try_from(attempts.saturating_sub(1).max(0)).unwrap_or(0).min(20);
    chrono::Duration::seconds((FIRST_RETRY_SECS << exp).min(MAX_RETRY_SECS))
}

/// Starts the task that drains the outbox for as long as the process runs.
pub fn spawn_sender(outbox: &Outbox, transport: Transport, settings: &Settings) {
    let store = outbox.store.clone();
    let wake = outbox.wake.clone();
    let from = settings.smtp.from.clone();
    let max_attempts = i32::try_from(settings.smtp.max_attempts).unwrap_or(i32::MAX).max(1);
    if transport.is_files() {
        tracing::info!("no SMTP server configured (smtp.url): mail is written to {}", settings.outbox_dir().display());
    }
    actix_web::rt::spawn(async move {
        loop {
            let wait = match send_due(&store, &transport, &from, max_attempts).await {
                // The database is unreachable: look again in a while.
                Err(e) => {
                    tracing::error!("mail outbox: {e}");
                    Duration::from_secs(2)
                }
                Ok(()) => match store.next_mail_due().await {
                    Ok(Some(at)) => (at - time::now()).to_std().unwrap_or(Duration::ZERO).min(IDLE),
                    Ok(None) | Err(_) => IDLE,
                },
            };
            // Due again already (a burst larger than one batch): a short pause, never a spin.
            let wait = wait.max(Duration::from_millis(50));
            tokio::select! {
                _ = wake.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
}

async fn send_due(store: &Store, transport: &Transport, from: &str, max_attempts: i32) -> Result<(), parley_store::StoreError> {
    let now = time::now();
    for mail in store.due_mail(now, BATCH).await? {
        if !store.claim_mail(&mail, now + LEASE).await? {
            continue;
        }
        deliver(store, transport, from, max_attempts, &mail).await?;
    }
    Ok(())
}

async fn deliver(store: &Store, transport: &Transport, from: &str, max_attempts: i32, mail: &OutboxMail) -> Result<(), parley_store::StoreError> {
    match transport.send(from, mail).await {
        Ok(file) => {
            store.mail_sent(&mail.id).await?;
            match file {
                Some(file) => tracing::info!(
                    to = %mail.to_address,
                    subject = %mail.subject,
                    link = mail.link.as_deref().unwrap_or("-"),
                    "mail written to {} (no SMTP server configured)",
                    file.display()
                ),
                None => tracing::debug!(to = %mail.to_address, subject = %mail.subject, "mail sent"),
            }
        }
        Err(error) => {
            let attempts = mail.attempts.saturating_add(1);
            if attempts >= max_attempts {
                tracing::error!(to = %mail.to_address, subject = %mail.subject, "giving up on a mail after {attempts} attempts: {error}");
                store.mail_attempt_failed(&mail.id, &error, None).await?;
            } else {
                let retry_at = time::now() + backoff(attempts);
                tracing::warn!(to = %mail.to_address, subject = %mail.subject, "sending a mail failed (attempt {attempts}), retrying at {retry_at}: {error}");
                store.mail_attempt_failed(&mail.id, &error, Some(retry_at)).await?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_to_an_hour() {
        assert_eq!(backoff(1).num_seconds(), 5);
        assert_eq!(backoff(2).num_seconds(), 10);
        assert_eq!(backoff(3).num_seconds(), 20);
        assert_eq!(backoff(30).num_seconds(), 3600);
        assert_eq!(backoff(0).num_seconds(), 5);
    }
}
