//! Links between memories: which memory replaced which, who decided it and why, and the
//! changes a store found possible but left for the caller to confirm.

use std::fmt;
use std::str::FromStr;

use crate::{InputError, MemoryId};

/// Who made a memory history (set its `superseded_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkMaker {
    /// The caller said so: `supersedes` on a store, or a link asked for later (an agent, or a
    /// person confirming a possible update in the console).
    Caller,
    /// The configured LLM read the newer memory as updating this one.
    Llm,
    /// The rule read, in the newer memory's own words, a change of what this one states
    /// (`rearview_language::extract::stated_change`).
    Rule,
    /// An update of a memory's text kept its earlier text as this memory.
    Update,
}

impl LinkMaker {
    /// Every maker, in the order of [`LinkMaker::as_str`]'s names.
    pub const ALL: [LinkMaker; 4] =
        [LinkMaker::Caller, LinkMaker::Llm, LinkMaker::Rule, LinkMaker::Update];

    /// The wire name: `caller`, `llm`, `rule` or `update`.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkMaker::Caller => "caller",
            LinkMaker::Llm => "llm",
            LinkMaker::Rule => "rule",
            LinkMaker::Update => "update",
        }
    }
}

impl fmt::Display for LinkMaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LinkMaker {
    type Err = InputError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LinkMaker::ALL.into_iter().find(|m| m.as_str() == s).ok_or_else(|| {
            InputError::new("made_by", format!("{s:?} is none of caller, llm, rule, update"))
        })
    }
}

/// How a memory became history: who linked it to the memory that replaced it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkNote {
    /// Who decided.
    pub made_by: LinkMaker,
    /// Why, in a sentence (the rule's reading, the caller's wish, the LLM's verdict).
    pub reason: String,
}

impl LinkNote {
    /// A note of `made_by` with `reason`.
    pub fn new(made_by: LinkMaker, reason: impl Into<String>) -> Self {
        Self { made_by, reason: reason.into() }
    }
}

/// A memory that a newly stored one may change, found when it was stored and left for the
/// caller to confirm (link it) or dismiss: near in meaning, but the text did not say so plainly
/// enough for a link by rule.
#[derive(Debug, Clone, PartialEq)]
pub struct PossibleUpdate {
    /// The older memory.
    pub id: MemoryId,
    /// The cosine of the two memories' vectors, when both have one in the primary model's space.
    pub similarity: Option<f32>,
    /// What the texts say, in a phrase (`states a change (moved) but shares no subject word`,
    /// `a different value: 8765 / 8766`, `near in meaning, no word of change`).
    pub why: String,
}
