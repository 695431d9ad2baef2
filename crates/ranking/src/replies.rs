//! Replies after questions: in a conversation stored turn by turn, a turn that asks
//! (`How often do you get to see sunsets like this?`) shares the words of a later query about
//! it, but what answers that query is the next turn (`Almost every evening…`).
//!
//! After ranking, each of the first [`Replies::among_first`] memories that ends by asking a
//! question has its reply (the next memory of its session, at most [`Replies::within_secs`]
//! later; without a session, the next memory of the namespace when the recall's searches found
//! it too: the service looks it up) placed right after it with its score ([`place_replies`]). A reply already ranked above its question stays where it
//! is; nothing is dropped. Memories that are statements (facts, events, most of what an agent
//! stores) are not touched.

use std::collections::HashSet;

use rearview_core::MemoryId;

use crate::scored::{Explanation, Scored};

/// Settings of the stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replies {
    /// How many of the best-ranked memories are looked at for a question.
    pub among_first: usize,
    /// How much later than its question a reply may be, in seconds.
    pub within_secs: u32,
}

impl Replies {
    /// The default: the first 10, a reply within 10 minutes.
    pub const DEFAULT: Replies = Replies { among_first: 10, within_secs: 600 };
}

/// Whether `text` ends by asking: its last sentence mark (`.!?。！？`) is a question mark. A
/// bracketed note after it (`… like this? [shares a photo: …]`) does not count as a sentence,
/// and an ASCII mark inside a word (`https://x.dev/search?q=1`, `v1.2`) marks no sentence.
pub fn asks(text: &str) -> bool {
    let mut depth = 0_i32;
    let mut last = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ends_word = chars.peek().is_none_or(|n| !n.is_alphanumeric() && *n != '/' && *n != '=');
        match c {
            '[' | '(' | '（' | '【' => depth += 1,
            ']' | ')' | '）' | '】' => depth = (depth - 1).max(0),
            '。' | '！' | '？' if depth == 0 => last = Some(c),
            '.' | '!' | '?' if depth == 0 && ends_word => last = Some(c),
            _ => {}
        }
    }
    matches!(last, Some('?' | '？'))
}

/// `ranked` with each reply of `pairs` (`(question, reply)`, in any order) placed right after
/// its question, with the question's score and relevance, unless the reply already ranks above
/// it. Pure.
pub fn place_replies(ranked: Vec<Scored>, pairs: &[(MemoryId, MemoryId)]) -> Vec<Scored> {
    let mut out = ranked;
    let mut placed: HashSet<MemoryId> = HashSet::new();
    for &(question, reply) in pairs {
        let Some(q) = out.iter().position(|s| s.id == question) else { continue };
        let r = out.iter().position(|s| s.id == reply);
        if r.is_some_and(|r| r < q) || placed.contains(&reply) || placed.contains(&question) {
            continue;
        }
        let former = r.map(|r| out.remove(r));
        let asked = &out[q];
        let description = format!(
            "the reply to {}, a question: the next memory after it, at its score",
            asked.id
        );
        let details = former.map(|f| vec![f.explanation]).unwrap_or_default();
        let moved = Scored {
            id: reply,
            score: asked.score,
            relevance: asked.relevance,
            explanation: Explanation { value: asked.score, description, details },
        };
        out.insert(q + 1, moved);
        placed.insert(reply);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{id, ids as order, scored};

    #[test]
    fn a_text_asks_when_its_last_sentence_is_a_question() {
        assert!(asks("That picture is amazing! How often do you see sunsets like this?"));
        assert!(asks("What gave you the idea? [shares a photo: a bowl with colors]"));
        assert!(asks("你平时多久去一次海边？"));
        assert!(!asks("Which port"), "no sentence mark at all: not a question");
        assert!(!asks("Did it rain? It did. We stayed in."));
        assert!(!asks("The search page is https://x.dev/search?q=rust"));
        assert!(!asks("Is it up? See https://x.dev/status?id=7 for v1.2."));
        assert!(asks("Did you read https://x.dev/post?id=7?"));
        assert!(!asks("The API listens on port 8080."));
        assert!(!asks("我住在北京（你呢？）。"));
    }

    #[test]
    fn a_reply_follows_its_question_with_its_score() {
        let ranked = vec![scored(1, 0.9), scored(2, 0.8), scored(3, 0.7), scored(4, 0.6)];
        // 2 asks, 4 replies (ranked 4th), 9 replies to 3 (not a candidate).
        let out = place_replies(ranked, &[(id(2), id(4)), (id(3), id(9))]);
        assert_eq!(order(&out), vec![1, 2, 4, 3, 9]);
        assert_eq!(out[2].score, 0.8);
        assert!(out[2].explanation.description.starts_with("the reply to"));
        assert_eq!(out[2].explanation.details[0].value, 0.6, "its own score inside");
        assert!(out[4].explanation.details.is_empty(), "found by the lookup, never ranked");
    }

    #[test]
    fn a_reply_ranked_above_its_question_stays_and_nothing_is_dropped() {
        let ranked = vec![scored(1, 0.9), scored(2, 0.8), scored(3, 0.7)];
        let out = place_replies(ranked, &[(id(3), id(1)), (id(7), id(2))]);
        assert_eq!(order(&out), vec![1, 2, 3]);
        // A reply that is itself a question's reply is placed once.
        let ranked = vec![scored(1, 0.9), scored(2, 0.8), scored(3, 0.7)];
        let out = place_replies(ranked, &[(id(1), id(3)), (id(2), id(3))]);
        assert_eq!(order(&out), vec![1, 3, 2]);
    }
}
