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
//! Any nearby memory would be too loose: a person's short event memories (MADial-Bench's
//! `Bart在…，感到非常开心`) sit at cosine 0.85–0.95 from each other, and a `新` or `开始` in the
//! later one would lift it above the one that answers. Reading the nearness from both sides
//! and changes only marked took the facts-change set from 85.2 % to 88.3 % newer first and moved
//! no figure of LoCoMo, MADial-Bench or MemDaily but LoCoMo R@1 (0.347 → 0.346).
//!
//! Without vectors (keyword-only) only the first case can be read, without the nearness.
//!
//! Only the best `window` candidates (the top k asked for, before the relevance floor and a
//! token budget cut further) are read as older statements, and each newer statement lifted
//! among them; any candidate of the query may be the newer one. Chains keep their order
//! (Lisbon, then Paris, then Berlin), also when only Berlin ranks in the window; a memory is
//! placed once.

use std::collections::{HashMap, HashSet};

use rearview_core::{MemoryId, MemoryType, Timestamp};

use crate::extract::{Reading, Update, is_statement, strip_timestamps, update_evidence_of};
use crate::rank::{Explanation, Scored};

mod nearness;

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
}

impl Succession {
    /// The default, for multilingual-e5.
    pub const DEFAULT: Succession = Succession { min_similarity: 0.80, nearest_margin: 0.01 };
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
/// vector; a candidate that is none of `statements` is never moved and moves nothing.
pub fn newer_first(
    ranked: Vec<Scored>,
    statements: &Statements<'_>,
    similarity: impl Fn(MemoryId, MemoryId) -> Option<f32>,
    window: usize,
    config: &Succession,
) -> (Vec<Scored>, HashMap<MemoryId, MemoryId>) {
    let newer_of = updates_found(&ranked, statements, similarity, window, config);
    if newer_of.is_empty() {
        return (ranked, HashMap::new());
    }
    let order: Vec<MemoryId> = ranked.iter().map(|s| s.id).collect();
    let mut by_id: HashMap<MemoryId, Scored> = ranked.into_iter().map(|s| (s.id, s)).collect();
    let mut placed: HashSet<MemoryId> = HashSet::new();
    let mut out: Vec<Scored> = Vec::with_capacity(order.len());
    let mut lifted: HashMap<MemoryId, MemoryId> = HashMap::new();
    for id in order {
        place(id, None, &newer_of, &mut by_id, &mut placed, &mut out, &mut lifted);
    }
    (out, lifted)
}

/// For each older statement among the best `window` of `ranked` (and each newer statement found
/// for one), the candidates that read as its updates, newest first.
fn updates_found(
    ranked: &[Scored],
    statements: &Statements<'_>,
    similarity: impl Fn(MemoryId, MemoryId) -> Option<f32>,
    window: usize,
    config: &Succession,
) -> HashMap<MemoryId, Vec<MemoryId>> {
    let read = &statements.read;
    let candidates: Vec<MemoryId> =
        ranked.iter().map(|s| s.id).filter(|id| read.contains_key(id)).collect();
    let nearness = Nearness::new(read, &candidates, &similarity, config.nearest_margin);
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
        let score = score.max(scored.score);
        let own = std::mem::replace(&mut scored.explanation, Explanation::leaf(0.0, ""));
        scored.explanation = Explanation {
            value: score,
            description: format!(
                "score of the older statement {older}, which this newer one reads as updating \
                 (placed before it)"
            ),
            details: vec![own],
        };
        scored.score = score;
    }
    for newer in newer_of.get(&id).into_iter().flatten() {
        place(*newer, Some((id, scored.score)), newer_of, by_id, placed, out, lifted);
    }
    out.push(scored);
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
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::testing::{id, ids, scored};

    fn day(d: u32) -> Timestamp {
        Utc.with_ymd_and_hms(2024, 5, d, 12, 0, 0).unwrap()
    }

