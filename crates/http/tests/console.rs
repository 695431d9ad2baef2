//! What the web console (`/ui`) is served with and the API routes written for it: a memory's
//! history, counts per day and tier, the recall latency series, and listing by event time.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use rearview_service::{NewKey, RememberRequest, ServiceConfig, UpdateRequest};
use serde_json::json;

use common::send;

#[tokio::test]
async fn the_console_is_served_without_a_key_under_a_strict_policy_and_its_data_is_not() {
    let service = common::service(ServiceConfig::default()).await;
    let admin = service.create_key(NewKey { admin: true, ..NewKey::default() }).await.unwrap();
    let config =
        rearview_http::HttpConfig { auth: rearview_http::AuthMode::Required, ..Default::default() };
    let app = rearview_http::router_with(Arc::clone(&service), "default".parse().unwrap(), &config)
        .router;
    for (uri, kind) in [
        ("/ui", "text/html"),
        ("/ui/", "text/html"),
        ("/ui/console.js", "text/javascript"),
        ("/ui/console.css", "text/css"),
    ] {
        let request = axum::http::Request::get(uri).body(axum::body::Body::empty()).unwrap();
        let response = tower::ServiceExt::oneshot(app.clone(), request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{uri}");
        let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
        assert!(header("content-type").starts_with(kind), "{uri}: {}", header("content-type"));
        let policy = header("content-security-policy");
        assert!(policy.contains("script-src 'self'"), "{uri}: {policy}");
        assert!(policy.contains("connect-src 'self'"), "{uri}: {policy}");
        assert!(!policy.contains("unsafe-inline"), "{uri}: {policy}");
        assert_eq!(header("x-content-type-options"), "nosniff");
    }
    let (_, _, page) = send(&app, None, "GET", "/ui", &[], None).await;
    assert!(page.contains("/ui/console.js") && page.contains("/ui/console.css"), "{page}");
    assert!(!page.contains("<script>") && !page.contains("onclick="), "no inline script");
    // The page is public; what it shows is not.
    let (status, _, _) = send(&app, None, "GET", "/v1/timeline", &[], None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = send(&app, Some(&admin.secret), "GET", "/v1/timeline", &[], None).await;
    assert_eq!(status, StatusCode::OK);
    // Latency sums over every tenant: a namespace's key sees its counts, not the server's latency.
    let recall = Some(json!({"query": "anything"}));
    send(&app, Some(&admin.secret), "POST", "/v1/recall", &[], recall).await;
    let grant = NewKey { namespaces: vec!["a".parse().unwrap()], ..NewKey::default() };
    let tenant = service.create_key(grant).await.unwrap();
    let (status, answer, _) =
        send(&app, Some(&tenant.secret), "GET", "/v1/timeline", &[], None).await;
    assert_eq!((status, answer["namespace"].as_str()), (StatusCode::OK, Some("a")));
    assert_eq!(answer["recall_latency"], json!([]));
    // The console offers a limited key exactly its namespaces, empty ones too.
    let (_, stats, _) = send(&app, Some(&tenant.secret), "GET", "/v1/stats", &[], None).await;
    assert_eq!(stats["granted"], json!(["a"]));
    let (_, stats, _) = send(&app, Some(&admin.secret), "GET", "/v1/stats", &[], None).await;
    assert!(stats.get("granted").is_none(), "an admin key may use any namespace: {stats}");
    let (_, answer, _) = send(&app, Some(&admin.secret), "GET", "/v1/timeline", &[], None).await;
    assert!(!answer["recall_latency"].as_array().unwrap().is_empty(), "{answer}");
}

#[tokio::test]
async fn history_lists_what_a_memory_replaced_latest_first() {
    let service = common::service(ServiceConfig::default()).await;
    let ns = "default".parse().unwrap();
    let stored = service.remember(&ns, RememberRequest::new("住在北京")).await.unwrap().memory;
    for text in ["住在上海", "住在杭州"] {
        let update = UpdateRequest { content: Some(text.into()), ..UpdateRequest::default() };
        service.update(&ns, stored.id, update).await.unwrap();
    }
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let uri = format!("/v1/memories/{}/history", stored.id);
    let (status, answer, text) = send(&app, None, "GET", &uri, &[], None).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let contents: Vec<&str> = answer["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["住在上海", "住在北京"]);
    let (status, answer, _) = send(
        &app,
        None,
        "GET",
        "/v1/memories/01a22910-7243-7e36-b21d-4ba2b60629d1/history",
        &[],
        None,
    )
    .await;
    assert_eq!((status, answer["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
}

#[tokio::test]
async fn timeline_counts_days_per_tier_and_times_recalls() {
    let service = common::service(ServiceConfig::default()).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    let now = service.now();
    let two_days_ago = (now - chrono::TimeDelta::days(2)).to_rfc3339();
    let long_ago = (now - chrono::TimeDelta::days(90)).to_rfc3339();
    for (content, tier, at) in [
        ("today one", "episodic", None),
        ("today two", "semantic", None),
        ("earlier", "working", Some(&two_days_ago)),
        ("too old for 30 days", "episodic", Some(&long_ago)),
    ] {
        let mut body = json!({"content": content, "memory_type": tier});
        if let Some(at) = at {
            body["occurred_at"] = at.as_str().into();
        }
        let (status, _, text) = send(&app, None, "POST", "/v1/memories", &[], Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{text}");
    }
    let (status, _, _) =
        send(&app, None, "POST", "/v1/recall", &[], Some(json!({"query": "today"}))).await;
    assert_eq!(status, StatusCode::OK);

    let (status, answer, text) = send(&app, None, "GET", "/v1/timeline", &[], None).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let day = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d").to_string();
    assert_eq!(
        answer["tiers"],
        json!([
            {"day": day(now - chrono::TimeDelta::days(2)), "working": 1, "episodic": 0, "semantic": 0},
            {"day": day(now), "working": 0, "episodic": 1, "semantic": 1},
        ])
    );
    let minutes = answer["recall_latency"].as_array().unwrap();
    assert!(minutes.iter().map(|m| m["count"].as_u64().unwrap()).sum::<u64>() >= 1, "{answer}");
    assert!(minutes.iter().all(|m| m["p99_ms"].as_f64() >= m["p50_ms"].as_f64()));

    let (status, answer, _) = send(&app, None, "GET", "/v1/timeline?days=0", &[], None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(answer["message"].as_str().unwrap().contains("days"), "{answer}");
}

#[tokio::test]
async fn memories_list_by_event_time() {
    let service = common::service(ServiceConfig::default()).await;
    let app = rearview_http::router(Arc::clone(&service), "default".parse().unwrap());
    for (content, at) in [("march", "2026-03-10T08:00:00Z"), ("may", "2026-05-10T08:00:00Z")] {
        let body = json!({"content": content, "occurred_at": at});
        send(&app, None, "POST", "/v1/memories", &[], Some(body)).await;
    }
    let uri =
        "/v1/memories?occurred_after=2026-04-01T00:00:00Z&occurred_before=2026-06-01T00:00:00Z";
    let (status, answer, text) = send(&app, None, "GET", uri, &[], None).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let contents: Vec<&str> = answer["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["may"]);
    let (status, answer, _) =
        send(&app, None, "GET", "/v1/memories?occurred_after=yesterday-ish", &[], None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(answer["message"].as_str().unwrap().contains("occurred_after"), "{answer}");
}
