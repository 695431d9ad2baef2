//! Per-namespace write locks.
//!
//! Dedup, merges and every other change the service makes from what it read (archive and
//! restore, updates, ending a session, distilling) read the store, decide, then write. Two such
//! calls in one namespace at once would both decide on the same read: two identical stores would
//! both find no duplicate and both insert; two merges into one memory would each append their
//! record to the same old `metadata.merges`, and the later write would drop the earlier record.
//! So each holds its namespace's [`WriteGuard`] from the read through the store write *and* the
//! in-memory index update (the next writer's near-duplicate search reads that index).
//!
//! What the lock never covers: embedding and LLM calls (they run before it is taken, on the
//! caller's input, so a slow model never stalls other writers), reads (recall, get, list), access
//! counting, and other namespaces: each namespace has its own lock, created on first use and
//! dropped when nobody holds or waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rearview_core::Namespace;
use tokio::sync::OwnedMutexGuard;

/// The write lock of every namespace that currently has a writer.
#[derive(Debug, Default)]
pub(crate) struct WriteLocks {
    namespaces: Mutex<HashMap<Namespace, Arc<tokio::sync::Mutex<()>>>>,
}

/// Exclusive write access to one namespace, until dropped. Functions that must run under it take
/// it as a parameter.
#[derive(Debug)]
pub(crate) struct WriteGuard<'a> {
    locks: &'a WriteLocks,
    namespace: Namespace,
    held: Option<OwnedMutexGuard<()>>,
    /// Keeps the namespace's indexes in memory while the writer works (`residency.rs`).
    pin: Option<crate::indexes::Pin>,
}

impl WriteLocks {
    /// Waits until no one else writes to `namespace`, then holds it.
    pub(crate) async fn write(&self, namespace: &Namespace) -> WriteGuard<'_> {
        let lock = Arc::clone(self.map().entry(namespace.clone()).or_default());
        let held = lock.lock_owned().await;
        WriteGuard { locks: self, namespace: namespace.clone(), held: Some(held), pin: None }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Namespace, Arc<tokio::sync::Mutex<()>>>> {
        self.namespaces.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Namespaces with a lock entry (held or awaited), for tests.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map().len()
    }
}

impl WriteGuard<'_> {
    /// The namespace this guard holds.
    pub(crate) fn namespace(&self) -> &Namespace {
        &self.namespace
    }

    /// Keeps the namespace's indexes in memory until the guard is dropped.
    pub(crate) fn keep_loaded(&mut self, pin: crate::indexes::Pin) {
        self.pin = Some(pin);
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        drop(self.pin.take());
        drop(self.held.take());
        // Forget the lock once nobody holds or waits for it (only the map refers to it). Waiters
        // clone the `Arc` under the map's mutex, so none can appear between the check and the
        // removal.
        let mut map = self.locks.map();
        if map.get(&self.namespace).is_some_and(|lock| Arc::strong_count(lock) == 1) {
            map.remove(&self.namespace);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn ns(name: &str) -> Namespace {
        name.parse().unwrap()
    }

    #[tokio::test]
    async fn one_writer_per_namespace_and_namespaces_are_independent() {
        let locks = Arc::new(WriteLocks::default());
        let held = locks.write(&ns("用户甲")).await;
        assert_eq!(held.namespace(), &ns("用户甲"));
        // Another namespace is free.
        let other = tokio::time::timeout(Duration::from_secs(1), locks.write(&ns("user-b"))).await;
        assert!(other.is_ok(), "a held namespace blocked another");
        drop(other);
        // The same namespace waits until the holder lets go.
        let waiter = {
            let locks = Arc::clone(&locks);
            tokio::spawn(async move {
                let _guard = locks.write(&ns("用户甲")).await;
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiter.is_finished(), "two writers held one namespace");
        drop(held);
        waiter.await.unwrap();
        assert_eq!(locks.len(), 0, "unused locks are forgotten");
    }
}
