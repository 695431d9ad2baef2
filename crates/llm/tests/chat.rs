//! The chat client and the tasks against a scripted OpenAI-compatible server on loopback.

use std::time::Duration;

use rearview_llm::{
    ChatClient, ChatConfig, Episode, Language, LanguageModel, LlmError, Operation, distill,
    extract_events, summarize, updated_by,
};
use rearview_openai_client::testing::{Reply, serve_with};

/// A chat completion whose answer is `content`.
fn chat(content: &str) -> Reply {
    let body = serde_json::json!({
        "id": "x", "object": "chat.completion", "model": "scripted-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}
    });
    Reply { status: 200, headers: vec![], body: Some(body.to_string()) }
}

fn no_default(_: &serde_json::Value) -> String {
    "{}".to_owned()
}

fn client(url: &str) -> ChatClient {
    let mut config = ChatConfig::new(url, "base-model");
    config.models.insert(Operation::Distill, "strong-model".to_owned());
    config.api_key = Some("sk-secret".to_owned());
    config.initial_backoff = Duration::from_millis(5);
    ChatClient::new(config)
}

fn episodes(texts: &[&str]) -> Vec<Episode> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Episode {
            when: format!("2026-11-{:02}", i + 1),
            role: None,
            text: (*t).to_owned(),
        })
        .collect()
}

#[tokio::test]
async fn distill_sends_the_operation_model_and_the_language_and_reads_the_json() {
    let (url, seen) = serve_with(
        vec![chat("```json\n{\"summary\": \"用户喜欢周末爬山，常去香山。\"}\n```")],
        no_default,
    );
    let llm = client(&url);
    let eps = episodes(&["周六去香山爬山了", "周日又去爬了香山"]);
    let out = distill(&llm, &eps, Some("只保留爱好"), 200).await.unwrap();
    assert_eq!(out.content, "用户喜欢周末爬山，常去香山。");
    assert_eq!(out.model, "scripted-model");
    assert_eq!(out.attempts, 1);
    assert_eq!(out.language, Language::Chinese);

    let seen = seen.lock().unwrap();
    let body = &seen[0].body;
    assert_eq!(body["model"], "strong-model");
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(seen[0].auth.as_deref(), Some("Bearer sk-secret"));
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("简体中文"), "{system}");
    assert!(system.contains("只保留爱好"), "{system}");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("1. [2026-11-01] 周六去香山爬山了"), "{user}");
}

#[tokio::test]
async fn a_malformed_answer_is_corrected_once() {
    let (url, seen) = serve_with(
        vec![
            chat("Here is your summary: the user likes hiking."),
            chat("{\"summary\": \"The user likes hiking.\"}"),
        ],
        no_default,
    );
    let out = distill(&client(&url), &episodes(&["I went hiking"]), None, 200).await.unwrap();
    assert_eq!(out.content, "The user likes hiking.");
    assert_eq!(out.attempts, 2);
    let seen = seen.lock().unwrap();
    let correction = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(correction.len(), 4, "system, user, bad answer, correction");
    assert!(correction[3]["content"].as_str().unwrap().contains("no JSON object"));
}

#[tokio::test]
async fn persistent_garbage_is_an_error_not_a_result() {
    let (url, seen) = serve_with(
        vec![chat("{\"summary\": \"\"}"), chat("{\"wrong\": 1}"), chat("not json at all")],
        no_default,
    );
    let err = distill(&client(&url), &episodes(&["I went hiking"]), None, 200).await.unwrap_err();
    match err {
        LlmError::BadOutput { attempts, message } => {
            assert_eq!(attempts, 3);
            assert!(message.contains("no JSON object"), "{message}");
        }
        other => panic!("expected BadOutput, got {other:?}"),
    }
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn server_errors_are_retried_and_refused_keys_are_not() {
    let (url, seen) = serve_with(
        vec![Reply::status(503, "busy"), chat("{\"summary\": \"a text about hiking\"}")],
        no_default,
    );
    let (summary, completion) =
        summarize(&client(&url), "a long text about hiking", 100).await.unwrap();
    assert_eq!(summary, "a text about hiking");
    assert_eq!(completion.prompt_tokens, Some(42));
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(seen.lock().unwrap()[1].body["model"], "base-model");

    let (url, _) = serve_with(vec![Reply::status(401, "{\"error\": \"bad key\"}")], no_default);
    let err = summarize(&client(&url), "text", 100).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, LlmError::Unavailable { .. }), "{text}");
    assert!(text.contains("API key") && !text.contains("sk-secret"), "{text}");
    assert!(!format!("{:?}", client(&url)).contains("sk-secret"));
}