    fn statement(text: &str, d: u32) -> Statement<'_> {
        Statement { text, occurred_at: day(d), memory_type: MemoryType::Episodic }
    }

    const NEAR: Option<f32> = Some(0.9);

    /// Berlin (1, day 1), the kids (2, day 2), the move to Lisbon (3, day 9), and `fourth` (4).
    fn berlin_kids_lisbon(fourth: Option<Statement<'static>>) -> Statements<'static> {
        let three = [
            (id(1), statement("I live in Berlin, in a flat by Tempelhofer Feld.", 1)),
            (id(2), statement("I have two kids, aged 7 and 10.", 2)),
            (id(3), statement("I moved to Lisbon last month and I'm renting in Alfama.", 9)),
        ];
        Statements::read(three.into_iter().chain(fourth.map(|s| (id(4), s))))
    }

    /// Cosines: the pairs listed have theirs, every other pair 0.5 (far).
    fn cosines(pairs: &[(u128, u128, f32)]) -> impl Fn(MemoryId, MemoryId) -> Option<f32> + '_ {
        move |a, b| {
            let listed = pairs
                .iter()
                .find(|&&(x, y, _)| (a, b) == (id(x), id(y)) || (a, b) == (id(y), id(x)));
            Some(listed.map_or(0.5, |&(_, _, cosine)| cosine))
        }
    }

    /// Cosines: the pairs listed are near (0.9), every other pair far (0.5).
    fn near_pairs(pairs: &[(u128, u128)]) -> impl Fn(MemoryId, MemoryId) -> Option<f32> {
        let near: Vec<(u128, u128, f32)> = pairs.iter().map(|&(x, y)| (x, y, 0.9)).collect();
        move |a, b| cosines(&near)(a, b)
    }

    #[test]
    fn a_newer_statement_takes_the_place_of_the_one_it_updates() {
        // A stated change with no subject term in common: read because Berlin is clearly the
        // nearest older statement to Lisbon.
        let statements = berlin_kids_lisbon(None);
        let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4)];
        let near = near_pairs(&[(1, 3)]);
        let (out, lifted) =
            newer_first(ranked.clone(), &statements, &near, 5, &Succession::DEFAULT);
        assert_eq!(ids(&out), [3, 1, 2]);
        assert_eq!(lifted, HashMap::from([(id(3), id(1))]));
        assert_eq!(out[0].score, 0.9, "it takes the older statement's score");
        assert!(out[0].explanation.description.contains(&id(1).to_string()));
        assert_eq!(out[0].explanation.details[0].value, 0.4, "its own score stays explained");
        // Berlin is not clearly the nearest older statement to Lisbon (the kids are nearly as
        // near), but Lisbon is clearly the nearest later one to Berlin: read from that side.
        // (Lisbon is not clearly the kids' nearest later one: a bike is nearly as near.)
        let statements =
            berlin_kids_lisbon(Some(statement("I have a bike with a child seat.", 10)));
        let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
        let one_side = cosines(&[(1, 3, 0.9), (2, 3, 0.895), (2, 4, 0.89)]);
        let (out, lifted) =
            newer_first(ranked.clone(), &statements, &one_side, 5, &Succession::DEFAULT);
        assert_eq!((ids(&out), lifted), (vec![3, 1, 2, 4], HashMap::from([(id(3), id(1))])));
        // Clear from neither side: the kids are as near to Lisbon, and a later change of phone
        // plan is as near to Berlin (and to the kids). A stated change alone moves nothing.
        let statements =
            berlin_kids_lisbon(Some(statement("I switched to a cheaper phone plan.", 10)));
        let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
        let neither = near_pairs(&[(1, 3), (2, 3), (1, 4), (2, 4)]);
        let (out, lifted) = newer_first(ranked, &statements, &neither, 5, &Succession::DEFAULT);
        assert_eq!((ids(&out), lifted.len()), (vec![1, 2, 3, 4], 0));
    }

    #[test]
    fn a_change_read_by_nearness_updates_one_older_statement() {
        // Lisbon is the nearest later statement to Berlin and the only one to the kids, which
        // rank first: it takes the place of the nearer of the two, and of neither on a tie.
        let statements = berlin_kids_lisbon(None);
        let ranked = vec![scored(2, 0.9), scored(1, 0.8), scored(3, 0.4)];
        let case = |pairs: &[(u128, u128, f32)]| {
            let near = cosines(pairs);
            let (out, lifted) =
                newer_first(ranked.clone(), &statements, &near, 5, &Succession::DEFAULT);
            (ids(&out), lifted)
        };
        let berlin = case(&[(1, 3, 0.92), (2, 3, 0.9)]);
        assert_eq!(berlin, (vec![2, 3, 1], HashMap::from([(id(3), id(1))])));
        assert_eq!(case(&[(1, 3, 0.9), (2, 3, 0.9)]), (vec![2, 1, 3], HashMap::new()), "a tie");
    }

    #[test]
    fn a_change_only_marked_needs_the_two_nearest_from_both_sides() {
        // `started` marks a change and names nothing the older text says.
        let statements = Statements::read([
            (id(1), statement("I'm vegetarian.", 1)),
            (id(2), statement("We have a golden retriever named Biscuit.", 2)),
            (id(3), statement("I started eating meat again last year.", 9)),
            (id(4), statement("I adopted a second dog.", 10)),
        ]);
        let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4), scored(4, 0.3)];
        let case = |pairs: &[(u128, u128)]| {
            let near = near_pairs(pairs);
            ids(&newer_first(ranked.clone(), &statements, &near, 5, &Succession::DEFAULT).0)
        };
        assert_eq!(case(&[(1, 3)]), [3, 1, 2, 4], "each the other's nearest");
        // The meat is as near to the dog as to being vegetarian: not clearly its update.
        assert_eq!(case(&[(1, 3), (2, 3)]), [1, 2, 3, 4], "not the nearest older");
        // Being vegetarian is as near to the second dog, which happened later.
        assert_eq!(case(&[(1, 3), (1, 4)]), [1, 2, 3, 4], "not the nearest later");
    }

    #[test]
    fn chains_read_from_the_latest_back_also_past_the_window() {
        // Each a change of the port of the API service (a subject both name): 2 updates 1, 3
        // updates 2; only 1 is in the window, and 1 and 3 are far in meaning.
        let statements = Statements::read([
            (id(1), statement("API 服务监听 8080 端口。", 1)),
            (id(2), statement("API 服务的端口改成了 9090。", 5)),
            (id(3), statement("API 服务的端口又改成了 9443。", 9)),
            (id(4), statement("每晚两点自动备份数据库。", 3)),
        ]);
        let ranked = vec![scored(1, 0.8), scored(4, 0.7), scored(2, 0.3), scored(3, 0.2)];
        let near = near_pairs(&[(1, 2), (2, 3)]);
        let (out, lifted) = newer_first(ranked, &statements, &near, 1, &Succession::DEFAULT);
        assert_eq!(ids(&out), [3, 2, 1, 4]);
        assert_eq!(lifted, HashMap::from([(id(2), id(1)), (id(3), id(2))]));
        assert!(out.windows(2).all(|w| w[0].score >= w[1].score), "scores stay sorted");
    }

    #[test]
    fn nothing_moves_without_a_change_near_in_meaning_of_one_tier_and_later() {
        let berlin = "I live in Berlin.";
        let lisbon = "I moved to Lisbon last month.";
        let case = |older: Statement<'static>, newer: Statement<'static>, near: Option<f32>| {
            let statements = Statements::read([(id(1), older), (id(2), newer)]);
            let ranked = vec![scored(1, 0.9), scored(2, 0.4)];
            ids(&newer_first(ranked, &statements, |_, _| near, 5, &Succession::DEFAULT).0)
        };
        assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), NEAR), [2, 1]);
        assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), Some(0.7)), [1, 2], "far");
        assert_eq!(case(statement(berlin, 9), statement(lisbon, 1), NEAR), [1, 2], "older");
        let semantic = Statement { memory_type: MemoryType::Semantic, ..statement(lisbon, 9) };
        assert_eq!(case(statement(berlin, 1), semantic, NEAR), [1, 2], "another tier");
        let plan = statement("I'm going to move to Lisbon next year.", 9);
        assert_eq!(case(statement(berlin, 1), plan, NEAR), [1, 2], "a plan is no change");
        let story = statement(
            "We moved to Lisbon. The flat is small, the light is lovely, the neighbours are \
             loud, and the tram goes right past the window every morning at six.",
            9,
        );
        assert_eq!(case(statement(berlin, 1), story, NEAR), [1, 2], "not a statement");
        // Keyword-only: a stated change needs a subject term both share.
        assert_eq!(case(statement(berlin, 1), statement(lisbon, 9), None), [1, 2]);
        let port = |t| statement(t, 1);
        let moved = statement("We switched the API server to port 9090.", 9);
        assert_eq!(case(port("The API server listens on port 8080."), moved, None), [2, 1]);
    }

    #[test]
    fn only_the_returned_window_is_read_as_older_statements() {
        let statements = Statements::read([
            (id(1), statement("The office has a quiet room on the third floor.", 1)),
            (id(2), statement("I live in Berlin.", 2)),
            (id(3), statement("I moved to Lisbon last month.", 9)),
        ]);
        // Only Berlin and Lisbon are near in meaning.
        let near = |a: MemoryId, b: MemoryId| {
            if a.max(b) == id(3) && a.min(b) == id(2) { NEAR } else { Some(0.5) }
        };
        let ranked = vec![scored(1, 0.9), scored(2, 0.5), scored(3, 0.4)];
        let (out, lifted) = newer_first(ranked.clone(), &statements, near, 1, &Succession::DEFAULT);
        assert_eq!(ids(&out), [1, 2, 3]);
        assert!(lifted.is_empty());
        let (out, _) = newer_first(ranked, &statements, near, 2, &Succession::DEFAULT);
        assert_eq!(ids(&out), [1, 3, 2]);
    }

    #[test]
    fn a_superseded_memory_is_answered_by_its_current_successor() {
        // 1 (superseded by 3) ranks first; 2 is unrelated; 4 is superseded with no visible
        // successor; 3 ranks last on its own words.
        let ranked = vec![scored(1, 0.9), scored(4, 0.7), scored(2, 0.5), scored(3, 0.2)];
        let current_of = HashMap::from([(id(1), Some(id(3))), (id(4), None)]);
        let (out, lifted) = current_first(ranked, &current_of);
        assert_eq!(ids(&out), [3, 2]);
        assert_eq!(out[0].score, 0.9, "it takes the superseded one's score");
        assert!(out[0].explanation.description.contains(&id(1).to_string()));
        assert_eq!(out[0].explanation.details.len(), 2, "its own score stays explained");
        assert_eq!(lifted, HashMap::from([(id(3), id(1))]));

        // A successor that is not a candidate at all still answers; one that ranks higher
        // keeps its place, and the superseded memory is only left out.
        let (out, _) = current_first(vec![scored(1, 0.9), scored(2, 0.5)], &current_of);
        assert_eq!(ids(&out), [3, 2]);
        let ranked = vec![scored(3, 0.95), scored(1, 0.9), scored(2, 0.5)];
        let (out, lifted) = current_first(ranked, &current_of);
        assert_eq!((ids(&out), out[0].score), (vec![3, 2], 0.95));
        assert!(lifted.is_empty());
        let (out, _) = current_first(vec![scored(2, 0.5)], &HashMap::new());
        assert_eq!(ids(&out), [2]);
    }
}
