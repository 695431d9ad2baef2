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
