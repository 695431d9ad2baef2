//! The web console at `/ui`: one page and its script and style sheet, embedded in the binary.
//!
//! The files are static and carry no data, so they are served without a key; everything the
//! page shows comes from the REST API under `/v1`, called by the page with the key the user
//! enters, so the console can see and do exactly what that key can (see `console/console.js`).
//! A strict Content-Security-Policy allows only this origin's script, style and API: memory
//! text is rendered as text, and even a slip there could not load or send anything elsewhere.

use std::path::PathBuf;

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

/// `/ui` (and `/ui/`), `/ui/console.js`, `/ui/console.css`: the files built into the binary, or
/// with `dir` (development: `--console-dir`), read from there on every request, so the page can
/// be changed without a rebuild.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(dir: Option<PathBuf>) -> Router<S> {
    let file = move |name: &'static str, built_in: &'static str, content_type: &'static str| {
        let dir = dir.clone();
        get(move || {
            let dir = dir.clone();
            async move {
                match dir.map(|d| std::fs::read_to_string(d.join(name))) {
                    Some(Ok(text)) => asset(content_type, text),
                    Some(Err(e)) => {
                        (axum::http::StatusCode::NOT_FOUND, format!("console file {name}: {e}"))
                            .into_response()
                    }
                    None => asset(content_type, built_in.to_owned()),
                }
            }
        })
    };
    let html = "text/html; charset=utf-8";
    Router::new()
        .route("/ui", file("index.html", INDEX, html))
        .route("/ui/", file("index.html", INDEX, html))
        .route("/ui/console.js", file("console.js", SCRIPT, "text/javascript; charset=utf-8"))
        .route("/ui/console.css", file("console.css", STYLE, "text/css; charset=utf-8"))
}

fn asset(content_type: &'static str, body: String) -> Response {
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
