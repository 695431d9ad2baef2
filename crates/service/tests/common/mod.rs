//! Helpers shared by the service's integration tests (`mod common;` in each that uses them).

/// Copies the database file and its write-ahead log, as a file backup of an idle database.
pub fn copy_db(from: &std::path::Path, to: &std::path::Path) {
    std::fs::copy(from, to).unwrap();
    for suffix in ["-wal", "-shm"] {
        let (from, to) =
            (format!("{}{suffix}", from.display()), format!("{}{suffix}", to.display()));
        let _ = std::fs::remove_file(&to);
        if std::path::Path::new(&from).exists() {
            std::fs::copy(&from, &to).unwrap();
        }
    }
}
