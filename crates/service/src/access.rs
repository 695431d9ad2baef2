//! Access counting off the recall path.
//!
//! Every recall increments the access count ("heat") of what it returned. Doing that inside the
//! recall made the caller wait for a write transaction (and now and then a WAL checkpoint): at
//! 10k memories it was a third of recall latency (measured). Instead recalls hand their ids to
//! one background writer, which gathers them for up to 25 ms and applies each namespace's in one
//! store call. A flush request is answered at once, without waiting out the window.
//!
//! Increments are never lost while the process lives: each recall's ids are applied exactly once,
//! atomically, by the store's `record_access`. [`AccessRecorder::flush`] waits until everything
//! queued before it is committed; callers that exit (the CLI, a shutting-down server) flush first.
//! A crash can lose the increments still queued, at most ~25 ms worth: heat is a ranking hint,
//! not data.

use std::collections::BTreeMap;
use std::sync::Arc;

use rearview_core::{MemoryId, Namespace, Timestamp};
use rearview_store::MemoryStore;
use tokio::sync::{mpsc, oneshot};

/// Most recalls that may wait in the queue before recalls wait for the writer.
const QUEUE: usize = 4096;
/// Most queued messages applied in one round.
const BATCH: usize = 512;
/// How long the writer gathers further recalls after the first one before committing. One
/// transaction then carries the increments of every recall in that window, so a busy server
/// commits at most ~40 times a second for heat instead of once per recall. It is also the most a
/// crash can lose.
const COALESCE: std::time::Duration = std::time::Duration::from_millis(25);

/// Handle to the background access writer.
#[derive(Debug)]
pub(crate) struct AccessRecorder {
    queue: mpsc::Sender<Message>,
    /// The writer, which holds a handle to the store until the queue closes.
    writer: tokio::task::JoinHandle<()>,
}

#[derive(Debug)]
enum Message {
    Record { namespace: Namespace, ids: Vec<MemoryId>, at: Timestamp },
    Flush(oneshot::Sender<()>),
}

impl AccessRecorder {
    /// Starts the writer task on the current tokio runtime. It ends when the recorder is dropped.
    pub(crate) fn start(store: Arc<dyn MemoryStore>) -> Self {
        let (queue, inbox) = mpsc::channel(QUEUE);
        let writer = tokio::spawn(run(store, inbox));
        Self { queue, writer }
    }

    /// Commits everything queued, then waits until the writer has ended and let go of the store.
    pub(crate) async fn close(self) {
        let Self { queue, writer } = self;
        drop(queue);
        if let Err(e) = writer.await {
            tracing::warn!(error = %e, "the access writer ended abnormally");
        }
    }

    /// Queues one recall's returned ids. Waits only if the queue is full.
    pub(crate) async fn record(&self, namespace: &Namespace, ids: Vec<MemoryId>, at: Timestamp) {
        let message = Message::Record { namespace: namespace.clone(), ids, at };
        if self.queue.send(message).await.is_err() {
            tracing::warn!("access writer has stopped; access counts of this recall are lost");
        }
    }

    /// Returns once every access queued before this call is committed.
    pub(crate) async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.queue.send(Message::Flush(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

async fn run(store: Arc<dyn MemoryStore>, mut inbox: mpsc::Receiver<Message>) {
    let mut batch = Vec::with_capacity(BATCH);
    while let Some(first) = inbox.recv().await {
        let deadline = tokio::time::Instant::now() + COALESCE;
        let mut flush_waiting = matches!(first, Message::Flush(_));
        batch.push(first);
        while batch.len() < BATCH && !flush_waiting {
            match tokio::time::timeout_at(deadline, inbox.recv()).await {
                Ok(Some(message)) => {
                    flush_waiting = matches!(message, Message::Flush(_));
                    batch.push(message);
                }
                Ok(None) | Err(_) => break,
            }
        }
        // Apply all records first, then release the flushes that were queued behind them.
        let mut per_namespace: BTreeMap<Namespace, (Vec<MemoryId>, Timestamp)> = BTreeMap::new();
        let mut flushes = Vec::new();
        for message in batch.drain(..) {
            match message {
                Message::Record { namespace, ids, at } => {
                    let entry = per_namespace.entry(namespace).or_insert_with(|| (Vec::new(), at));
                    entry.0.extend(ids);
                    entry.1 = entry.1.max(at);
                }
                Message::Flush(done) => flushes.push(done),
            }
        }
        for (namespace, (ids, at)) in per_namespace {
            if let Err(e) = store.record_access(&namespace, &ids, at).await {
                tracing::warn!(error = %e, namespace = %namespace, n = ids.len(), "recording access counts failed");
            }
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}
