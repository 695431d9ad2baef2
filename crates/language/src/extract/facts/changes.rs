//! Changes a text states: "from X to Y" in order, and the words that mark or state a change.

use std::collections::BTreeSet;

use rearview_core::is_han;

use super::scan::{Kind, Token, ValueKind, is_particle, scan};
use crate::tokenize::keyword_of;

/// Chinese verbs of change, which mark the new value (`改成 8766`); after `从 X`, a bare `到`
/// or `至` does too. Longest first wins at a position.
const ZH_CHANGE_VERBS: &str = "调整为 调整到 更改为 修改为 升级到 增加到 减少到 改成 改为 改到 \
    变成 变为 换成 换为 换到 调成 调为 调到 搬到 迁到 迁至 转到 转为 升到 升至 降到 降至 涨到 跌到";
/// Verbs that `到` completes (`得到` get, `收到` receive, `感到` feel…) rather than marks the new
/// value of a change.
const ZH_RESULTATIVE: &str = "得收看听遇想做达受拿找感碰买";
/// `从`/`由` that do not mean "from" here, by the character before or after.
const ZH_NOT_FROM: &str = "从来 从不 从未 从事 从而 从前 从小 从此 从头 从中 自从 服从 听从 跟从 \
    随从 盲从 由于 由此 由衷 自由 理由 缘由 经由 来由";
/// English verbs of change: `changed the port to 8766`, `moved to Paris`.
const EN_CHANGE_VERBS: &str = "change changed changes switch switched switches move moved moves \
    update updated updates set sets rename renamed renames migrate migrated upgrade upgraded \
    downgrade downgraded convert converted bump bumped";
/// Words that end the new value of an English change (`to Paris in 2023`).
const EN_TAIL_STOPS: &str = "in on at since because when after before for with and by last this \
    next yesterday today tomorrow now then so as";

/// The changes a clause states, in order of appearance.
pub(super) fn changes_in(clause: &[Token]) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    let mut push = |from: Vec<String>, to: Vec<String>| {
        if !to.is_empty() {
            out.push((from, to));
        }
    };
    for (i, t) in clause.iter().enumerate() {
        if t.kind == Kind::Arrow {
            let from = endpoint(clause, i, Direction::Back);
            if !from.is_empty() {
                push(from, endpoint(clause, i + 1, Direction::Forward));
            }
        }
    }
    let han_from = (0..clause.len()).find(|&i| {
        matches!(clause[i].text.as_str(), "从" | "由")
            && clause[i].kind == Kind::Han
            && !ZH_NOT_FROM
                .split_whitespace()
                .any(|w| han_word_at(clause, i, w) || han_word_ends_at(clause, i, w))
    });
    if let Some(p) = han_from {
        let markers = format!("{ZH_CHANGE_VERBS} 到 至");
        // `到` right after a verb completes it (`从父母那里得到`, "got from the parents"): no
        // change of value.
        let completes = |q: usize| {
            clause[q].text == "到"
                && q.checked_sub(1)
                    .is_some_and(|b| ZH_RESULTATIVE.contains(clause[b].text.as_str()))
        };
        if let Some((q, n)) =
            find_han_marker(clause, p + 1, &markers).filter(|&(q, _)| !completes(q))
        {
            push(atoms_of(&clause[p + 1..q]), atoms_of(capped(&clause[q + n..], 6)));
        }
    } else if let Some((q, n)) = find_han_marker(clause, 0, ZH_CHANGE_VERBS) {
        // `把 X 改成 Y` names X; a bare `改成 Y` names only the new value.
        let ba = clause[..q].iter().rposition(|t| t.kind == Kind::Han && t.text == "把");
        let from = ba.map(|b| atoms_of(&clause[b + 1..q])).unwrap_or_default();
        push(from, atoms_of(capped(&clause[q + n..], 6)));
    }
    let word_at = |w: &str| clause.iter().position(|t| t.kind == Kind::Word && t.text == w);
    let to_after = |start: usize, within: usize| {
        (start..clause.len().min(start + within))
            .find(|&j| clause[j].kind == Kind::Word && clause[j].text == "to")
    };
    if let Some(p) = word_at("from") {
        if let Some(q) = to_after(p + 2, 6) {
            push(atoms_of(&clause[p + 1..q]), english_tail(&clause[q + 1..]));
        }
    } else if let Some(v) =
        clause.iter().position(|t| t.kind == Kind::Word && listed(EN_CHANGE_VERBS, &t.text))
        && let Some(q) = to_after(v + 1, 7)
    {
        push(atoms_of(&clause[v + 1..q]), english_tail(&clause[q + 1..]));
    }
    out
}

