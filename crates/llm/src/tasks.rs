//! The lifecycle tasks: prompt in, validated JSON out.

use std::collections::BTreeSet;

use rearview_core::fact_atoms;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::{Completion, LanguageModel, LlmError, Message, Operation};

/// Answers tried per task: the first, then up to two corrections.
const ATTEMPTS: u32 = 3;

/// One input item of a task: an episode to distill or a turn of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Episode {
    /// When it happened, as shown to the model (e.g. `2026-11-29 14:05`).
    pub when: String,
    /// Who said it (`user`, `assistant`), when known.
    pub role: Option<String>,
    /// The text.
    pub text: String,
}

/// The language an answer should be written in: that of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Mostly Chinese (Han characters).
    Chinese,
    /// Anything else; the model is told to keep the input's language.
    Other,
}

impl Language {
    /// The wire name (`zh` / `same-as-input`), recorded in provenance metadata.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Chinese => "zh",
            Language::Other => "same-as-input",
        }
    }

    fn instruction(self) -> &'static str {
        match self {
            Language::Chinese => {
                "The input is in Chinese: write your answer in Chinese (请用简体中文回答)."
            }
            Language::Other => "Write your answer in the language of the input.",
        }
    }
}

/// Chinese when the texts have at least as many Han characters as words in other scripts (a
/// Han character carries about as much as a word).
pub fn dominant_language<'a>(texts: impl IntoIterator<Item = &'a str>) -> Language {
    let (mut han, mut words) = (0usize, 0usize);
    for text in texts {
        let mut in_word = false;
        for c in text.chars() {
            if rearview_core::is_han(c) {
                han += 1;
                in_word = false;
            } else if c.is_alphabetic() {
                words += usize::from(!in_word);
                in_word = true;
            } else {
                in_word = false;
            }
        }
    }
    if han > 0 && han >= words { Language::Chinese } else { Language::Other }
}

/// A distilled semantic memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distillation {
    /// The memory's text.
    pub content: String,
    /// The model that wrote it.
    pub model: String,
    /// Answers it took (1 = the first was usable).
    pub attempts: u32,
    /// The language asked for.
    pub language: Language,
}

/// Condenses `episodes` into one semantic memory of at most about `max_chars` characters,
/// following `instruction` if given (e.g. "focus on the user's food preferences").
pub async fn distill(
    llm: &dyn LanguageModel,
    episodes: &[Episode],
    instruction: Option<&str>,
    max_chars: usize,
) -> Result<Distillation, LlmError> {
    #[derive(Deserialize)]
    struct Answer {
        summary: String,
    }
    let language = dominant_language(episodes.iter().map(|e| e.text.as_str()));
    let instruction = instruction
        .map(|i| format!("Follow this instruction from the user: {}", i.trim()))
        .unwrap_or_default();
    let system = fill(include_str!("../prompts/distill.md"), language, max_chars)
        .replace("{instruction}", &instruction);
    let user = numbered(episodes);
    let sources = atoms_of(episodes.iter().map(|e| e.text.as_str()));
    let (answer, completion, attempts) =
        complete_json(llm, Operation::Distill, &system, &user, |a: &Answer| {
            check_text("summary", &a.summary, max_chars)?;
            check_grounded("summary", &a.summary, &sources)
        })
        .await?;
    Ok(Distillation {
        content: answer.summary.trim().to_owned(),
        model: completion.model,
        attempts,
        language,
    })
}

/// The key events of a session (`turns` in order), each a self-contained sentence; may be empty.
pub async fn extract_events(
    llm: &dyn LanguageModel,
    turns: &[Episode],
    max_chars: usize,
) -> Result<(Vec<String>, Completion), LlmError> {
    #[derive(Deserialize)]
    struct Answer {
        events: Vec<String>,
    }
    let language = dominant_language(turns.iter().map(|e| e.text.as_str()));
    let system = fill(include_str!("../prompts/extract_episodes.md"), language, max_chars);
    let sources = atoms_of(turns.iter().map(|e| e.text.as_str()));
    let (answer, completion, _) =
        complete_json(llm, Operation::Extract, &system, &numbered(turns), |a: &Answer| {
            if a.events.len() > turns.len().max(1) * 3 {
                return Err(format!(
                    "{} events from {} turns is more than there can be",
                    a.events.len(),
                    turns.len()
                ));
            }
            a.events.iter().try_for_each(|e| {
                check_text("events[]", e, max_chars)?;
                check_grounded("events[]", e, &sources)
            })
        })
        .await?;
    let events = answer.events.into_iter().map(|e| e.trim().to_owned()).collect();
    Ok((events, completion))
}

