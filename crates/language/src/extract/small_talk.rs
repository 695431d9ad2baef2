//! Greetings, thanks and acknowledgements: turns of a conversation that say nothing to remember.

use rearview_core::is_han;

/// Whether `text` is only greetings, thanks, acknowledgements or fillers, in English or Chinese
/// (`你好`, `谢谢！`, `好的，收到`, `ok`, `Thank you!`, `got it 👍`), whatever its punctuation,
/// spacing, case and emoji. Text with nothing but punctuation or emoji counts too; any other
/// word, number or Han character makes it a statement.
pub fn is_small_talk(text: &str) -> bool {
    let lower = text.to_lowercase().replace(['\'', '’'], "");
    let mut han = String::new();
    let mut word = String::new();
    for c in lower.chars().chain([' ']) {
        if is_han(c) {
            if !word.is_empty() && !listed(EN_SMALL_TALK, &std::mem::take(&mut word)) {
                return false;
            }
            han.push(c);
        } else if c.is_alphanumeric() {
            if !han.is_empty() && !only_phrases(&std::mem::take(&mut han)) {
                return false;
            }
            word.push(c);
        } else {
            if !word.is_empty() && !listed(EN_SMALL_TALK, &std::mem::take(&mut word)) {
                return false;
            }
            if !han.is_empty() && !only_phrases(&std::mem::take(&mut han)) {
                return false;
            }
        }
    }
    true
}

/// English words that only ever make up greetings, thanks, acknowledgements and fillers (`thank
/// you so much`, `ok got it`, `see you later`). A turn must consist of these alone.
const EN_SMALL_TALK: &str = "hi hello hey heya hiya yo howdy greetings morning evening afternoon \
    night good thanks thank thx ty tysm you u so very much a lot lots ok okay okey k kk sure cool \
    great nice awesome perfect fine alright all right got it gotcha noted understood roger yes \
    yeah yep yup ya sounds bye goodbye see later cheers welcome youre np no problem lol haha hah \
    hehe hmm hm mhm uh huh um oh ah wow there again too indeed done appreciate appreciated will do";

/// Chinese greetings, thanks, acknowledgements and particles; a Han run must split into these.
const ZH_SMALL_TALK: &str = "你好 您好 你们好 大家好 早上好 中午好 下午好 晚上好 早安 晚安 早 嗨 \
    哈喽 哈罗 喂 谢谢 谢谢你 谢谢您 谢了 多谢 感谢 非常感谢 太感谢了 辛苦了 辛苦 好的 好 好吧 好滴 \
    好嘞 好哒 行 行吧 可以 没问题 嗯 嗯嗯 恩 哦 噢 喔 哦哦 收到 明白 明白了 知道了 懂了 了解 是的 对 \
    对的 没错 不客气 不用谢 再见 拜拜 回头见 哈哈 呵呵 嘿嘿 棒 很好 太好了 真棒 了 啦 呀 啊 吧 呢 哈 \
    嘛 哇 非常 很 太";

fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// Whether `han` splits into [`ZH_SMALL_TALK`] phrases, longest first at each position.
fn only_phrases(han: &str) -> bool {
    let mut rest = han;
    while !rest.is_empty() {
        let Some(longest) = ZH_SMALL_TALK
            .split_whitespace()
            .filter(|p| rest.starts_with(p))
            .max_by_key(|p| p.len())
        else {
            return false;
        };
        rest = &rest[longest.len()..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greetings_and_acknowledgements_in_both_languages() {
        for text in [
            "你好",
            "您好！",
            " 谢谢 ",
            "好的",
            "好的，谢谢！",
            "嗯",
            "嗯嗯。",
            "收到",
            "收到～",
            "ok",
            "OK!",
            "okay",
            "Thanks.",
            "thank you!!",
            "Thank you so much",
            "hi",
            "Hi there",
            "hello",
            "got it",
            "Got it, thanks 👍",
            "👍",
            "...",
            "",
            "ok 谢谢",
            "谢谢啦",
            "you're welcome",
        ] {
            assert!(is_small_talk(text), "{text:?} is small talk");
        }
    }

    #[test]
    fn statements_are_not_small_talk() {
        for text in [
            "好吃",
            "你好，我叫小王",
            "谢谢，我住在上海",
            "ok, the port is 8765",
            "thanks for the tea",
            "hi, I moved to Paris",
            "8765",
            "好的 8765",
            "收到文件",
            "got a new laptop",
        ] {
            assert!(!is_small_talk(text), "{text:?} is a statement");
        }
    }
}
