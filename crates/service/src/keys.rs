//! API keys: creation, listing, revocation and authentication.
//!
//! A secret is `rv_` followed by 64 hex digits (256 random bits from the operating system). Only
//! its SHA-256 digest is stored. The key's id, `rvk_` and the digest's first 16 hex digits, is
//! derived from the secret, so authentication is one primary-key lookup followed by a
//! constant-time comparison of the whole digest. Plain SHA-256 suffices: the secrets are random,
//! not passwords, so there is nothing to brute-force slowly. A key seeded from the environment
//! (for containers without a shell) may be any string of at least [`MIN_SEED_CHARS`]
//! characters; it is hashed the same way.

use std::collections::BTreeSet;

use chrono::TimeDelta;
use rearview_core::{InputError, Namespace, Timestamp};
use rearview_store::ApiKeyRecord;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::tenancy::{Caller, Grant};
use crate::{MemoryService, ServiceError};

/// Shortest secret accepted from the environment (`REARVIEW_API_KEY`).
pub const MIN_SEED_CHARS: usize = 32;

/// What `rearview keys create` asks for.
#[derive(Debug, Clone, Default)]
pub struct NewKey {
    /// Namespaces the key may use; at least one unless `admin`.
    pub namespaces: Vec<Namespace>,
    /// Every namespace, plus server-wide details.
    pub admin: bool,
    /// Free text for people.
    pub label: Option<String>,
    /// Days until the key stops working; `None` = never.
    pub expires_in_days: Option<u32>,
}

/// A key just created: the record and its secret, which is shown once and never stored.
#[derive(Debug, Clone)]
pub struct CreatedKey {
    /// What is stored.
    pub record: ApiKeyRecord,
    /// The bearer secret (`rv_…`).
    pub secret: String,
}

/// Why a presented secret was not accepted. Deliberately says no more than needed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No key matches (never existed, wrong secret).
    #[error("the API key is not valid")]
    Unknown,
    /// The key was revoked.
    #[error("the API key was revoked")]
    Revoked,
    /// The key expired.
    #[error("the API key expired")]
    Expired,
}

/// The label of the admin key seeded from `REARVIEW_API_KEY`.
const SEEDED_LABEL: &str = "seeded from REARVIEW_API_KEY";

impl MemoryService {
    /// Creates a key and returns its secret (once).
    pub async fn create_key(&self, new: NewKey) -> Result<CreatedKey, ServiceError> {
        validate(&new)?;
        let secret = generate_secret()?;
        let record = self.key_record(&secret, new);
        if !self.store.insert_key(&record).await? {
            // 64 bits of a SHA-256 of 256 random bits: a collision means a broken RNG.
            return Err(ServiceError::Unavailable("key id collision; try again".into()));
        }
        Ok(CreatedKey { record, secret })
    }

    /// Ensures an admin key with this secret exists (a secret from the environment, for
    /// containers that cannot run `rearview keys create`), and revokes the keys seeded from any
    /// other secret before (rotating the variable retires the old key). Idempotent; a revoked
    /// seeded key stays revoked. Returns the key's record.
    pub async fn seed_admin_key(&self, secret: &str) -> Result<ApiKeyRecord, ServiceError> {
        if secret.trim().chars().count() < MIN_SEED_CHARS || secret.trim() != secret {
            return Err(InputError::new(
                "REARVIEW_API_KEY",
                format!(
                    "must be at least {MIN_SEED_CHARS} characters without surrounding spaces; generate one with `openssl rand -hex 32`"
                ),
            )
            .into());
        }
        let record = self.key_record(
            secret,
            NewKey { admin: true, label: Some(SEEDED_LABEL.into()), ..NewKey::default() },
        );
        self.store.insert_key(&record).await?;
        // Rotation: a key seeded from an earlier value of the variable stops working now.
        let now = self.clock.now();
        for old in self.store.list_keys().await? {
            if old.label.as_deref() == Some(SEEDED_LABEL)
                && old.id != record.id
                && old.is_active(now)
            {
                self.store.revoke_key(&old.id, now).await?;
                tracing::warn!(
                    key_id = old.id,
                    "revoked the admin key of an earlier REARVIEW_API_KEY"
                );
            }
        }
        Ok(self.store.find_key(&record.id).await?.unwrap_or(record))
    }

    /// Every key, oldest first.
    pub async fn list_keys(&self) -> Result<Vec<ApiKeyRecord>, ServiceError> {
        Ok(self.store.list_keys().await?)
    }

    /// Revokes a key at once: its next request is refused.
    pub async fn revoke_key(&self, id: &str) -> Result<(), ServiceError> {
        if self.store.revoke_key(id, self.clock.now()).await? {
            Ok(())
        } else {
            Err(ServiceError::InvalidInput(InputError::new(
                "id",
                format!("no key {id:?}; `rearview keys list` shows the ids"),
            )))
        }
    }

    /// Whether any key is active: a server on loopback enforces keys from the first one on.
    pub async fn keys_exist(&self) -> Result<bool, ServiceError> {
        Ok(self.store.count_active_keys(self.clock.now()).await? > 0)
    }

    /// The caller a bearer secret identifies.
    pub async fn authenticate(&self, secret: &str) -> Result<Caller, AuthError> {
        let digest = digest(secret);
        let record = match self.store.find_key(&key_id(&digest)).await {
            Ok(Some(record)) => record,
            Ok(None) => return Err(AuthError::Unknown),
            Err(e) => {
                tracing::error!(error = %e, "reading an api key failed");
                return Err(AuthError::Unknown);
            }
        };
        if !bool::from(record.digest.ct_eq(&digest)) {
            return Err(AuthError::Unknown);
        }
        let now = self.clock.now();
        if record.revoked_at.is_some() {
            return Err(AuthError::Revoked);
        }
        if record.expires_at.is_some_and(|t| now >= t) {
            return Err(AuthError::Expired);
        }
        let grant = if record.admin {
            Grant::All
        } else {
            Grant::Only(record.namespaces.iter().cloned().collect::<BTreeSet<_>>())
        };
        Ok(Caller::with_key(record.id, grant))
    }

    fn key_record(&self, secret: &str, new: NewKey) -> ApiKeyRecord {
        let digest = digest(secret);
        let now: Timestamp = self.clock.now();
        ApiKeyRecord {
            id: key_id(&digest),
            digest,
            label: new.label,
            namespaces: if new.admin { Vec::new() } else { dedup(new.namespaces) },
            admin: new.admin,
            created_at: now,
            expires_at: new.expires_in_days.map(|d| now + TimeDelta::days(i64::from(d))),
            revoked_at: None,
        }
    }
}

fn validate(new: &NewKey) -> Result<(), ServiceError> {
    if !new.admin && new.namespaces.is_empty() {
        return Err(InputError::new(
            "namespace",
            "a key needs at least one --namespace, or --admin for every namespace",
        )
        .into());
    }
    if new.expires_in_days == Some(0) {
        return Err(InputError::new("expires_in", "must be at least 1 day").into());
    }
    Ok(())
}

fn dedup(mut namespaces: Vec<Namespace>) -> Vec<Namespace> {
    namespaces.sort();
    namespaces.dedup();
    namespaces
}

fn generate_secret() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServiceError::Unavailable(format!("no randomness from the OS: {e}")))?;
    Ok(format!("rv_{}", hex(&bytes)))
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

fn key_id(digest: &[u8; 32]) -> String {
    format!("rvk_{}", hex(&digest[..8]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
