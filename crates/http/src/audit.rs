//! The audit event of every REST operation (`/v1/…`): route, namespace, key id, outcome,
//! duration, body in and out (cut short). Tool calls, over `/mcp` and `/mcp/tools/call`, are
//! audited by `rearview-mcp`.

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use rearview_service::Caller;
use rearview_telemetry::audit::{self, AuditEvent, EXCERPT_CHARS};

use crate::routes::AuditSlot;

/// Audits `/v1/…` requests; passes everything else through.
pub(crate) async fn audit_rest(mut request: Request, next: Next) -> Response {
    let Some(route) = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .filter(|p| p.starts_with("/v1/"))
    else {
        return next.run(request).await;
    };
    let started = std::time::Instant::now();
    let operation = format!("{} {route}", request.method());
    let key_id = request.extensions().get::<Caller>().and_then(|c| c.key_id().map(str::to_owned));
    let slot = AuditSlot::default();
    request.extensions_mut().insert(slot.clone());
    if !audit::enabled() {
        // Metrics only: no copies of the bodies.
        let response = next.run(request).await;
        let status = response.status();
        audit::record(&AuditEvent {
            transport: "rest",
            tool: &operation,
            namespace: None,
            key_id: key_id.as_deref(),
            outcome: if status.is_success() { "ok" } else { status.as_str() },
            duration: started.elapsed(),
            input: "",
            output: "",
        });
        return response;
    }
    let (parts, body) = request.into_parts();
    // The body is already buffered (serve::read_body), so this only takes it back out.
    let input = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let query = parts.uri.query().map(str::to_owned);
    let response = next.run(Request::from_parts(parts, Body::from(input.clone()))).await;
    let status = response.status();
    let (parts, body) = response.into_parts();
    let output = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let input_text = match query {
        Some(q) if input.is_empty() => q,
        _ => excerpt(&input),
    };
    audit::record(&AuditEvent {
        transport: "rest",
        tool: &operation,
        namespace: slot.0.get().map(String::as_str),
        key_id: key_id.as_deref(),
        outcome: if status.is_success() { "ok" } else { status.as_str() },
        duration: started.elapsed(),
        input: &input_text,
        output: &excerpt(&output),
    });
    Response::from_parts(parts, Body::from(output))
}

/// The start of a body as text, without cutting a character.
fn excerpt(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(EXCERPT_CHARS * 4)];
    String::from_utf8_lossy(head).into_owned()
}
