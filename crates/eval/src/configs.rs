//! The ranking configurations an evaluation compares: the named ones and custom fusions.

use rearview_language::QueryFocus;
use rearview_ranking::{
    Feedback, Fusion, KeywordScale, RankingConfig, Recency, Replies, VectorScale,
};

use crate::EvalError;

/// A ranking configuration to evaluate.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// Name in reports (`default`, `bm25`, `vector`, `hybrid`, …).
    pub name: String,
    /// The ranking used for every question; `None` is the service's own default, exactly what
    /// `recall` and `retrieve_memory` do when a client sets no option.
    pub ranking: Option<RankingConfig>,
    /// The relevance floor; `None`: the service's default.
    pub min_relevance: Option<f32>,
}

/// Candidates per side in the named experiments: enough to fill the top 50.
const CANDIDATES: usize = 50;

/// Every named configuration, in report order.
pub const NAMES: [&str; 7] =
    ["default", "bm25", "vector", "hybrid", "hybrid-nodecay", "rrf", "rrf-decay"];

/// The named configurations:
/// - `default`: what recall does with no options (the service's configured ranking, floor and
///   focusing; nothing set here);
/// - `bm25`: keywords only, raw BM25 order;
/// - `vector`: cosine only;
/// - `hybrid`: the design's formula (0.7·cos + 0.3·min(bm25/10, 1)) × decay × heat;
/// - `hybrid-nodecay`: the same without decay and heat, BM25 saturating at 20;
/// - `rrf`: reciprocal-rank fusion (k = 60), no decay;
/// - `rrf-decay`: the same with the design's decay;
/// - custom: a fusion `weighted:V:K:S`, `rrf:K:V:W` or `rel:V:K:raw|minmax[:max|coverS]`, followed by any of
///   `+decay` (the design's), `+prior:W:H` (recency prior: weight, half-life in days),
///   `+focus:T:W:D` (dialogue focus: tail turns, tail weight, keyword decay per turn),
///   `+nofocus` (no dialogue focusing), `+nohistory` (superseded
///   memories not answered by their successors), `+nocompound` (a query asking several
///   questions answered as one), `+feedback:T:W` (every query vector moved toward the first
///   ranking's top T memories with weight W), `+dialoguefeedback:T:W` (only dialogue queries),
///   `+nofeedback`, `+baretail` (the focus tail without its speaker labels), `+labelledtail`
///   (with them), `+replies:N:S` (a question among the first N memories followed by its reply,
///   at most S seconds later) or `+noreplies`; or `default` followed by any of these
///   (`default+nofeedback`: the default without feedback);
/// - any of these with `+floor:X` last: the relevance floor X instead of the service's.
pub fn config(name: &str) -> Result<EvalConfig, EvalError> {
    let base = RankingConfig {
        fusion: Fusion::DESIGN,
        recency: Recency::Off,
        heat_weight: 0.0,
        heat_saturation: None,
        focus: QueryFocus::OFF,
        vector_candidates: CANDIDATES,
        keyword_candidates: CANDIDATES,
        answer_history: false,
        compound: false,
        feedback: None,
        replies: None,
    };
    let design_decay = Recency::Decay { per_day: 0.01 };
    if let Some((rest, floor)) = name.rsplit_once("+floor:") {
        let floor: f32 = floor
            .parse()
            .map_err(|_| EvalError::Input(format!("{name:?}: +floor needs a number")))?;
        let mut config = config(rest)?;
        config.name = name.to_owned();
        config.min_relevance = Some(floor);
        return Ok(config);
    }
    let ranking = match name {
        "default" => None,
        "bm25" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 0.0, keyword: 1.0, bm25_saturation: f32::MAX },
            vector_candidates: 0,
            ..base
        }),
        "vector" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 1.0, keyword: 0.0, bm25_saturation: 10.0 },
            keyword_candidates: 0,
            ..base
        }),
        "hybrid" => Some(RankingConfig {
            vector_candidates: CANDIDATES,
            keyword_candidates: CANDIDATES,
            ..RankingConfig::DESIGN
        }),
        "hybrid-nodecay" => Some(RankingConfig {
            fusion: Fusion::Weighted { vector: 0.7, keyword: 0.3, bm25_saturation: 20.0 },
            ..base
        }),
        "rrf" => Some(RankingConfig { fusion: Fusion::RRF, ..base }),
        "rrf-decay" => Some(RankingConfig { fusion: Fusion::RRF, recency: design_decay, ..base }),
        other => Some(custom(other, base).ok_or_else(|| {
            EvalError::Input(format!(
                "unknown configuration {other:?}; allowed: {}, or a custom fusion \
                 (weighted:V:K:S, rrf:K:V:W, rel:V:K:raw|minmax[:max|coverS], or default) with any \
                 of +decay, +prior:W:H, +focus:T:W:D, +nofocus, +nohistory, \
                 +nocompound, +feedback:T:W, +dialoguefeedback:T:W, +nofeedback, +baretail, \
                 +labelledtail, +replies:N:S, +noreplies",
                NAMES.join(", ")
            ))
        })?),
    };
    Ok(EvalConfig { name: name.to_owned(), ranking, min_relevance: None })
}

