//! Time: the only place in rearview that reads the wall clock.

use std::sync::Mutex;

use chrono::{DateTime, TimeDelta, Utc};

/// A point in time, always UTC, with microsecond precision (what every store keeps).
pub type Timestamp = DateTime<Utc>;

/// Source of "now" for everything that depends on time: expiry, decay, timestamps.
///
/// Implementations: [`SystemClock`] in production, [`ManualClock`] in tests. Ranking code never
/// holds a clock; it receives the instant as an input.
pub trait Clock: Send + Sync + 'static {
    /// The current instant, truncated to whole microseconds.
    fn now(&self) -> Timestamp;
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods, reason = "this is the one sanctioned wall-clock read")]
    fn now(&self) -> Timestamp {
        truncate_to_micros(Utc::now())
    }
}

/// A clock that only moves when told to; for tests of expiry, decay and sweeps.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Timestamp>,
}

impl ManualClock {
    /// A clock frozen at `start`.
    pub fn new(start: Timestamp) -> Self {
        Self { now: Mutex::new(truncate_to_micros(start)) }
    }

    /// Moves the clock forward (or backward, for a negative delta).
    pub fn advance(&self, delta: TimeDelta) {
        let mut now = self.now.lock().expect("clock mutex is never poisoned");
        *now += delta;
    }

    /// Jumps to an instant.
    pub fn set(&self, to: Timestamp) {
        *self.now.lock().expect("clock mutex is never poisoned") = truncate_to_micros(to);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.now.lock().expect("clock mutex is never poisoned")
    }
}

/// Parses a client-supplied instant: RFC 3339 (`2023-05-08T13:56:00Z`, any offset, converted to
/// UTC) or a bare date (`2023-05-08`, midnight UTC). Errors name `field` and both accepted forms.
pub fn parse_timestamp(field: &'static str, text: &str) -> Result<Timestamp, crate::InputError> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text.trim()) {
        return Ok(truncate_to_micros(t.with_timezone(&Utc)));
    }
    if let Some(t) = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
    {
        return Ok(t.and_utc());
    }
    Err(crate::InputError::new(
        field,
        format!(
            "{text:?} is not a time; use RFC 3339 (2023-05-08T13:56:00Z) or a date (2023-05-08)"
        ),
    ))
}

/// Drops sub-microsecond precision so a timestamp survives a round trip through any store.
pub(crate) fn truncate_to_micros(ts: Timestamp) -> Timestamp {
    DateTime::from_timestamp_micros(ts.timestamp_micros()).unwrap_or(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_in_both_forms_and_errors_name_the_field() {
        let date = parse_timestamp("as_of", "2023-05-08").unwrap();
        assert_eq!(date.to_rfc3339(), "2023-05-08T00:00:00+00:00");
        let offset = parse_timestamp("as_of", "2023-05-08T15:56:00+02:00").unwrap();
        assert_eq!(offset.to_rfc3339(), "2023-05-08T13:56:00+00:00");
        let err = parse_timestamp("occurred_at", "yesterday").unwrap_err();
        assert_eq!(err.field, "occurred_at");
        assert!(err.message.contains("RFC 3339"), "{err}");
    }
}
