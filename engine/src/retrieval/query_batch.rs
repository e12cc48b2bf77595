//! Visitors' questions embedded together. On the CPU, one forward pass over 8–16 short questions
//! costs about 4.6 ms per question against 12 ms for one alone (all-MiniLM-L6-v2, 2 cores), and
//! the model already spreads one pass over every core, so questions that each took a blocking
//! thread of their own competed for the same cores at the higher price. One thread owns the
//! model for questions: it embeds whatever has queued while its last pass ran, in one pass. A
//! lone question is embedded at once, so a quiet bot waits no longer than before.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::embed::{EmbedError, Embedder};

/// Most questions in one pass (the embedder cuts them into its own batches of similar length).
const MAX_QUESTIONS: usize = 32;

/// Questions waiting for the thread; a caller past this waits for room (every chat turn is
/// bounded upstream, so this is a backstop, not a limit anyone meets).
const QUEUE: usize = 1024;

struct Ask {
    text: String,
    reply: oneshot::Sender<Result<Vec<f32>, EmbedError>>,
}

/// The sending side of the question thread; the thread ends when this is dropped.
pub struct QueryBatcher {
    tx: Option<mpsc::Sender<Ask>>,
    /// Used directly, on the blocking pool, if the thread could not be started.
    embedder: Arc<dyn Embedder>,
}

impl std::fmt::Debug for QueryBatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryBatcher").field("batched", &self.tx.is_some()).finish_non_exhaustive()
    }
}

impl QueryBatcher {
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        let model = Arc::clone(&embedder);
        let started = std::thread::Builder::new().name("parley-questions".into()).spawn(move || run(model.as_ref(), rx));
        let tx = match started {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::warn!(error = %e, "question embedding thread did not start; each question is embedded alone");
                None
            }
        };
        Self { tx, embedder }
    }

    /// The question's unit vector.
    pub async fn embed(&self, text: String) -> Result<Vec<f32>, EmbedError> {
        if let Some(tx) = &self.tx {
            let (reply, answer) = oneshot::channel();
            if tx.send(Ask { text, reply }).await.is_ok() {
                return answer.await.unwrap_or_else(|_| Err(EmbedError::Model("the question thread stopped".into())));
            }
            return Err(EmbedError::Model("the question thread stopped".into()));
        }
        let embedder = Arc::clone(&self.embedder);
        let mut vectors = tokio::task::spawn_blocking(move || embedder.embed(std::slice::from_ref(&text)))
            .await
            .map_err(|e| EmbedError::Model(e.to_string()))??;
        vectors.pop().ok_or_else(|| EmbedError::Model("no vector for the question".into()))
    }
}

/// The thread: takes the first question waiting and every other one queued behind it (up to
/// `MAX_QUESTIONS`), embeds them in one call and answers each.
fn run(embedder: &dyn Embedder, mut rx: mpsc::Receiver<Ask>) {
    while let Some(first) = rx.blocking_recv() {
        let mut asks = vec![first];
        while asks.len() < MAX_QUESTIONS {
            match rx.try_recv() {
                Ok(ask) => asks.push(ask),
                Err(_) => break,
            }
        }
        let texts: Vec<String> = asks.iter_mut().map(|a| std::mem::take(&mut a.text)).collect();
        match embedder.embed(&texts) {
            Ok(vectors) if vectors.len() == asks.len() => {
                for (ask, vector) in asks.into_iter().zip(vectors) {
                    let _ = ask.reply.send(Ok(vector));
                }
            }
            Ok(vectors) => {
                let e = EmbedError::Model(format!("{} vectors for {} questions", vectors.len(), asks.len()));
                for ask in asks {
                    let _ = ask.reply.send(Err(e.clone()));
                }
            }
            Err(e) => {
                for ask in asks {
                    let _ = ask.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;

    /// Records the size of every call; slow enough that questions queue behind a pass.
    #[derive(Default)]
    struct Recorder {
        calls: Mutex<Vec<usize>>,
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl Embedder for Recorder {
        fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            self.calls.lock().unwrap().push(texts.len());
            std::thread::sleep(Duration::from_millis(20));
            self.running.fetch_sub(1, Ordering::SeqCst);
            if texts.iter().any(|t| t == "fail") {
                return Err(EmbedError::Model("broken".into()));
            }
            Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect())
        }

        fn dims(&self) -> usize {
            2
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn questions_asked_together_share_passes_and_each_gets_its_own_vector() {
        let model = Arc::new(Recorder::default());
        let batcher = Arc::new(QueryBatcher::new(model.clone()));
        let asks: Vec<_> = (0..20)
            .map(|i| {
                let b = Arc::clone(&batcher);
                tokio::spawn(async move { (i, b.embed("q".repeat(i + 1)).await) })
            })
            .collect();
        for ask in asks {
            let (i, got) = ask.await.unwrap();
            assert_eq!(got.unwrap(), vec![(i + 1) as f32, 1.0], "question {i} got its own vector");
        }
        let calls = model.calls.lock().unwrap().clone();
        assert_eq!(calls.iter().sum::<usize>(), 20);
        assert!(calls.len() < 20, "questions queued behind a pass share the next: {calls:?}");
        assert_eq!(model.most.load(Ordering::SeqCst), 1, "one pass at a time");

        // A lone question goes at once, alone; a failing pass fails only its own questions.
        assert_eq!(batcher.embed("abc".into()).await.unwrap(), vec![3.0, 1.0]);
        assert!(batcher.embed("fail".into()).await.is_err());
        assert_eq!(batcher.embed("ok".into()).await.unwrap(), vec![2.0, 1.0]);
    }
}
