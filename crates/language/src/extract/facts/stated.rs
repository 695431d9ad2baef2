//! The strict reading a link made by rule needs: a newer text that says, in its own words, that
//! what an older text states about a thing has changed. Another value with no word of change is
//! not enough (`port 9444` after `port 9443` reads just like two records of one template, `note
//! 33: … dock 231` after `note 0: … dock 0`). Stricter than [`update_evidence_of`]'s
//! [`Update::OnTopic`], whose "same subject" may be one shared word (`email` in `prefers Slack
//! over email` and `contact email changed to …`, `month` in two texts about last month): a link
//! hides the older memory from recall, so the rule asks for the thing itself, not a word of it.

use std::collections::BTreeSet;

use super::{Reading, Update, WHO_TERMS, antonym_forms, update_evidence_of};

/// How a newer text states that an older one's fact changed (see [`stated_change`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatedChange {
    /// `from X to Y` (or `changed X to Y`) where X is what the older text states: `从 MySQL 换成
    /// PostgreSQL` after `数据库用的是 MySQL`.
    FromItsValue {
        /// What it changed from (the older text's value).
        from: String,
        /// What it changed to.
        to: String,
    },
    /// A change about at least two subject terms both texts share that replaces one value with
    /// another or names what it replaced (`instead of`), or a contradiction (a negation, the
    /// other side of an antonym) of the same named things: not a word of change alone
    /// (`因台风过境而取消` after `因为下雨活动被取消` are two stories):
    /// `We switched the API server to port 9090` after `The API listens on port 8080` (`api`,
    /// `port`).
    OnSharedSubject {
        /// The shared subject terms.
        terms: Vec<String>,
        /// The newer text contradicts the older one rather than states a change.
        contradiction: bool,
    },
}

impl StatedChange {
    /// Why the newer text reads as changing the older one, in a sentence for the record.
    pub fn reason(&self) -> String {
        match self {
            StatedChange::FromItsValue { from, to } => {
                format!(
                    "states that \"{from}\", which the older memory states, changed to \"{to}\""
                )
            }
            StatedChange::OnSharedSubject { terms, contradiction: false } => {
                format!("states a change about what both say ({})", terms.join(", "))
            }
            StatedChange::OnSharedSubject { terms, contradiction: true } => {
                format!("contradicts the older memory about what both say ({})", terms.join(", "))
            }
        }
    }
}

/// Whether `newer` states a change of what `older` states, and how (see [`StatedChange`]);
/// `None` for a plan (`going to move`), a restatement, a change of something else, or a mere
/// different value that shares a word. Pure.
pub fn stated_change(older: &Reading, newer: &Reading) -> Option<StatedChange> {
    if newer.markers.planned {
        return None;
    }
    let shared = strict_shared(older, newer);
    if let Some(found) = from_its_value(older, newer, &shared) {
        return Some(found);
    }
    let evidence = update_evidence_of(older, newer);
    let (gone, added) = (values_changed(older, newer), values_changed(newer, older));
    // A contradiction about the same named things (no value added: `获奖` / `没有获奖` with a
    // new friend named is another competition; `不再喝黑咖啡` may drop `一杯`); a change that replaces one value with
    // another (`port 8080` → `9090`), or says what it replaced (`instead of Heroku`). A word of
    // change alone (`取消`, `换成了涂鸦本` of something the older text never named) may end one
    // story and begin another.
    let about_the_same = match evidence {
        Update::Contradiction => added == 0,
        Update::OnTopic => (gone == 1 && added == 1) || !newer.markers.replaced.is_empty(),
        _ => false,
    };
    (about_the_same && shared.len() >= 2).then(|| StatedChange::OnSharedSubject {
        terms: shared.into_iter().collect(),
        contradiction: evidence == Update::Contradiction,
    })
}

/// `from X to Y` in the newer text with every atom of X said by the older one and some of Y
/// not, about a subject term both share.
fn from_its_value(
    older: &Reading,
    newer: &Reading,
    shared: &BTreeSet<String>,
) -> Option<StatedChange> {
    if shared.is_empty() {
        return None;
    }
    let said = older.facts.said();
    newer.facts.changes.iter().find_map(|(from, to)| {
        let named = !from.is_empty() && from.iter().all(|x| said.contains(x.as_str()));
        let new = to.iter().any(|y| !said.contains(y.as_str()));
        (named && new).then(|| StatedChange::FromItsValue { from: words(from), to: words(to) })
    })
}

/// How many values (numbers, e-mails, URLs, names) `a` states that `b` does not: a change of one
/// fact changes one value; two records of one template differ in several (`note 33` and `dock
/// 231` against `note 0` and `dock 0`).
fn values_changed(a: &Reading, b: &Reading) -> usize {
    let said = b.facts.said();
    a.facts.values.values().flatten().filter(|v| !said.contains(v.as_str())).count()
}

