//! Newer statements of a fact first (issue 15, facts that change): a recall stage after
//! [`rank`](crate::rank()) that puts a memory reading as an update of a better-ranked, older one
//! (`I moved to Lisbon` after `I live in Berlin`, `端口改成了 9090` after `服务监听 8080 端口`)
//! right before it, with its score. Pure.
//!
//! Why at recall and not only at write: a question usually matches the older statement's words
//! better (`Which city does the user live in?` shares `live` with `I live in Berlin`, nothing with
//! `I moved to Lisbon`), so ranking alone put the newer one first in 12.5 % of the bilingual
//! facts-change scenarios. Superseding at write time hides the older memory, which is right
//! when the reading is right and loses a memory when it is not (the rule, on by choice,
//! `LifecycleConfig::supersede_by_rule`, hid memories of MADial-Bench's stories that nothing
//! updates). Reordering hides nothing: the older memory follows right after the newer one (at
//! the end of the top k it drops past it, as the k-th memory does whenever a newer statement is
//! lifted into the answer), so a wrong reading costs a swap between two similar memories.
//!
//! A pair counts when:
//! - both are of one tier, the newer happened later, and both are statements (two clauses, 25
//!   words or 45 Han characters at most, read without session stamps: [`is_statement`]);
//! - they are near in meaning (cosine ≥ [`Succession::min_similarity`]) and the newer text
//!   states a change about a subject term both share, or contradicts the older one
//!   ([`Update::OnTopic`] or stronger, by [`update_evidence_of`]);
//! - or the newer text states a change ([`Update::Stated`]) and the two are nearest in meaning
//!   on one side, by [`Succession::nearest_margin`] over the next, among the candidates of
//!   their tier that are statements: the older one is the nearest to the newer of those older
//!   than it (the write-time rule's test, `LifecycleConfig::supersede_by_rule`, read among the
//!   query's candidates), or the newer one is the nearest to the older of those later than it
//!   (`I got promoted to engineering manager` after `My role at the company is backend
//!   developer`, where the role is not clearly the nearest older statement to the promotion);
//! - or the newer text only marks a change ([`Update::Marked`]: `started`, `开始`, `入职`) and
//!   the two are nearest on both sides (`I started eating meat again last year.` after `I'm
//!   vegetarian.`).
//!
//! A change read by nearness alone is about one older statement: when several candidates read
//! the same newer one so, it updates the nearest of them by the margin, or none (`上个月服务全部
//! 迁到了腾讯云。` is as near to `上个月云服务账单大约 8 万元。` as to `服务部署在阿里云上。`). All
//! candidates are asked, not only the window, so the answer does not depend on how many
//! memories were asked for.
//!
//! Last, the two best answers (`succession/tie.rs`): when the second is a later statement of
//! the first's tier, near in meaning, the two each other's nearest statement among the
//! candidates once their vectors are centered on their mean ([`centered`], by
//! [`Succession::tie_margin`]), and it scores at least [`Succession::tie_ratio`] of the first,
//! it goes first. A near tie between two statements of one fact is broken by time, with no
//! word of change or in common needed: `这学期学校调了作息，五点才放学。` before `孩子每天下午
//! 四点半放学。` for `用户的孩子几点放学？`. The words of change above were read from the
//! facts-change set and carry poorly to wording they were not read from: on two held-out sets
//! written after the tie, 53.7 % and 43.8 % newer first without it, 66.2 % and 58.8 % with it
//! as first built (raw cosines, a subject term in common), 68.8 % and 70.0 % read centered; on
//! a fourth and a fifth, written before the centered reading, 60.0 % → 67.5 % and 72.5 % →
//! 78.8 %.
//!
//! Any nearby memory would be too loose: a person's short event memories (MADial-Bench's
//! `Bart在…，感到非常开心`) sit at cosine 0.85–0.95 from each other, and a `新` or `开始` in the
//! later one would lift it above the one that answers. Reading the nearness from both sides
//! and changes only marked took the facts-change set from 85.2 % to 88.3 % newer first and moved
//! no figure of LoCoMo, MADial-Bench or MemDaily but LoCoMo R@1 (0.347 → 0.346).
//!
//! Without vectors (keyword-only) only the first case can be read, without the nearness.
//!
//! Only the best `window` candidates (the top k asked for, before the relevance floor and a
//! token budget cut further, and at least two, which the tie reads) are read as older
//! statements, and each newer statement lifted among them; any candidate of the query may be
//! the newer one. Chains keep their order (Lisbon, then Paris, then Berlin), also when only
//! Berlin ranks in the window; a memory is placed once.

