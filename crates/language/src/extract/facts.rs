//! What a text states, read closely enough to tell a restatement from a different fact, and the
//! comparisons built on it: [`adds_nothing`] (may one text be folded into another without
//! losing a fact?), [`contradicts`] (does a newer text give a different value for what an
//! older one says?) and [`update_evidence`] (how strongly does a newer text read as an update of
//! an older one: a contradiction, or a change it states?).
//!
//! A text is read clause by clause into [`Facts`]:
//! - **atoms**: every Han character, every other word (lower-cased) and every whole value, each
//!   marked with whether it stands in a negated stretch of its clause (from `不`, `没`, `not`,
//!   `never`, `n't`… to the end of the clause);
//! - **values**: numbers (`8765`, `2.5`, `10:30`, `v1.2`, a Chinese numeral before a measure word
//!   as in `三点`), e-mail addresses, URLs, and names (a capitalised word that does not open its
//!   sentence, an all-caps or mixed-case word, any Latin word inside Chinese text);
//! - **poles**: which side of an antonym pair of [`ANTONYMS`] the text takes, after negation
//!   (`不喜欢` takes the same side as `讨厌`, `not enabled` the same as `disabled`);
//! - **changes**: "from X to Y" in order (`从 X 改成 Y`, `X 改为 Y`, `from X to Y`,
//!   `changed X to Y`, `X → Y`);
//! - **topic**: the remaining content words (English ones stemmed, stop words dropped) and Han
//!   characters (particles dropped): what the text is about.
//!
//! All of this is a reading of surface forms, not understanding. It is tuned to fail safe for
//! merging: when unsure, two texts count as different, so a merge is skipped and both memories
//! are kept. Known blind spot: Chinese names and places are plain characters (no segmentation or
//! entity tagging here), so `我住在上海` and `我住在北京` differ as facts but do not share enough
//! topic to count as contradicting each other.

use std::collections::{BTreeMap, BTreeSet};

use rearview_core::is_han;

use crate::tokenize::keyword_of;

mod changes;
mod scan;
mod stated;
#[cfg(test)]
mod tests;

pub use stated::{StatedChange, stated_change};

use changes::{Markers, change_markers, change_stems, changes_in, listed};
use scan::{Kind, Token, ValueKind, is_content, is_particle, scan};

/// Whether `candidate` states nothing that `reference` lacks, so that folding it into
/// `reference` loses no fact: each of its atoms occurs in `reference` with the same negation, it
/// takes no antonym side `reference` does not take, and every change it states (`from X to Y`,
/// in that order) `reference` states too.
///
/// `服务端口是 8765` adds nothing to `我们的服务端口是 8765。`; `端口 8766` adds `8766` to
/// `端口 8765`; `用户喜欢深色主题` adds the positive `喜欢` to `用户不喜欢深色主题`; and
/// `moved from Paris to Berlin` adds the opposite direction to `moved from Berlin to Paris`.
pub fn adds_nothing(candidate: &str, reference: &str) -> bool {
    Facts::of(candidate).adds_nothing_to(&Facts::of(reference))
}

/// Whether `newer` states a different value for what `older` says (same subject, different fact atoms:
/// a number, a negation, an antonym, the order of from-X-to-Y, a named entity, an e-mail…), so that
/// `newer` should supersede `older` rather than merge into it or sit beside it. Pure, bilingual.
///
/// "Same subject": at least half the topic terms of the text with fewer are in the other.
/// "Different value", any of:
/// - a shared atom is negated in one text and not in the other (`drinks coffee` / `does not
///   drink coffee`);
/// - the texts take opposite sides of an antonym pair (`prefers light theme` / `prefers dark
///   theme`, `开启` / `关闭`, `喜欢` / `不喜欢`);
/// - both state changes and neither's changes include the other's (`从 8765 改成 8766` /
///   `从 8766 改成 8765`), or one states a change and the other holds its old value without
///   the new one (`端口是 8765` / `端口从 8765 改成 8766`);
/// - of one kind of value (numbers, e-mails, URLs, names), each text has one the other lacks
///   (`port 8765` / `port 8766`, `lives in Berlin` / `lives in Paris`).
///
/// A text that only adds a detail contradicts nothing: `端口 8765` / `服务端口是 8765，部署在
/// A 机房` is `false`. Meant for pairs that are already close by vector; it is symmetric except
/// for that "newer holds the old value" case being checked both ways as well.
pub fn contradicts(older: &str, newer: &str) -> bool {
    let (older, newer) = (Facts::of(older), Facts::of(newer));
    older.shares_topic_with(&newer)
        && (older.negation_conflict(&newer)
            || older.pole_conflict(&newer)
            || older.change_conflict(&newer)
            || newer.change_conflict(&older)
            || older.value_conflict(&newer))
}

