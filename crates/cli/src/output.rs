//! Everything the CLI prints. The one module allowed to write to stdout.
#![expect(
    clippy::print_stderr,
    reason = "CLI error output; results go through locked stdout writes"
)]

use std::io::Write;

use rearview_core::{Memory, MemoryId, Timestamp, truncate_chars};
use rearview_search::Explanation;
use rearview_service::{RecallResponse, ServiceStats, VectorSearch};
use serde::Serialize;

/// Renders results as text or JSON.
pub struct Printer {
    json: bool,
}

/// JSON shape of a memory (the CLI's; the REST/MCP wire types will live in `rearview-api`).
#[derive(Serialize)]
struct MemoryView<'a> {
    id: String,
    namespace: &'a str,
    memory_type: &'static str,
    content: &'a str,
    metadata: &'a rearview_core::Metadata,
    session_id: Option<&'a str>,
    ttl: u64,
    timestamp: String,
    occurred_at: String,
    updated_at: String,
    last_accessed_at: Option<String>,
    expires_at: Option<String>,
    access_count: u64,
    archived: bool,
    source_ids: Vec<String>,
    content_hash: &'a str,
}

impl<'a> From<&'a Memory> for MemoryView<'a> {
    fn from(m: &'a Memory) -> Self {
        Self {
            id: m.id.to_string(),
            namespace: m.namespace.as_str(),
            memory_type: m.memory_type.as_str(),
            content: &m.content,
            metadata: &m.metadata,
            session_id: m.session_id.as_deref(),
            ttl: m.ttl_secs,
            timestamp: time(m.timestamp),
            occurred_at: time(m.occurred_at),
            updated_at: time(m.updated_at),
            last_accessed_at: m.last_accessed_at.map(time),
            expires_at: m.expires_at.map(time),
            access_count: m.access_count,
            archived: m.archived,
            source_ids: m.source_ids.iter().map(ToString::to_string).collect(),
            content_hash: &m.content_hash,
        }
    }
}

impl Printer {
    pub fn new(json: bool) -> Self {
        Self { json }
    }