use std::collections::{HashMap, HashSet};

use rearview_core::{MemoryId, MemoryType, Timestamp};

use crate::extract::{Reading, Update, is_statement, strip_timestamps, update_evidence_of};
use crate::rank::{Explanation, Scored};

mod nearness;
mod tie;

use nearness::{Nearness, Side, one_subject};

/// Settings of the stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Succession {
    /// Cosine two memories need, in the query model's space, to count as about the same thing.
    /// 0.80 for multilingual-e5 (as `LifecycleConfig::supersede_threshold`: a changed fact and
    /// its older statement measured 0.80–0.97 there).
    pub min_similarity: f32,
    /// How much nearer than the next candidate on its side in time one statement must be to
    /// the other, when the newer one states or marks a change without a subject term in common
    /// ([`Update::Stated`], [`Update::Marked`]). 0.01 for multilingual-e5, chosen when only
    /// the older side was read: on the facts-change set, newer first 83.6 % at 0, 81.2 % at
    /// 0.01; on MADial-Bench zh (a person's many similar event memories) R@1 0.332 at 0, 0.341
    /// at 0.01 (0.360 without the stage).
    pub nearest_margin: f32,
    /// How near the second best answer's score must be to the first's, as a share of it, for
    /// the two to be a near tie that time breaks (`succession/tie.rs`); over 1, never. 0.5 for
    /// multilingual-e5 (`BENCHMARKS.md`, "A held-out set, and a near tie of the two best
    /// answers").
    pub tie_ratio: f32,
    /// How much nearer each of the two best answers must be to the other than to the next
    /// candidate of their tier for the near tie (`succession/tie.rs`), read on the vectors
    /// centered on the ranked statements' mean ([`centered`]); the two need no subject term in
    /// common then.
    /// 0.03 for multilingual-e5. First 0.05, chosen before measuring (`nearest_margin` scaled
    /// by how much wider centered cosines spread: 0.80–0.95 raw, about −0.3–0.5 centered); 0.03
    /// put the newer statement first as often or more on each of four held-out sets, and a
    /// fifth, written to decide between the two, agreed (77.5 % and 78.8 %). `None`: the tie
    /// as before, nearest on the raw cosines by `nearest_margin`, and sharing a subject term
    /// (`BENCHMARKS.md`, "Nearness with the common direction taken out").
    pub tie_margin: Option<f32>,
}

impl Succession {
    /// The default, for multilingual-e5.
    pub const DEFAULT: Succession = Succession {
        min_similarity: 0.80,
        nearest_margin: 0.01,
        tie_ratio: 0.5,
        tie_margin: Some(0.03),
    };
}

/// What the stage reads of a candidate.
#[derive(Debug, Clone, Copy)]
pub struct Statement<'a> {
    /// Its text.
    pub text: &'a str,
    /// Its event time.
    pub occurred_at: Timestamp,
    /// Its tier: a statement only updates one of its own tier.
    pub memory_type: MemoryType,
}

/// Why a pair reads as an update.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Grounds {
    /// The texts say so: a change about a subject both name, or a contradiction.
    Words,
    /// A change stated or marked, about what only nearness in meaning (this cosine) says is the
    /// older text's subject.
    Nearness(f32),
}

/// Whether `newer` reads as an update of `older` (see the module docs), and on what grounds;
/// `similarity` gives their cosine (`None` without vectors), `older_is_nearest` says whether
/// `older` is the nearest to `newer` of the candidates older than it, and `newer_is_nearest`
/// whether `newer` is the nearest to `older` of the candidates later than it, each asked only
/// when it decides. Texts are read only for pairs that are near enough.
fn updates(
    older: &Read<'_>,
    newer: &Read<'_>,
    similarity: impl FnOnce() -> Option<f32>,
    older_is_nearest: impl Fn() -> bool,
    newer_is_nearest: impl Fn() -> bool,
    config: &Succession,
) -> Option<Grounds> {
    let (o, n) = (&older.statement, &newer.statement);
    if o.memory_type != n.memory_type || n.occurred_at <= o.occurred_at {
        return None;
    }
    let similarity = similarity();
    if similarity.is_some_and(|s| s < config.min_similarity) {
        return None;
    }
    let near = match update_evidence_of(older.reading(), newer.reading()) {
        Update::OnTopic | Update::Contradiction => return Some(Grounds::Words),
        Update::Stated => older_is_nearest() || newer_is_nearest(),
        Update::Marked => older_is_nearest() && newer_is_nearest(),
        Update::None | Update::Differs => false,
    };
    similarity.filter(|_| near).map(Grounds::Nearness)
}

