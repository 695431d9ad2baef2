//! Translation of [`MemoryFilter`] into a SQL `WHERE` clause over `memories m`, with numbered
//! parameters. Must select exactly what `MemoryFilter::matches` selects; the contract suite's
//! `list_filters_agree_with_memory_filter` holds us to it.

use rearview_core::{MemoryFilter, Timestamp};

use crate::Params;
use crate::codec::micros;

/// Appends the filter's conditions on `m` (namespace `ns_id` included) to `params`; returns the
/// clause.
pub(crate) fn clause(
    params: &mut Params,
    ns_id: i64,
    filter: &MemoryFilter,
    now: Timestamp,
) -> String {
    let mut parts = Vec::new();
    parts.push(format!("m.ns = {}", params.push(ns_id)));
    let now = params.push(micros(now));
    parts.push(format!("(m.expires_at IS NULL OR m.expires_at > {now})"));
    if !filter.include_archived {
        parts.push("NOT m.archived".to_owned());
    }
    if !filter.include_superseded {
        parts.push(format!("(m.invalid_at IS NULL OR m.invalid_at > {now})"));
    }
    if !filter.memory_types.is_empty() {
        let tiers: Vec<String> =
            filter.memory_types.iter().map(|t| t.as_str().to_owned()).collect();
        parts.push(format!("m.memory_type = ANY({})", params.push(tiers)));
    }
    if let Some(session) = &filter.session_id {
        parts.push(format!("m.session_id = {}", params.push(session.clone())));
    }
    if let Some(after) = filter.occurred_after {
        parts.push(format!("m.occurred_at >= {}", params.push(micros(after))));
    }
    if let Some(before) = filter.occurred_before {
        parts.push(format!("m.occurred_at <= {}", params.push(micros(before))));
    }
    for tag in &filter.tags {
        // Only string elements of an array count as tags, as in `rearview_core::tags_of`.
        parts.push(format!(
            "(jsonb_typeof(m.metadata -> 'tags') = 'array' \
              AND (m.metadata -> 'tags') @> jsonb_build_array({}::text))",
            params.push(tag.clone())
        ));
    }
    parts.join(" AND ")
}