/// A custom configuration: fusion experiments without a rebuild.
fn custom(name: &str, base: RankingConfig) -> Option<RankingConfig> {
    let mut parts = name.split('+');
    let mut ranking = match parts.next()? {
        // The service's default with modifiers: `default+nofeedback`.
        "default" => RankingConfig::default(),
        first => RankingConfig { fusion: fusion(first)?, ..base },
    };
    for modifier in parts {
        let mut fields = modifier.split(':');
        let kind = fields.next()?;
        let numbers: Vec<f32> = fields.map(|p| p.parse().ok()).collect::<Option<_>>()?;
        match (kind, numbers.as_slice()) {
            ("decay", []) => ranking.recency = Recency::Decay { per_day: 0.01 },
            ("prior", [weight, half_life_days]) => {
                ranking.recency =
                    Recency::Prior { weight: *weight, half_life_days: *half_life_days }
            }
            ("focus", [tail_turns, tail_weight, turn_decay]) => {
                ranking.focus = QueryFocus {
                    min_turns: 3,
                    tail_turns: *tail_turns as usize,
                    tail_weight: *tail_weight,
                    turn_decay: *turn_decay,
                    ..ranking.focus
                }
            }
            ("nohistory", []) => ranking.answer_history = false,
            ("nocompound", []) => ranking.compound = false,
            ("nofocus", []) => ranking.focus = QueryFocus::OFF,
            ("baretail", []) => ranking.focus.bare_tail = true,
            ("labelledtail", []) => ranking.focus.bare_tail = false,
            ("feedback" | "dialoguefeedback", [top, weight])
                if top.fract() == 0.0 && *top >= 1.0 =>
            {
                ranking.feedback = Some(Feedback {
                    top: *top as usize,
                    weight: *weight,
                    dialogues_only: kind == "dialoguefeedback",
                })
            }
            ("nofeedback", []) => ranking.feedback = None,
            ("replies", [among_first, within_secs])
                if among_first.fract() == 0.0 && *among_first >= 0.0 && *within_secs >= 0.0 =>
            {
                ranking.replies = Some(Replies {
                    among_first: *among_first as usize,
                    within_secs: *within_secs as u32,
                })
            }
            ("noreplies", []) => ranking.replies = None,
            _ => return None,
        }
    }
    Some(ranking)
}

fn fusion(spec: &str) -> Option<Fusion> {
    let mut parts = spec.split(':');
    let kind = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let numbers = |n: usize| -> Option<Vec<f32>> {
        rest.iter().take(n).map(|p| p.parse().ok()).collect::<Option<Vec<f32>>>()
    };
    Some(match (kind, rest.len()) {
        ("weighted", 3) => {
            let n = numbers(3)?;
            Fusion::Weighted { vector: n[0], keyword: n[1], bm25_saturation: n[2] }
        }
        ("rrf", 3) => {
            let n = numbers(3)?;
            Fusion::Rrf { k: n[0], vector: n[1], keyword: n[2] }
        }
        ("rel", 3 | 4) => {
            let n = numbers(2)?;
            let scale = match rest[2] {
                "raw" => VectorScale::Raw,
                "minmax" => VectorScale::MinMax,
                _ => return None,
            };
            let keyword_scale = match rest.get(3).copied() {
                None | Some("max") => KeywordScale::Max,
                Some(cover) => {
                    KeywordScale::Coverage { share: cover.strip_prefix("cover")?.parse().ok()? }
                }
            };
            Fusion::Relative { vector: n[0], keyword: n[1], scale, keyword_scale }
        }
        _ => return None,
    })
}
