//! Compound questions: one query that asks two or more things, joined by a word that says so
//! (`他的邮箱是什么？另外，论坛在哪里？`, `What is her e-mail? Also, where is the forum?`).
//!
//! Ranked as one text, such a query favours whichever of its questions the memories match
//! more, and the other question's answers drop out of the top k. [`question_parts`] splits it
//! where a question mark is followed by a connective (`另外`, `此外`, `还有`, `顺便问一下`,
//! `also`, `and`, `additionally`, `besides`, `plus`); each part is ranked on its own and
//! `rearview_ranking::merge_parts` puts the lists together. Question marks inside a sentence,
//! rhetorical ones in small talk (`不知道是不是那个公园呢？我真正想问的是…`) and dialogues are
//! left alone: without a connective, nothing is split.

/// At most this many parts; a longer chain's last part keeps the rest.
const MAX_PARTS: usize = 4;

/// Chinese connectives that begin another question, matched right after a question mark.
const ZH_CONNECTIVES: &[&str] = &["顺便问一下", "顺便问下", "另外", "此外", "还有", "再问一下"];
/// English connectives, matched as the first word (case-insensitive) after a question mark.
const EN_CONNECTIVES: &[&str] = &["also", "and", "additionally", "besides", "plus"];

/// The questions `query` asks: itself when it asks one (the common case), else each part
/// without its connective, in order. Pure.
pub fn question_parts(query: &str) -> Vec<&str> {
    if crate::focus::turns(query).len() > 2 {
        // A dialogue (three turns or more, as focusing counts them): focusing reads it.
        return vec![query];
    }
    let mut parts = Vec::new();
    let mut start = 0;
    for (at, mark) in query.match_indices(['?', '？']) {
        if parts.len() + 1 == MAX_PARTS {
            break;
        }
        let after = at + mark.len();
        let Some(next) = connective_end(&query[after..]) else { continue };
        parts.push(&query[start..after]);
        start = after + next;
    }
    parts.push(&query[start..]);
    // Each part a question of its own: some content, and a question mark at its end.
    let asks = |p: &&str| {
        p.chars().filter(|c| c.is_alphanumeric()).count() >= 2
            && p.trim_end().ends_with(['?', '？'])
    };
    if parts.len() < 2 || !parts.iter().all(asks) {
        return vec![query];
    }
    parts.into_iter().map(str::trim).collect()
}

/// Where the text after a connective begins in `rest` (what follows a question mark), when
/// `rest` begins with one (after spaces) followed by a comma or a space: `另外，…`, `Also, …`,
/// `and where…`; not `还有三天就放假了` (a word that begins with the connective) or `Andrew`.
fn connective_end(rest: &str) -> Option<usize> {
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    let zh = ZH_CONNECTIVES.iter().find(|c| trimmed.starts_with(**c)).map(|c| c.len());
    let en = || {
        let word: String = trimmed.chars().take_while(char::is_ascii_alphabetic).collect();
        EN_CONNECTIVES.contains(&word.to_ascii_lowercase().as_str()).then_some(word.len())
    };
    let length = zh.or_else(en)?;
    if !matches!(trimmed[length..].chars().next(), Some(',' | '，' | '、' | ' ' | ':' | '：')) {
        return None;
    }
    let after = &trimmed[length..];
    let body = after.trim_start_matches([',', '，', '、', ':', '：', ' ']);
    Some(skipped + length + (after.len() - body.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_question_is_one_part() {
        for q in [
            "用户住在哪个城市？",
            "Where does the user live? ",
            "Which port, 8765 or 8766?",
            "端口 8765",
            // A rhetorical question in small talk, then the question: no connective.
            "不知道这回的地点是不是还是那个公园呢？不好意思，我真正想问的是：那个活动的地点是什么？",
            "Is it Redis? And?",
            // A word that begins with a connective, and a statement after the question.
            "你知道吗？还有三天就放假了。",
            "你还有事吗？还有没有别的事？",
            "Is it Redis? And the port is 8765.",
            "user: where?\nassistant: also here?\nuser: and there?",
        ] {
            assert_eq!(question_parts(q), vec![q], "{q:?}");
        }
    }

    #[test]
    fn a_connective_after_a_question_mark_splits() {
        assert_eq!(
            question_parts("上司是做什么工作的呢？另外，金融科技精英论坛的地点是什么？"),
            vec!["上司是做什么工作的呢？", "金融科技精英论坛的地点是什么？"]
        );
        assert_eq!(
            question_parts("What is Anna's e-mail? Also, which city does she live in?"),
            vec!["What is Anna's e-mail?", "which city does she live in?"]
        );
        assert_eq!(
            question_parts("谁更高？此外 哪个活动人更多？顺便问一下，Redis 端口是多少？ "),
            vec!["谁更高？", "哪个活动人更多？", "Redis 端口是多少？"]
        );
        assert_eq!(
            question_parts("Which port? and which host?"),
            vec!["Which port?", "which host?"]
        );
        // A word that only begins like a connective is not one.
        assert_eq!(question_parts("Which port? Andrew knows."), vec!["Which port? Andrew knows."]);
    }

    #[test]
    fn at_most_four_parts_the_last_keeps_the_rest() {
        let parts = question_parts("a1? Also, b2? Also, c3? Also, d4? Also, e5?");
        assert_eq!(parts, vec!["a1?", "b2?", "c3?", "d4? Also, e5?"]);
    }
}