/// How strongly a newer text reads as an update of an older one ([`update_evidence`]), weakest
/// first. How much is enough depends on what else says that the two are about the same thing;
/// the service asks more of a memory the further it is from the new one by meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Update {
    /// No sign that anything changed: a restatement, an added detail, or just another fact.
    None,
    /// Same topic, a different value (`port 8765` / `port 8766`), but no word of change. Also
    /// what two facts about different things look like (`My birthday is in June` / `My mother's
    /// birthday is on October 3`, `A 论坛的规模是六千人` / `B 论坛的规模是一百人`), so it is not
    /// enough to supersede: the two are kept side by side.
    Differs,
    /// The newer text only marks a change (a weak word of change: `started`, `moving`, `入职`,
    /// `开始`…, or `new X` where X is what the older text is about) and shares no subject term
    /// with the older one: weaker than [`Update::Stated`], and like it only the vectors can say
    /// the two are about the same thing.
    Marked,
    /// The newer text states a change (a verb of change or replacement, `no longer`, `instead`,
    /// `搬`, `换成`, `改`, `不再`, `辞`, from X to Y…) and the older one says something the newer
    /// does not; they share no topic term or value, so only nearness in meaning can say the
    /// change is about the older text's subject.
    Stated,
    /// A change stated as in [`Update::Stated`], or only marked (`these days`, `如今`, `new
    /// phone number` after `my phone number is…`, `新邮箱` after `我的邮箱是…`), about a subject
    /// term both texts share; or a different value with a word of change (`switched the API to
    /// port 9090` after `the API listens on 8080`).
    OnTopic,
    /// Same topic, opposite polarity: a negation (`drinks coffee` / `does not drink coffee`), the
    /// other side of an antonym (`喜欢` / `讨厌`), or changes that disagree (`从 8765 改成 8766` /
    /// `从 8766 改成 8765`).
    Contradiction,
}

/// How strongly `newer` reads as an update of `older` (see [`Update`]). Pure, bilingual, and as
/// much a reading of surface forms as [`contradicts`], with a stricter idea of "same subject"
/// (a shared topic word, a shared pair of Chinese characters, or a shared value: see
/// `subject_shared`) and words of change weighed in.
///
/// `I moved to Lisbon` after `I live in Berlin` is [`Update::Stated`], and so is `我上个月搬到上海
/// 了` after `我住在北京` (a change, and no subject term in common: only the vectors can say they
/// are about the same thing); `We switched the API to port 9090` after `The API listens on port
/// 8080` is [`Update::OnTopic`]; `I moved to Berlin in 2020` after `I moved to Berlin` is
/// [`Update::None`] (the older text adds nothing to the newer one), and so is `Berlin winters
/// are long` after `I live in Berlin` (no change stated).
pub fn update_evidence(older: &str, newer: &str) -> Update {
    update_evidence_of(&Reading::of(older), &Reading::of(newer))
}

/// A text read once for [`update_evidence_of`], when one text is compared with many (a recall's
/// candidates with each other).
#[derive(Debug)]
pub struct Reading {
    facts: Facts,
    markers: Markers,
    /// [`subject_terms`].
    subject: BTreeSet<String>,
    /// [`han_pairs`].
    pairs: BTreeSet<String>,
}

impl Reading {
    /// Reads `text`.
    pub fn of(text: &str) -> Self {
        let facts = Facts::of(text);
        let subject = subject_terms(text, &facts);
        Reading { markers: change_markers(text), subject, pairs: han_pairs(text), facts }
    }

