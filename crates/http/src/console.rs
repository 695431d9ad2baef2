//! The web console at `/ui`: one page and its script and style sheet, embedded in the binary.
//!
//! The files are static and carry no data, so they are served without a key; everything the
//! page shows comes from the REST API under `/v1`, called by the page with the key the user
//! enters, so the console can see and do exactly what that key can (see `console/console.js`).
//! A strict Content-Security-Policy allows only this origin's script, style and API: memory
//! text is rendered as text, and even a slip there could not load or send anything elsewhere.

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const INDEX: &str = include_str!("../console/index.html");
const SCRIPT: &str = include_str!("../console/console.js");
const STYLE: &str = include_str!("../console/console.css");

/// What the console's pages may load and contact: this origin only; no framing.
pub(crate) const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; \
     base-uri 'none'; form-action 'self'";

/// `/ui` (and `/ui/`), `/ui/console.js`, `/ui/console.css`.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/ui", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/ui/", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/ui/console.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/ui/console.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers
        .insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    // A new binary may ship new files under the same names.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
