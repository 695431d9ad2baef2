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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ValueKind {
    Number,
    Email,
    Url,
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Han,
    Word,
    Value(ValueKind),
    Negation,
    Arrow,
    ClauseEnd,
}

#[derive(Debug, Clone)]
struct Token {
    /// The atom: a Han character, a lower-cased word or value, a negation marker (`不`, `not`).
    text: String,
    kind: Kind,
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

// ---- changes ---------------------------------------------------------------------------------

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
fn changes_in(clause: &[Token]) -> Vec<(Vec<String>, Vec<String>)> {
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
fn listed(list: &str, word: &str) -> bool {
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
struct Markers {
    /// A word or phrase of change (`moved`, `no longer`, `换成`, `不再`…).
    strong: bool,
    /// A weaker marker (`these days`, `nowadays`, `如今`…).
    weak: bool,
    /// A marker that only makes [`Update::Marked`] ([`ZH_MARKED_ONLY`]).
    marked_only: bool,
    /// What follows each `new`/`新`: the next word's stem, or the next two Han characters.
    new_heads: Vec<String>,
    /// What each `instead of` names (`Fly.io instead of Heroku`): a change of an older text
    /// that says it.
    replaced: Vec<String>,
    /// The text states a plan or an intention (`going to`, `打算`): nothing has changed yet.
    planned: bool,
}

fn change_markers(text: &str) -> Markers {
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
fn change_stems() -> &'static BTreeSet<String> {
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

// ---- scanning --------------------------------------------------------------------------------

/// Whether an atom carries content: not an English stop word, not a Chinese particle.
fn is_content(atom: &str) -> bool {
    if atom.chars().any(is_han) { !is_particle(atom) } else { keyword_of(atom).is_some() }
}

/// Characters that are grammar rather than content in Chinese: left out of the topic and of the
/// ends of a change.
fn is_particle(atom: &str) -> bool {
    const PARTICLES: &str =
        "的了是在和与及也都就还又很太我你他她它们这那个吧呢啊吗把被从由到给对着过得地之";
    let mut chars = atom.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if PARTICLES.contains(c))
}

/// Chinese negation markers. Each is one character; the words in [`ZH_NOT_NEGATION`] that
/// contain one are not negations (`非常` is "very", `未来` "future", `别人` "others").
const ZH_NEGATIONS: &str = "不没别未无非勿莫否";
const ZH_NOT_NEGATION: &str = "非常 除非 无非 是非 莫非 未来 别人 别的 别处 分别 特别 区别 类别 \
    级别 告别 差别 识别 性别 个别 无论 不过 不但 不仅 不管 不论 不断 不久 要不 否则 是否 能否 可否 差不";
/// English negation words (contractions in `n't` are split into the verb and `not`).
const EN_NEGATIONS: &[&str] =
    &["not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "without"];
/// Negative contractions written without the apostrophe, and `cannot`: the verb they negate.
const EN_CONTRACTED: &[(&str, &str)] = &[
    ("cannot", "can"),
    ("cant", "can"),
    ("dont", "do"),
    ("doesnt", "does"),
    ("didnt", "did"),
    ("isnt", "is"),
    ("arent", "are"),
    ("wasnt", "was"),
    ("werent", "were"),
    ("wont", "will"),
    ("wouldnt", "would"),
    ("couldnt", "could"),
    ("shouldnt", "should"),
    ("havent", "have"),
    ("hasnt", "has"),
    ("hadnt", "had"),
];
/// Words that start a new clause for negation (`not tea but coffee`).
const EN_CLAUSE_WORDS: &[&str] = &["but", "however", "although", "though", "whereas"];
/// Chinese numerals, read as a number when a measure word follows (`三点`, `两个`) or `第`
/// precedes (`第三`).
const ZH_NUMERALS: &str = "零〇一二两三四五六七八九十百千万半";
const ZH_MEASURES: &str =
    "个位名岁年月日号天周次点分秒元块角米里斤克倍层楼台本杯碗瓶条件张只辆间套家人小刻遍趟";

/// The tokens of `text`, clauses separated by `ClauseEnd`.
fn scan(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let chinese = chars.iter().any(|&c| is_han(c));
    let mut out = Vec::new();
    let mut sentence_start = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(n) = url_len(&chars, i) {
            let url: String = chars[i..i + n].iter().collect();
            out.push(Token { text: url.to_lowercase(), kind: Kind::Value(ValueKind::Url) });
            (i, sentence_start) = (i + n, false);
        } else if let Some(n) = arrow_len(&chars, i) {
            out.push(Token { text: "→".into(), kind: Kind::Arrow });
            i += n;
        } else if is_han(c) {
            i = scan_han(&chars, i, &mut out);
            sentence_start = false;
        } else if c.is_alphanumeric() {
            let end = run_end(&chars, i);
            let run: String = chars[i..end].iter().collect();
            push_run(&run, chinese, sentence_start, &mut out);
            (i, sentence_start) = (end, false);
        } else {
            match c {
                '.' | '!' | '?' | '。' | '！' | '？' | '\n' => {
                    out.push(clause_end());
                    sentence_start = true;
                }
                ',' | ';' | ':' | '，' | '；' | '：' | '、' | '(' | ')' | '（' | '）' => {
                    out.push(clause_end())
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

fn clause_end() -> Token {
    Token { text: String::new(), kind: Kind::ClauseEnd }
}

/// One Han character (or a numeral run) at `i`; returns where the next token starts.
fn scan_han(chars: &[char], i: usize, out: &mut Vec<Token>) -> usize {
    let c = chars[i];
    if ZH_NUMERALS.contains(c) {
        let end =
            (i..chars.len()).find(|&j| !ZH_NUMERALS.contains(chars[j])).unwrap_or(chars.len());
        let measured = chars.get(end).is_some_and(|n| ZH_MEASURES.contains(*n));
        let ordinal = i > 0 && chars[i - 1] == '第';
        if measured || ordinal {
            let numeral: String = chars[i..end].iter().collect();
            out.push(Token { text: numeral, kind: Kind::Value(ValueKind::Number) });
            return end;
        }
    }
    if c == '但' {
        // "But": what follows is not governed by a negation before it.
        out.push(clause_end());
        return i + 1;
    }
    let kind = if ZH_NEGATIONS.contains(c) && !in_word(chars, i, ZH_NOT_NEGATION) {
        Kind::Negation
    } else {
        Kind::Han
    };
    out.push(Token { text: c.to_string(), kind });
    i + 1
}

/// Whether the character at `i` is part of one of the two-character `words` (separated by
/// spaces).
fn in_word(chars: &[char], i: usize, words: &str) -> bool {
    let pair = |a: usize| chars.get(a..a + 2).map(|p| p.iter().collect::<String>());
    let before = i.checked_sub(1).and_then(pair);
    let after = pair(i);
    words.split_whitespace().any(|w| before.as_deref() == Some(w) || after.as_deref() == Some(w))
}

/// Length of a URL starting at `i` (`http://`, `https://` or `www.`), trailing punctuation left out.
fn url_len(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && chars[i - 1].is_alphanumeric() {
        return None;
    }
    let head: String = chars[i..chars.len().min(i + 8)].iter().collect::<String>().to_lowercase();
    if !["http://", "https://", "www."].iter().any(|p| head.starts_with(p)) {
        return None;
    }
    let stop =
        |c: char| c.is_whitespace() || is_han(c) || "\"'<>()[]{}，。、）】「」！？；".contains(c);
    let mut end = (i..chars.len()).find(|&j| stop(chars[j])).unwrap_or(chars.len());
    while end > i && ".,;:!?".contains(chars[end - 1]) {
        end -= 1;
    }
    Some(end - i)
}

/// Length of an arrow at `i`: `→`, `⇒`, `->`, `=>`, `-->`…
fn arrow_len(chars: &[char], i: usize) -> Option<usize> {
    let at = |j: usize| chars.get(j).copied();
    match chars[i] {
        '→' | '⇒' | '⟶' | '➔' | '➜' | '⇨' => Some(1),
        '-' if at(i + 1) == Some('-') && at(i + 2) == Some('>') => Some(3),
        '-' | '=' if at(i + 1) == Some('>') => Some(2),
        _ => None,
    }
}

/// End of a run of letters and digits starting at `i`, joined by the punctuation that belongs
/// inside a value: `.`, `-`, `_`, `@`, `+`, `/` between letters or digits, `:` and `,` between
/// digits (`10:30`, `8,765`), an apostrophe between letters (`doesn't`), `%` after a digit.
fn run_end(chars: &[char], i: usize) -> usize {
    let word = |c: char| c.is_alphanumeric() && !is_han(c);
    let mut j = i + 1;
    while j < chars.len() {
        let c = chars[j];
        let (prev, next) = (chars[j - 1], chars.get(j + 1).copied());
        let joins = word(c)
            || match c {
                '.' | '-' | '_' | '@' | '+' | '/' => word(prev) && next.is_some_and(word),
                ':' | ',' => prev.is_ascii_digit() && next.is_some_and(|n| n.is_ascii_digit()),
                '\'' | '’' => prev.is_alphabetic() && next.is_some_and(char::is_alphabetic),
                '%' => prev.is_ascii_digit(),
                _ => false,
            };
        if !joins {
            break;
        }
        j += 1;
    }
    j
}

/// Tokens of one run: an e-mail, a number (any run with a digit: `8765`, `2.5`, `v1.2`, `3pm`),
/// or words.
fn push_run(run: &str, chinese: bool, sentence_start: bool, out: &mut Vec<Token>) {
    let lower = run.to_lowercase();
    if run.contains('@') {
        out.push(Token { text: lower, kind: Kind::Value(ValueKind::Email) });
    } else if run.chars().any(|c| c.is_numeric()) {
        out.push(Token { text: lower, kind: Kind::Value(ValueKind::Number) });
    } else {
        let parts = run.split(['.', '-', '_', '+', '/']).filter(|p| !p.is_empty());
        for (n, part) in parts.enumerate() {
            push_word(part, chinese, sentence_start && n == 0, out);
        }
    }
}

fn push_word(word: &str, chinese: bool, sentence_start: bool, out: &mut Vec<Token>) {
    let lower = word.to_lowercase().replace('’', "'");
    let negated_verb = lower.strip_suffix("n't").map(|verb| match verb {
        "ca" => "can".to_owned(),
        "wo" => "will".to_owned(),
        "sha" => "shall".to_owned(),
        "ai" => "is".to_owned(),
        verb => verb.to_owned(),
    });
    let negated_verb = negated_verb.or_else(|| {
        EN_CONTRACTED.iter().find(|(w, _)| *w == lower).map(|(_, verb)| (*verb).to_owned())
    });
    if let Some(verb) = negated_verb {
        out.push(Token { text: verb, kind: Kind::Word });
        out.push(Token { text: "not".into(), kind: Kind::Negation });
        return;
    }
    // `user's` → `user`, `I'm` → `i`: the clitic carries no fact we compare.
    let lower = lower.split('\'').next().unwrap_or_default().to_owned();
    if EN_NEGATIONS.contains(&lower.as_str()) {
        out.push(Token { text: lower, kind: Kind::Negation });
        return;
    }
    if EN_CLAUSE_WORDS.contains(&lower.as_str()) {
        out.push(clause_end());
        return;
    }
    let mut chars = word.chars();
    let initial_upper = chars.next().is_some_and(char::is_uppercase);
    let inner_upper = chars.any(char::is_uppercase);
    let name = lower != "i" && (chinese || inner_upper || (initial_upper && !sentence_start));
    let kind = if name { Kind::Value(ValueKind::Name) } else { Kind::Word };
    out.push(Token { text: lower, kind });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_subject_term_says_what_both_are_about() {
        let shared = |a: &str, b: &str| Reading::of(a).shares_a_subject_term(&Reading::of(b));
        assert!(shared("孩子每天下午四点半放学。", "这学期学校调了作息，五点才放学。"));
        assert!(shared("The free plan allows 3 projects.", "Free accounts get 5 projects."));
        // Whom they are about, or a side of an antonym pair, is not what.
        assert!(!shared("用户喜欢在周末去香山爬山", "用户对花生过敏，点餐时要避开含花生的菜。"));
        assert!(!shared("用户喜欢爬山", "我喜欢吃辣"));
        assert!(!shared("The user likes spicy food.", "The user lives in Toronto."));
        assert!(!shared("我喜欢在周末去香山爬山", "用户对花生过敏。"));
    }

    /// `(older, newer)` pairs that state different facts, each language.
    const CONTRADICTIONS: &[(&str, &str)] = &[
        ("用户不喜欢深色主题", "用户喜欢深色主题"),
        ("用户喜欢深色主题", "用户不喜欢深色主题"),
        ("端口从 8765 改成 8766", "端口从 8766 改成 8765"),
        ("The user likes dark mode", "The user does not like dark mode"),
        ("The user doesn't like dark mode", "The user likes dark mode"),
        ("moved from Berlin to Paris", "moved from Paris to Berlin"),
        ("The user prefers light theme", "The user prefers dark theme"),
        ("用户喜欢吃香菜", "用户讨厌吃香菜"),
        ("编辑器开启了自动保存", "编辑器关闭了自动保存"),
        ("Auto-save is enabled in the editor", "Auto-save is disabled in the editor"),
        ("Increase the cache size", "Decrease the cache size"),
        ("我每天早起跑步", "我每天晚起跑步"),
        ("我每天早上跑步", "我每天晚上跑步"),
        ("The API server listens on port 8765", "The API server listens on port 8766"),
        ("I live in Berlin", "I live in Paris"),
        ("The user's e-mail is ana@example.com", "The user's e-mail is ana@example.org"),
        ("The docs are at https://a.example/v1", "The docs are at https://a.example/v2"),
        ("服务部署在 A 机房", "服务部署在 B 机房"),
        ("端口是 8765", "端口从 8765 改成 8766"),
        ("The user lives in Berlin", "The user moved from Berlin to Paris"),
        ("The user drinks coffee", "The user does not drink coffee"),
        ("数据库地址 10.0.0.5 → 10.0.0.6", "数据库地址 10.0.0.6 → 10.0.0.5"),
        ("changed the port from 8765 to 8766", "changed the port from 8766 to 8765"),
        ("把端口改成 8765", "把端口改成 8766"),
        ("每天三点起床", "每天五点起床"),
        ("The user does not like tea", "The user likes tea"),
    ];

    /// Pairs that say the same thing or where the newer only adds a detail.
    const COMPATIBLE: &[(&str, &str)] = &[
        ("服务端口是 8765", "我们的服务端口是 8765。"),
        ("User likes tea.", "The user likes tea"),
        ("端口 8765", "服务端口是 8765，部署在 A 机房"),
        ("端口 8766", "端口从 8765 改成 8766"),
        ("端口从 8765 改成 8766", "端口从8765改成了8766"),
        ("The user likes tea", "The user likes tea with milk"),
        ("I moved to Berlin", "I moved to Berlin in 2020"),
        ("用户不喜欢深色主题", "用户讨厌深色主题"),
        ("Auto-save is not enabled", "Auto-save is disabled"),
        ("The user doesn't like tea", "The user does not like tea"),
        ("用户喜欢猫", "用户养了一只狗"),
        ("我非常喜欢爬山", "我很喜欢爬山"),
    ];

    #[test]
    fn contradictions_are_found_in_both_languages() {
        for (older, newer) in CONTRADICTIONS {
            assert!(contradicts(older, newer), "{older:?} → {newer:?} should contradict");
        }
    }

    #[test]
    fn restatements_and_added_details_are_not_contradictions() {
        for (older, newer) in COMPATIBLE {
            assert!(!contradicts(older, newer), "{older:?} → {newer:?} should not contradict");
        }
    }

    #[test]
    fn contradicting_texts_never_pass_the_lossless_test() {
        for (older, newer) in CONTRADICTIONS {
            // "端口是 8765" adds nothing to its change; every other pair differs both ways.
            if *older == "端口是 8765" || *older == "The user lives in Berlin" {
                continue;
            }
            assert!(
                !adds_nothing(newer, older) && !adds_nothing(older, newer),
                "{older:?} / {newer:?} must not merge"
            );
        }
    }

    #[test]
    fn paraphrases_still_pass_the_lossless_test() {
        assert!(adds_nothing("服务端口是 8765", "我们的服务端口是 8765。"));
        assert!(adds_nothing("User likes tea.", "The user likes tea"));
        assert!(adds_nothing("likes TEA", "The user likes tea."));
        assert!(adds_nothing("The user doesn't like tea", "The user does not like tea"));
        assert!(adds_nothing("端口 8766", "端口从 8765 改成 8766"));
        assert!(adds_nothing("我们不用 Java", "我们不用 Java，服务端口是 8765"));
        assert!(adds_nothing("服务端口是 8765", "我们不用 Java。服务端口是 8765"));
        assert!(!adds_nothing("服务端口是 8766", "服务端口是 8765"));
        assert!(!adds_nothing("I live in Beijing", "I live in Shanghai"));
        assert!(!adds_nothing("version 2.5", "version 5.2"), "whole values, not digit runs");
        assert!(!adds_nothing("ana@example.com", "example.com ana"));
    }

    #[test]
    fn words_that_only_look_negative_negate_nothing() {
        // `非常` is "very", `未来` "future", `别人` "other people".
        assert!(adds_nothing("我喜欢爬山", "我非常喜欢爬山"));
        assert!(adds_nothing("未来计划", "我们的未来计划"));
        assert!(adds_nothing("别人的车", "这是别人的车"));
    }

    /// `(older, newer, the least evidence expected)`: updates, each language.
    const UPDATES: &[(&str, &str, Update)] = &[
        ("I live in Berlin.", "I moved to Lisbon last month.", Update::Stated),
        ("我住在北京海淀区。", "我上个月搬到上海了，住在徐汇。", Update::Stated),
        (
            "The API server listens on port 8080.",
            "We switched the API to port 9090.",
            Update::OnTopic,
        ),
        ("API 服务监听 8080 端口。", "API 服务的端口改成了 9090。", Update::OnTopic),
        ("I drink a lot of coffee.", "I quit coffee completely.", Update::OnTopic),
        ("用户每天早上都要喝一杯咖啡。", "用户已经戒掉咖啡了，改喝绿茶。", Update::OnTopic),
        // A name (`Spanish`) is no subject term: in a conversation everyone's name recurs.
        ("I'm learning Spanish.", "I gave up on Spanish and started on Japanese.", Update::Stated),
        (
            "My phone number is +1 415 555 0134.",
            "New phone number: +1 415 555 0199.",
            Update::OnTopic,
        ),
        ("我的直属领导是王芳。", "我的新领导是李强。", Update::OnTopic),
        (
            "The team uses Jenkins for CI.",
            "We migrated CI from Jenkins to GitHub.",
            Update::OnTopic,
        ),
        (
            "The user likes spicy food.",
            "The user no longer eats spicy food.",
            Update::Contradiction,
        ),
        ("我喜欢看恐怖片。", "最近我特别讨厌恐怖片。", Update::Contradiction),
        // `instead of Y` where the older text says Y; `started`, `wait until`, `关闭`, `等到`.
        (
            "We host the website on Netlify.",
            "The website is served from Vercel instead of Netlify.",
            Update::OnTopic,
        ),
        (
            "I teach maths at Lincoln High.",
            "Started teaching maths at Roosevelt High this month.",
            Update::OnTopic,
        ),
        (
            "The budget review is due by Friday.",
            "The budget review can wait until next Tuesday.",
            Update::OnTopic,
        ),
        ("防火墙对外开放 22 端口。", "防火墙的 22 端口已关闭。", Update::OnTopic),
        ("项目评审要在周三前完成。", "项目评审可以等到下周五再做。", Update::OnTopic),
        (
            "The user wants build e-mails.",
            "The user does not want build e-mails.",
            Update::Contradiction,
        ),
        // Only marked (`started`, `开始`, `入职`), nothing shared: the vectors must say more.
        ("I'm vegetarian.", "I started eating meat again last year.", Update::Marked),
        ("我吃素。", "我去年开始又吃肉了。", Update::Marked),
        ("我是自由职业的插画师。", "我入职了网易，全职做游戏美术。", Update::Marked),
    ];

    /// `(older, newer)`: a detail, a restatement, or another fact, some with a word that only
    /// looks like a change (`new licence`, `刷新`, `instead of` something else, `left-handed`).
    const NOT_UPDATES: &[(&str, &str)] = &[
        ("I live in Berlin.", "Berlin winters are long and grey."),
        ("I moved to Berlin.", "I moved to Berlin in 2020."),
        ("端口 8766", "端口从 8765 改成 8766"),
        ("The office has a quiet room on the third floor.", "The office is closed on holidays."),
        ("SDK 遵循语义化版本。", "引入新的开源协议需要法务审批。"),
        ("每晚两点自动备份数据库。", "数据看板每小时刷新一次。"),
        ("I have two kids, aged 7 and 10.", "I buy oat milk instead of cow's milk."),
        ("We deploy with Heroku.", "I drink tea instead of coffee."),
        ("The bus to the office takes an hour.", "I take the train instead of the car."),
        ("每周五下午做设计评审。", "运营周报每周一上午发出。"),
        ("Our flat is on the fourth floor without an elevator.", "I rent a flat in Brooklyn."),
        ("I write with a fountain pen.", "I'm left-handed."),
        ("I live in Berlin.", "I'm going to move from Berlin to Lisbon next year."),
        ("我住在北京。", "我打算明年搬到上海。"),
        // `开始` counts only as a change marked, never on a shared subject.
        ("周一例会 10 点开始。", "周三例会 9 点开始。"),
        ("我会弹钢琴。", "我从小就开始学钢琴。"),
    ];

    #[test]
    fn updates_are_read_in_both_languages() {
        for (older, newer, least) in UPDATES {
            let got = update_evidence(older, newer);
            assert!(got >= *least, "{older:?} → {newer:?}: {got:?}, expected at least {least:?}");
        }
    }

    #[test]
    fn a_change_only_marked_is_weaker_than_a_stated_one() {
        let marked = update_evidence("I'm vegetarian.", "I started eating meat again last year.");
        assert_eq!(marked, Update::Marked);
        assert_eq!(update_evidence("我吃素。", "我去年开始又吃肉了。"), Update::Marked);
        assert_eq!(update_evidence("我吃素。", "我去年又吃肉了。"), Update::None, "no marker");
        assert_eq!(update_evidence("我住在天津。", "一开始我不太习惯。"), Update::None, "at first");
        assert!(Update::Marked < Update::Stated, "the write-time rule asks Stated at least");
    }

    #[test]
    fn details_restatements_and_other_facts_are_not_updates() {
        for (older, newer) in NOT_UPDATES {
            // `Differs` at most: a different value without a word of change.
            let got = update_evidence(older, newer);
            assert!(got <= Update::Differs, "{older:?} → {newer:?}: {got:?}");
        }
        // Same topic, different value, no word of change: also what facts about different
        // things look like, so it only counts between near duplicates.
        let birthday =
            update_evidence("My birthday is on October 3rd.", "My mother's birthday is in June.");
        assert_eq!(birthday, Update::Differs);
        assert_eq!(update_evidence("port 8765", "port 8766"), Update::Differs);
    }

    #[test]
    fn markers_of_change_read_words_not_letters() {
        assert!(change_markers("I moved to Paris").strong);
        assert!(!change_markers("I'm left-handed.").strong);
        assert!(change_markers("I left Singapore.").strong);
        assert!(change_markers("My advisor wants it by Monday instead.").strong);
        assert!(!change_markers("I buy oat milk instead of cow's milk.").strong);
        assert!(!change_markers("我今天跑步了，现在很累。").weak, "了 and 现在 mark nothing alone");
        assert!(change_markers("I'm on Pacific time these days.").weak);
        assert!(change_markers("房东换号码了").strong);
        assert!(!change_markers("今年要去换驾照。").strong, "a plan is not a change yet");
        assert!(!change_markers("I'm going to move to Paris.").strong);
        assert!(!change_markers("值班每周一轮换。").strong, "轮换 is rotation");
        assert!(change_markers("80 端口已关闭").strong);
        assert!(!change_markers("80 端口没有关闭").strong, "not closed is no change");
        assert!(change_markers("Standup is at 9:45 starting this week.").strong);
        assert!(change_markers("以后请发到我的新邮箱").new_heads.contains(&"邮箱".to_owned()));
        assert!(change_markers("数据看板每小时刷新一次").new_heads.is_empty(), "刷新 is refresh");
        assert!(change_markers("我们搬去了新加坡").new_heads.is_empty(), "新加坡 is Singapore");
        assert_eq!(change_markers("New phone number: 0199").new_heads, ["phone"]);
    }

    #[test]
    fn facts_are_read_into_their_kinds() {
        let f = Facts::of(
            "Ana moved from Berlin to Paris on 2023-05-08; mail ana@x.io, see https://x.io/a.",
        );
        assert_eq!(
            f.changes.iter().next().unwrap(),
            &(vec!["berlin".into()], vec!["paris".into()])
        );
        assert!(f.values[&ValueKind::Number].contains("2023-05-08"));
        assert!(f.values[&ValueKind::Email].contains("ana@x.io"));
        assert!(f.values[&ValueKind::Url].contains("https://x.io/a"));
        assert!(!f.values[&ValueKind::Name].contains("ana"), "a sentence's first word is no name");
        assert!(
            Facts::of("Lisa从爷爷奶奶那里收到银色的项链").changes.is_empty(),
            "收到 is no change"
        );
        let zh = Facts::of("用户不太喜欢 Vim，从 8765 改成了 8766");
        assert!(zh.poles.contains(&(0, false)), "不太喜欢 is the dislike side");
        assert!(zh.values[&ValueKind::Name].contains("vim"), "Latin inside Chinese is a name");
        assert!(zh.changes.contains(&(vec!["8765".into()], vec!["8766".into()])));
    }
}
