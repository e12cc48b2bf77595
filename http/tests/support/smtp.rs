//! A small SMTP server on loopback for the tests: it speaks enough of RFC 5321 for lettre
//! (EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT), keeps what it receives, and can be told to
//! refuse mail for a while (a server that is down) to exercise retries.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

#[derive(Debug, Clone)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    pub data: String,
}

impl Received {
    pub fn subject(&self) -> String {
        header(&self.data, "Subject").unwrap_or_default()
    }

    /// The decoded text/plain part.
    pub fn text(&self) -> String {
        part(&self.data, "text/plain")
    }

    pub fn html(&self) -> String {
        part(&self.data, "text/html")
    }

    /// The first link in the text that starts with `prefix` (e.g. the server's base + path).
    pub fn link(&self, prefix: &str) -> Option<String> {
        let text = self.text();
        let start = text.find(prefix)?;
        let rest = text.get(start..)?;
        let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
        rest.get(..end).map(str::to_string)
    }
}

fn header(data: &str, name: &str) -> Option<String> {
    let prefix = format!("{name}: ");
    data.split("\r\n").find_map(|l| l.strip_prefix(prefix.as_str())).map(str::to_string)
}

fn part(data: &str, content_type: &str) -> String {
    let Some(at) = data.find(&format!("Content-Type: {content_type}")) else { return String::new() };
    let after = &data[at..];
    let qp = after.split("\r\n\r\n").next().is_some_and(|h| h.contains("quoted-printable"));
    let Some(body_at) = after.find("\r\n\r\n") else { return String::new() };
    let body = &after[body_at + 4..];
    let body = &body[..body.find("\r\n--").unwrap_or(body.len())];
    if qp { qp_decode(body) } else { body.to_string() }
}

pub fn qp_decode(s: &str) -> String {
    let joined = s.replace("=\r\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            if let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Clone)]
pub struct SmtpServer {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    refusing: Arc<AtomicBool>,
    pub refused: Arc<AtomicUsize>,
}

impl SmtpServer {
    pub async fn start() -> SmtpServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind smtp");
        let port = listener.local_addr().expect("addr").port();
        let server = SmtpServer { port, received: Arc::default(), refusing: Arc::default(), refused: Arc::default() };
        let s = server.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let s = s.clone();
                tokio::spawn(async move {
                    let _ = s.serve(stream).await;
                });
            }
        });
        server
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// A settings tweak that sends the app's mail here (plain SMTP on loopback); call it from
    /// `TestApp::spawn_with`'s tweak, or pass it as the tweak.
    pub fn route(&self) -> impl Fn(&mut parley_config::Settings) + Send + 'static {
        let url = self.url();
        move |s| {
            s.smtp.url = url.clone();
            s.smtp.tls = parley_config::SmtpTls::None;
        }
    }

    /// While on, every MAIL command gets a temporary failure (451).
    pub fn refuse(&self, on: bool) {
        self.refusing.store(on, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    pub fn to(&self, address: &str) -> Vec<Received> {
        self.received().into_iter().filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(address))).collect()
    }

    /// Waits for the `n`-th mail to `address` (1-based) and returns it.
    pub async fn wait_for(&self, address: &str, n: usize) -> Received {
        for _ in 0..500 {
            let mails = self.to(address);
            if mails.len() >= n {
                return mails[n - 1].clone();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("no mail #{n} to {address} within 10 s (got {:?})", self.received().iter().map(|m| (&m.to, m.subject())).collect::<Vec<_>>());
    }

    async fn serve(&self, stream: tokio::net::TcpStream) -> std::io::Result<()> {
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read);
        write.write_all(b"220 localhost test SMTP\r\n").await?;
        let (mut from, mut to) = (String::new(), Vec::new());
        let mut line = String::new();
        loop {
            line.clear();
            if lines.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let command = line.trim_end().to_string();
            let upper = command.to_ascii_uppercase();
            if upper.starts_with("EHLO") || upper.starts_with("HELO") {
                write.write_all(b"250-localhost\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n").await?;
            } else if upper.starts_with("MAIL FROM:") {
                if self.refusing.load(Ordering::SeqCst) {
                    self.refused.fetch_add(1, Ordering::SeqCst);
                    write.write_all(b"451 4.3.0 try again later\r\n").await?;
                    continue;
                }
                from = address_in(&command);
                to.clear();
                write.write_all(b"250 OK\r\n").await?;
            } else if upper.starts_with("RCPT TO:") {
                to.push(address_in(&command));
                write.write_all(b"250 OK\r\n").await?;
            } else if upper == "DATA" {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                    data.push_str(unstuffed);
                }
                self.received.lock().unwrap().push(Received { from: from.clone(), to: to.clone(), data });
                write.write_all(b"250 OK queued\r\n").await?;
            } else if upper == "QUIT" {
                write.write_all(b"221 bye\r\n").await?;
                return Ok(());
            } else {
                // RSET, NOOP and anything else.
                write.write_all(b"250 OK\r\n").await?;
            }
        }
    }
}

fn address_in(command: &str) -> String {
    let start = command.find('<').map(|i| i + 1).unwrap_or(0);
    let end = command.rfind('>').unwrap_or(command.len());
    command.get(start..end).unwrap_or("").to_string()
}
