//! API keys over REST, for an admin key only: `GET /v1/keys`, `POST /v1/keys` (the secret is in
//! the answer, once), `POST /v1/keys/{id}/revoke`. What `rearview keys` does on the command line.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use rearview_api::{KeyView, KeysAnswer, RevokedAnswer, render};
use rearview_service::NewKey;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::routes::{Answer, Tenant};
use crate::{ApiError, AppState, ErrorCode};

/// Body of `POST /v1/keys`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyParams {
    /// Namespaces the key may read and write; at least one unless `admin`.
    #[serde(default)]
    namespaces: Vec<String>,
    /// Every namespace, and server-wide details; default false.
    #[serde(default)]
    admin: bool,
    /// Free text for people (who or what uses the key).
    label: Option<String>,
    /// Days until the key stops working; default never.
    #[schemars(range(min = 1, max = 36500))]
    expires_in_days: Option<u32>,
}

fn admin_only(tenant: &Tenant) -> Result<(), ApiError> {
    if tenant.caller.is_admin() {
        return Ok(());
    }
    Err(ApiError::new(ErrorCode::Forbidden, "managing API keys needs an admin key"))
}

/// `GET /v1/keys` → `{"keys": [...]}`, oldest first, never a secret.
pub async fn list(State(state): State<AppState>, tenant: Tenant) -> Answer {
    admin_only(&tenant)?;
    let now = state.service.now();
    let keys = state.service.list_keys().await?;
    let keys = keys.iter().map(|k| KeyView::new(k, None, now)).collect();
    Ok(Json(render(&KeysAnswer { keys })?))
}

/// `POST /v1/keys` `{"namespaces", "admin"?, "label"?, "expires_in_days"?}` → the key with its
/// secret under `key`, shown this once.
pub async fn create(
    State(state): State<AppState>,
    tenant: Tenant,
    body: Result<Json<KeyParams>, JsonRejection>,
) -> Result<(axum::http::StatusCode, Json<serde_json::Value>), ApiError> {
    admin_only(&tenant)?;
    let Json(body) = body.map_err(ApiError::from)?;
    let namespaces = body
        .namespaces
        .iter()
        .enumerate()
        .map(|(i, n)| {
            n.parse().map_err(|e: rearview_core::InputError| {
                rearview_core::InputError::new(format!("namespaces[{i}]"), e.message)
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let new = NewKey {
        namespaces,
        admin: body.admin,
        label: body.label,
        expires_in_days: body.expires_in_days,
    };
    let created = state.service.create_key(new).await?;
    let answer = KeyView::new(&created.record, Some(&created.secret), state.service.now());
    Ok((axum::http::StatusCode::CREATED, Json(render(&answer)?)))
}

/// `POST /v1/keys/{id}/revoke` → `{"revoked": id}`; the key's next request is refused.
pub async fn revoke(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> Answer {
    admin_only(&tenant)?;
    state.service.revoke_key(&id).await?;
    Ok(Json(render(&RevokedAnswer { revoked: &id })?))
}