/// The candidates that are statements (see [`is_statement`]): what [`newer_first`] compares.
/// Found before the stage so that the caller fetches vectors for these alone. Each text is read
/// ([`Reading`]) at most once, and only when a pair near enough to be an update needs it:
/// reading every candidate took 2.7 ms of a 1M recall, most pairs being far apart.
#[derive(Debug, Default)]
pub struct Statements<'a> {
    read: HashMap<MemoryId, Read<'a>>,
}

/// A statement, its text without session stamps, and that text's reading once asked for.
#[derive(Debug)]
struct Read<'a> {
    statement: Statement<'a>,
    text: String,
    reading: std::cell::OnceCell<Reading>,
}

impl Read<'_> {
    fn reading(&self) -> &Reading {
        self.reading.get_or_init(|| Reading::of(&self.text))
    }
}

impl<'a> Statements<'a> {
    /// Keeps the statements among `candidates` (their texts read without session stamps).
    pub fn read(candidates: impl IntoIterator<Item = (MemoryId, Statement<'a>)>) -> Self {
        let read = candidates
            .into_iter()
            .filter_map(|(id, statement)| {
                let text = strip_timestamps(statement.text);
                let reading = std::cell::OnceCell::new();
                is_statement(&text).then_some((id, Read { statement, text, reading }))
            })
            .collect();
        Statements { read }
    }

    /// Their ids, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = MemoryId> + '_ {
        self.read.keys().copied()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.read.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.read.is_empty()
    }
}

/// `ranked` with each newer statement of a fact placed right before the older statement it
/// updates (see the module docs), and the memories so placed, each with the older one it took
/// the place of. `similarity(a, b)` is the cosine of two candidates, `None` when either has no
/// vector; `centered(a, b)` the cosine of their vectors centered on the mean of the ranked
/// statements' vectors ([`centered`]), which the near tie reads when
/// [`Succession::tie_margin`] is set. A
/// candidate that is none of `statements` is never moved and moves nothing.
pub fn newer_first(
    ranked: Vec<Scored>,
    statements: &Statements<'_>,
    similarity: impl Fn(MemoryId, MemoryId) -> Option<f32>,
    centered: impl Fn(MemoryId, MemoryId) -> Option<f32>,
    window: usize,
    config: &Succession,
) -> (Vec<Scored>, HashMap<MemoryId, MemoryId>) {
    let read = &statements.read;
    let candidates: Vec<MemoryId> =
        ranked.iter().map(|s| s.id).filter(|id| read.contains_key(id)).collect();
    let raw = Nearness::new(read, &candidates, &similarity, &similarity, config.nearest_margin);
    // The tie reads the first two as placed: both are read as older statements whatever the
    // window, or the answer of a recall for one memory would differ from the first of five
    // (a newer statement of the second, placed right before it, is the tie's second).
    let newer_of = updates_found(&ranked, &raw, window.max(2), config);
    let (mut out, mut lifted) = placed(ranked, &newer_of);
    let tied = match config.tie_margin {
        Some(margin) => {
            // A nearest needs a runner-up to be nearer than by the margin: two statements of a
            // tier alone are not a tie, however their centered cosine falls.
            let centered =
                Nearness::new(read, &candidates, &similarity, &centered, margin).with_runner_up();
            tie::newer_of_a_near_tie(&mut out, &centered, config)
        }
        None => tie::newer_of_a_near_tie(&mut out, &raw, config),
    };
    if let Some((newer, older)) = tied {
        // A memory already placed before an older statement keeps that one as what it took
        // the place of (the relevance floor follows one such link, as the service does).
        lifted.entry(newer).or_insert(older);
    }
    (out, lifted)
}

/// `ranked` with each newer statement of `newer_of` placed before the older one it updates.
fn placed(
    ranked: Vec<Scored>,
    newer_of: &HashMap<MemoryId, Vec<MemoryId>>,
) -> (Vec<Scored>, HashMap<MemoryId, MemoryId>) {
    if newer_of.is_empty() {
        return (ranked, HashMap::new());
    }
    let order: Vec<MemoryId> = ranked.iter().map(|s| s.id).collect();
    let mut by_id: HashMap<MemoryId, Scored> = ranked.into_iter().map(|s| (s.id, s)).collect();
    let mut placed: HashSet<MemoryId> = HashSet::new();
    let mut out: Vec<Scored> = Vec::with_capacity(order.len());
    let mut lifted: HashMap<MemoryId, MemoryId> = HashMap::new();
    for id in order {
        place(id, None, newer_of, &mut by_id, &mut placed, &mut out, &mut lifted);
    }
    (out, lifted)
}

