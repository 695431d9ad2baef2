//! Everything the CLI prints. The one module allowed to write to stdout.
#![expect(
    clippy::print_stderr,
    reason = "CLI error output; results go through locked stdout writes"
)]

use std::io::Write;

use rearview_api::{MemoryView, RecallView, time};
use rearview_core::{Memory, MemoryId, Timestamp, truncate_chars};
use rearview_ranking::Explanation;
use rearview_service::{
    Distilled, RecallResponse, ServiceStats, SessionEnd, Stored, Suggestion, SweepReport,
    VectorSearch,
};
use serde::Serialize;

/// Renders results as text or JSON.
pub struct Printer {
    json: bool,
}

impl Printer {
    pub fn new(json: bool) -> Self {
        Self { json }
    }

    /// A stored memory; `--json` prints what REST and MCP answer a store
    /// ([`StoredAnswer`](rearview_api::StoredAnswer)).
    pub fn stored(&self, stored: &Stored) -> anyhow::Result<()> {
        let m = &stored.memory;
        if self.json {
            return self.emit_json(&rearview_api::StoredAnswer::from(stored));
        }
        for s in &stored.superseded {
            let (by, why) = (s.link.made_by, &s.link.reason);
            self.line(&format!("superseded {} (by {by}: {why}): now history", s.id))?;
        }
        if let Some(by) = m.superseded_by {
            self.line(&format!("stored as history: {by} is newer"))?;
        }
        let expiry = m
            .expires_at
            .map_or_else(|| "never expires".to_owned(), |e| format!("expires {}", time(e)));
        // One line per store (`add --stdin` answers line by line); the details: `rearview review`.
        let offered = match stored.possible_updates.len() {
            0 => String::new(),
            n => format!(
                "; may update {n} older memor{} (rearview review)",
                if n == 1 { "y" } else { "ies" }
            ),
        };
        match &stored.merged {
            None => self.line(&format!("stored {} ({}, {expiry}){offered}", m.id, m.memory_type)),
            Some(merge) => {
                let how = match (merge.exact, merge.similarity) {
                    (true, _) => "exact duplicate".to_owned(),
                    (false, Some(s)) => format!("cosine {s:.3}"),
                    (false, None) => "near duplicate".to_owned(),
                };
                let replaced = if merge.content_replaced {
                    ", content replaced by the fuller text"
                } else {
                    ""
                };
                self.line(&format!(
                    "merged into {} ({how}{replaced}; {}, {expiry})",
                    m.id, m.memory_type
                ))
            }
        }
    }

