//! The question read in its speaker's words: an agent asks about "the user" (`用户`), while
//! much of what the user told it was stored as the user said it, in the first person (`I
//! moved to Denver`, `我跳槽去了字节跳动`). A small encoder matches `Where does the user
//! live?` poorly against `We relocated to Denver` and prefers whatever else says "lives" (`The
//! design system lives in Figma.`); `Where do I live?` it matches well.
//!
//! [`as_speaker`] gives that reading of a one-line question that names the user as a person;
//! recall embeds it beside the question as written and averages the two vectors
//! ([`crate::QueryFocus::speaker_weight`]), so memories stored in the third person
//! (`用户喜欢深色主题`) keep matching the question's own words.
//!
//! The reading is conservative, by surface rules, not understanding: it is made where the
//! words most likely name the person, and otherwise the question is embedded as written. A
//! reading that is wrong costs half of the query vector, not the question's own words.
//! - English: `the user's X` → `my X`; `the user` → `I` after an auxiliary (put in the first
//!   person: `does the user` → `do I`, `isn't the user` → `aren't I`, `what's the user` → `what
//!   am I`), at the start of a clause or after a word that opens one (`when`, `and`…), with a
//!   leading `the user is` → `I am`; `me` elsewhere (`email the user`, `about the user`). Not
//!   `the user` before a noun that makes it a thing's name (`the user interface`, `the user
//!   email`), not `a user's` or `users`.
//! - Chinese: `用户` → `我` at the start, after punctuation or after `该`, `这位`, `这个`, `那位`
//!   as words; not after a modifier (`新用户`, `付费用户`, `所有用户`, `应该用户`), not before
//!   one of the words that make it a thing's name (`用户名`, `用户量`, `用户ID`, `用户需求`),
//!   not as a speaker label (`用户：`).
//! - No reading at all when the question has a third-person pronoun (`he`, `their`, `他`, `她`;
//!   not `其他`), which may be the user: the reading would make the user someone else. That
//!   also leaves alone questions whose pronoun is someone else.
//! - Not a dialogue or any text of several lines: there `用户：` labels turns
//!   ([`mod@crate::focus`]).

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
    ("doesn't", "don't"),
    ("didn't", "didn't"),
    ("isn't", "aren't"),
    ("wasn't", "wasn't"),
    ("hasn't", "haven't"),
    ("hadn't", "hadn't"),
    ("won't", "won't"),
    ("wouldn't", "wouldn't"),
    ("can't", "can't"),
    ("couldn't", "couldn't"),
    ("shouldn't", "shouldn't"),
];

/// Prepositions after which "the user" is an object: `me`.
const PREPOSITIONS: &[&str] =
    &["about", "at", "by", "for", "from", "in", "into", "like", "of", "on", "than", "to", "with"];

/// Nouns that make "the user" part of a thing's name (`the user interface`), not the person.
const USER_COMPOUNDS_EN: &[&str] = &[
    "account",
    "accounts",
    "agent",
    "agents",
    "base",
    "count",
    "data",
    "database",
    "experience",
    "flow",
    "flows",
    "group",
    "groups",
    "guide",
    "id",
    "ids",
    "info",
    "information",
    "input",
    "interface",
    "interfaces",
    "journey",
    "journeys",
    "list",
    "manual",
    "model",
    "name",
    "names",
    "permission",
    "permissions",
    "profile",
    "profiles",
    "record",
    "records",
    "research",
    "role",
    "roles",
    "session",
    "sessions",
    "settings",
    "stories",
    "story",
    "table",
    "testing",
    "tests",
    "type",
    "types",
    // Attributes named as things (`the user email`); `the user's email` is the person's.
    "activity",
    "address",
    "analytics",
    "avatar",
    "behavior",
    "behaviour",
    "email",
    "emails",
    "feedback",
    "language",
    "locale",
    "location",
    "login",
    "metrics",
    "onboarding",
    "password",
    "phone",
    "preferences",
    "quota",
    "quotas",
    "registration",
    "requests",
    "requirements",
    "retention",
    "satisfaction",
    "segment",
    "segments",
    "signup",
    "status",
    "timezone",
];

