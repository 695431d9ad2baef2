//! Compound questions: one query that asks two or more things, joined by a word that says so
//! (`他的邮箱是什么？另外，论坛在哪里？`, `What is her e-mail? Also, where is the forum?`).
//!
//! Ranked as one text, such a query favours whichever of its questions the memories match
//! more, and the other question's answers drop out of the top k. [`question_parts`] splits it
//! where a question mark is followed by a connective (`另外`, `此外`, `还有`, `顺便问一下`,
//! `also`, `and`, `additionally`, `besides`, `plus`); each part is ranked on its own and
//! [`merge_parts`] puts the lists together, each part's best memory level with the best part's.
//! Question marks inside a sentence, rhetorical ones in small talk (`不知道是不是那个公园呢？
//! 我真正想问的是…`) and dialogues are left alone: without a connective, nothing is split.

use std::collections::HashMap;

use rearview_core::MemoryId;

use crate::rank::{Explanation, Scored, TierOrder};

/// At most this many parts; a longer chain's last part keeps the rest.
const MAX_PARTS: usize = 4;

/// Chinese connectives that begin another question, matched right after a question mark.
const ZH_CONNECTIVES: &[&str] = &["顺便问一下", "顺便问下", "另外", "此外", "还有", "再问一下"];
/// English connectives, matched as the first word (case-insensitive) after a question mark.
const EN_CONNECTIVES: &[&str] = &["also", "and", "additionally", "besides", "plus"];

/// The questions `query` asks: itself when it asks one (the common case), else each part
/// without its connective, in order. Pure.
pub fn question_parts(query: &str) -> Vec<&str> {
    if crate::focus::turns(query).len() > 2 {
        // A dialogue (three turns or more, as focusing counts them): focusing reads it.
        return vec![query];
    }
    let mut parts = Vec::new();
    let mut start = 0;
    for (at, mark) in query.match_indices(['?', '？']) {
        if parts.len() + 1 == MAX_PARTS {
            break;
        }
        let after = at + mark.len();
        let Some(next) = connective_end(&query[after..]) else { continue };
        parts.push(&query[start..after]);
        start = after + next;
    }
    parts.push(&query[start..]);
    // Each part a question of its own: some content, and a question mark at its end.
    let asks = |p: &&str| {
        p.chars().filter(|c| c.is_alphanumeric()).count() >= 2
            && p.trim_end().ends_with(['?', '？'])
    };
    if parts.len() < 2 || !parts.iter().all(asks) {
        return vec![query];
    }
    parts.into_iter().map(str::trim).collect()
}

/// Where the text after a connective begins in `rest` (what follows a question mark), when
/// `rest` begins with one (after spaces) followed by a comma or a space: `另外，…`, `Also, …`,
/// `and where…`; not `还有三天就放假了` (a word that begins with the connective) or `Andrew`.
fn connective_end(rest: &str) -> Option<usize> {
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    let zh = ZH_CONNECTIVES.iter().find(|c| trimmed.starts_with(**c)).map(|c| c.len());
    let en = || {
        let word: String = trimmed.chars().take_while(char::is_ascii_alphabetic).collect();
        EN_CONNECTIVES.contains(&word.to_ascii_lowercase().as_str()).then_some(word.len())
    };
    let length = zh.or_else(en)?;
    if !matches!(trimmed[length..].chars().next(), Some(',' | '，' | '、' | ' ' | ':' | '：')) {
        return None;
    }
    let after = &trimmed[length..];
    let body = after.trim_start_matches([',', '，', '、', ':', '：', ' ']);
    Some(skipped + length + (after.len() - body.len()))
}