#[derive(Clone, Copy)]
enum Direction {
    Back,
    Forward,
}

/// The value next to an arrow: the adjacent word or value, or up to four adjacent Han
/// characters. `Back` reads the tokens before `at`, `Forward` those from `at` on.
fn endpoint(clause: &[Token], at: usize, direction: Direction) -> Vec<String> {
    let indexes: Vec<usize> = match direction {
        Direction::Back => (0..at).rev().collect(),
        Direction::Forward => (at..clause.len()).collect(),
    };
    let Some(&first) = indexes.first() else { return Vec::new() };
    let mut taken = match clause[first].kind {
        Kind::Han => {
            indexes.iter().copied().take_while(|&j| clause[j].kind == Kind::Han).take(4).collect()
        }
        Kind::Word | Kind::Value(_) => vec![first],
        _ => Vec::new(),
    };
    taken.sort_unstable();
    let tokens: Vec<Token> = taken.iter().map(|&j| clause[j].clone()).collect();
    atoms_of(&tokens)
}

/// The new value of an English change: up to four tokens, ending at a preposition or the like.
fn english_tail(tokens: &[Token]) -> Vec<String> {
    let end = tokens
        .iter()
        .position(|t| t.kind == Kind::Word && listed(EN_TAIL_STOPS, &t.text))
        .unwrap_or(tokens.len());
    atoms_of(capped(&tokens[..end], 4))
}

/// Whether `word` is one of the space-separated words of `list`.
pub(super) fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

fn capped(tokens: &[Token], n: usize) -> &[Token] {
    &tokens[..tokens.len().min(n)]
}

/// The atoms of an end of a change, sorted, without particles and articles (`改成了 8766` and
/// `改成 8766` name the same value).
fn atoms_of(tokens: &[Token]) -> Vec<String> {
    let mut atoms: Vec<String> = tokens
        .iter()
        .filter(|t| matches!(t.kind, Kind::Han | Kind::Word | Kind::Value(_)))
        .filter(|t| !is_particle(&t.text) && !ARTICLES.contains(&t.text.as_str()))
        .map(|t| t.text.clone())
        .collect();
    atoms.sort_unstable();
    atoms.dedup();
    atoms
}

const ARTICLES: &[&str] = &["the", "a", "an", "my", "our", "your", "its", "their", "his", "her"];

/// The first of `markers` (Han words separated by spaces) at or after `from`, longest first at
/// each position: `(index, length in tokens)`.
fn find_han_marker(clause: &[Token], from: usize, markers: &str) -> Option<(usize, usize)> {
    (from..clause.len()).find_map(|i| {
        markers
            .split_whitespace()
            .filter(|m| han_word_at(clause, i, m))
            .map(|m| m.chars().count())
            .max()
            .map(|n| (i, n))
    })
}

/// Whether the Han word `word` starts at token `i`.
fn han_word_at(clause: &[Token], i: usize, word: &str) -> bool {
    let n = word.chars().count();
    clause.get(i..i + n).is_some_and(|tokens| {
        tokens.iter().zip(word.chars()).all(|(t, c)| {
            matches!(t.kind, Kind::Han | Kind::Negation) && t.text.chars().eq(std::iter::once(c))
        })
    })
}

/// Whether the Han word `word` ends at token `i`.
fn han_word_ends_at(clause: &[Token], i: usize, word: &str) -> bool {
    let n = word.chars().count();
    (i + 1).checked_sub(n).is_some_and(|start| han_word_at(clause, start, word))
}

// ---- markers of change ----------------------------------------------------------------------

/// English words that say a fact changed (moved, switched, replaced, quit…), matched whole.
const EN_CHANGE_STRONG: &str = "moved relocated switched changed replaced migrated upgraded \
    downgraded renamed rewrote rewritten rebuilt transferred promoted demoted joined left quit \
    stopped sold dropped rescheduled postponed pushed extended slipped delayed raised lowered cut \
    increased decreased reduced reinstalled rotated updated reassigned resigned retired anymore \
    formerly previously";
