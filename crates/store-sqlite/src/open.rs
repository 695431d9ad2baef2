//! Opening a database: a file (created if missing, migrated, WAL with reader connections) or a
//! private one in memory; and inspecting a file read-only for `rearview doctor`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use rearview_store::StoreError;
use rusqlite::{Connection, OpenFlags};

use crate::codec::backend;
use crate::connection::{Inner, configure, file_size, tune_cache};
use crate::{Durability, Inspection, SqliteConfig, SqliteStore, migrate};

impl SqliteStore {
    /// Opens (creating if needed) the database at `config.path` and brings its schema up to date.
    pub fn open(config: &SqliteConfig) -> Result<Self, StoreError> {
        if let Some(parent) = config.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::Backend {
                context: format!("creating directory {}", parent.display()),
                source: Box::new(e),
            })?;
        }
        create_private(&config.path)?;
        let mut writer = Connection::open(&config.path)
            .map_err(backend(format!("opening sqlite database at {}", config.path.display())))?;
        configure(&writer, config)?;
        migrate::run(&mut writer)?;
        let readers = (0..config.readers.max(1))
            .map(|_| {
                let conn = Connection::open_with_flags(
                    &config.path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(backend("opening a reader connection"))?;
                conn.busy_timeout(config.busy_timeout).map_err(backend("setting busy timeout"))?;
                tune_cache(&conn)?;
                Ok(Mutex::new(conn))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Self::from_parts(writer, readers, Some((config.path.clone(), config.durability))))
    }

    /// Inspects the database at `path` without changing it (read-only; no migration runs), for
    /// `rearview doctor`: schema version against this build's, integrity and size.
    pub fn inspect(path: &Path) -> Result<Inspection, StoreError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(backend(format!("opening sqlite database at {} read-only", path.display())))?;
        let schema_version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(backend("reading schema version"))?;
        let mut stmt =
            conn.prepare("PRAGMA quick_check").map_err(backend("preparing integrity check"))?;
        let problems: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(backend("running integrity check"))?
            .collect::<Result<_, _>>()
            .map_err(backend("reading integrity check"))?;
        let integrity = if problems == ["ok"] { Vec::new() } else { problems };
        let memories = if schema_version >= 1 {
            conn.query_row("SELECT count(*) FROM memories", [], |r| r.get::<_, i64>(0))
                .map_err(backend("counting memories"))?
                .max(0) as u64
        } else {
            0
        };
        Ok(Inspection {
            schema_version,
            latest_version: migrate::LATEST,
            integrity,
            memories,
            size_bytes: file_size(path),
        })
    }

    /// A private in-memory database, for tests and throw-away runs.
    pub fn in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory().map_err(backend("opening in-memory sqlite"))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(backend("enabling foreign keys"))?;
        migrate::run(&mut conn)?;
        Ok(Self::from_parts(conn, Vec::new(), None))
    }

    /// The schema version this binary writes.
    pub fn schema_version() -> i64 {
        migrate::LATEST
    }

    fn from_parts(
        writer: Connection,
        readers: Vec<Mutex<Connection>>,
        file: Option<(PathBuf, Durability)>,
    ) -> Self {
        let (path, durability) = file.unzip();
        Self {
            inner: Arc::new(Inner {
                writer: Mutex::new(writer),
                readers,
                next_reader: AtomicUsize::new(0),
                namespace_ids: Mutex::new(HashMap::new()),
                path,
                durability,
            }),
        }
    }
}

/// Creates the database file readable and writable by its owner only (0600) when it does not
/// exist yet; SQLite then gives its WAL and shared-memory files the same mode. An existing file
/// keeps its mode (an operator may have chosen it). Memories are private data.
fn create_private(path: &Path) -> Result<(), StoreError> {
    if path.as_os_str() == ":memory:" || path.exists() {
        return Ok(());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        // Another process created it meanwhile: fine, it is a database file now.
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Backend {
            context: format!("creating the database file {}", path.display()),
            source: Box::new(e),
        }),
    }
}
