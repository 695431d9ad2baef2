//! Counts over time for the console's charts.

use chrono::TimeDelta;
use rearview_core::{InputError, Namespace};
use rearview_store::DayCount;

use crate::{MemoryService, ServiceError};

/// The most days [`MemoryService::daily_counts`] answers for.
pub const MAX_TIMELINE_DAYS: u32 = 366;

impl MemoryService {
    /// Memories of `namespace` per UTC day of their event time and tier, over the last `days`
    /// days (today included): archived and superseded ones counted, expired ones not.
    pub async fn daily_counts(
        &self,
        namespace: &Namespace,
        days: u32,
    ) -> Result<Vec<DayCount>, ServiceError> {
        if days == 0 || days > MAX_TIMELINE_DAYS {
            return Err(InputError::new(
                "days",
                format!("must be between 1 and {MAX_TIMELINE_DAYS}"),
            )
            .into());
        }
        let now = self.clock.now();
        let since = now - TimeDelta::days(i64::from(days) - 1);
        Ok(self.store.daily_counts(namespace, since, now).await?)
    }
}
