//! Date and time stamps that conversation logs and session formatting put around what was said:
//! `(2023-05-08)`, `[10:30]`, `2023年5月8日 `, `On 8 May 2023, `, `1:56 pm on 8 May, 2023: `.
//! A memory already has its event time; copied into a distilled text they are noise that also
//! makes every statement look different.

use rearview_core::is_han;

/// `text` without the stamps around what was said: a bracketed group (`()`, `[]`, `（）`, `【】`)
/// that holds only a date or time, anywhere; and a date (with or without a time) that opens a
/// line, followed by punctuation, or by a space when it names a year or a time. A date that
/// is part of the sentence stays (`5月8日开会`, `May 8 is my birthday`, `10:30 的会议`), and so
/// does any date in the middle of a sentence.
pub fn strip_timestamps(text: &str) -> String {
    let unbracketed = strip_bracketed(text);
    let lines: Vec<&str> = unbracketed.lines().map(strip_leading_stamp).collect();
    lines.join("\n").trim().to_owned()
}

/// What a run of text is, read as a stamp.
#[derive(Debug, Default, Clone, Copy)]
struct Stamp {
    /// A day of a month: `8 May`, `5月8日`, `2023-05-08`, `05/08/2023`.
    day: bool,
    /// A four-digit year.
    year: bool,
    /// A clock time: `10:30`, `10点`.
    time: bool,
}

fn strip_bracketed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['(', '[', '（', '【']) {
        let close = match rest[open..].chars().next() {
            Some('(') => ')',
            Some('[') => ']',
            Some('（') => '）',
            _ => '】',
        };
        let inner_start = open + rest[open..].chars().next().map_or(1, char::len_utf8);
        let Some(len) = rest[inner_start..].find(close) else { break };
        let inner = &rest[inner_start..inner_start + len];
        let after = inner_start + len + close.len_utf8();
        let inner = inner.trim();
        if stamps(inner).last().is_some_and(|&(n, _)| n == inner.len()) {
            out.push_str(&rest[..open]);
            // The space that separated the stamp from the text goes with it.
            rest = rest[after..].strip_prefix(' ').unwrap_or(&rest[after..]);
        } else {
            out.push_str(&rest[..after]);
            rest = &rest[after..];
        }
    }
    out.push_str(rest);
    out
}

/// `line` without a date stamp at its start (see [`strip_timestamps`]): the longest one that
/// names a day and is followed by punctuation, or by a space when it names a year or a time.
fn strip_leading_stamp(line: &str) -> &str {
    let trimmed = line.trim_start();
    let end = stamps(trimmed).into_iter().rev().find_map(|(len, stamp)| {
        let rest = &trimmed[len..];
        let separated = rest.starts_with([':', '：', ',', '，', '-', '–', '—', '|', ']', ')']);
        let spaced = rest.starts_with(char::is_whitespace) && (stamp.year || stamp.time);
        (stamp.day && (separated || spaced || rest.trim().is_empty())).then_some(len)
    });
    match end {
        Some(len) => trimmed[len..]
            .trim_start_matches(|c: char| c.is_whitespace() || ":：,，-–—|])".contains(c)),
        None => line,
    }
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];
const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
];
/// Words that may sit between the parts of a stamp (`1:56 pm on 8 May`, `the 8th of May`).
const GLUE: &[&str] = &["on", "at", "of", "the", "am", "pm", "a", "p", "m", "utc", "gmt", "t", "z"];
/// Han characters of Chinese dates and times: `2023年5月8日 星期一 上午10点30分`.
const ZH_DATE: &str = "年月日号时点分秒周星期礼拜一二三四五六七天上下午晚早凌晨中";

