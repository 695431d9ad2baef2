//! The newer of the two best answers first, when they are two statements of one fact that
//! nothing in their words marks as a change: a near tie broken by time.
//!
//! The words of change read by the parent module are too often one scenario's wording: on a
//! held-out set of 80 facts that change (`crates/eval/data/facts_change_holdout.jsonl`, written
//! after them by someone who had not read them) they put the newer statement first in 40 % of
//! the questions, against 88 % on the set they were read from. Many misses there need no words:
//! the older and the newer statement are the question's two best answers, each the other's
//! nearest statement among the candidates (`The free plan allows 3 projects.` and `Free
//! accounts get 5 projects as of today's release.`, `孩子每天下午四点半放学。` and `这学期学校调
//! 了作息，五点才放学。`). Two memories that alike, both answering the question, are most often
//! one fact stated at two times, and the later statement is what holds now.
//!
//! So the second goes first when it is a later statement than the first, of its tier (the
//! nearness reads one tier), at cosine ≥ [`Succession::min_similarity`] from it, each the
//! other's nearest statement among all the candidates by [`Succession::tie_margin`] on their
//! vectors centered on the ranked statements' mean ([`centered`](super::centered)), with a
//! runner-up of their tier that each is nearer to than by that margin, pointing the same way
//! from that mean (a positive centered cosine), not a plan (`I'm going to…`), and
//! scoring at least [`Succession::tie_ratio`] of the first. It takes the first one's score.
//!
//! Why centered: multilingual-e5 puts any two short statements at cosine 0.80–0.95, so by raw
//! cosines two unrelated memories of a small namespace are often each other's nearest
//! (`我喜欢在周末去香山爬山` and `用户对花生过敏…`), and the tie as first built also asked for a
//! subject term in common
//! ([`shares_a_subject_term`](crate::extract::Reading::shares_a_subject_term)), which kept
//! out true pairs that share no word (`我更喜欢用 Go 写代码了。` after
//! `我最喜欢的编程语言是 Python。`). Centered, the direction all the candidates share is taken
//! out and a pair about one thing stands out; two statements alone point away from each other.
//! With [`Succession::tie_margin`] `None` the tie reads as first built. This was designed from
//! held-out set 1's misses (its first form) and the tuned set's (centered). Held-out sets 2
//! and 3, written after the first form, gave 53.7 % and 43.8 % newer first without the tie,
//! 66.2 % and 58.8 % with its first form (since the speaker reading) and 68.8 % and 70.0 %
//! centered; sets 4 and 5, written before the centered form, 60.0 % → 67.5 % and 72.5 % →
//! 78.8 % (`BENCHMARKS.md`, "Nearness with the common direction taken out").
//!
//! Only the first two are read: a swap between them moves no memory into or out of any top k
//! but the first (before the relevance floor, which the newer one then passes as the older
//! statement it took the place of would: the first, or the one it was already placed before).
//! What it can cost is the first answer where two near-identical statements are about two
//! things (MemDaily's `我同事身高161厘米。` and `我上司身高177厘米。`); the nearness is asked
//! of all candidates and by a margin to keep that rare (figures in `BENCHMARKS.md`, "A held-out
//! set, and a near tie of the two best answers").

use rearview_core::MemoryId;

use super::nearness::{Nearness, Side};
use super::{Succession, take_score};
use crate::rank::Scored;

/// Puts the second of `ranked` first when it is the later statement of a near tie with the
/// first (see the module docs); returns it and the older one it took the place of. The scores
/// compared are the ones the two rank by (a statement already placed before an older one ranks
/// by that one's score).
pub(super) fn newer_of_a_near_tie<F, C>(
    ranked: &mut [Scored],
    nearness: &Nearness<'_, '_, F, C>,
    config: &Succession,
) -> Option<(MemoryId, MemoryId)>
where
    F: Fn(MemoryId, MemoryId) -> Option<f32>,
    C: Fn(MemoryId, MemoryId) -> Option<f32>,
{
    let [first, second, ..] = ranked else { return None };
    let read = nearness.read();
    let (older, newer) = (read.get(&first.id)?, read.get(&second.id)?);
    // Nearness reads statements of one tier only.
    let tied = newer.statement.occurred_at > older.statement.occurred_at
        && first.score > 0.0
        && second.score >= config.tie_ratio * first.score
        && nearness.similarity(first.id, second.id).is_some_and(|s| s >= config.min_similarity)
        && nearness.closeness(first.id, second.id).is_some_and(|c| c > 0.0)
        && nearness.is(first.id, Side::Either, second.id)
        && nearness.is(second.id, Side::Either, first.id)
        && !newer.reading().is_a_plan()
        && (config.tie_margin.is_some() || newer.reading().shares_a_subject_term(older.reading()));
    if !tied {
        return None;
    }
    let older_id = first.id;
    let why = format!(
        "score of {older_id}, an older statement of the same fact near-tied with this one (each \
         the other's nearest): the later one first"
    );
    take_score(second, first.score, why);
    ranked.swap(0, 1);
    Some((ranked[0].id, older_id))
}