    /// Whether the two texts share a subject term that says what they are about: not only whom
    /// (`用户`, `user`: an agent may write every memory about its user so) nor only a side of an
    /// antonym pair (`喜欢`: `用户喜欢爬山` and `用户喜欢吃辣` are two facts). `subject_shared`,
    /// which reads two texts as about one subject, asks more.
    pub fn shares_a_subject_term(&self, other: &Reading) -> bool {
        self.subject.intersection(&other.subject).any(|term| {
            !WHO_TERMS.contains(&term.as_str())
                && !antonym_forms().iter().any(|(form, _, _)| *form == term)
        })
    }

    /// Whether the text states a plan or an intention (`going to`, `打算`): a change that has
    /// not happened, which leaves what was true before true for now.
    pub fn is_a_plan(&self) -> bool {
        self.markers.planned
    }
}

/// [`update_evidence`] of two texts already read.
pub fn update_evidence_of(older: &Reading, newer: &Reading) -> Update {
    let markers = &newer.markers;
    if markers.planned {
        // A change that has not happened leaves the older text true for now.
        return Update::None;
    }
    let (old, new) = (&older.facts, &newer.facts);
    let subject = subject_shared(&older.subject, &newer.subject);
    // `new X` marks a new value only where X is what the older text is about (`new phone
    // number` after `My phone number is…`), not a new thing (`a new licence`).
    let old_markers = &older.markers;
    let new_of_subject = markers.new_heads.iter().any(|head| {
        (old.topic.contains(head) || older.pairs.contains(head))
            && !old_markers.new_heads.contains(head)
    });
    let said = old.said();
    let replaces_said = markers.replaced.iter().any(|y| said.contains(y.as_str()));
    let strong = markers.strong || !new.changes.is_empty() || replaces_said;
    let marked = strong || markers.weak || new_of_subject;
    if subject {
        if old.shares_topic_with(new)
            && (old.content_negation_conflict(new)
                || old.pole_conflict(new)
                || old.change_conflict(new)
                || new.change_conflict(old))
        {
            return Update::Contradiction;
        }
        if old.value_conflict(new) {
            return if marked { Update::OnTopic } else { Update::Differs };
        }
    }
    // A newer text that repeats everything the older one says adds a detail, unless it states a
    // change the older one does not (`I gave up on Spanish…` after `I'm learning Spanish`) away
    // from what the older one says (`端口从 8765 改成 8766` after `端口 8766` is a detail).
    let holds_new_value =
        new.changes.iter().any(|(_, to)| to.iter().all(|y| said.contains(y.as_str())));
    let newly_changed = strong && !old_markers.strong;
    let restated = old.adds_nothing_to(new) && (holds_new_value || !newly_changed);
    // `开始` and the like only where nothing else is marked and no subject is shared.
    let marked_only = markers.marked_only && !subject && !restated;
    match (marked && !restated, subject, strong) {
        (false, _, _) if marked_only => Update::Marked,
        (false, _, _) => Update::None,
        (true, true, _) => Update::OnTopic,
        (true, false, true) => Update::Stated,
        (true, false, false) => Update::Marked,
    }
}

/// Whether two texts are about the same subject: they share two subject terms, or one that is at
/// least a quarter of the subject terms of the one with fewer (short texts). Subject terms are topic words
/// (stemmed; not words of change), pairs of adjacent Chinese characters (single characters are
/// too common to say anything: `年` in `今年` and `明年`), words with two capitals (`API`, `CI`,
/// `MySQL`: products and acronyms), e-mail addresses and URLs. Other names, numbers and dates are
/// left out: in a conversation every turn names the same people and the same month. One shared
/// term is not enough in longer texts: `时间` in `A 的时间是周二下午` and `B 的时间是周一上午`
/// is an attribute, not the thing it belongs to.
fn subject_shared(mine: &BTreeSet<String>, theirs: &BTreeSet<String>) -> bool {
    let shared = mine.intersection(theirs).count();
    shared >= 2 || (shared > 0 && shared * 4 >= mine.len().min(theirs.len()))
}

