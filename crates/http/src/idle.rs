//! When a server started on demand (`rearview serve --idle-exit`) may stop: no request in flight
//! and none begun or ended for a while.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;

/// The requests a router is serving, and when the last one began or ended.
#[derive(Clone)]
pub struct Activity(Arc<Inner>);

struct Inner {
    in_flight: AtomicUsize,
    last: std::sync::Mutex<Instant>,
}

impl Default for Activity {
    fn default() -> Self {
        Self(Arc::new(Inner { in_flight: AtomicUsize::new(0), last: Instant::now().into() }))
    }
}

impl Activity {
    /// `router` with every request counted (outermost, so refused requests count too).
    pub fn track(&self, router: Router) -> Router {
        let activity = self.clone();
        router.layer(axum::middleware::from_fn(move |request: Request, next: Next| {
            let activity = activity.clone();
            async move { activity.during(next.run(request)).await }
        }))
    }

    async fn during(&self, request: impl Future<Output = Response>) -> Response {
        self.touch();
        self.0.in_flight.fetch_add(1, Ordering::SeqCst);
        // Decremented on drop too: a client that disconnects mid-request ends it.
        let _ended = Ended(self);
        request.await
    }

    fn touch(&self) {
        *self.0.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
    }

    /// Whether nothing has been in flight for `quiet`.
    pub fn is_idle(&self, quiet: Duration) -> bool {
        self.0.in_flight.load(Ordering::SeqCst) == 0
            && self.0.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner).elapsed()
                >= quiet
    }

    /// Completes once nothing has been in flight for `quiet` (checked every quarter of it, at
    /// most every 5 seconds).
    pub async fn idle_for(&self, quiet: Duration) {
        let every = (quiet / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
        while !self.is_idle(quiet) {
            tokio::time::sleep(every).await;
        }
    }
}

struct Ended<'a>(&'a Activity);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use tower::ServiceExt;

    #[tokio::test]
    async fn idle_only_after_the_quiet_period_with_nothing_in_flight() {
        let activity = Activity::default();
        let router = activity.track(Router::new().route("/", get(|| async { "ok" })));
        let quiet = Duration::from_millis(200);
        assert!(!activity.is_idle(quiet), "just created counts as activity");
        tokio::time::sleep(quiet).await;
        assert!(activity.is_idle(quiet));
        let response =
            router.oneshot(Request::builder().uri("/").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(!activity.is_idle(quiet), "a request resets the quiet period");
        tokio::time::timeout(Duration::from_secs(5), activity.idle_for(quiet))
            .await
            .expect("idle after the quiet period");
    }
}
