//! A text scanned into tokens: Han characters, words, values, negations, arrows and clause ends.

use rearview_core::is_han;

use crate::tokenize::keyword_of;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ValueKind {
    Number,
    Email,
    Url,
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Han,
    Word,
    Value(ValueKind),
    Negation,
    Arrow,
    ClauseEnd,
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    /// The atom: a Han character, a lower-cased word or value, a negation marker (`不`, `not`).
    pub(super) text: String,
    pub(super) kind: Kind,
}

/// Whether an atom carries content: not an English stop word, not a Chinese particle.
pub(super) fn is_content(atom: &str) -> bool {
    if atom.chars().any(is_han) { !is_particle(atom) } else { keyword_of(atom).is_some() }
}

/// Characters that are grammar rather than content in Chinese: left out of the topic and of the
/// ends of a change.
pub(super) fn is_particle(atom: &str) -> bool {
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
pub(super) fn scan(text: &str) -> Vec<Token> {
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