/// The subject terms of `text` (see [`subject_shared`]).
fn subject_terms(text: &str, facts: &Facts) -> BTreeSet<String> {
    let mut terms: BTreeSet<String> = facts
        .topic
        .iter()
        .filter(|t| !t.chars().any(is_han) && !change_stems().contains(t.as_str()))
        .cloned()
        .collect();
    terms.extend(han_pairs(text));
    terms.extend(
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.chars().filter(char::is_ascii_uppercase).count() >= 2)
            .map(str::to_lowercase),
    );
    for kind in [ValueKind::Email, ValueKind::Url] {
        terms.extend(facts.values.get(&kind).into_iter().flatten().cloned());
    }
    terms
}

/// Adjacent Han characters of `text` that are not particles, as two-character strings; words
/// of time (`每周`, `上午`, `去年`…, and `开始`/`结束`) say when, not what, and are left out.
fn han_pairs(text: &str) -> BTreeSet<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(2)
        .filter(|w| w.iter().all(|&c| is_han(c) && !is_particle(&c.to_string())))
        .map(|w| w.iter().collect::<String>())
        .filter(|pair| !listed(ZH_TIME_WORDS, pair))
        .collect()
}

/// Subject terms that say whom a memory is about, which an agent's memories of its user all may.
const WHO_TERMS: &[&str] = &["用户", "user", "users"];

/// Two-character words of time, which frame a fact rather than name its subject.
const ZH_TIME_WORDS: &str = "每天 每周 每月 每年 每晚 每次 上午 下午 中午 早上 晚上 今天 明天 昨天 \
    今年 明年 去年 这周 下周 上周 本周 个月 上个 下个 最近 现在 以后 以前 之前 之后 周一 周二 周三 \
    周四 周五 周六 周日 开始 结束 下下";

/// Antonym pairs whose sides are facts: `(first side, second side)`, each a list of forms
/// separated by spaces. English
/// forms are listed with their inflections (matched as whole words, case-folded); Chinese forms
/// are matched as character sequences, longest first across all pairs (so `早上` is "morning",
/// not "early"). A negation up to [`NEGATION_REACH`] tokens before a form switches sides.
///
/// Kept short on purpose: each entry must be unambiguous enough that taking the other side
/// really is a different fact. `早`/`晚` are single characters and also occur in words such as
/// `早就`; the cost of a false match is a skipped merge, never a lost fact.
const ANTONYMS: &[(&str, &str)] = &[
    (
        "like likes liked liking love loves loved enjoy enjoys enjoyed 喜欢 喜爱 热爱 偏爱",
        "dislike dislikes disliked hate hates hated detest detests 讨厌 厌恶 反感 嫌弃",
    ),
    ("light lighter 浅色 亮色", "dark darker 深色 暗色"),
    (
        "enable enables enabled enabling 开启 打开 启用 开着",
        "disable disables disabled disabling 关闭 关掉 禁用 停用 关着",
    ),
    (
        "increase increases increased raise raises raised 增加 提高 增大 加大 上调 调高",
        "decrease decreases decreased reduce reduces reduced lower lowers lowered 减少 降低 减小 \
         下调 调低",
    ),
    ("early earlier 早", "late later 晚"),
    ("morning mornings 早上 早晨 上午", "evening evenings night nights 晚上 夜里 下午"),
    (
        "allow allows allowed permit permits permitted 允许",
        "forbid forbids forbidden prohibit prohibits prohibited 禁止",
    ),
    (
        "accept accepts accepted agree agrees agreed 接受 同意",
        "reject rejects rejected refuse refuses refused 拒绝 反对",
    ),
    ("start starts started begin begins began 开始 启动", "stop stops stopped 停止 结束"),
    ("include includes included 包括 包含", "exclude excludes excluded 排除"),
    ("public 公开", "private 私有 私密"),
    ("succeed succeeds succeeded success successful 成功", "fail fails failed failure 失败"),
    ("true correct 正确", "false wrong incorrect 错误"),
    ("buy buys bought 买", "sell sells sold 卖"),
];

/// How many tokens after a negation an antonym may start and still be the one it negates
/// (`不太喜欢`, `don't really like`, `不是很喜欢`).
const NEGATION_REACH: usize = 3;

