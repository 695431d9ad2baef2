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
}