/// English phrases of change, as word sequences.
const EN_CHANGE_PHRASES: &[&[&str]] = &[
    &["no", "longer"],
    &["any", "more"],
    &["gave", "up"],
    &["give", "up"],
    &["given", "up"],
    &["used", "to"],
    &["from", "now", "on"],
    &["starting", "this"],
    &["starting", "next"],
    &["starting", "today"],
    &["starting", "tomorrow"],
    &["from", "next"],
    &["wait", "until"],
    &["from", "tomorrow"],
    &["from", "monday"],
    &["from", "tuesday"],
    &["from", "wednesday"],
    &["from", "thursday"],
    &["from", "friday"],
];
/// Weaker English markers: common in changes, rare in other talk. (`now`, `since`, `just`,
/// `again` are everywhere in a conversation and mark nothing.)
const EN_CHANGE_WEAK: &str =
    "nowadays move moving switching migrating changing change migration started";
/// English weak phrases.
const EN_WEAK_PHRASES: &[&[&str]] = &[&["these", "days"]];
/// Words after `left` that make it a side, not a departure (`left-handed`).
const EN_LEFT_SIDES: &str = "handed hand side wing turn";
/// Chinese words that say a fact changed, matched as substrings.
const ZH_CHANGE_STRONG: &str = "搬 迁 换 改 挪 调整 调到 调成 调为 转到 转为 转学 转岗 变成 变为 \
    变更 更新 升级 降级 重装 重写 重命名 跳槽 辞去 辞职 离职 升职 降职 推迟 延期 延后 \
    推后 提前到 涨到 涨了 降到 砍到 提高到 增加到 减少到 扩到 缩减 戒掉 戒了 戒烟 戒酒 放弃 不再 \
    停用 取消 卖掉 不用了 关闭 关掉 关停";
/// Words that contain a marker without a change of value: `换` in rotation and exchange, `关闭`
/// negated (not closed).
const ZH_NOT_CHANGE: &str = "轮换 交换 兑换 未关闭 不关闭 没关闭 没有关闭";
/// Weaker Chinese markers. (`现在`, `已经`, `又`, a sentence-final `了` are everywhere in a
/// story and mark nothing.)
const ZH_CHANGE_WEAK: &str = "如今 入职 等到";
/// Chinese markers too common to count on a shared subject (`例会 10 点开始`, `我从小就开始学钢琴`
/// after `我会弹钢琴`): they only make [`Update::Marked`], which the vectors must confirm.
const ZH_MARKED_ONLY: &str = "开始";
/// Words holding [`ZH_MARKED_ONLY`] that mark no change: "at first".
const ZH_NOT_MARKED: &str = "一开始 刚开始 开始时";
/// Plans and intentions: a change that has not happened yet (`今年要去换驾照`, "going to renew
/// the licence this year") supersedes nothing.
const ZH_INTENTION: &str = "要去 将要 打算 计划 准备 想要 想去 需要";
/// English plans and intentions, as word sequences.
const EN_INTENTION: &[&[&str]] = &[
    &["going", "to"],
    &["plan", "to"],
    &["plans", "to"],
    &["planning", "to"],
    &["need", "to"],
    &["want", "to"],
    &["will"],
    &["might"],
];
/// Words that contain `新` without it meaning a new value (news, fresh, Singapore…), and `刷新`
/// (refresh) and `创新` (innovate), where it ends the word.
const ZH_NOT_NEW: &str = "新闻 新鲜 新年 新疆 新加坡 新西兰 新春 新浪 新奇";
/// Words ending in `新` that are not "new".
const ZH_NOT_NEW_END: &str = "刷新 创新";

/// The markers of change in a text (see the constants above).
#[derive(Debug, Default)]
pub(super) struct Markers {
    /// A word or phrase of change (`moved`, `no longer`, `换成`, `不再`…).
    pub(super) strong: bool,
    /// A weaker marker (`these days`, `nowadays`, `如今`…).
    pub(super) weak: bool,
    /// A marker that only makes [`Update::Marked`] ([`ZH_MARKED_ONLY`]).
    pub(super) marked_only: bool,
    /// What follows each `new`/`新`: the next word's stem, or the next two Han characters.
    pub(super) new_heads: Vec<String>,
    /// What each `instead of` names (`Fly.io instead of Heroku`): a change of an older text
    /// that says it.
    pub(super) replaced: Vec<String>,
    /// The text states a plan or an intention (`going to`, `打算`): nothing has changed yet.
    pub(super) planned: bool,
}