/// What one text states; see the module docs.
#[derive(Debug, Default)]
struct Facts {
    /// Each atom with whether a negation governs it.
    atoms: BTreeSet<(String, bool)>,
    /// Values by kind, lower-cased.
    values: BTreeMap<ValueKind, BTreeSet<String>>,
    /// `(index into ANTONYMS, side)`: `true` is the first side.
    poles: BTreeSet<(usize, bool)>,
    /// `(from, to)`: each end's atoms, sorted, particles and articles dropped.
    changes: BTreeSet<(Vec<String>, Vec<String>)>,
    /// Content terms that are none of the above.
    topic: BTreeSet<String>,
}

impl Facts {
    fn of(text: &str) -> Self {
        let tokens = scan(text);
        let mut facts = Facts::default();
        for clause in tokens.split(|t| t.kind == Kind::ClauseEnd) {
            facts.read_clause(clause);
        }
        facts
    }

    fn read_clause(&mut self, clause: &[Token]) {
        let poles = find_poles(clause);
        let mut flipped = vec![false; clause.len()];
        let mut negated = false;
        for (i, token) in clause.iter().enumerate() {
            match token.kind {
                Kind::Negation => {
                    // Right before an antonym, a negation picks its other side (`不喜欢` is
                    // `讨厌`); otherwise it governs the rest of the clause.
                    let target = (i + 1..clause.len().min(i + 1 + NEGATION_REACH))
                        .take_while(|&j| clause[j].kind != Kind::Negation)
                        .find(|&j| poles.starts[j].is_some());
                    match target {
                        Some(j) => flipped[j] = !flipped[j],
                        None => negated = !negated,
                    }
                    self.atoms.insert((token.text.clone(), false));
                }
                Kind::Arrow | Kind::ClauseEnd => {}
                Kind::Han | Kind::Word | Kind::Value(_) => {
                    self.atoms.insert((token.text.clone(), negated));
                    if let Some((pair, side)) = poles.starts[i] {
                        self.poles.insert((pair, side ^ negated ^ flipped[i]));
                    }
                    if let Kind::Value(kind) = token.kind {
                        self.values.entry(kind).or_default().insert(token.text.clone());
                    } else if !poles.covered[i] {
                        let term = match token.kind {
                            Kind::Word => keyword_of(&token.text),
                            _ => Some(token.text.clone()).filter(|t| !is_particle(t)),
                        };
                        self.topic.extend(term);
                    }
                }
            }
        }
        self.changes.extend(changes_in(clause));
    }

    /// Every atom's text, whatever its negation.
    /// [`adds_nothing`]: whether `self` states nothing `reference` lacks.
    fn adds_nothing_to(&self, reference: &Facts) -> bool {
        self.atoms.is_subset(&reference.atoms)
            && self.poles.is_subset(&reference.poles)
            && self.changes.is_subset(&reference.changes)
    }

    fn said(&self) -> BTreeSet<&str> {
        self.atoms.iter().map(|(atom, _)| atom.as_str()).collect()
    }

    /// Each atom with whether it occurs outside (`.0`) and inside (`.1`) a negation.
    fn polarity(&self) -> BTreeMap<&str, (bool, bool)> {
        let mut map: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
        for (atom, negated) in &self.atoms {
            let seen = map.entry(atom.as_str()).or_default();
            if *negated {
                seen.1 = true;
            } else {
                seen.0 = true;
            }
        }
        map
    }

    fn shares_topic_with(&self, other: &Facts) -> bool {
        let shared = self.topic.intersection(&other.topic).count();
        let smaller = self.topic.len().min(other.topic.len());
        shared > 0 && shared * 2 >= smaller
    }

    fn negation_conflict(&self, other: &Facts) -> bool {
        let (mine, theirs) = (self.polarity(), other.polarity());
        mine.iter().any(|(atom, &(pos, neg))| {
            theirs.get(atom).is_some_and(|&(their_pos, their_neg)| {
                (pos && !neg && their_neg && !their_pos) || (neg && !pos && their_pos && !their_neg)
            })
        })
    }

