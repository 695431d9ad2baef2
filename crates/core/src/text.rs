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