/// For each older statement among the best `window` of `ranked` (and each newer statement found
/// for one), the candidates that read as its updates, newest first.
fn updates_found<F, C>(
    ranked: &[Scored],
    nearness: &Nearness<'_, '_, F, C>,
    window: usize,
    config: &Succession,
) -> HashMap<MemoryId, Vec<MemoryId>>
where
    F: Fn(MemoryId, MemoryId) -> Option<f32>,
    C: Fn(MemoryId, MemoryId) -> Option<f32>,
{
    let (read, candidates) = (nearness.read(), nearness.candidates());
    let similarity = |a, b| nearness.similarity(a, b);
    let mut newer_of: HashMap<MemoryId, Vec<MemoryId>> = HashMap::new();
    // The newer statements read as updates by nearness alone: each is weighed against every
    // candidate that reads it so, below.
    let mut by_nearness: HashSet<MemoryId> = HashSet::new();
    // The returned memories are read as older statements, and so is every newer statement
    // found for one (it is lifted into the answer: its own update must come before it).
    let mut olders: Vec<MemoryId> =
        ranked.iter().take(window).map(|s| s.id).filter(|id| read.contains_key(id)).collect();
    let mut seen: HashSet<MemoryId> = olders.iter().copied().collect();
    while let Some(older) = olders.pop() {
        let o = &read[&older];
        let mut found: Vec<MemoryId> = Vec::new();
        for &n in candidates.iter().filter(|n| **n != older) {
            let older_is_nearest = || nearness.is(n, Side::Older, older);
            let newer_is_nearest = || nearness.is(older, Side::Later, n);
            let similarity = || similarity(older, n);
            match updates(o, &read[&n], similarity, older_is_nearest, newer_is_nearest, config) {
                Some(Grounds::Words) => found.push(n),
                Some(Grounds::Nearness(_)) => {
                    found.push(n);
                    by_nearness.insert(n);
                }
                None => {}
            }
        }
        // Newest first, so a chain reads from the latest statement back.
        found.sort_by_key(|id| std::cmp::Reverse((read[id].statement.occurred_at, *id)));
        olders.extend(found.iter().copied().filter(|n| seen.insert(*n)));
        if !found.is_empty() {
            newer_of.insert(older, found);
        }
    }
    // Every candidate that reads a newer statement so (not only those in the window: the
    // answer must not depend on how many memories were asked for).
    for newer in by_nearness {
        let n = &read[&newer];
        let claims: Vec<(MemoryId, f32)> = candidates
            .iter()
            .filter(|c| **c != newer)
            .filter_map(|&c| {
                let older_is_nearest = || nearness.is(newer, Side::Older, c);
                let newer_is_nearest = || nearness.is(c, Side::Later, newer);
                let similarity = || similarity(c, newer);
                match updates(&read[&c], n, similarity, older_is_nearest, newer_is_nearest, config)
                {
                    Some(Grounds::Nearness(cosine)) => Some((c, cosine)),
                    _ => None,
                }
            })
            .collect();
        one_subject(&mut newer_of, newer, claims, config.nearest_margin);
    }
    newer_of
}

/// `vectors` (of `dimensions` floats each) centered on their mean and made unit length again,
/// for cosines that say which are nearest once the direction they all share is taken out. A
/// model's vectors of short texts sit in a narrow cone (multilingual-e5: cosine 0.80–0.95
/// between any two short statements, whatever they say), so the nearest by raw cosine is often
/// nearest by little more than being short; centered, a pair about one thing stands out from
/// the rest (the older and newer statements of the facts-change set are each other's nearest of
/// their 36 memories in 87 % of its scenarios centered, by a margin of 0.03, against 77 % raw,
/// by 0.01; 64 % against 49 % on the first held-out set). A vector of another length, or with a
/// value that is not finite, is left out (and out of the mean); so is one that is the mean
/// itself (a single vector, or copies of one).
pub fn centered<'v>(
    vectors: impl IntoIterator<Item = (MemoryId, &'v [f32])>,
    dimensions: usize,
) -> HashMap<MemoryId, Vec<f32>> {
    let kept: Vec<(MemoryId, &[f32])> = vectors
        .into_iter()
        .filter(|(_, v)| v.len() == dimensions && v.iter().all(|x| x.is_finite()))
        .collect();
    if kept.is_empty() {
        return HashMap::new();
    }
    let mut mean = vec![0.0f32; dimensions];
    for (_, v) in &kept {
        mean.iter_mut().zip(*v).for_each(|(m, x)| *m += x);
    }
    mean.iter_mut().for_each(|m| *m /= kept.len() as f32);
    kept.into_iter()
        .filter_map(|(id, v)| {
            let c: Vec<f32> = v.iter().zip(&mean).map(|(x, m)| x - m).collect();
            let norm = c.iter().map(|x| x * x).sum::<f32>().sqrt();
            (norm > 1e-6).then(|| (id, c.into_iter().map(|x| x / norm).collect()))
        })
        .collect()
}

