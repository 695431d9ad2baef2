//! Who is calling, and which namespaces they may use: the tenant boundary.
//!
//! Every transport turns its credentials into a [`Caller`] (an API key's grant over HTTP; the
//! trusted local user for stdio MCP, the CLI and servers without keys) and asks the caller to
//! [`Caller::resolve`] the namespace a request names. A namespace outside the grant is refused
//! with [`ServiceError::Forbidden`] before anything is read or written.

use std::collections::BTreeSet;

use rearview_core::{InputError, Namespace};

use crate::ServiceError;

/// The namespaces a caller may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Every namespace, and server-wide details (database location, other tenants' names).
    All,
    /// Only these.
    Only(BTreeSet<Namespace>),
}

/// The authenticated party of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    key_id: Option<String>,
    grant: Grant,
}

impl Caller {
    /// The local user: stdio MCP, the CLI, or an HTTP server that runs without keys. Trusted with
    /// every namespace.
    pub fn trusted() -> Self {
        Self { key_id: None, grant: Grant::All }
    }

    /// A caller identified by an API key with this grant.
    pub fn with_key(key_id: impl Into<String>, grant: Grant) -> Self {
        Self { key_id: Some(key_id.into()), grant }
    }

    /// The API key's id (never its secret), for audit logs; `None` for the trusted local user.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// What the caller may use.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// Whether the caller sees every namespace and server-wide details.
    pub fn is_admin(&self) -> bool {
        self.grant == Grant::All
    }

    /// Whether the caller may read and write `namespace`.
    pub fn may_use(&self, namespace: &Namespace) -> bool {
        match &self.grant {
            Grant::All => true,
            Grant::Only(set) => set.contains(namespace),
        }
    }

    /// The namespace a request works in, checked against the grant.
    ///
    /// `named` is what the request body or tool arguments say (field `namespace`), `header` what
    /// the transport says (`X-Rearview-Namespace`); the first present wins. Without either, a key
    /// that grants exactly one namespace uses it, and everyone else uses `fallback` (the server's
    /// default namespace). The result must be inside the grant, else
    /// [`ServiceError::Forbidden`].
    pub fn resolve(
        &self,
        named: Option<&str>,
        header: Option<&str>,
        fallback: &Namespace,
    ) -> Result<Namespace, ServiceError> {
        let namespace = match (named, header, &self.grant) {
            (Some(name), _, _) => parse("namespace", name)?,
            (None, Some(name), _) => parse("X-Rearview-Namespace", name)?,
            (None, None, Grant::Only(set)) if set.len() == 1 => {
                set.iter().next().cloned().unwrap_or_else(|| fallback.clone())
            }
            (None, None, _) => fallback.clone(),
        };
        self.check(&namespace)?;
        Ok(namespace)
    }

    /// `Ok` if the caller may use `namespace`, else [`ServiceError::Forbidden`].
    pub fn check(&self, namespace: &Namespace) -> Result<(), ServiceError> {
        if self.may_use(namespace) {
            Ok(())
        } else {
            Err(ServiceError::Forbidden { namespace: namespace.as_str().to_owned() })
        }
    }
}

fn parse(field: &'static str, name: &str) -> Result<Namespace, ServiceError> {
    name.parse::<Namespace>()
        .map_err(|e: InputError| ServiceError::InvalidInput(InputError::new(field, e.message)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(name: &str) -> Namespace {
        name.parse().unwrap()
    }

    fn only(names: &[&str]) -> Caller {
        Caller::with_key("rvk_test", Grant::Only(names.iter().map(|n| ns(n)).collect()))
    }

    #[test]
    fn a_named_namespace_wins_over_the_header_and_must_be_granted() {
        let caller = only(&["alice", "项目"]);
        let fallback = ns("default");
        assert_eq!(caller.resolve(Some("项目"), Some("alice"), &fallback).unwrap(), ns("项目"));
        assert_eq!(caller.resolve(None, Some("alice"), &fallback).unwrap(), ns("alice"));
        let refused = caller.resolve(Some("bob"), Some("alice"), &fallback).unwrap_err();
        assert!(matches!(refused, ServiceError::Forbidden { ref namespace } if namespace == "bob"));
        assert!(caller.resolve(None, Some("bob"), &fallback).is_err());
        // Two namespaces and nothing named: the server default, which this key does not grant.
        assert!(caller.resolve(None, None, &fallback).is_err());
    }

    #[test]
    fn a_key_with_one_namespace_defaults_to_it() {
        assert_eq!(only(&["alice"]).resolve(None, None, &ns("default")).unwrap(), ns("alice"));
    }

    #[test]
    fn the_trusted_caller_and_admin_keys_may_use_any_namespace() {
        for caller in [Caller::trusted(), Caller::with_key("rvk_admin", Grant::All)] {
            assert!(caller.is_admin());
            assert_eq!(caller.resolve(Some("bob"), None, &ns("d")).unwrap(), ns("bob"));
            assert_eq!(caller.resolve(None, None, &ns("d")).unwrap(), ns("d"));
        }
    }

    #[test]
    fn a_malformed_name_is_invalid_input_naming_where_it_came_from() {
        let e = Caller::trusted().resolve(None, Some(""), &ns("d")).unwrap_err();
        assert!(e.to_string().contains("X-Rearview-Namespace"), "{e}");
    }
}
