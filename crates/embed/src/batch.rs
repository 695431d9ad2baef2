//! Batching the embeddings of concurrent requests.
//!
//! Every store and recall embeds one text. Served one at a time, 32 concurrent clients queue
//! behind each other and the model runs at its single-text speed; the local encoder embeds 90
//! texts/s in batches against 60 one by one (and a remote API counts requests). A
//! [`BatchingEmbedder`] puts every request in one queue served by one task: while the model works
//! on a batch, new requests wait, and the next batch takes all of them (up to
//! [`MAX_BATCH_TEXTS`]). A lone request goes at once: nothing waits for a batch to fill.

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use rearview_core::Embedding;
use tokio::sync::{mpsc, oneshot};

use crate::{EmbedError, Embedder, TextKind};

/// Most texts one batch takes from the queue (a bound on how long its last request waits).
pub const MAX_BATCH_TEXTS: usize = 64;

/// One request waiting in the queue.
struct Job {
    texts: Vec<String>,
    kind: TextKind,
    reply: oneshot::Sender<Result<Vec<Embedding>, EmbedError>>,
}

/// An [`Embedder`] that batches the texts of concurrent calls into one call of `inner`. Results
/// are exactly `inner`'s, per caller, in order. If a batch fails, each request is retried on its
/// own, so one bad text never fails its neighbours.
pub struct BatchingEmbedder {
    inner: Arc<dyn Embedder>,
    /// The queue, created with its task on first use (inside the caller's runtime).
    queue: OnceLock<mpsc::UnboundedSender<Job>>,
}

impl std::fmt::Debug for BatchingEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchingEmbedder").field("model_id", &self.inner.model_id()).finish()
    }
}

impl BatchingEmbedder {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Embedder>) -> Self {
        Self { inner, queue: OnceLock::new() }
    }

    fn queue(&self) -> &mpsc::UnboundedSender<Job> {
        self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(serve(Arc::clone(&self.inner), rx));
            tx
        })
    }
}

#[async_trait]
impl Embedder for BatchingEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(&self, texts: &[String], kind: TextKind) -> Result<Vec<Embedding>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = oneshot::channel();
        let job = Job { texts: texts.to_vec(), kind, reply };
        let gone = || EmbedError::Unavailable { message: "the embedding queue stopped".into() };
        self.queue().send(job).map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }
}

/// The queue's task: takes everything waiting, embeds it per text kind, answers each request.
/// Ends when the embedder (the sender) is dropped.
async fn serve(inner: Arc<dyn Embedder>, mut queue: mpsc::UnboundedReceiver<Job>) {
    while let Some(first) = queue.recv().await {
        let mut texts = first.texts.len();
        let mut jobs = vec![first];
        while texts < MAX_BATCH_TEXTS {
            let Ok(job) = queue.try_recv() else { break };
            texts += job.texts.len();
            jobs.push(job);
        }
        for kind in [TextKind::Query, TextKind::Passage] {
            let group: Vec<Job> = jobs.extract_if(.., |job| job.kind == kind).collect();
            if !group.is_empty() {
                embed_group(inner.as_ref(), kind, group).await;
            }
        }
    }
}