/// Words that may refer to the user in the third person: with one of them the question keeps
/// its own reading only (`Has the user changed his job?` must not become `my job`, `他` someone
/// else's).
const THIRD_PERSON: &[&str] =
    &["he", "she", "him", "her", "his", "hers", "they", "them", "their", "theirs"];

/// The Chinese third person, found anywhere but in `其他` ("other").
const THIRD_PERSON_ZH: &[char] = &['他', '她'];

/// Words after which "the user" starts a clause as its subject: `I`.
const CLAUSE_OPENERS: &[&str] = &[
    "and", "or", "but", "when", "if", "since", "while", "because", "whether", "that", "so",
    "after", "before", "until", "unless", "once",
];

/// `what's`, `where's`…: a question word and `is`, which then reads `what am`.
const WH_IS: &[&str] = &["what's", "where's", "who's", "how's", "when's", "why's"];

/// The verb right after a leading `the user`, in the first person (`The user is vegan?` → `I
/// am vegan?`).
const FIRST_PERSON_VERBS: &[(&str, &str)] = &[
    ("is", "am"),
    ("has", "have"),
    ("does", "do"),
    ("isn't", "am not"),
    ("hasn't", "haven't"),
    ("doesn't", "don't"),
];

/// What may follow `用户` in a compound that names a thing, not the person (`用户名`, `用户量`…),
/// and the plural `用户们`.
const USER_COMPOUNDS_ZH: &[&str] = &[
    "们",
    "名",
    "量",
    "数",
    "体验",
    "群",
    "端",
    "画像",
    "界面",
    "协议",
    "中心",
    "表",
    "组",
    "增长",
    "留存",
    "账号",
    "账户",
    "反馈",
    "调研",
    "故事",
    "手册",
    "信息",
    "数据",
    "权限",
    "角色",
    "资料",
    "列表",
    "管理",
    "注册",
    "登录",
    "模型",
    "类型",
    "等级",
    "设置",
    "编号",
    "需求",
    "行为",
    "满意度",
    "规模",
    "分层",
    "运营",
    "研究",
    "访谈",
    "隐私",
    "评价",
    "评论",
];

/// Words before `用户` that make it the one person a question is about.
const ZH_DETERMINERS: &[&str] = &["该", "这位", "这个", "那位"];

/// `query` with the user it names as a person in the first person (`the user's` → `my`, `does
/// the user` → `do I`, `用户` → `我`), or `None` when it names no user that way, may call the
/// user by a third-person pronoun, or is not a one-line question.
pub fn as_speaker(query: &str) -> Option<String> {
    let query = query.trim();
    if query.is_empty() || query.contains('\n') || in_the_third_person(query) {
        return None;
    }
    let chinese = chinese(query);
    let english = english(chinese.as_deref().unwrap_or(query));
    english.or(chinese)
}

/// Whether `query` has a third-person pronoun, which may be the user (see [`THIRD_PERSON`]).
fn in_the_third_person(query: &str) -> bool {
    let english = query
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| THIRD_PERSON.contains(&w.to_lowercase().as_str()));
    english || query.replace("其他", "").contains(THIRD_PERSON_ZH)
}