/// A recall summary of `text` of at most about `max_chars` characters.
pub async fn summarize(
    llm: &dyn LanguageModel,
    text: &str,
    max_chars: usize,
) -> Result<(String, Completion), LlmError> {
    #[derive(Deserialize)]
    struct Answer {
        summary: String,
    }
    let language = dominant_language([text]);
    let system = fill(include_str!("../prompts/summarize.md"), language, max_chars);
    let sources = atoms_of([text]);
    let (answer, completion, _) =
        complete_json(llm, Operation::Summarize, &system, text, |a: &Answer| {
            check_text("summary", &a.summary, max_chars)?;
            check_grounded("summary", &a.summary, &sources)
        })
        .await?;
    Ok((answer.summary.trim().to_owned(), completion))
}

/// Which of `older` (each with when it happened, as shown to the model) the memory `newer`
/// updates, so that they are no longer true: their indexes into `older`, in order, without
/// repeats; empty when none. One request for all of them.
pub async fn updated_by(
    llm: &dyn LanguageModel,
    newer: &str,
    older: &[Episode],
) -> Result<(Vec<usize>, Completion), LlmError> {
    #[derive(Deserialize)]
    struct Answer {
        updated: Vec<usize>,
    }
    let system = include_str!("../prompts/supersede.md");
    let user = format!("New memory: {}\n\nOlder memories:\n{}", newer.trim(), numbered(older));
    let (answer, completion, _) =
        complete_json(llm, Operation::Supersede, system, &user, |a: &Answer| {
            match a.updated.iter().find(|n| **n == 0 || **n > older.len()) {
                Some(n) => Err(format!(
                    "\"updated\" names memory {n}; the older memories are numbered 1 to {}",
                    older.len()
                )),
                None => Ok(()),
            }
        })
        .await?;
    let mut picked: Vec<usize> = answer.updated.iter().map(|n| n - 1).collect();
    picked.sort_unstable();
    picked.dedup();
    Ok((picked, completion))
}

fn fill(template: &str, language: Language, max_chars: usize) -> String {
    template
        .replace("{language}", language.instruction())
        .replace("{max_chars}", &max_chars.to_string())
}

fn numbered(items: &[Episode]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, e)| match &e.role {
            Some(role) => format!("{}. [{}] {}: {}", i + 1, e.when, role, e.text.trim()),
            None => format!("{}. [{}] {}", i + 1, e.when, e.text.trim()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A usable text field: not blank, not the template's placeholder, not wildly over the limit
/// (models overshoot a little; twice the limit means the instruction was ignored).
fn check_text(field: &str, text: &str, max_chars: usize) -> Result<(), String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("\"{field}\" is empty"));
    }
    if text.starts_with("<the ") || text.starts_with("<event") {
        return Err(format!("\"{field}\" repeats the template's placeholder"));
    }
    let chars = text.chars().count();
    if chars > max_chars * 2 {
        return Err(format!("\"{field}\" has {chars} characters; at most {max_chars} were asked"));
    }
    Ok(())
}

/// Fact atoms (Han characters, other words lower-cased) of all `texts`.
fn atoms_of<'a>(texts: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    texts.into_iter().flat_map(fact_atoms).collect()
}