/// Places `id` after the newer statements of it not yet placed (each before its own newer
/// ones). `instead` is the older memory whose place and score it takes, if it was lifted.
fn place(
    id: MemoryId,
    instead: Option<(MemoryId, f32)>,
    newer_of: &HashMap<MemoryId, Vec<MemoryId>>,
    by_id: &mut HashMap<MemoryId, Scored>,
    placed: &mut HashSet<MemoryId>,
    out: &mut Vec<Scored>,
    lifted: &mut HashMap<MemoryId, MemoryId>,
) {
    if !placed.insert(id) {
        return;
    }
    let Some(mut scored) = by_id.remove(&id) else { return };
    if let Some((older, score)) = instead {
        lifted.insert(id, older);
        let why = format!(
            "score of the older statement {older}, which this newer one reads as updating \
             (placed before it)"
        );
        take_score(&mut scored, score, why);
    }
    for newer in newer_of.get(&id).into_iter().flatten() {
        place(*newer, Some((id, scored.score)), newer_of, by_id, placed, out, lifted);
    }
    out.push(scored);
}

/// `scored` ranks by `score` (an older statement's) when that is higher than its own, which
/// stays explained under `why`.
fn take_score(scored: &mut Scored, score: f32, why: String) {
    let score = score.max(scored.score);
    let own = std::mem::replace(&mut scored.explanation, Explanation::leaf(0.0, ""));
    scored.explanation = Explanation { value: score, description: why, details: vec![own] };
    scored.score = score;
}

/// `ranked` with each superseded memory (history: a newer one replaced it) answered by the
/// current memory that replaced it: that one takes the superseded one's place and score (or
/// keeps its own place if it ranks higher already), and the superseded one is left out.
/// `current_of` maps every superseded candidate to its current successor, or to `None` when no
/// visible one exists (then it is only left out). Returns the list and the memories so placed,
/// each with the superseded one it took the place of. Pure.
///
/// The question usually matches the older wording (`Which city does the user live in?` and `I
/// live in Berlin`): superseding `I live in Berlin` by `I moved to Lisbon` should make the
/// recall answer with Lisbon, not only stop answering with Berlin.
pub fn current_first(
    ranked: Vec<Scored>,
    current_of: &HashMap<MemoryId, Option<MemoryId>>,
) -> (Vec<Scored>, HashMap<MemoryId, MemoryId>) {
    if current_of.is_empty() {
        return (ranked, HashMap::new());
    }
    let mut by_id: HashMap<MemoryId, Scored> = ranked.iter().map(|s| (s.id, s.clone())).collect();
    let mut placed: HashSet<MemoryId> = HashSet::new();
    let mut out: Vec<Scored> = Vec::with_capacity(ranked.len());
    let mut lifted: HashMap<MemoryId, MemoryId> = HashMap::new();
    for s in ranked {
        let Some(successor) = current_of.get(&s.id) else {
            if placed.insert(s.id) {
                out.extend(by_id.remove(&s.id));
            }
            continue;
        };
        let Some(current) = successor.filter(|c| !current_of.contains_key(c)) else { continue };
        if !placed.insert(current) {
            continue;
        }
        let own = by_id.remove(&current);
        let explanation = Explanation {
            value: s.score,
            description: format!(
                "score of the superseded statement {}, which this current one replaced",
                s.id
            ),
            details: own.as_ref().map_or_else(
                || vec![s.explanation.clone()],
                |o| vec![o.explanation.clone(), s.explanation.clone()],
            ),
        };
        let relevance = own.as_ref().map_or(s.relevance, |o| o.relevance.max(s.relevance));
        lifted.insert(current, s.id);
        out.push(Scored { id: current, score: s.score, relevance, explanation });
    }
    (out, lifted)
}

#[cfg(test)]
mod tests;