/// The subject terms both texts share that say what they are about: not whom (`用户`, `user`),
/// not a side of an antonym pair (`喜欢`), not a word of time (`month`, `week`) or a Chinese
/// numeral (`十号`); pairs of Chinese characters that chain into one word (`数据`, `据库`) count
/// as that word.
fn strict_shared(older: &Reading, newer: &Reading) -> BTreeSet<String> {
    let shared: Vec<&String> = older
        .subject
        .intersection(&newer.subject)
        .filter(|term| {
            !WHO_TERMS.contains(&term.as_str())
                && !EN_TIME_WORDS.split_whitespace().any(|w| w == term.as_str())
                && !term.chars().any(|c| ZH_NUMERALS.contains(c))
                && !antonym_forms().iter().any(|(form, _, _)| form == term)
        })
        .collect();
    let han_pair = |t: &str| t.chars().count() == 2 && t.chars().all(rearview_core::is_han);
    let mut out: BTreeSet<String> =
        shared.iter().filter(|t| !han_pair(t)).map(|t| (*t).clone()).collect();
    // Chain the Han pairs: a pair that ends where another starts continues its word.
    let pairs: Vec<&str> = shared.iter().filter(|t| han_pair(t)).map(|t| t.as_str()).collect();
    for start in pairs.iter().filter(|p| !pairs.iter().any(|q| continues(q, p))) {
        let mut word = (*start).to_owned();
        let mut at = *start;
        while let Some(next) = pairs.iter().find(|q| continues(at, q) && !word.contains(**q)) {
            word.extend(next.chars().skip(1));
            at = next;
        }
        out.insert(word);
    }
    out
}

/// Whether Han pair `next` continues `pair` (`数据` → `据库`).
fn continues(pair: &str, next: &str) -> bool {
    pair.chars().nth(1) == next.chars().next() && pair != next
}

/// Chinese numerals: a pair holding one is a value or a date (`十号`), not a subject.
const ZH_NUMERALS: &str = "零一二三四五六七八九十百千万两";

/// English words of time (stemmed as topic words are), which frame a fact rather than name
/// its subject (`last month`, `this week`).
const EN_TIME_WORDS: &str = "last next this month year week day today tonight yesterday \
    tomorrow morn morning even evening night now ago sinc since daili weekli monthli yearli time \
    hour minut minute";

/// Atoms as one phrase.
fn words(atoms: &[String]) -> String {
    atoms.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(older: &str, newer: &str) -> Option<StatedChange> {
        stated_change(&Reading::of(older), &Reading::of(newer))
    }

    #[test]
    fn a_change_from_the_older_value_links() {
        let found = read("数据库用的是 MySQL 8。", "用户要求把数据库从MySQL换成PostgreSQL。");
        assert!(matches!(found, Some(StatedChange::FromItsValue { .. })), "{found:?}");
        let found = read("团队周会在周一上午十点。", "团队的周会从周一改到了周三。");
        assert!(found.is_some(), "{found:?}");
    }

    #[test]
    fn another_value_without_a_word_of_change_does_not_link() {
        // It reads like a new value of one setting, and just as well like two records of one
        // template (`note 0: … dock 0`, `note 33: … dock 231`): a possible update, not a link.
        let pairs = [
            ("The staging API listens on port 9443.", "The staging API listens on port 9444."),
            ("A 论坛的规模是六千人。", "B 论坛的规模是一百人。"),
            ("note 0: the red shipment left dock 0", "note 33: the red shipment left dock 231"),
        ];
        for (older, newer) in pairs {
            assert_eq!(read(older, newer), None, "{older} / {newer}");
        }
        // With a word of change about what both name, it does.
        let now = "The staging API moved to port 9444.";
        assert!(read("The staging API listens on port 9443.", now).is_some());
    }

    #[test]
    fn a_change_about_two_shared_subject_terms_links() {
        let found =
            read("The API listens on port 8080.", "We switched the API server to port 9090.");
        assert!(matches!(found, Some(StatedChange::OnSharedSubject { .. })), "{found:?}");
        assert!(read("I drink coffee every morning.", "I no longer drink coffee.").is_some());
    }

    #[test]
    fn a_change_of_something_else_does_not_link() {
        // Each pair shares a word at most, or only whom or when it is about.
        let unrelated = [
            ("我喜欢在周末去香山爬山，呼吸新鲜空气。", "用户要求把数据库从MySQL换成PostgreSQL。"),
            (
                "The user prefers Slack messages over email for quick questions.",
                "The user's contact email changed to dana.k@fastmail.com.",
            ),
            ("公司每月十号发工资。", "项目验收从月底推迟到了下个月十号。"),
            (
                "The staging database runs on port 5439.",
                "Metrics exporter port is 9200 after the config change.",
            ),
            (
                "The user has been working late until 9 pm most nights.",
                "The user switched from morning runs to evening swims.",
            ),
            ("用户对青霉素过敏。", "用户换了新的手机号，尾号是8866。"),
            (
                "Customer churn was 3% last quarter.",
                "My brother started a new job at a logistics firm last month.",
            ),
        ];
        for (older, newer) in unrelated {
            assert_eq!(read(older, newer), None, "{older} / {newer}");
        }
        assert_eq!(read("I live in Berlin.", "I'm going to move to Lisbon."), None, "a plan");
        // Two stories that each end with a cancellation: no new value is said.
        let zoo = "Bart在期待去动物园，但是因为下雨活动被取消而感到悲伤。";
        assert_eq!(read(zoo, "Bart期待的夏日游泳活动因台风过境而取消，感到很失望。"), None);
        // Two competitions (a friend named in the second), and a prank on a new object.
        let won = "Bart在学校的绘画比赛中获得优胜奖，感到非常开心。";
        assert_eq!(read(won, "Bart和好朋友Jack参加了绘画比赛，都没有获奖但是感觉非常开心。"), None);
        let gossip = "小美在体育课的更衣室偷偷讲别的同学坏话，让Lisa感到生气。";
        let prank =
            "上课时同桌Eddie偷偷把Lisa的笔记本换成了涂鸦本，同学们的笑声让Lisa感到尴尬和气愤。";
        assert_eq!(read(gossip, prank), None);
        // One word shared (数据库, read as its two pairs) is one subject term.
        assert_eq!(
            read("数据库每天凌晨三点备份。", "用户要求把数据库从MySQL换成PostgreSQL。"),
            None
        );
    }
}