    pub fn session_end(&self, end: &SessionEnd) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rearview_api::SessionEndAnswer::from(end));
        }
        let mut out = format!(
            "session ended: {} working memories → {} episodes (by {}{}){}\n",
            end.working_memories,
            end.episodes.len(),
            end.method,
            end.model.as_deref().map_or_else(String::new, |m| format!(", {m}")),
            match end.small_talk {
                0 => String::new(),
                n => format!("; {n} greetings or acknowledgements skipped"),
            }
        );
        for e in &end.episodes {
            let mark = if e.merged.is_some() { " (merged)" } else { "" };
            out += &format!("  {}{mark}  {}\n", e.memory.id, one_line(&e.memory.content, 80));
        }
        self.text(&out)
    }

    pub fn distilled(&self, d: &Distilled) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rearview_api::DistilledAnswer::from(d));
        }
        if d.already_existed {
            return self.text(&format!(
                "already distilled into {} (by {}); nothing changed\n  {}\n",
                d.memory.id,
                d.method,
                d.memory.content.replace('\n', "\n  "),
            ));
        }
        self.text(&format!(
            "distilled {} sources into {} (by {}{}); {} originals {}\n  {}\n",
            d.memory.source_ids.len(),
            d.memory.id,
            d.method,
            d.model.as_deref().map_or_else(String::new, |m| format!(", {m}")),
            d.originals_changed,
            if d.originals_changed > 0 { "archived or deleted" } else { "changed" },
            d.memory.content.replace('\n', "\n  "),
        ))
    }

    pub fn suggestions(&self, groups: &[Suggestion]) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rearview_api::SuggestionsAnswer::from(groups));
        }
        if groups.is_empty() {
            return self.line("no groups of similar episodes found");
        }
        let mut out = String::new();
        for (i, g) in groups.iter().enumerate() {
            out += &format!("{}. {} episodes, cohesion {:.3}\n", i + 1, g.ids.len(), g.cohesion);
            for (id, preview) in g.ids.iter().zip(&g.previews) {
                out += &format!("   {id}  {}\n", one_line(preview, 70));
            }
        }
        self.text(&out)
    }

    pub fn eval(&self, report: &rearview_eval::Report) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&report.to_json());
        }
        self.text(&report.to_text())
    }

    pub fn swept(&self, r: &SweepReport) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({
                "expired": r.expired, "archived": r.archived, "distilled": r.distilled,
            }));
        }
        self.line(&format!(
            "deleted {} expired, archived {} idle, distilled {} groups",
            r.expired, r.archived, r.distilled
        ))
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
        if let Some(by) = m.superseded_by {
            let since = m.invalid_at.map_or_else(String::new, |t| format!(" since {}", time(t)));
            out += &format!("  superseded by: {by}{since}\n");
            if let Some(link) = &m.link {
                out += &format!("  linked by: {} ({})\n", link.made_by, link.reason);
            }
        }
        for p in &m.possible_updates {
            out += &format!("  may update: {} ({})\n", p.id, p.why);
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
            let history = if m.superseded_by.is_some() { "(history) " } else { "" };
            out += &format!(
                "{}  {:<8}  {}  {history}{}\n",
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
            return self.emit_json(&RecallView::from(r));
        }
        let mut out = String::new();
        if !matches!(r.vector_search, VectorSearch::Used { .. }) {
            out += &format!("({})\n", rearview_api::vector_search(&r.vector_search));
        }
        if r.hits.is_empty() {
            out += "no matching memories\n";
        }
        if r.below_floor > 0 {
            out += &format!(
                "({} candidates scored under the relevance floor and were left out; --min-relevance 0 keeps them)\n",
                r.below_floor
            );
        }
        if r.over_budget > 0 {
            out +=
                &format!("({} better-ranked memories did not fit --max-tokens)\n", r.over_budget);
        }
        for (i, h) in r.hits.iter().enumerate() {
            let m = &h.memory;
            out += &format!(
                "{:>2}. {:.4}  [{}] {}  {}\n    {}\n",
                i + 1,
                h.score,
                m.memory_type,
                day(m.occurred_at),
                one_line(h.text(), 100),
                m.id
            );
            if let Some(e) = &h.explanation {
                explain(e, 2, &mut out);
            }
        }
        self.text(&out)
    }

    /// `config show`: every key, its effective value and where it came from.
    pub fn settings(&self, settings: &crate::settings::Settings) -> anyhow::Result<()> {
        let rows = settings.show();
        if self.json {
            let map: serde_json::Map<String, serde_json::Value> = rows
                .iter()
                .map(|(k, v, source)| {
                    let entry = serde_json::json!({ "value": v, "source": source.to_string() });
                    ((*k).to_owned(), entry)
                })
                .collect();
            return self.emit_json(&serde_json::json!({
                "config_file": settings.file.as_ref().map(|p| p.display().to_string()),
                "settings": map,
            }));
        }
        let mut out = match &settings.file {
            Some(path) => format!("# config file: {}\n", path.display()),
            None => "# config file: none\n".to_owned(),
        };
        let width = rows.iter().map(|(k, ..)| k.len()).max().unwrap_or(0);
        for (key, value, source) in rows {
            let value = value.unwrap_or_else(|| "(unset)".to_owned());
            out.push_str(&format!("{key:<width$} = {value}  # {source}\n"));
        }
        self.text(&out)
    }

    /// `import`: how many memories were written, skipped and embedded.
    pub fn imported(&self, r: &crate::transfer::ImportReport) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(r);
        }
        self.line(&format!(
            "imported {} memories ({} already present, skipped; {} vectors computed)",
            r.inserted, r.skipped, r.embedded
        ))
    }

    /// `migrate`: what was copied and each namespace's verification.
    pub fn migrated(&self, r: &rearview_service::migrate::Migrated) -> anyhow::Result<()> {
        if self.json {
            let namespaces: Vec<_> = r
                .namespaces
                .iter()
                .map(|v| {
                    serde_json::json!({
                        "namespace": v.namespace.as_str(), "memories": v.memories, "digest": v.digest,
                    })
                })
                .collect();
            return self.emit_json(&serde_json::json!({
                "inserted": r.copied.inserted, "skipped": r.copied.skipped, "keys": r.keys,
                "verified": namespaces,
            }));
        }
        let mut out = format!(
            "copied {} memories ({} already in the target) and {} API keys; verified:\n",
            r.copied.inserted, r.copied.skipped, r.keys
        );
        for v in &r.namespaces {
            out.push_str(&format!(
                "  {}: {} memories, sha256 {}\n",
                v.namespace,
                v.memories,
                &v.digest[..16.min(v.digest.len())]
            ));
        }
        self.line(out.trim_end())
    }

    /// `doctor`: one line per check.
    pub fn checks(&self, checks: &[crate::doctor::Check]) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "checks": checks }));
        }
        let mut out = String::new();
        for c in checks {
            let mark = match c.status {
                crate::doctor::Status::Ok => "ok  ",
                crate::doctor::Status::Warn => "warn",
                crate::doctor::Status::Fail => "FAIL",
                crate::doctor::Status::Skip => "skip",
            };
            out.push_str(&format!("[{mark}] {}: {}\n", c.name, c.detail));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("       fix: {fix}\n"));
            }
        }
        self.text(&out)
    }

    /// `keys create`: the secret, shown once.
    pub fn key_created(&self, created: &rearview_service::CreatedKey) -> anyhow::Result<()> {
        let now = rearview_core::Clock::now(&rearview_core::SystemClock);
        if self.json {
            return self.emit_json(&rearview_api::KeyView::new(
                &created.record,
                Some(&created.secret),
                now,
            ));
        }
        let r = &created.record;
        let grant = if r.admin {
            "every namespace (admin)".to_owned()
        } else {
            r.namespaces.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ")
        };
        self.line(&format!(
            "created key {} for {grant}\n\n    {}\n\nThis secret is shown once and stored only as a hash. Clients send it as\n`Authorization: Bearer <key>`; revoke it with `rearview keys revoke {}`.",
            r.id, created.secret, r.id
        ))
    }

    /// `keys list`: one line per key, never a secret.
    pub fn keys(&self, keys: &[rearview_store::ApiKeyRecord]) -> anyhow::Result<()> {
        let now = rearview_core::Clock::now(&rearview_core::SystemClock);
        if self.json {
            let keys = keys.iter().map(|k| rearview_api::KeyView::new(k, None, now)).collect();
            return self.emit_json(&rearview_api::KeysAnswer { keys });
        }
        if keys.is_empty() {
            return self
                .line("no API keys; create one with `rearview keys create --namespace NAME`");
        }
        for k in keys {
            let state = match (k.revoked_at, k.is_active(now)) {
                (Some(_), _) => "revoked",
                (None, false) => "expired",
                (None, true) => "active",
            };
            let grant = if k.admin {
                "admin".to_owned()
            } else {
                k.namespaces.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(",")
            };
            let label = k.label.as_deref().unwrap_or("");
            self.line(&format!("{}  {state:<7}  {grant}  {label}", k.id))?;
        }
        Ok(())
    }

    /// `keys revoke`.
    pub fn key_revoked(&self, id: &str) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "revoked": id }));
        }
        self.line(&format!("revoked key {id}"))
    }

    pub fn backfilled(&self, n: usize) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "backfilled": n }));
        }
        self.line(&format!("embedded {n} memories"))
    }

    pub fn cleaned(&self, n: usize) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "cleaned": n }));
        }
        self.line(&format!("deleted {n} expired memories"))
    }

    pub fn deleted(&self, id: MemoryId) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&serde_json::json!({ "deleted": id.to_string() }));
        }
        self.line(&format!("deleted {id}"))
    }

    pub fn stats(&self, s: &ServiceStats) -> anyhow::Result<()> {
        let embedding = match &s.embedder {
            Some(_) => s
                .models
                .iter()
                .map(|e| format!("{} ({} dimensions)", e.model_id, e.dimensions))
                .collect::<Vec<_>>()
                .join(" + "),
            None => rearview_api::embedding_status(s),
        };
        if self.json {
            return self.emit_json(&rearview_api::StatsAnswer::new(s, None));
        }
        let mut out = format!(
            "store: {}\nsize: {}\nembedding: {embedding}\n",
            s.store.location,
            bytes(s.store.size_bytes)
        );
        if s.embedder.is_some() {
            out += &format!(
                "vectors indexed: {} ({} in HNSW graphs), waiting for embedding: {}\n",
                s.indexed_vectors, s.graph_vectors, s.pending_embeddings
            );
        }
        if s.store.tiers.is_empty() {
            out += "no memories yet\n";
        } else {
            out += &format!(
                "{:<24} {:<9} {:>8} {:>9} {:>10} {:>8}\n",
                "namespace", "tier", "live", "archived", "superseded", "expired"
            );
            for t in &s.store.tiers {
                out += &format!(
                    "{:<24} {:<9} {:>8} {:>9} {:>10} {:>8}\n",
                    truncate_chars(t.namespace.as_str(), 23),
                    t.memory_type,
                    t.live,
                    t.archived,
                    t.superseded,
                    t.expired
                );
            }
        }
        self.text(&out)
    }

    /// `rearview models list`: the catalog, with the installed copy of each model.
    pub fn models(&self, rows: &[ModelRow]) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rows);
        }
        let mut out = String::new();
        for r in rows {
            out += &format!(
                "{}{}
  {}
",
                r.name,
                if r.default { " (default)" } else { "" },
                r.description
            );
            out += &format!(
                "  sources: {}
",
                r.sources.join(", ")
            );
            match &r.installed {
                Some(i) => {
                    out += &format!(
                        "  installed: {} from {}, {}
",
                        i.path,
                        i.source,
                        bytes(i.size_bytes)
                    );
                    out += &format!(
                        "  vector space: {}
",
                        i.model_id
                    );
                }
                None => {
                    out += &format!(
                        "  not installed: rearview models fetch {}
",
                        r.name
                    )
                }
            }
        }
        self.text(&out)
    }

    /// `rearview models fetch`.
    pub fn fetched(&self, name: &str, dir: &std::path::Path) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(
                &serde_json::json!({ "model": name, "path": dir.display().to_string() }),
            );
        }
        self.line(&format!("{name} installed in {}", dir.display()))
    }

    /// What `rearview link` did (`--json`: [`LinkedAnswer`](rearview_api::LinkedAnswer)).
    pub fn linked(&self, linked: &rearview_service::Linked) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rearview_api::LinkedAnswer::from(linked));
        }
        for s in &linked.superseded {
            self.line(&format!("linked: {} is now history ({})", s.id, s.link.reason))?;
        }
        let left = linked.memory.possible_updates.len();
        self.line(&format!("{}: {left} possible update(s) left to review", linked.memory.id))
    }

    /// The review list: each memory with its possible updates.
    pub fn review(&self, pending: &[rearview_service::PendingReview]) -> anyhow::Result<()> {
        if self.json {
            return self.emit_json(&rearview_api::PendingAnswer::from(pending));
        }
        if pending.is_empty() {
            return self.line("no possible updates to review");
        }
        let mut out = String::new();
        for p in pending {
            out += &format!("{}  {}\n", p.memory.id, one_line(&p.memory.content, 80));
            for u in &p.possible {
                let similarity =
                    u.update.similarity.map_or_else(String::new, |s| format!("cosine {s:.2}; "));
                out += &format!(
                    "  may update {}  {}\n    ({similarity}{})\n",
                    u.update.id,
                    one_line(&u.content, 70),
                    u.update.why
                );
            }
        }
        out += "confirm with `rearview link NEWER --supersedes OLDER`, or `--dismiss OLDER`\n";
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

/// One catalog model for `rearview models list`.
#[derive(Debug, Serialize)]
pub struct ModelRow {
    pub name: &'static str,
    pub description: &'static str,
    pub default: bool,
    pub sources: Vec<String>,
    pub installed: Option<InstalledModel>,
}

/// Where and what a model's installed copy is.
#[derive(Debug, Serialize)]
pub struct InstalledModel {
    pub path: String,
    pub model_id: String,
    pub source: String,
    pub size_bytes: u64,
}

/// Prints a status line for a human, on stderr (stdout stays free for protocol or results).
pub fn notice(message: &str) {
    eprintln!("{message}");
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

/// Prints a hook's answer (one JSON line) for the agent that ran it. A closed pipe is not an
/// error a hook reports: the agent has moved on.
pub fn hook_output(json: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{json}").and_then(|()| out.flush());
}