/// A model's text must be about its input: at least one of its fact atoms, and at least a fifth
/// of them, occur in the input texts (not in the prompt around them: dates in the episode list do
/// not count). Catches echoes of the prompt and invented content, which tiny local models
/// produce ("1.20", a bare timestamp); paraphrase still passes.
fn check_grounded(field: &str, text: &str, sources: &BTreeSet<String>) -> Result<(), String> {
    let atoms = fact_atoms(text);
    let grounded = atoms.iter().filter(|a| sources.contains(*a)).count();
    if grounded == 0 || grounded * 5 < atoms.len() {
        return Err(format!(
            "\"{field}\" ({}) is not about the given text: {grounded} of its {} words occur in it",
            rearview_core::truncate_chars(text.trim(), 60),
            atoms.len()
        ));
    }
    Ok(())
}

/// Asks for JSON of type `T`, checks it with `valid`, and on a malformed answer asks again,
/// quoting what was wrong, up to [`ATTEMPTS`] answers in all.
async fn complete_json<T: DeserializeOwned>(
    llm: &dyn LanguageModel,
    operation: Operation,
    system: &str,
    user: &str,
    valid: impl Fn(&T) -> Result<(), String>,
) -> Result<(T, Completion, u32), LlmError> {
    let mut messages = vec![Message::system(system), Message::user(user)];
    let mut problem = String::new();
    for attempt in 1..=ATTEMPTS {
        let completion = llm.complete(operation, &messages, true).await?;
        let parsed = json_object(&completion.text)
            .ok_or_else(|| "the answer contains no JSON object".to_owned())
            .and_then(|raw| serde_json::from_str::<T>(raw).map_err(|e| e.to_string()))
            .and_then(|value| valid(&value).map(|()| value));
        match parsed {
            Ok(value) => return Ok((value, completion, attempt)),
            Err(why) => {
                tracing::warn!(
                    operation = operation.as_str(),
                    attempt,
                    why,
                    "malformed LLM answer; asking again"
                );
                messages.push(Message::assistant(completion.text));
                messages.push(Message::user(format!(
                    "That answer was not usable: {why}. Answer again with only the JSON object \
                     described in the instructions."
                )));
                problem = why;
            }
        }
    }
    Err(LlmError::BadOutput { message: problem, attempts: ATTEMPTS })
}

/// The JSON object in an answer: the whole text, or the part between the first `{` and the last
/// `}` (models like to wrap JSON in prose or code fences).
fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (end > start).then(|| &text[start..=end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_follows_the_input() {
        assert_eq!(dominant_language(["我喜欢在周末去香山爬山"]), Language::Chinese);
        assert_eq!(dominant_language(["I like hiking", "on weekends"]), Language::Other);
        assert_eq!(dominant_language(["用 Rust 写 server"]), Language::Chinese);
        assert_eq!(dominant_language([""]), Language::Other);
    }

    #[test]
    fn json_is_found_inside_fences_and_prose() {
        assert_eq!(json_object("```json\n{\"a\": 1}\n```"), Some("{\"a\": 1}"));
        assert_eq!(
            json_object("Sure! {\"a\": {\"b\": 2}} Hope it helps"),
            Some("{\"a\": {\"b\": 2}}")
        );
        assert_eq!(json_object("no json"), None);
        assert_eq!(json_object("} backwards {"), None);
    }

    #[test]
    fn answers_must_be_about_the_input() {
        let sources = atoms_of(["I went hiking at Fragrant Hills on Saturday", "周日又去爬了香山"]);
        assert!(
            check_grounded("summary", "The user likes hiking at Fragrant Hills.", &sources).is_ok()
        );
        assert!(check_grounded("summary", "用户周末爱爬香山", &sources).is_ok());
        assert!(check_grounded("summary", "2026-11-30 01:52", &sources).is_err());
        assert!(check_grounded("summary", "1.20", &sources).is_err());
        assert!(check_grounded("summary", "a story about dragons and castles", &sources).is_err());
    }

    #[test]
    fn text_checks() {
        assert!(check_text("summary", "  ", 100).is_err());
        assert!(check_text("summary", "<the semantic memory>", 100).is_err());
        assert!(check_text("summary", &"x".repeat(201), 100).is_err());
        assert!(check_text("summary", &"x".repeat(150), 100).is_ok());
    }
}
