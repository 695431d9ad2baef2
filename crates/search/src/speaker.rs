//! The question read in its speaker's words: an agent asks about "the user" (`用户`), while
//! much of what the user told it was stored as the user said it, in the first person (`I
//! moved to Denver`, `我跳槽去了字节跳动`). A small encoder matches `Where does the user
//! live?` poorly against `We relocated to Denver` and prefers whatever else says "lives" (`The
//! design system lives in Figma.`); `Where do I live?` it matches well.
//!
//! [`as_speaker`] gives that reading of a question that names the user; recall embeds it beside
//! the question as written and averages the two vectors ([`crate::QueryFocus::speaker_weight`]),
//! so memories stored in the third person (`用户喜欢深色主题`) keep matching the question's own
//! words. Only the user named as a person is read: `the user interface`, `用户量` and plural
//! `users`/`用户们` stay as they are. Dialogues (`用户：…` as a speaker label) are not read this
//! way; focusing handles them ([`mod@crate::focus`]).

/// English auxiliaries after which "the user" is the subject, with their first-person form.
const AUXILIARIES: &[(&str, &str)] = &[
    ("does", "do"),
    ("do", "do"),
    ("did", "did"),
    ("is", "am"),
    ("was", "was"),
    ("has", "have"),
    ("have", "have"),
    ("had", "had"),
    ("will", "will"),
    ("would", "would"),
    ("can", "can"),
    ("could", "could"),
    ("should", "should"),
    ("shall", "shall"),
    ("may", "may"),
    ("might", "might"),
    ("must", "must"),
];

/// Nouns that make "user" part of a thing's name (`the user interface`), not the person.
const USER_COMPOUNDS_EN: &[&str] = &[
    "account",
    "accounts",
    "agent",
    "base",
    "count",
    "data",
    "experience",
    "flow",
    "flows",
    "group",
    "groups",
    "guide",
    "id",
    "ids",
    "interface",
    "interfaces",
    "journey",
    "manual",
    "name",
    "names",
    "research",
    "stories",
    "story",
    "table",
    "testing",
    "tests",
];

/// What may follow `用户` in a compound that names a thing, not the person (`用户名`,
/// `用户量`…), and the plural `用户们`.
const USER_COMPOUNDS_ZH: &[&str] = &[
    "们", "名", "量", "数", "体验", "群", "端", "画像", "界面", "协议", "中心", "表", "组", "增长",
    "留存", "账号", "账户", "反馈", "调研", "故事", "手册",
];

/// `query` with the user it names as a person put in the first person (`the user's` → `my`,
/// `does the user` → `do I`, `用户` → `我`), or `None` when it names no user that way.
pub fn as_speaker(query: &str) -> Option<String> {
    let chinese = chinese(query);
    let english = english(chinese.as_deref().unwrap_or(query));
    english.or(chinese)
}