    /// [`Facts::negation_conflict`] over content atoms only: a negated article (`without an
    /// elevator`) says nothing about another text's `an`.
    fn content_negation_conflict(&self, other: &Facts) -> bool {
        let content = |f: &Facts| Facts {
            atoms: f.atoms.iter().filter(|(a, _)| is_content(a)).cloned().collect(),
            ..Facts::default()
        };
        content(self).negation_conflict(&content(other))
    }

    fn pole_conflict(&self, other: &Facts) -> bool {
        let sides = |facts: &Facts, pair: usize| -> BTreeSet<bool> {
            facts.poles.iter().filter(|(p, _)| *p == pair).map(|(_, side)| *side).collect()
        };
        self.poles.iter().map(|(pair, _)| *pair).any(|pair| {
            let theirs = sides(other, pair);
            !theirs.is_empty() && sides(self, pair).is_disjoint(&theirs)
        })
    }

    /// Changes that disagree: both texts state changes and neither includes the other's, or
    /// `self` states a change `X → Y` and `other`, stating none, says `X` but not `Y`.
    fn change_conflict(&self, other: &Facts) -> bool {
        if self.changes.is_empty() {
            return false;
        }
        if !other.changes.is_empty() {
            return !self.changes.is_subset(&other.changes)
                && !other.changes.is_subset(&self.changes);
        }
        let said = other.said();
        self.changes.iter().any(|(from, to)| {
            from.iter().any(|x| said.contains(x.as_str()))
                && !to.iter().any(|y| said.contains(y.as_str()))
        })
    }

    /// Of one kind of value, each text has one the other does not say at all.
    fn value_conflict(&self, other: &Facts) -> bool {
        let (mine, theirs) = (self.said(), other.said());
        self.values.iter().any(|(kind, values)| {
            let Some(their_values) = other.values.get(kind) else { return false };
            values.iter().any(|v| !theirs.contains(v.as_str()))
                && their_values.iter().any(|v| !mine.contains(v.as_str()))
        })
    }
}

/// Where antonym forms start in a clause, and which tokens they cover.
struct Poles {
    starts: Vec<Option<(usize, bool)>>,
    covered: Vec<bool>,
}

fn find_poles(clause: &[Token]) -> Poles {
    let mut poles = Poles { starts: vec![None; clause.len()], covered: vec![false; clause.len()] };
    let mut i = 0;
    while i < clause.len() {
        let best = antonym_forms()
            .iter()
            .filter_map(|&(form, pair, side)| form_len_at(clause, i, form).map(|n| (n, pair, side)))
            .max_by_key(|&(n, _, _)| n);
        match best {
            Some((n, pair, side)) => {
                poles.starts[i] = Some((pair, side));
                poles.covered[i..i + n].iter_mut().for_each(|c| *c = true);
                i += n;
            }
            None => i += 1,
        }
    }
    poles
}

/// Every antonym form with its pair and side.
fn antonym_forms() -> &'static [(&'static str, usize, bool)] {
    static FORMS: std::sync::LazyLock<Vec<(&str, usize, bool)>> = std::sync::LazyLock::new(|| {
        let mut forms = Vec::new();
        for (pair, (first, second)) in ANTONYMS.iter().enumerate() {
            forms.extend(first.split_whitespace().map(|f| (f, pair, true)));
            forms.extend(second.split_whitespace().map(|f| (f, pair, false)));
        }
        forms
    });
    &FORMS
}

/// How many tokens `form` spans at `i`: one word, or one Han token per character.
fn form_len_at(clause: &[Token], i: usize, form: &str) -> Option<usize> {
    if form.chars().next().is_some_and(is_han) {
        let n = form.chars().count();
        let tokens = clause.get(i..i + n)?;
        let same = tokens
            .iter()
            .zip(form.chars())
            .all(|(t, c)| t.kind == Kind::Han && t.text.chars().eq(std::iter::once(c)));
        same.then_some(n)
    } else {
        let t = &clause[i];
        (matches!(t.kind, Kind::Word | Kind::Value(ValueKind::Name)) && t.text == form).then_some(1)
    }
}
