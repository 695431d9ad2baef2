//! Extractive text selection: sentence splitting, representative-sentence choice (MMR) and the
//! "adds nothing new" test behind lossless merging. Pure: vectors, when used, come in as inputs.
//!
//! Used for summaries when no LLM is configured (long memories, `summarize_episodes` in
//! extractive mode) and by dedup-merge on store, which asks [`adds_nothing`] whether a merge
//! loses a fact, [`contradicts`] whether a near duplicate states a changed fact instead, and
//! [`update_evidence`] whether a new memory supersedes an older one.

mod facts;
mod small_talk;
mod timestamps;

use std::collections::{BTreeSet, HashMap};

use rearview_core::is_han;

pub use facts::{
    Reading, StatedChange, Update, adds_nothing, contradicts, stated_change, update_evidence,
    update_evidence_of,
};
pub use small_talk::is_small_talk;
pub use timestamps::strip_timestamps;

/// Sentences of `text`: cut after `.`, `!`, `?`, `;` followed by a space, after `。！？；` and at
/// line breaks; trimmed, empty ones dropped. Never cuts inside a character.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let cut = match c {
            '。' | '！' | '？' | '；' | '\n' => true,
            '.' | '!' | '?' | ';' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if cut {
            let end = i + c.len_utf8();
            push_trimmed(&mut out, &text[start..end]);
            start = end;
        }
    }
    push_trimmed(&mut out, &text[start..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim();
    if !piece.is_empty() {
        out.push(piece);
    }
}

/// How central each item is among `items` (each a list of terms): the mean, over its distinct
/// terms, of the share of other items that contain the term. An item about what the others are
/// about scores high; an aside scores low.
pub fn keyword_centrality(items: &[Vec<String>]) -> Vec<f32> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    let distinct: Vec<BTreeSet<&str>> =
        items.iter().map(|terms| terms.iter().map(String::as_str).collect()).collect();
    for set in &distinct {
        for term in set {
            *df.entry(term).or_default() += 1;
        }
    }
    let others = items.len().saturating_sub(1).max(1) as f32;
    distinct
        .iter()
        .map(|set| {
            if set.is_empty() {
                return 0.0;
            }
            let shared: f32 = set.iter().map(|t| (df[t] - 1) as f32 / others).sum();
            // Longer items share more terms by chance; the square root damps that.
            shared / (set.len() as f32).sqrt()
        })
        .collect()
}

/// How much each item shares with the items of other groups (a group is, say, one episode): the
/// mean, over the item's distinct terms, of the share of the other groups that use the term.
/// `0` for an item that shares no term with any other group (an aside), and for every item when
/// there is only one group.
pub fn shared_support(items: &[Vec<String>], groups: &[usize]) -> Vec<f32> {
    let mut users: HashMap<&str, BTreeSet<usize>> = HashMap::new();
    for (terms, &group) in items.iter().zip(groups) {
        for term in terms {
            users.entry(term).or_default().insert(group);
        }
    }
    let others = groups.iter().collect::<BTreeSet<_>>().len().saturating_sub(1);
    items
        .iter()
        .zip(groups)
        .map(|(terms, group)| {
            let distinct: BTreeSet<&str> = terms.iter().map(String::as_str).collect();
            if distinct.is_empty() || others == 0 {
                return 0.0;
            }
            let shared: usize =
                distinct.iter().map(|t| users[t].iter().filter(|g| *g != group).count()).sum();
            shared as f32 / others as f32 / distinct.len() as f32
        })
        .collect()
}

/// Whether `text` is a statement that a reading of updates may judge: at most two clauses, 25
/// words and 45 Han characters. A longer memory (a dialogue turn, a story) states many things: one changed fact
/// in it must not make the rest history, and markers of change in it say little about which.
pub fn is_statement(text: &str) -> bool {
    let words = text.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
    let han = text.chars().filter(|&c| is_han(c)).count();
    // A Latin mark ends a clause only before a space (not inside `a.b@c.io` or `9.5`), and a
    // period not after a title (`Dr. Nguyen`).
    let text = text.trim();
    let mut clauses = 1;
    for (i, c) in text.char_indices() {
        let rest = &text[i + c.len_utf8()..];
        let spaced = rest.starts_with(char::is_whitespace);
        let ends = match c {
            '，' | '；' | '。' | '！' | '？' => !rest.is_empty(),
            ',' | ';' | '!' | '?' => spaced,
            '.' => spaced && !after_title(&text[..i]),
            _ => false,
        };
        clauses += usize::from(ends);
    }
    clauses <= 2 && words <= 25 && han <= 45
}