/// Embeds the texts of `group` in one call and hands each request its vectors.
async fn embed_group(inner: &dyn Embedder, kind: TextKind, group: Vec<Job>) {
    if group.len() > 1 {
        let all: Vec<String> = group.iter().flat_map(|job| job.texts.iter().cloned()).collect();
        match inner.embed(&all, kind).await {
            Ok(mut vectors) if vectors.len() == all.len() => {
                for job in group.into_iter().rev() {
                    let mine = vectors.split_off(vectors.len() - job.texts.len());
                    // The caller may have given up (a dropped request); nothing to do then.
                    let _ = job.reply.send(Ok(mine));
                }
                return;
            }
            // The model or endpoint is down: retrying each request would only queue every
            // caller behind one time-out per request. All of them get the batch's answer.
            Err(EmbedError::Unavailable { message }) => {
                for job in group {
                    let message = message.clone();
                    let _ = job.reply.send(Err(EmbedError::Unavailable { message }));
                }
                return;
            }
            _ => {}
        }
    }
    // A text the model refused fails only its own request: the rest are embedded one by one.
    for job in group.into_iter().filter(|job| !job.reply.is_closed()) {
        let answer = inner.embed(&job.texts, kind).await;
        let _ = job.reply.send(answer);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::TestEmbedder;

    /// Counts calls and texts; the first call is slow, so that others queue behind it; a text
    /// "poison" fails the whole call it is in.
    struct Counting {
        inner: TestEmbedder,
        calls: AtomicUsize,
    }

    #[async_trait]
    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            self.inner.model_id()
        }
        fn dimensions(&self) -> usize {
            self.inner.dimensions()
        }
        async fn embed(
            &self,
            texts: &[String],
            kind: TextKind,
        ) -> Result<Vec<Embedding>, EmbedError> {
            if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            if texts.iter().any(|t| t == "poison") {
                return Err(EmbedError::BadOutput { message: "poisoned".into() });
            }
            if texts.iter().any(|t| t.starts_with("down")) {
                return Err(EmbedError::Unavailable { message: "endpoint down".into() });
            }
            self.inner.embed(texts, kind).await
        }
    }

    fn slow_first() -> Arc<Counting> {
        Arc::new(Counting { inner: TestEmbedder::new(64), calls: 0.into() })
    }

    /// Runs `requests` at once through one batching embedder; each answer as vectors' slices.
    async fn all_at_once(
        batching: &Arc<BatchingEmbedder>,
        requests: Vec<(Vec<String>, TextKind)>,
    ) -> Vec<Result<Vec<Vec<f32>>, EmbedError>> {
        let tasks: Vec<_> = requests
            .into_iter()
            .map(|(texts, kind)| {
                let batching = Arc::clone(batching);
                tokio::spawn(async move {
                    let got = batching.embed(&texts, kind).await?;
                    Ok(got.iter().map(|e| e.as_slice().to_vec()).collect())
                })
            })
            .collect();
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.unwrap());
        }
        out
    }

    async fn reference(texts: &[String], kind: TextKind) -> Vec<Vec<f32>> {
        let got = TestEmbedder::new(64).embed(texts, kind).await.unwrap();
        got.iter().map(|e| e.as_slice().to_vec()).collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_share_calls_and_get_their_own_vectors() {
        let counting = slow_first();
        let batching = Arc::new(BatchingEmbedder::new(counting.clone()));
        let requests: Vec<(Vec<String>, TextKind)> = (0..24)
            .map(|i| {
                let kind = if i % 3 == 0 { TextKind::Passage } else { TextKind::Query };
                ((0..=i % 2).map(|j| format!("request {i} text {j}")).collect(), kind)
            })
            .collect();
        let answers = all_at_once(&batching, requests.clone()).await;
        for ((texts, kind), answer) in requests.iter().zip(answers) {
            assert_eq!(answer.unwrap(), reference(texts, *kind).await, "{texts:?}");
        }
        let calls = counting.calls.load(Ordering::SeqCst);
        assert!(calls <= 4, "24 requests behind a slow first call took {calls} calls");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_text_fails_only_its_own_request() {
        let batching = Arc::new(BatchingEmbedder::new(slow_first()));
        let mut requests = vec![(vec!["warm-up".to_owned()], TextKind::Query)];
        requests.push((vec!["poison".to_owned()], TextKind::Query));
        requests.extend((0..4).map(|i| (vec![format!("fine {i}")], TextKind::Query)));
        let answers = all_at_once(&batching, requests.clone()).await;
        assert!(matches!(answers[1], Err(EmbedError::BadOutput { .. })), "{:?}", answers[1]);
        for (i, answer) in answers.iter().enumerate().filter(|(i, _)| *i != 1) {
            let (texts, kind) = &requests[i];
            assert_eq!(answer.as_ref().unwrap(), &reference(texts, *kind).await);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unavailable_model_fails_the_batch_once_not_request_by_request() {
        let counting = slow_first();
        let batching = Arc::new(BatchingEmbedder::new(counting.clone()));
        let requests: Vec<_> =
            (0..8).map(|i| (vec![format!("down {i}")], TextKind::Query)).collect();
        let answers = all_at_once(&batching, requests).await;
        assert!(answers.iter().all(|a| matches!(a, Err(EmbedError::Unavailable { .. }))));
        let calls = counting.calls.load(Ordering::SeqCst);
        assert!(calls <= 3, "8 requests to a down model took {calls} calls");
    }
}
