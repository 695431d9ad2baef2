//! Text → keyword terms for the BM25 index.
//!
//! Chinese has no spaces, so whitespace tokenisation (what the design's sketch did) makes a whole
//! clause one token and a query for `爬山` can never match `我喜欢在周末去香山爬山`. We split text
//! into runs of Han characters and runs of everything else:
//! - Han runs are cut by [`Tokenizer::CjkBigram`] (every character and every pair of adjacent
//!   characters; the default) or by [`Tokenizer::Jieba`] (jieba's search-mode cut: words plus the
//!   shorter words inside long ones).
//!
//! Why bigrams by default: measured with BM25 alone through the real service path
//! (`cargo run --release -p rearview-service --example tokenizer_choice`), bigrams recall better
//! on MADial-Bench zh (R@5 0.521 vs 0.433) and equally on MemDaily (0.862 vs 0.858); adding jieba's
//! long words to the bigrams moved neither by more than 0.006. Bigrams also need no dictionary
//! (jieba's takes ~0.3 s to load) and never miss a name the dictionary does not know.
//! - Other runs are split on anything that is not a letter or digit and lower-cased, so
//!   `Port 8765` gives `port`, `8765`; purely alphabetic ASCII words are stemmed with Snowball's
//!   English stemmer, so `hiking` and `hikes` both give `hike`.
//!
//! Indexing and querying use the same function, so both sides always agree.

use rearview_core::is_han;
use std::collections::HashSet;
use std::sync::LazyLock;

use jieba_rs::Jieba;
use rust_stemmers::{Algorithm, Stemmer};

/// How Han text is cut into terms. Stored with the index: changing it requires re-indexing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tokenizer {
    /// jieba-rs `cut_for_search`: dictionary words plus the shorter words inside long ones.
    Jieba,
    /// Every Han character and every pair of adjacent Han characters. The default.
    #[default]
    CjkBigram,
}

/// jieba's dictionary takes a few hundred milliseconds to load; we do it once per process.
static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

/// Snowball's English stemmer, for purely alphabetic ASCII words (`hiking` → `hike`).
static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

impl Tokenizer {
    /// Stable name, stored next to the index.
    pub fn id(self) -> &'static str {
        match self {
            Tokenizer::Jieba => "jieba-search-en-stem-v2",
            Tokenizer::CjkBigram => "cjk-bigram-en-stem-v2",
        }
    }

    /// Parses a name as used in configuration (`jieba` or `bigram`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "jieba" => Some(Tokenizer::Jieba),
            "bigram" | "cjk-bigram" => Some(Tokenizer::CjkBigram),
            _ => None,
        }
    }

    /// Loads jieba's dictionary now rather than on the first request.
    pub fn warm_up(self) {
        if self == Tokenizer::Jieba {
            LazyLock::force(&JIEBA);
        }
    }

    /// Terms of a document, in order, with repeats (term frequency matters to BM25).
    pub fn index_terms(self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for run in runs(text) {
            match run {
                Run::Han(han) => self.cut_han(han, &mut out),
                Run::Other(other) => split_other(other, &mut out),
            }
        }
        out
    }

    /// Terms of a query: the document terms without repeats, in first-seen order.
    pub fn query_terms(self, text: &str) -> Vec<String> {
        let mut seen = HashSet::new();
        self.index_terms(text).into_iter().filter(|t| seen.insert(t.clone())).collect()
    }

    fn cut_han(self, han: &str, out: &mut Vec<String>) {
        match self {
            Tokenizer::Jieba => {
                for token in JIEBA.cut_for_search(han, true) {
                    out.push(token.word.to_owned());
                }
            }
            Tokenizer::CjkBigram => {
                let chars: Vec<char> = han.chars().collect();
                for (i, c) in chars.iter().enumerate() {
                    out.push(c.to_string());
                    if let Some(next) = chars.get(i + 1) {
                        out.push([*c, *next].iter().collect());
                    }
                }
            }
        }
    }
}

enum Run<'a> {
    Han(&'a str),
    Other(&'a str),
}

/// Splits `text` into maximal runs of Han characters and of everything else.
fn runs(text: &str) -> impl Iterator<Item = Run<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let han = is_han(first);
        let end =
            rest.char_indices().find(|&(_, c)| is_han(c) != han).map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some(if han { Run::Han(run) } else { Run::Other(run) })
    })
}

fn split_other(text: &str, out: &mut Vec<String>) {
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        out.extend(keyword_of(&word.to_lowercase()));
    }
}

/// The term of one lower-cased non-Han word: `None` for a stop word, the Snowball stem for a
/// purely alphabetic ASCII word, else the word itself.
pub(crate) fn keyword_of(lower: &str) -> Option<String> {
    if STOP_WORDS.binary_search(&lower).is_ok() {
        None
    } else if lower.bytes().all(|b| b.is_ascii_lowercase()) {
        Some(ENGLISH.stem(lower).into_owned())
    } else {
        Some(lower.to_owned())
    }
}

/// English function words (NLTK's list, without negations such as `not`/`no`, which can carry
/// meaning in a memory). They match nearly every English text, so they add candidates, not
/// evidence. Sorted, for binary search.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "s",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(t: Tokenizer, text: &str) -> Vec<String> {
        t.index_terms(text)
    }

    #[test]
    fn english_is_lower_cased_and_split_on_punctuation() {
        assert_eq!(terms(Tokenizer::Jieba, "Port 8765, e-mail!"), ["port", "8765", "e", "mail"]);
        assert_eq!(terms(Tokenizer::CjkBigram, "Hiking hikes"), ["hike", "hike"]);
        assert_eq!(terms(Tokenizer::CjkBigram, "Café v2"), ["café", "v2"]);
    }

    #[test]
    fn jieba_segments_chinese_words() {
        let t = terms(Tokenizer::Jieba, "我喜欢在周末去香山爬山");
        assert!(t.contains(&"爬山".to_owned()), "{t:?}");
        assert!(t.contains(&"周末".to_owned()), "{t:?}");
    }

    #[test]
    fn bigrams_cover_every_pair_and_character() {
        assert_eq!(terms(Tokenizer::CjkBigram, "爬山"), ["爬", "爬山", "山"]);
    }

    #[test]
    fn mixed_text_keeps_both_languages() {
        for t in [Tokenizer::Jieba, Tokenizer::CjkBigram] {
            let got = terms(t, "服务端口是8765，用PostgreSQL");
            assert!(got.contains(&"8765".to_owned()), "{t:?} {got:?}");
            assert!(got.contains(&"postgresql".to_owned()), "{t:?} {got:?}");
            assert!(got.contains(&"端口".to_owned()), "{t:?} {got:?}");
        }
    }

    #[test]
    fn stop_words_are_sorted_and_dropped() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]), "binary search needs sorted input");
        assert_eq!(
            terms(Tokenizer::CjkBigram, "What did the user say about the port?"),
            ["user", "say", "port"]
        );
    }

    #[test]
    fn query_terms_are_unique() {
        assert_eq!(Tokenizer::Jieba.query_terms("tea tea TEA"), ["tea"]);
    }

    #[test]
    fn empty_and_punctuation_only_text_has_no_terms() {
        assert!(terms(Tokenizer::Jieba, "").is_empty());
        assert!(terms(Tokenizer::Jieba, "，。！？ ... ").is_empty());
    }
}
