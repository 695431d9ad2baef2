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

/// Drops sub-microsecond precision so a timestamp survives a round trip through any store.
pub(crate) fn truncate_to_micros(ts: Timestamp) -> Timestamp {
    DateTime::from_timestamp_micros(ts.timestamp_micros()).unwrap_or(ts)
}
