//! Where mail goes: an SMTP server (lettre, async on tokio, TLS through rustls), or, with no
//! server configured, `.eml` files in `<data_dir>/outbox/`.

use std::path::PathBuf;
use std::time::Duration;

use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use parley_config::{Settings, SmtpTls};
use parley_store::models::OutboxMail;

pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Files { dir: PathBuf, transport: AsyncFileTransport<Tokio1Executor> },
}

/// `%XX` sequences of a URL's user or password decoded.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            if let Some(v) = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Transport {
    pub fn from_settings(settings: &Settings) -> Result<Transport, String> {
        let smtp = &settings.smtp;
        if !smtp.is_configured() {
            let dir = settings.outbox_dir();
            let transport = AsyncFileTransport::<Tokio1Executor>::new(&dir);
            return Ok(Transport::Files { dir, transport });
        }
        let url = url::Url::parse(smtp.url.trim()).map_err(|e| format!("smtp.url: {e}"))?;
        let host = url.host_str().ok_or("smtp.url has no host")?.to_string();
        let mode = if url.scheme() == "smtps" { SmtpTls::Tls } else { smtp.tls };
        let params = || TlsParameters::new(host.clone()).map_err(|e| format!("smtp tls: {e}"));
        let (tls, default_port) = match mode {
            SmtpTls::Starttls => (Tls::Required(params()?), 587),
            SmtpTls::Tls => (Tls::Wrapper(params()?), 465),
            SmtpTls::Opportunistic => (Tls::Opportunistic(params()?), 587),
            SmtpTls::None => (Tls::None, 25),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host.as_str())
            .port(url.port().unwrap_or(default_port))
            .tls(tls)
            .timeout(Some(Duration::from_secs(smtp.timeout_secs.max(1))));
        if !url.username().is_empty() {
            let password = url.password().map(percent_decode).unwrap_or_default();
            builder = builder.credentials(Credentials::new(percent_decode(url.username()), password));
        }
        Ok(Transport::Smtp(builder.build()))
    }

    pub fn is_files(&self) -> bool {
        matches!(self, Transport::Files { .. })
    }

    /// Sends one outbox mail; `Ok` carries where it went (the file, for the file transport).
    pub async fn send(&self, from: &str, mail: &OutboxMail) -> Result<Option<PathBuf>, String> {
        let message = build(from, mail)?;
        match self {
            Transport::Smtp(smtp) => smtp.send(message).await.map(|_| None).map_err(|e| e.to_string()),
            Transport::Files { dir, transport } => {
                tokio::fs::create_dir_all(dir).await.map_err(|e| format!("{}: {e}", dir.display()))?;
                let id = transport.send(message).await.map_err(|e| e.to_string())?;
                Ok(Some(dir.join(format!("{id}.eml"))))
            }
        }
    }
}

fn build(from: &str, mail: &OutboxMail) -> Result<Message, String> {
    let from: Mailbox = from.parse().map_err(|e| format!("smtp.from {from:?}: {e}"))?;
    let to: Mailbox = mail.to_address.parse().map_err(|e| format!("recipient {:?}: {e}", mail.to_address))?;
    // Quoted-printable always: long links survive any relay, and the encoding is predictable.
    let encode = |s: &str| {
        Body::new_with_encoding(s.to_string(), ContentTransferEncoding::QuotedPrintable).map_err(|_| "mail body cannot be encoded".to_string())
    };
    Message::builder()
        .from(from)
        .to(to)
        .subject(mail.subject.clone())
        .multipart(
            MultiPart::alternative()
                .singlepart(SinglePart::builder().header(ContentType::TEXT_PLAIN).body(encode(&mail.text_body)?))
                .singlepart(SinglePart::builder().header(ContentType::TEXT_HTML).body(encode(&mail.html_body)?)),
        )
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_the_url_are_decoded() {
        assert_eq!(percent_decode("p%40ss%2Fword"), "p@ss/word");
        assert_eq!(percent_decode("plain"), "plain");
        assert_eq!(percent_decode("bad%zz"), "bad%zz");
    }
}