#[tokio::test]
async fn extraction_returns_events_and_rejects_absurd_counts() {
    let (url, _) = serve_with(
        vec![
            chat("{\"events\": [\"The user's server listens on port 8765.\", \"  \"]}"),
            chat("{\"events\": [\"The user's server listens on port 8765.\"]}"),
        ],
        no_default,
    );
    let turns = episodes(&["hi", "my server listens on port 8765"]);
    let (events, _) = extract_events(&client(&url), &turns, 500).await.unwrap();
    assert_eq!(events, ["The user's server listens on port 8765."]);

    let many: Vec<String> = (0..20).map(|i| format!("\"event {i}\"")).collect();
    let absurd = format!("{{\"events\": [{}]}}", many.join(","));
    let (url, _) = serve_with(vec![chat(&absurd)], no_default);
    let err = extract_events(&client(&url), &turns, 500).await.unwrap_err();
    assert!(matches!(err, LlmError::BadOutput { .. }), "{err}");
}

#[tokio::test]
async fn a_server_that_is_not_openai_compatible_is_named() {
    let (url, _) = serve_with(vec![Reply::status(200, "<html>hello</html>")], no_default);
    let llm = client(&url);
    assert_eq!(llm.model_for(Operation::Extract), "base-model");
    let err = llm.check().await.unwrap_err();
    assert!(err.to_string().contains("base URL"), "{err}");
}

#[tokio::test]
async fn an_answer_about_something_else_is_rejected_like_malformed_json() {
    let (url, _) = serve_with(
        vec![
            chat("{\"summary\": \"2026-11-30 01:52\"}"),
            chat("{\"summary\": \"The user hikes on weekends.\"}"),
        ],
        no_default,
    );
    let out = distill(
        &client(&url),
        &episodes(&["went hiking on Saturday", "hiking again on Sunday"]),
        None,
        200,
    )
    .await
    .unwrap();
    assert_eq!((out.content.as_str(), out.attempts), ("The user hikes on weekends.", 2));
}

#[tokio::test]
async fn updated_by_numbers_the_older_memories_and_checks_the_answer() {
    let (url, seen) =
        serve_with(vec![chat("{\"updated\": [3]}"), chat("{\"updated\": [2, 1, 2]}")], no_default);
    let llm = client(&url);
    let older = episodes(&["我住在北京", "I live in Berlin"]);
    // 3 names no older memory: corrected, and the repeat in the second answer is dropped.
    let (picked, completion) = updated_by(&llm, "我上个月搬到上海了", &older).await.unwrap();
    assert_eq!(picked, [0, 1]);
    assert_eq!(completion.model, "scripted-model");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].body["model"], "base-model", "the operation has no model of its own here");
    let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
    assert_eq!(
        user,
        "New memory: 我上个月搬到上海了\n\nOlder memories:\n1. [2026-11-01] 我住在北京\n\
         2. [2026-11-02] I live in Berlin"
    );
    let correction = seen[1].body["messages"][3]["content"].as_str().unwrap();
    assert!(correction.contains("numbered 1 to 2"), "{correction}");
    assert_eq!(Operation::Supersede.as_str(), "supersede");
}