/// One ranked list per part of a compound question (each best first), as one list: every
/// part's scores scaled so its best equals the best part's best, each memory at its highest
/// scaled score, best first (ties in part order), in tiers first as [`rank`](crate::rank::rank)
/// orders them under `order` (`priority`: a memory's tier priority). `parts` names the parts for
/// the explanations.
pub fn merge_parts(
    parts: &[&str],
    lists: Vec<Vec<Scored>>,
    order: TierOrder,
    priority: impl Fn(MemoryId) -> u8,
) -> Vec<Scored> {
    let tops: Vec<f32> = lists.iter().map(|l| l.first().map_or(0.0, |s| s.score)).collect();
    let best = tops.iter().copied().fold(0.0_f32, f32::max);
    let n = lists.len();
    let mut merged: Vec<Scored> = Vec::new();
    let mut at: HashMap<MemoryId, usize> = HashMap::new();
    for (i, list) in lists.into_iter().enumerate() {
        let factor = if tops[i] > 0.0 { best / tops[i] } else { 1.0 };
        let part = parts.get(i).copied().unwrap_or_default();
        let description = format!(
            "part {} of {n} of a compound question ({part:?}): its score × {factor:.3}, which \
             levels this part's best memory with the best part's",
            i + 1
        );
        for scored in list {
            let value = scored.score * factor;
            let description = description.clone();
            let id = scored.id;
            let relevance = scored.relevance;
            let explanation = Explanation { value, description, details: vec![scored.explanation] };
            let scaled = Scored { id, score: value, relevance, explanation };
            match at.get(&id) {
                Some(&k) if merged[k].score >= value => {}
                Some(&k) => merged[k] = scaled,
                None => {
                    at.insert(id, merged.len());
                    merged.push(scaled);
                }
            }
        }
    }
    let tier = |s: &Scored| order.key(s.score, best, priority(s.id));
    // Stable: equal scores stay in part order.
    merged.sort_by(|a, b| tier(a).cmp(&tier(b)).then_with(|| b.score.total_cmp(&a.score)));
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ids, scored};

    #[test]
    fn one_question_is_one_part() {
        for q in [
            "用户住在哪个城市？",
            "Where does the user live? ",
            "Which port, 8765 or 8766?",
            "端口 8765",
            // A rhetorical question in small talk, then the question: no connective.
            "不知道这回的地点是不是还是那个公园呢？不好意思，我真正想问的是：那个活动的地点是什么？",
            "Is it Redis? And?",
            // A word that begins with a connective, and a statement after the question.
            "你知道吗？还有三天就放假了。",
            "你还有事吗？还有没有别的事？",
            "Is it Redis? And the port is 8765.",
            "user: where?\nassistant: also here?\nuser: and there?",
        ] {
            assert_eq!(question_parts(q), vec![q], "{q:?}");
        }
    }

    #[test]
    fn a_connective_after_a_question_mark_splits() {
        assert_eq!(
            question_parts("上司是做什么工作的呢？另外，金融科技精英论坛的地点是什么？"),
            vec!["上司是做什么工作的呢？", "金融科技精英论坛的地点是什么？"]
        );
        assert_eq!(
            question_parts("What is Anna's e-mail? Also, which city does she live in?"),
            vec!["What is Anna's e-mail?", "which city does she live in?"]
        );
        assert_eq!(
            question_parts("谁更高？此外 哪个活动人更多？顺便问一下，Redis 端口是多少？ "),
            vec!["谁更高？", "哪个活动人更多？", "Redis 端口是多少？"]
        );
        assert_eq!(
            question_parts("Which port? and which host?"),
            vec!["Which port?", "which host?"]
        );
        // A word that only begins like a connective is not one.
        assert_eq!(question_parts("Which port? Andrew knows."), vec!["Which port? Andrew knows."]);
    }

    #[test]
    fn at_most_four_parts_the_last_keeps_the_rest() {
        let parts = question_parts("a1? Also, b2? Also, c3? Also, d4? Also, e5?");
        assert_eq!(parts, vec!["a1?", "b2?", "c3?", "d4? Also, e5?"]);
    }

    #[test]
    fn parts_are_levelled_at_their_best_and_each_memory_counted_once() {
        let first = vec![scored(1, 0.9), scored(2, 0.85), scored(3, 0.6)];
        let second = vec![scored(4, 0.6), scored(3, 0.5), scored(5, 0.3)];
        let merged = merge_parts(&["a?", "b?"], vec![first, second], TierOrder::ByScore, |_| 0);
        let order = ids(&merged);
        // Part 2 × 1.5: 4 → 0.9 (ties with 1, after it), 3 → 0.75 (its best), 5 → 0.45.
        assert_eq!(order, vec![1, 4, 2, 3, 5]);
        assert!((merged[3].score - 0.75).abs() < 1e-6);
        assert!(merged[1].explanation.description.starts_with("part 2 of 2"));
        assert_eq!(merged[1].explanation.details[0].value, 0.6, "the part's own score inside");
        assert_eq!(merged[1].relevance, 0.6, "relevance is the part's, unscaled");
        assert!(merge_parts(&["a?"], vec![vec![]], TierOrder::ByScore, |_| 0).is_empty());
        // With tiers first, a semantic memory (priority 0) within the band leads.
        let first = vec![scored(1, 0.9), scored(2, 0.85)];
        let second = vec![scored(4, 0.6)];
        let semantic_two = |id: MemoryId| u8::from(id != crate::testing::id(2));
        let merged =
            merge_parts(&["a?", "b?"], vec![first, second], TierOrder::SemanticFirst, semantic_two);
        assert_eq!(ids(&merged), vec![2, 1, 4]);
    }
}