/// `用户` as the person → `我` (see the module docs).
fn chinese(query: &str) -> Option<String> {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    let mut changed = false;
    while let Some(at) = rest.find("用户") {
        let (before, after) = rest.split_at(at);
        let after = &after["用户".len()..];
        let determiner = ZH_DETERMINERS.iter().find_map(|d| {
            let kept = before.strip_suffix(d)?;
            opens_a_phrase(kept).then_some(kept)
        });
        let person = (determiner.is_some() || opens_a_phrase(before)) && !names_a_thing(after);
        if person {
            out.push_str(determiner.unwrap_or(before));
            out.push('我');
            changed = true;
        } else {
            out.push_str(before);
            out.push_str("用户");
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether what comes next starts a phrase: the text's start, or after punctuation or a space.
fn opens_a_phrase(before: &str) -> bool {
    before.chars().next_back().is_none_or(|c| c.is_whitespace() || is_punctuation(c))
}

/// Whether `after` makes the `用户` before it part of a thing's name (`用户名`, `用户 ID`) or a
/// speaker label (`用户：`).
fn names_a_thing(after: &str) -> bool {
    let next = after.trim_start_matches(' ').chars().next();
    USER_COMPOUNDS_ZH.iter().any(|c| after.starts_with(c))
        || next.is_some_and(|c| c.is_ascii_alphanumeric() || c == ':' || c == '：')
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || "，。！？；：、“”‘’（）《》【】「」…—".contains(c)
}

/// "the user" as the person → `I`/`me`, "the user's" → `my` (see the module docs).
fn english(query: &str) -> Option<String> {
    let words: Vec<&str> = query.split(' ').collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase().replace('’', "'")).collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut changed = false;
    let mut i = 0;
    while i < words.len() {
        let noun = lower.get(i + 1).map(String::as_str);
        let Some(noun) = noun.filter(|n| lower[i] == "the" && matches!(bare(n), "user" | "user's"))
        else {
            out.push(words[i].to_owned());
            i += 1;
            continue;
        };
        let ending = &noun[bare(noun).len()..];
        let following = lower.get(i + 2).map(|w| bare(w));
        let reading = if bare(noun) == "user's" {
            Some(cased("my", out.is_empty() || ends_a_sentence(out.last())))
        } else if ending.is_empty() && following.is_some_and(|f| USER_COMPOUNDS_EN.contains(&f)) {
            None
        } else {
            Some(pronoun(&mut out).to_owned())
        };
        match reading {
            Some(reading) => {
                let subject = reading == "I";
                out.push(reading + ending);
                changed = true;
                i += 2;
                // `The user is vegan?` → `I am vegan?`
                let verb = lower.get(i).map(|w| bare(w));
                let first =
                    verb.and_then(|v| FIRST_PERSON_VERBS.iter().find(|(third, _)| *third == v));
                if let (true, true, Some((_, first))) = (subject, ending.is_empty(), first) {
                    let said = &lower[i];
                    out.push(format!("{first}{}", &said[bare(said).len()..]));
                    i += 1;
                }
            }
            None => {
                out.push(words[i].to_owned());
                i += 1;
            }
        }
    }
    changed.then(|| out.join(" "))
}

/// `I` for "the user" after an auxiliary (put in the first person: `does` → `do`, `what's` →
/// `what am`), at the start of a clause or after a word that opens one; `me` elsewhere (`email
/// the user`, `about the user`).
fn pronoun(out: &mut [String]) -> &'static str {
    let Some(last) = out.last_mut() else { return "I" };
    let previous = last.to_lowercase().replace('’', "'");
    let capital = last.chars().next().is_some_and(char::is_uppercase);
    if let Some((_, first)) = AUXILIARIES.iter().find(|(a, _)| *a == previous) {
        *last = cased(first, capital);
        return "I";
    }
    if WH_IS.contains(&previous.as_str()) {
        *last = cased(&format!("{} am", &previous[..previous.len() - 2]), capital);
        return "I";
    }
    let opens = ends_a_sentence(Some(last))
        || last.ends_with(',')
        || CLAUSE_OPENERS.contains(&previous.as_str());
    if opens && !PREPOSITIONS.contains(&bare(&previous)) { "I" } else { "me" }
}

/// A word without the punctuation it ends with.
fn bare(word: &str) -> &str {
    word.trim_end_matches(|c: char| c.is_ascii_punctuation() && c != '\'')
}

fn ends_a_sentence(word: Option<&String>) -> bool {
    word.is_some_and(|w| w.ends_with(['.', '?', '!', ':', ';']))
}

/// `word` with its first letter capitalised when `capital`.
fn cased(word: &str, capital: bool) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) if capital => c.to_uppercase().chain(chars).collect(),
        _ => word.to_owned(),
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
        let cases = [
            ("Where does the user live now?", "Where do I live now?"),
            ("What city is the user based in?", "What city am I based in?"),
            ("What is the user's email?", "What is my email?"),
            ("What is the user's name?", "What is my name?"),
            ("The user's favourite food?", "My favourite food?"),
            ("Which bank does the user’s salary go to?", "Which bank does my salary go to?"),
            ("How can we reach the user?", "How can we reach me?"),
            ("Has the user moved?", "Have I moved?"),
            ("Doesn't the user like tea?", "Don't I like tea?"),
            ("Isn't the user vegan?", "Aren't I vegan?"),
            (
                "When the user moved to Denver, what changed?",
                "When I moved to Denver, what changed?",
            ),
            (
                "Is the user still at Canva? Does the user drive?",
                "Am I still at Canva? Do I drive?",
            ),
            ("The user is vegan?", "I am vegan?"),
            ("Should we email the user tomorrow?", "Should we email me tomorrow?"),
            ("What's the user working on?", "What am I working on?"),
            ("Where’s the user based?", "Where am I based?"),
            (
                "When the user, as a child, lived in Ohio, which school?",
                "When I, as a child, lived in Ohio, which school?",
            ),
        ];
        for (question, reading) in cases {
            assert_eq!(read(question).as_deref(), Some(reading), "{question}");
        }
    }

    #[test]
    fn chinese_questions_about_the_user_are_read_in_the_first_person() {
        let cases = [
            ("用户现在住在哪里？", "我现在住在哪里？"),
            ("该用户的邮箱是什么？", "我的邮箱是什么？"),
            ("这位用户开什么车？", "我开什么车？"),
            ("请问，用户在哪家公司工作？", "请问，我在哪家公司工作？"),
            ("用户偏好什么主题？", "我偏好什么主题？"),
            ("用户喜欢 Python 还是 Go？", "我喜欢 Python 还是 Go？"),
            ("用户对用户界面满意吗？", "我对用户界面满意吗？"),
            ("用户还有其他爱好吗？", "我还有其他爱好吗？"),
        ];
        for (question, reading) in cases {
            assert_eq!(read(question).as_deref(), Some(reading), "{question}");
        }
    }

    #[test]
    fn the_user_as_a_thing_many_users_or_someone_else_is_left_alone() {
        for question in [
            "How is the user interface built?",
            "Where is the user profile stored?",
            "What is a user's default quota?",
            "Where is the end user's data stored?",
            "What do users want?",
            // A third-person pronoun: the reading would make the user someone else.
            "Has the user changed his job?",
            "Where does the user keep their passport?",
            "用户说他下周搬家，他搬去哪？",
            "What is the user email?",
            "用户需求是什么？",
            "Where does Caroline live?",
            "username rules?",
            "用户量有多少？",
            "用户们最常投诉什么？",
            "用户名的规则是什么？",
            "新用户注册流程是什么？",
            "有多少付费用户？",
            "所有用户的数据存在哪里？",
            "用户ID怎么生成？",
            "用户 ID 是多少？",
            "用户信息表在哪？",
            "这件事应该用户自己决定吗？",
            "我住在哪里？",
            "用户：你好",
            "",
        ] {
            assert_eq!(read(question), None, "{question}");
        }
    }

    #[test]
    fn a_text_of_several_lines_is_not_read() {
        assert_eq!(read("用户：你好\n助手：你好"), None);
        assert_eq!(read("Where does the user live?\nAnd work?"), None);
    }
}