pub(super) fn change_markers(text: &str) -> Markers {
    let words: Vec<String> = scan(text)
        .into_iter()
        .filter(|t| matches!(t.kind, Kind::Word | Kind::Negation | Kind::Value(ValueKind::Name)))
        .map(|t| t.text)
        .collect();
    let has_phrase = |phrases: &[&[&str]]| {
        phrases
            .iter()
            .any(|p| words.windows(p.len()).any(|w| w.iter().zip(p.iter()).all(|(a, b)| a == b)))
    };
    // `left-handed` is a side; `instead of Y` names what it replaces, so it is a change of the
    // older text only if that says Y (`replaced`, below), and a bare `instead` is one.
    let strong_word = words.iter().enumerate().any(|(i, w)| {
        let next = words.get(i + 1).map(String::as_str);
        (listed(EN_CHANGE_STRONG, w)
            && !(w == "left" && next.is_some_and(|n| listed(EN_LEFT_SIDES, n))))
            || (w == "instead" && next != Some("of"))
    });
    // What `instead of` names: its first word that carries content (`the bus` names `bus`; a
    // bare `the`, which every older text says, would name nothing).
    let replaced: Vec<String> = words
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] == "instead" && w[1] == "of")
        .filter_map(|(i, _)| words[i + 2..].iter().find(|w| keyword_of(w).is_some()).cloned())
        .collect();
    let mut new_heads: Vec<String> =
        words.windows(2).filter(|w| w[0] == "new").filter_map(|w| keyword_of(&w[1])).collect();
    for (i, _) in text.match_indices('新') {
        let not_new = ZH_NOT_NEW.split_whitespace().any(|w| text[i..].starts_with(w))
            || ZH_NOT_NEW_END.split_whitespace().any(|w| text[..i + '新'.len_utf8()].ends_with(w));
        let head: String =
            text[i + '新'.len_utf8()..].chars().take_while(|&c| is_han(c)).take(2).collect();
        if !not_new && head.chars().count() == 2 {
            new_heads.push(head);
        }
    }
    let planned =
        has_phrase(EN_INTENTION) || ZH_INTENTION.split_whitespace().any(|m| text.contains(m));
    if planned {
        return Markers { new_heads, planned, replaced, ..Markers::default() };
    }
    Markers {
        strong: strong_word
            || ZH_CHANGE_STRONG.split_whitespace().any(|m| contains_marker(text, m, ZH_NOT_CHANGE))
            || has_phrase(EN_CHANGE_PHRASES),
        weak: words.iter().any(|w| listed(EN_CHANGE_WEAK, w))
            || has_phrase(EN_WEAK_PHRASES)
            || ZH_CHANGE_WEAK.split_whitespace().any(|m| text.contains(m)),
        marked_only: ZH_MARKED_ONLY
            .split_whitespace()
            .any(|m| contains_marker(text, m, ZH_NOT_MARKED)),
        new_heads,
        planned,
        replaced,
    }
}

/// Whether `text` holds the Chinese marker `m` other than inside one of the words `not_in`
/// ([`ZH_NOT_CHANGE`], [`ZH_NOT_MARKED`]).
fn contains_marker(text: &str, m: &str, not_in: &str) -> bool {
    text.match_indices(m).any(|(i, _)| {
        !not_in.split_whitespace().any(|word| {
            // `word` holds `m` at byte `at`: is this `m` that occurrence of `word`?
            word.find(m).is_some_and(|at| {
                i.checked_sub(at)
                    .and_then(|start| text.get(start..))
                    .is_some_and(|rest| rest.starts_with(word))
            })
        })
    })
}

/// The stems of the English words of change, which say nothing about a text's subject.
pub(super) fn change_stems() -> &'static BTreeSet<String> {
    static STEMS: std::sync::LazyLock<BTreeSet<String>> = std::sync::LazyLock::new(|| {
        let phrases = EN_CHANGE_PHRASES.iter().chain(EN_WEAK_PHRASES).flat_map(|p| p.iter());
        EN_CHANGE_STRONG
            .split_whitespace()
            .chain(EN_CHANGE_WEAK.split_whitespace())
            .chain(phrases.copied())
            .chain(["instead"])
            .filter_map(keyword_of)
            .collect()
    });
    &STEMS
}