/// `用户`, `该用户` and `这位用户` as a person → `我`.
fn chinese(query: &str) -> Option<String> {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    let mut changed = false;
    while let Some(at) = rest.find("用户") {
        let (before, after) = rest.split_at(at);
        let after = &after["用户".len()..];
        if USER_COMPOUNDS_ZH.iter().any(|c| after.starts_with(c)) {
            out.push_str(before);
            out.push_str("用户");
        } else {
            let before = before
                .strip_suffix("该")
                .or_else(|| before.strip_suffix("这位"))
                .or_else(|| before.strip_suffix("这个"))
                .unwrap_or(before);
            out.push_str(before);
            out.push('我');
            changed = true;
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// "the user" as a person → `I` after an auxiliary or at the start, `me` elsewhere; "the
/// user's" and "user's" → `my`.
fn english(query: &str) -> Option<String> {
    let words: Vec<&str> = query.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut changed = false;
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let lower = word.to_lowercase();
        let (bare, tail) = split_trailing(&lower);
        let next = words.get(i + 1).map(|w| w.to_lowercase());
        let the = bare == "the" && tail.is_empty();
        if bare == "user's" || bare == "user’s" {
            // `user's` without an article: `my`.
            out.push(cased("my", word, out.is_empty()) + tail);
            changed = true;
            i += 1;
            continue;
        }
        if the && let Some(next) = next.as_deref() {
            let (noun, noun_tail) = split_trailing(next);
            let after = words.get(i + 2).map(|w| split_trailing(&w.to_lowercase()).0.to_owned());
            let compound = noun_tail.is_empty()
                && after.as_deref().is_some_and(|a| USER_COMPOUNDS_EN.contains(&a));
            if (noun == "user's" || noun == "user’s") && !compound {
                out.push(cased("my", word, out.is_empty()) + noun_tail);
                changed = true;
                i += 2;
                continue;
            }
            if noun == "user" && !compound {
                let subject = match out.last().map(|w| w.to_lowercase()) {
                    None => true,
                    Some(previous) => {
                        if let Some((_, first)) =
                            AUXILIARIES.iter().find(|(aux, _)| *aux == previous.as_str())
                        {
                            let last = out.last_mut().expect("a previous word");
                            *last = cased(first, last, false);
                            true
                        } else {
                            previous.ends_with(['.', '?', '!', ','])
                        }
                    }
                };
                let pronoun = if subject { "I" } else { "me" };
                out.push(pronoun.to_owned() + noun_tail);
                changed = true;
                i += 2;
                continue;
            }
        }
        out.push(word.to_owned());
        i += 1;
    }
    changed.then(|| out.join(" "))
}

/// A word without the punctuation it ends with, and that punctuation.
fn split_trailing(word: &str) -> (&str, &str) {
    let bare = word.trim_end_matches(|c: char| c.is_ascii_punctuation() && c != '\'');
    (bare, &word[bare.len()..])
}

/// `replacement` capitalised like `original`'s first letter, or at the start of the query.
fn cased(replacement: &str, original: &str, first: bool) -> String {
    if first || original.chars().next().is_some_and(char::is_uppercase) {
        let mut chars = replacement.chars();
        chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
    } else {
        replacement.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::as_speaker;

    fn read(q: &str) -> Option<String> {
        as_speaker(q)
    }

    #[test]
    fn english_questions_about_the_user_are_read_in_the_first_person() {
        assert_eq!(read("Where does the user live now?").as_deref(), Some("Where do I live now?"));
        assert_eq!(
            read("What city is the user based in?").as_deref(),
            Some("What city am I based in?")
        );
        assert_eq!(read("What is the user's email?").as_deref(), Some("What is my email?"));
        assert_eq!(read("The user's favourite food?").as_deref(), Some("My favourite food?"));
        assert_eq!(read("the user lives where").as_deref(), Some("I lives where"));
        assert_eq!(read("How can we reach the user?").as_deref(), Some("How can we reach me?"));
        assert_eq!(read("Has the user moved?").as_deref(), Some("Have I moved?"));
        assert_eq!(read("user's phone number").as_deref(), Some("My phone number"));
    }

    #[test]
    fn chinese_questions_about_the_user_are_read_in_the_first_person() {
        assert_eq!(read("用户现在住在哪里？").as_deref(), Some("我现在住在哪里？"));
        assert_eq!(read("该用户的邮箱是什么？").as_deref(), Some("我的邮箱是什么？"));
        assert_eq!(read("这位用户开什么车？").as_deref(), Some("我开什么车？"));
    }

    #[test]
    fn the_user_as_a_thing_or_many_users_is_left_alone() {
        assert_eq!(read("How is the user interface built?"), None);
        assert_eq!(read("What do users want?"), None);
        assert_eq!(read("用户量有多少？"), None);
        assert_eq!(read("用户们最常投诉什么？"), None);
        assert_eq!(read("用户名的规则是什么？"), None);
        assert_eq!(read("Where does Caroline live?"), None);
        assert_eq!(read("我住在哪里？"), None);
        // One person named, one thing named: only the person is read.
        assert_eq!(read("用户对用户界面满意吗？").as_deref(), Some("我对用户界面满意吗？"));
    }
}
