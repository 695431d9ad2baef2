//! Text helpers that must respect UTF-8 boundaries (Chinese text is first-class).

/// The first `max_chars` characters of `text`, with `…` appended when something was cut.
///
/// Cuts on character boundaries, never inside a UTF-8 sequence.
pub fn truncate_chars(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((byte_idx, _)) => format!("{}…", &text[..byte_idx]),
    }
}

/// Han ideographs (CJK Unified Ideographs and their extensions, compatibility ideographs): the
/// characters Chinese text is made of.
pub fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2A6DF | 0x2A700..=0x2EBEF
        | 0x30000..=0x3134F)
}

/// Whether `text` is written mostly in Han characters: at least half of its units are Han
/// characters, a unit being a Han character or a run of other letters and digits
/// (`用户要求把数据库从MySQL换成PostgreSQL` is; `port 8765 上线` is too, barely; `The API
/// listens on 8080` is not). Embedding models place text pairs of one script and of two scripts
/// on different scales of cosine.
pub fn mostly_han(text: &str) -> bool {
    let (mut han, mut runs, mut in_run) = (0usize, 0usize, false);
    for c in text.chars() {
        if is_han(c) {
            han += 1;
            in_run = false;
        } else if c.is_alphanumeric() {
            runs += usize::from(!in_run);
            in_run = true;
        } else {
            in_run = false;
        }
    }
    han > 0 && han >= runs
}

/// The smallest units of fact in a text: each Han character, and each run of other letters and
/// digits, lower-cased (`Port 8765` → `port`, `8765`). Punctuation and spacing carry none.
pub fn fact_atoms(text: &str) -> std::collections::BTreeSet<String> {
    let mut atoms = std::collections::BTreeSet::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_han(c) {
            flush(&mut word, &mut atoms);
            atoms.insert(c.to_string());
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut atoms);
        }
    }
    flush(&mut word, &mut atoms);
    atoms
}

fn flush(word: &mut String, atoms: &mut std::collections::BTreeSet<String>) {
    if !word.is_empty() {
        atoms.insert(std::mem::take(word));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_never_splits_a_character() {
        assert_eq!(truncate_chars("我喜欢爬山", 2), "我喜…");
        assert_eq!(truncate_chars("我喜欢爬山", 5), "我喜欢爬山");
        assert_eq!(truncate_chars("port 8765", 4), "port…");
        assert_eq!(truncate_chars("", 3), "");
    }

    #[test]
    fn mostly_han_counts_a_latin_word_as_one_unit() {
        assert!(mostly_han("用户要求把数据库从MySQL换成PostgreSQL。"));
        assert!(mostly_han("我喜欢在周末去香山爬山"));
        assert!(mostly_han("port 8765 上线"));
        assert!(!mostly_han("The MCP memory service listens on port 8765."));
        assert!(!mostly_han("用 the new PostgreSQL cluster for staging"));
        assert!(!mostly_han("12345"));
    }
}