/// Whether `before` ends in a title or abbreviation that takes a period (`Dr`, `Mr`, `St`…).
fn after_title(before: &str) -> bool {
    const TITLES: &[&str] =
        &["Dr", "Mr", "Mrs", "Ms", "St", "Jr", "Prof", "vs", "etc", "e.g", "i.e"];
    let word = before.rsplit(char::is_whitespace).next().unwrap_or_default();
    TITLES.contains(&word)
}

/// Jaccard overlap of two term lists, in `[0, 1]`.
pub fn term_overlap(a: &[String], b: &[String]) -> f32 {
    let a: BTreeSet<&str> = a.iter().map(String::as_str).collect();
    let b: BTreeSet<&str> = b.iter().map(String::as_str).collect();
    let union = a.union(&b).count();
    if union == 0 { 0.0 } else { a.intersection(&b).count() as f32 / union as f32 }
}

/// Maximal marginal relevance: picks items by `lambda × relevance − (1 − lambda) × (highest
/// similarity to an item already picked)` while their lengths fit in `budget`; returns the picked
/// indexes in their original order. The first pick is the most relevant item even when it alone
/// exceeds the budget (the caller cuts it). Ties go to the earlier item.
pub fn select_mmr(
    relevance: &[f32],
    similarity: impl Fn(usize, usize) -> f32,
    lengths: &[usize],
    budget: usize,
    lambda: f32,
) -> Vec<usize> {
    let mut picked: Vec<usize> = Vec::new();
    let mut used = 0usize;
    loop {
        let best = (0..relevance.len())
            .filter(|i| !picked.contains(i))
            .filter(|&i| picked.is_empty() || used + lengths[i] <= budget)
            .map(|i| {
                let redundancy = picked.iter().map(|&j| similarity(i, j)).fold(0f32, f32::max);
                (i, lambda * relevance[i] - (1.0 - lambda) * redundancy)
            })
            .fold(None::<(usize, f32)>, |best, (i, score)| match best {
                Some((_, s)) if s >= score => best,
                _ => Some((i, score)),
            });
        let Some((i, _)) = best else { break };
        used += lengths[i];
        picked.push(i);
    }
    picked.sort_unstable();
    picked
}

#[cfg(test)]
mod tests {
    use rearview_core::fact_atoms;

    use super::*;

    #[test]
    fn sentences_split_in_both_languages_but_not_inside_numbers() {
        assert_eq!(
            split_sentences("我喜欢爬山。周末常去香山！Version 2.5 is out. Next?\nok"),
            ["我喜欢爬山。", "周末常去香山！", "Version 2.5 is out.", "Next?", "ok"]
        );
        assert!(split_sentences("  \n ").is_empty());
    }

    #[test]
    fn atoms_and_the_lossless_test() {
        let atoms: Vec<String> = fact_atoms("Port 8765, 端口!").into_iter().collect();
        assert_eq!(atoms, ["8765", "port", "口", "端"]);
        assert!(adds_nothing("服务端口是 8765", "我们的服务端口是 8765。"));
        assert!(!adds_nothing("服务端口是 8766", "服务端口是 8765"));
        assert!(!adds_nothing("I live in Beijing", "I live in Shanghai"));
        assert!(adds_nothing("likes TEA", "The user likes tea."));
    }

    #[test]
    fn mmr_prefers_relevant_then_diverse_within_budget() {
        let relevance = [0.9, 0.89, 0.5, 0.1];
        // 0 and 1 are near-copies; 2 is different.
        let sim = |a: usize, b: usize| if a.min(b) == 0 && a.max(b) == 1 { 0.99 } else { 0.1 };
        assert_eq!(select_mmr(&relevance, sim, &[10, 10, 10, 10], 20, 0.5), [0, 2]);
        assert_eq!(select_mmr(&relevance, sim, &[50, 10, 10, 10], 20, 0.5), [0]);
        assert!(select_mmr(&[], sim, &[], 20, 0.5).is_empty());
    }

    #[test]
    fn centrality_favours_the_common_topic() {
        let items: Vec<Vec<String>> = [["hike", "hill"], ["hike", "weekend"], ["tax", "form"]]
            .iter()
            .map(|t| t.iter().map(|s| s.to_string()).collect())
            .collect();
        let c = keyword_centrality(&items);
        assert!(c[0] > c[2] && c[1] > c[2], "{c:?}");
        // Items 0 and 2 come from one episode, 1 from another: the aside shares nothing.
        assert_eq!(shared_support(&items, &[0, 1, 0]), [0.5, 0.5, 0.0]);
        assert_eq!(shared_support(&items, &[0, 0, 0]), [0.0; 3], "one episode shares with none");
        assert!((term_overlap(&items[0], &items[1]) - 1.0 / 3.0).abs() < 1e-6);
    }
}