/// The prefixes of `text` made only of date and time parts that name a day or a time, each with
/// its length and what it names, shortest first. A prefix ends after a digit, a month or weekday,
/// a Han date character or `am`/`pm` (never after glue such as `on` or `,`).
fn stamps(text: &str) -> Vec<(usize, Stamp)> {
    let mut parts = Parts::default();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c.is_ascii_digit() {
            let n = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            parts.numbers.push((rest[..n].parse().unwrap_or(u32::MAX), n));
            i += n;
            // An ordinal suffix belongs to its number (`8th`).
            let tail = text[i..].to_ascii_lowercase();
            if let Some(s) = ["st", "nd", "rd", "th"].iter().find(|s| tail.starts_with(**s))
                && !text[i + s.len()..].starts_with(char::is_alphabetic)
            {
                i += s.len();
            }
        } else if c.is_ascii_alphabetic() {
            let n = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
            let word = rest[..n].to_ascii_lowercase();
            i += n;
            if MONTHS.contains(&word.as_str()) {
                parts.month_name = true;
            } else if !WEEKDAYS.contains(&word.as_str())
                && !matches!(word.as_str(), "am" | "pm" | "utc" | "gmt" | "z")
            {
                if GLUE.contains(&word.as_str()) {
                    continue;
                }
                break;
            }
        } else if is_han(c) && ZH_DATE.contains(c) {
            parts.han.push(c);
            i += c.len_utf8();
        } else if "-/.:, ".contains(c) {
            parts.separators.push(c);
            i += c.len_utf8();
            continue;
        } else {
            break;
        }
        let stamp = parts.stamp();
        if stamp.day || stamp.time {
            out.push((i, stamp));
        }
    }
    out
}

/// The date and time parts read so far.
#[derive(Default)]
struct Parts {
    /// `(value, number of digits)`.
    numbers: Vec<(u32, usize)>,
    month_name: bool,
    separators: String,
    han: String,
}

impl Parts {
    fn stamp(&self) -> Stamp {
        let numbers = &self.numbers;
        let year = numbers.iter().any(|&(v, d)| d == 4 && (1900..2200).contains(&v));
        let time = (self.separators.contains(':') && numbers.len() >= 2)
            || ((self.han.contains('点') || self.han.contains('时')) && !numbers.is_empty());
        let day_number = numbers.iter().any(|&(v, d)| d <= 2 && (1..=31).contains(&v));
        let numeric_date = numbers.len() >= 3
            && (self.separators.contains(['-', '/']) || self.separators.matches('.').count() >= 2);
        let day = (self.month_name && day_number)
            || (self.han.contains('月') && self.han.contains(['日', '号']))
            || numeric_date;
        Stamp { day, year, time }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_that_sessions_add_are_removed() {
        for (input, expected) in [
            ("(2023-05-08) 周六去香山爬山了", "周六去香山爬山了"),
            ("[10:30] 下周想去爬泰山", "下周想去爬泰山"),
            ("【2023年5月8日 10:30】我们开会了", "我们开会了"),
            ("2023年5月9日 周日又和朋友去爬了香山", "周日又和朋友去爬了香山"),
            ("On 8 May 2023, Caroline went hiking", "Caroline went hiking"),
            ("1:56 pm on 8 May, 2023: Caroline went hiking", "Caroline went hiking"),
            ("2023-05-08 10:30 deployed the fix", "deployed the fix"),
            ("May 8th, 2023 - met Ana", "met Ana"),
            ("went hiking (8 May 2023)", "went hiking"),
            ("(Mon, 8 May 2023) went hiking\n[10:31] came back", "went hiking\ncame back"),
        ] {
            assert_eq!(strip_timestamps(input), expected, "{input:?}");
        }
    }

    #[test]
    fn dates_that_are_part_of_the_sentence_stay() {
        for text in [
            "5月8日开会",
            "May 8 is my birthday",
            "10:30 的会议改到 11:00",
            "moved to Lisbon in 2023",
            "2023 was a good year",
            "March 2023 was cold",
            "(see page 12) for details",
            "port 8765",
            "我们在 2023年5月8日 见过",
        ] {
            assert_eq!(strip_timestamps(text), text);
        }
    }
}
