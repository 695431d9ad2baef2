//! Query focusing: when the query is a dialogue (the turns so far, one per line, as an agent
//! passes its context), what it is about now is in the latest turns.
//!
//! A dialogue of at least [`QueryFocus::min_turns`] turns gets
//! - a *tail*: its last `tail_turns` turns, embedded beside the whole text; the query vector is
//!   `normalise((1 − tail_weight) · whole + tail_weight · tail)`, so the latest turns pull the
//!   vector towards the current topic while the earlier ones still count;
//! - *turn weights* for its keywords: a term weighs `turn_decay ^ d`, `d` the distance in turns
//!   from the end of the latest turn it occurs in, so a name mentioned in the last turn counts
//!   fully and one from ten turns ago much less.
//!
//! Anything shorter (a question, a sentence, a few keywords) is left exactly as it is.
//! Lines that are only a marker such as `<BOD>` or `<EOD>` are not turns. A speaker label that
//! begins two or more turns (`user:`, `用户：`, `<Bart>:`) is the transcript's format, not what
//! is asked, and gives no keyword: otherwise `用户: …` would match every memory about `用户`.
//! The tail leaves them out too ([`QueryFocus::bare_tail`]): it is what the latest turn says.

use std::collections::HashMap;

use crate::Tokenizer;

/// How dialogue-shaped queries are focused on their latest turns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryFocus {
    /// Fewer turns than this: the query is not a dialogue and is left alone.
    pub min_turns: usize,
    /// How many of the latest turns form the tail.
    pub tail_turns: usize,
    /// Share of the tail in the query vector; 0 disables the tail.
    pub tail_weight: f32,
    /// Keyword weight per turn of distance from the end; 1 weighs every turn alike.
    pub turn_decay: f32,
    /// The tail is what its turns say, without their speaker labels; otherwise the turns as
    /// given. (The whole query is always embedded as given.)
    pub bare_tail: bool,
}

impl QueryFocus {
    /// No focusing at all.
    pub const OFF: QueryFocus = QueryFocus {
        min_turns: usize::MAX,
        tail_turns: 0,
        tail_weight: 0.0,
        turn_decay: 1.0,
        bare_tail: false,
    };
}

/// A query after focusing.
#[derive(Debug, Clone, PartialEq)]
pub struct Focused {
    /// Whether the query is a dialogue (at least [`QueryFocus::min_turns`] turns), whatever
    /// the tail's weight.
    pub dialogue: bool,
    /// The latest turns, to embed beside the whole query; `None` when not a dialogue.
    pub tail: Option<String>,
    /// Each distinct query term with its weight in `(0, 1]`, in first-seen order.
    pub terms: Vec<(String, f32)>,
}

/// The turns of `query`: its non-blank lines that are not a bare `<marker>`.
pub fn turns(query: &str) -> Vec<&str> {
    query
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !(l.starts_with('<') && l.ends_with('>') && !l[1..l.len() - 1].contains('<')))
        .collect()
}

/// Focuses `query` (pure): its tail and weighted terms, with `tokenizer`'s query terms.
pub fn focus(query: &str, tokenizer: Tokenizer, config: &QueryFocus) -> Focused {
    let turns = turns(query);
    if turns.len() < config.min_turns.max(2) {
        let terms = tokenizer.query_terms(query).into_iter().map(|t| (t, 1.0)).collect();
        return Focused { dialogue: false, tail: None, terms };
    }
    let mut weights: HashMap<String, f32> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let last = turns.len() - 1;
    let labels: Vec<Option<(&str, &str)>> = turns.iter().map(|t| label(t)).collect();
    let speakers = speakers(&labels);
    // What each turn says: without its label when the label is a speaker's.
    let said: Vec<&str> = turns
        .iter()
        .zip(&labels)
        .map(|(turn, labelled)| match labelled {
            Some((speaker, rest)) if speakers.contains(speaker) => rest.trim(),
            _ => turn,
        })
        .collect();
    for (i, words) in said.iter().enumerate() {
        let weight = config.turn_decay.clamp(0.0, 1.0).powi((last - i) as i32).max(1e-3);
        for term in tokenizer.query_terms(words) {
            match weights.get_mut(&term) {
                Some(w) => *w = w.max(weight),
                None => {
                    weights.insert(term.clone(), weight);
                    order.push(term);
                }
            }
        }
    }
    let terms = order.into_iter().map(|t| (t.clone(), weights[&t])).collect();
    let latest = |of: &[&str]| of[of.len().saturating_sub(config.tail_turns)..].join("\n");
    // A bare tail with nothing left to embed (`user:`) keeps its labels.
    let tail = (config.tail_weight > 0.0 && config.tail_turns > 0).then(|| {
        let bare = config.bare_tail.then(|| latest(&said));
        bare.filter(|t| t.chars().any(char::is_alphanumeric)).unwrap_or_else(|| latest(&turns))
    });
    Focused { dialogue: true, tail, terms }
}