    pub fn stored(&self, m: &Memory) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&MemoryView::from(m));
        }
        let expiry = m
            .expires_at
            .map_or_else(|| "never expires".to_owned(), |e| format!("expires {}", time(e)));
        self.line(&format!("stored {} ({}, {expiry})", m.id, m.memory_type))
    }

    pub fn memory(&self, m: &Memory) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&MemoryView::from(m));
        }
        let mut out = format!("{}\n  type: {}\n  content: {}\n", m.id, m.memory_type, m.content);
        if !m.metadata.is_empty() {
            out += &format!("  metadata: {}\n", serde_json::Value::Object(m.metadata.clone()));
        }
        if let Some(s) = &m.session_id {
            out += &format!("  session: {s}\n");
        }
        out += &format!("  occurred: {}\n  stored: {}\n", time(m.occurred_at), time(m.timestamp));
        out += &format!(
            "  expires: {}\n  accessed: {} times{}\n",
            m.expires_at.map_or_else(|| "never".to_owned(), time),
            m.access_count,
            m.last_accessed_at.map_or_else(String::new, |t| format!(", last {}", time(t))),
        );
        if m.archived {
            out += "  archived: yes\n";
        }
        self.text(&out)
    }

    pub fn list(&self, memories: &[Memory]) -> anyhow::Result<()> {
        if self.json {
            let views: Vec<MemoryView<'_>> = memories.iter().map(MemoryView::from).collect();
            return self.emit_json(&views);
        }
        if memories.is_empty() {
            return self.line("no memories");
        }
        let mut out = String::new();
        for m in memories {
            out += &format!(
                "{}  {:<8}  {}  {}\n",
                m.id,
                m.memory_type,
                day(m.occurred_at),
                one_line(&m.content, 80)
            );
        }
        self.text(&out)
    }

    pub fn recall(&self, r: &RecallResponse) -> anyhow::Result<()> {
        if self.json {
            #[derive(Serialize)]
            struct Hit<'a> {
                score: f32,
                memory: MemoryView<'a>,
                #[serde(skip_serializing_if = "Option::is_none")]
                explanation: Option<&'a Explanation>,
            }
            #[derive(Serialize)]
            struct Response<'a> {
                as_of: String,
                vector_search: String,
                query_terms: &'a [String],
                hits: Vec<Hit<'a>>,
            }
            let hits = r
                .hits
                .iter()
                .map(|h| Hit {
                    score: h.score,
                    memory: MemoryView::from(&h.memory),
                    explanation: h.explanation.as_ref(),
                })
                .collect();
            return self.emit_json(&Response {
                as_of: time(r.as_of),
                vector_search: vector_search(&r.vector_search),
                query_terms: &r.query_terms,
                hits,
            });
        }
        let mut out = String::new();
        if !matches!(r.vector_search, VectorSearch::Used { .. }) {
            out += &format!("({})\n", vector_search(&r.vector_search));
        }
        if r.hits.is_empty() {
            out += "no matching memories\n";
        }
        for (i, h) in r.hits.iter().enumerate() {
            let m = &h.memory;
            out += &format!(
                "{:>2}. {:.4}  [{}] {}  {}\n    {}\n",
                i + 1,
                h.score,
                m.memory_type,
                day(m.occurred_at),
                one_line(&m.content, 100),
                m.id
            );
            if let Some(e) = &h.explanation {
                explain(e, 2, &mut out);
            }
        }
        self.text(&out)
    }

    pub fn backfilled(&self, n: usize) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "backfilled": n }));
        }
        self.line(&format!("embedded {n} memories"))
    }

    pub fn deleted(&self, id: MemoryId) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "deleted": id.to_string() }));
        }
        self.line(&format!("deleted {id}"))
    }

    pub fn stats(&self, s: &ServiceStats) -> anyhow::Result<()> {
        let embedding = match &s.embedder {
            Some(e) => format!("{} ({} dimensions)", e.model_id, e.dimensions),
            None => "none: keyword-only recall (no embedding model configured)".to_owned(),
        };
        if self.json {
            let tiers: Vec<_> = s
                .store
                .tiers
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "namespace": t.namespace.as_str(), "memory_type": t.memory_type.as_str(),
                        "live": t.live, "archived": t.archived, "expired": t.expired,
                    })
                })
                .collect();
            return self.emit_json(&serde_json::json!({
                "store": s.store.location,
                "size_bytes": s.store.size_bytes,
                "tiers": tiers,
                "vectors_per_model": s.store.vectors_per_model.iter().map(|(m, n)| serde_json::json!({"model": m, "vectors": n})).collect::<Vec<_>>(),
                "embedding": {
                    "model": s.embedder.as_ref().map(|e| e.model_id.clone()),
                    "dimensions": s.embedder.as_ref().map(|e| e.dimensions),
                    "degraded": s.embedder.is_none(),
                    "indexed_vectors": s.indexed_vectors,
                    "pending": s.pending_embeddings,
                },
            }));
        }
        let mut out = format!(
            "store: {}\nsize: {}\nembedding: {embedding}\n",
            s.store.location,
            bytes(s.store.size_bytes)
        );
        if s.embedder.is_some() {
            out += &format!(
                "vectors indexed: {}, waiting for embedding: {}\n",
                s.indexed_vectors, s.pending_embeddings
            );
        }
        if s.store.tiers.is_empty() {
            out += "no memories yet\n";
        } else {
            out += &format!(
                "{:<24} {:<9} {:>8} {:>9} {:>8}\n",
                "namespace", "tier", "live", "archived", "expired"
            );
            for t in &s.store.tiers {
                out += &format!(
                    "{:<24} {:<9} {:>8} {:>9} {:>8}\n",
                    truncate_chars(t.namespace.as_str(), 23),
                    t.memory_type,
                    t.live,
                    t.archived,
                    t.expired
                );
            }
        }
        self.text(&out)
    }

    fn emit_json<T: Serialize>(&self, value: &T) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(value)?;
        self.line(&text)
    }

    fn line(&self, text: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}")?;
        out.flush()?;
        Ok(())
    }

    fn text(&self, text: &str) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }
}

/// Prints a warning for a human, on stderr.
pub fn warning(message: &str) {
    eprintln!("warning: {message}");
}

/// Prints an error for a human, on stderr.
pub fn error(message: &str) {
    eprintln!("error: {message}");
}

fn explain(e: &Explanation, depth: usize, out: &mut String) {
    out.push_str(&format!("{}{:.4}  {}\n", "  ".repeat(depth), e.value, e.description));
    for d in &e.details {
        explain(d, depth + 1, out);
    }
}

fn vector_search(v: &VectorSearch) -> String {
    match v {
        VectorSearch::Used { model_id } => format!("vector search: {model_id}"),
        VectorSearch::NoModel => "keyword-only: no embedding model configured".to_owned(),
        VectorSearch::Disabled => "keyword-only: vector candidates disabled".to_owned(),
        VectorSearch::Failed { reason } => format!("keyword-only: embedding failed ({reason})"),
    }
}

fn time(t: Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

fn day(t: Timestamp) -> String {
    t.format("%Y-%m-%d").to_string()
}

fn one_line(text: &str, max_chars: usize) -> String {
    truncate_chars(&text.split_whitespace().collect::<Vec<_>>().join(" "), max_chars)
}

fn bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}