/// A turn's leading label and what follows it: up to 32 characters before the first `:` or
/// `：`, in at most three words, with no sentence punctuation.
fn label(turn: &str) -> Option<(&str, &str)> {
    let at = turn.find([':', '：'])?;
    let (speaker, rest) = turn.split_at(at);
    let colon = rest.chars().next()?.len_utf8();
    let plausible = (1..=32).contains(&speaker.chars().count())
        && speaker.split_whitespace().count() <= 3
        && !speaker.contains(['。', '，', '！', '？', '.', ',', '!', '?', '"', '“']);
    plausible.then(|| (speaker.trim(), &rest[colon..]))
}

/// The labels (of [`label`], one per turn) that begin at least two turns: the speakers.
fn speakers<'a>(labels: &[Option<(&'a str, &str)>]) -> std::collections::HashSet<&'a str> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (speaker, _) in labels.iter().flatten() {
        *seen.entry(speaker).or_default() += 1;
    }
    seen.into_iter().filter(|(_, n)| *n >= 2).map(|(s, _)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FOCUS: QueryFocus = QueryFocus {
        min_turns: 3,
        tail_turns: 2,
        tail_weight: 0.5,
        turn_decay: 0.5,
        bare_tail: false,
    };

    #[test]
    fn a_question_is_left_alone() {
        let f = focus("Where did Caroline move?", Tokenizer::CjkBigram, &FOCUS);
        assert_eq!(f.tail, None);
        assert!(!f.dialogue);
        assert!(f.terms.iter().all(|(_, w)| *w == 1.0));
        assert!(f.terms.iter().any(|(t, _)| t.starts_with("carolin")));
    }

    #[test]
    fn a_dialogue_is_focused_on_its_latest_turns() {
        let q = "<BOD>\n<Bart>:\"元旦晚会我要表演魔术\"\n<Assistant>:\"太棒了\"\n<Bart>:\"我想再跳一次那个舞\"\n";
        assert_eq!(turns(q).len(), 3);
        let f = focus(q, Tokenizer::CjkBigram, &FOCUS);
        assert!(f.dialogue);
        let untailed = QueryFocus { tail_weight: 0.0, ..FOCUS };
        let g = focus(q, Tokenizer::CjkBigram, &untailed);
        assert!(g.dialogue && g.tail.is_none(), "a dialogue without a tail is still a dialogue");
        assert_eq!(
            f.tail.as_deref(),
            Some("<Assistant>:\"太棒了\"\n<Bart>:\"我想再跳一次那个舞\"")
        );
        let bare = focus(q, Tokenizer::CjkBigram, &QueryFocus { bare_tail: true, ..FOCUS });
        assert_eq!(
            bare.tail.as_deref(),
            Some("<Assistant>:\"太棒了\"\n\"我想再跳一次那个舞\""),
            "the bare tail is what the turns say (<Assistant> begins one turn only: not a speaker)"
        );
        assert_eq!(bare.terms, f.terms, "the tail's form changes no keyword");
        let weight = |term: &str| f.terms.iter().find(|(t, _)| t == term).map(|(_, w)| *w);
        assert_eq!(weight("跳舞").or(weight("舞")), Some(1.0));
        assert_eq!(weight("魔术"), Some(0.25), "two turns before the last");
        assert_eq!(weight("bart"), None, "the speaker label gives no keyword");
        assert_eq!(weight("assistant"), None);
    }

    #[test]
    fn speaker_labels_give_no_keywords_and_other_colons_keep_theirs() {
        let has = |f: &Focused, term: &str| f.terms.iter().any(|(t, _)| t == term);
        let zh = focus(
            "用户: 你好\n助手：你好\n用户: 周末过得怎么样？\n助手: 挺好\n用户: 还记得爬山吗？",
            Tokenizer::CjkBigram,
            &FOCUS,
        );
        assert!(!has(&zh, "用户") && !has(&zh, "助手"), "{:?}", zh.terms);
        assert!(has(&zh, "爬山") && has(&zh, "周末"));
        let en = focus(
            "user: hi\nassistant: which port?\nuser: the Redis one\nassistant: 6379",
            Tokenizer::CjkBigram,
            &FOCUS,
        );
        assert!(!has(&en, "user") && !has(&en, "assist"), "{:?}", en.terms);
        assert!(has(&en, "redi") || has(&en, "redis"), "{:?}", en.terms);
        // A label that begins one turn only is content: `端口` is what is asked.
        let once = focus(
            "user: hi\nassistant: hello\n端口: 8765 还在用吗？",
            Tokenizer::CjkBigram,
            &FOCUS,
        );
        assert!(has(&once, "端口") && has(&once, "8765"), "{:?}", once.terms);
        let bare = QueryFocus { tail_turns: 1, bare_tail: true, ..FOCUS };
        let tail = |q: &str| focus(q, Tokenizer::CjkBigram, &bare).tail;
        assert_eq!(
            tail("user: hi\nassistant: hello\n端口: 8765 还在用吗？").as_deref(),
            Some("端口: 8765 还在用吗？")
        );
        assert_eq!(
            tail("用户: 我周末去爬山了\n助手：真好\n用户: 你还记得吗\n助手: 当然记得").as_deref(),
            Some("当然记得"),
            "a content-free last turn is no longer about 用户"
        );
        assert_eq!(
            tail("用户: 我周末去爬山了\n助手：真好\n用户:").as_deref(),
            Some("用户:"),
            "nothing to embed"
        );
    }
}
