//! `rearview export` / `rearview import`: a namespace as JSON Lines (format in `rearview_api`).

use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use rearview_api::{EXPORT_VERSION, ExportHeader, ExportedMemory};
use rearview_core::Namespace;
use rearview_service::{ImportItem, Imported, MemoryService};

/// Memories read from the store per page.
const PAGE: usize = 500;

/// What an import did.
#[derive(Debug, Default, serde::Serialize)]
pub struct ImportReport {
    /// Memories written.
    pub inserted: u64,
    /// Memories whose id already existed (nothing written).
    pub skipped: u64,
    /// Vectors computed because the file had none for a model in use.
    pub embedded: u64,
}

/// Writes the header and every memory of `namespace` to `output` (stdout when `None`).
pub async fn export(
    service: &MemoryService,
    namespace: &Namespace,
    vectors: bool,
    output: Option<&Path>,
) -> anyhow::Result<()> {
    let sink: Box<dyn Write> = match output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("creating the export file {}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(sink);
    let header = ExportHeader {
        rearview_export: EXPORT_VERSION,
        namespace: namespace.as_str().to_owned(),
        exported_at: rearview_api::time(rearview_core::Clock::now(&rearview_core::SystemClock)),
        vectors,
    };
    serde_json::to_writer(&mut out, &header)?;
    out.write_all(b"\n")?;
    let mut after = None;
    let mut count = 0u64;
    loop {
        let page = service.export_page(namespace, after, PAGE, vectors).await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(last.id);
        for (memory, memory_vectors) in &page {
            let line = ExportedMemory::new(memory, vectors.then_some(memory_vectors.as_slice()));
            serde_json::to_writer(&mut out, &line)?;
            out.write_all(b"\n")?;
        }
        count += page.len() as u64;
    }
    out.flush().context("writing the export")?;
    if let Some(path) = output {
        // The file is a backup: make it durable before saying it is done.
        std::fs::File::open(path).and_then(|f| f.sync_all()).ok();
        crate::output::notice(&format!("exported {count} memories to {}", path.display()));
    }
    Ok(())
}

/// Reads an export from `file` (`-` = stdin) into `namespace` (or each line's own namespace).
pub async fn import(
    service: &MemoryService,
    namespace: &Namespace,
    file: &Path,
    keep_namespace: bool,
) -> anyhow::Result<ImportReport> {
    let reader: Box<dyn BufRead> = if file == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(file)
                .with_context(|| format!("opening the import file {}", file.display()))?,
        ))
    };
    let mut report = ImportReport::default();
    let mut lines = reader.lines().enumerate();
    let (_, first) = lines.next().context("the import file is empty; expected an export header")?;
    let header: ExportHeader = serde_json::from_str(&first.context("reading line 1")?)
        .context("line 1 is not a rearview export header (written by `rearview export`)")?;
    if header.rearview_export != EXPORT_VERSION {
        anyhow::bail!(
            "line 1: export format {} is not supported by this rearview (it reads format {EXPORT_VERSION})",
            header.rearview_export
        );
    }
    // Memories are written in batches of one namespace: one transaction (and one embedding
    // batch) per BATCH lines rather than per line.
    let mut batch: Vec<ImportItem> = Vec::with_capacity(BATCH);
    let mut first_line = 0;
    for (index, line) in lines {
        let line_no = index + 1;
        let item = match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => read_item(service, &line, line_no, namespace, keep_namespace),
            Err(e) => Err(anyhow::Error::new(e).context(format!("reading line {line_no}"))),
        };
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                // What came before the bad line is written, as a line-by-line import would.
                write_batch(service, &mut batch, first_line, &mut report).await?;
                return Err(e);
            }
        };
        if batch.len() == BATCH || batch.first().is_some_and(|b| b.namespace() != item.namespace())
        {
            write_batch(service, &mut batch, first_line, &mut report).await?;
        }
        if batch.is_empty() {
            first_line = line_no;
        }
        batch.push(item);
    }
    write_batch(service, &mut batch, first_line, &mut report).await?;
    service.finish_import().await;
    Ok(report)
}

/// Writes memories read from another tool's file ([`crate::import_from`]), one batch per
/// namespace and [`BATCH`] memories.
pub async fn import_memories(
    service: &MemoryService,
    mut memories: Vec<ExportedMemory>,
) -> anyhow::Result<ImportReport> {
    // Batches hold one namespace: group them, keeping the file's order within each.
    memories.sort_by(|a, b| a.namespace.cmp(&b.namespace));
    let mut report = ImportReport::default();
    let mut batch: Vec<ImportItem> = Vec::with_capacity(BATCH);
    for (index, exported) in memories.into_iter().enumerate() {
        let number = index + 1;
        let content = exported.content.chars().take(60).collect::<String>();
        let checked = exported
            .into_memory()
            .map_err(anyhow::Error::new)
            .and_then(|(memory, vectors)| {
                let target = memory.namespace.clone();
                Ok(service.check_import(&target, memory, vectors)?)
            })
            .with_context(|| format!("memory {number} ({content:?})"))?;
        if batch.len() == BATCH
            || batch.first().is_some_and(|b| b.namespace() != checked.namespace())
        {
            write_batch(service, &mut batch, number, &mut report).await?;
        }
        batch.push(checked);
    }
    write_batch(service, &mut batch, 0, &mut report).await?;
    service.finish_import().await;
    Ok(report)
}

/// Memories per import batch (one store transaction).
const BATCH: usize = 500;

/// Line `line_no` of an export, checked for import.
fn read_item(
    service: &MemoryService,
    line: &str,
    line_no: usize,
    namespace: &Namespace,
    keep_namespace: bool,
) -> anyhow::Result<ImportItem> {
    let exported: ExportedMemory = serde_json::from_str(line)
        .with_context(|| format!("line {line_no} is not a memory of an export"))?;
    let (memory, vectors) = exported.into_memory().with_context(|| format!("line {line_no}"))?;
    let target = if keep_namespace { memory.namespace.clone() } else { namespace.clone() };
    service.check_import(&target, memory, vectors).with_context(|| format!("line {line_no}"))
}

/// Writes and empties `batch` (read from line `first_line` on), counting into `report`.
async fn write_batch(
    service: &MemoryService,
    batch: &mut Vec<ImportItem>,
    first_line: usize,
    report: &mut ImportReport,
) -> anyhow::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let count = batch.len();
    let done = service
        .import_many(std::mem::take(batch))
        .await
        .with_context(|| format!("writing the {count} memories read from line {first_line} on"))?;
    for imported in done {
        match imported {
            Imported::Inserted { embedded } => {
                report.inserted += 1;
                report.embedded += embedded as u64;
            }
            Imported::Skipped => report.skipped += 1,
        }
    }
    Ok(())
}

/// `rearview migrate --from --to`: copies everything with a progress line per namespace on
/// stderr (hidden when stderr is not a terminal), then verifies.
pub async fn migrate(
    from: &str,
    to: &str,
    password: Option<String>,
    tuning: crate::settings::PgTuning,
) -> anyhow::Result<rearview_service::migrate::Migrated> {
    if from == to {
        anyhow::bail!("--from and --to name the same database; give two different ones");
    }
    let source = crate::commands::open_location(from, password.clone(), tuning).await?;
    let target = crate::commands::open_location(to, password, tuning).await?;
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} ({per_sec})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    let now = rearview_core::Clock::now(&rearview_core::SystemClock);
    let report = rearview_service::migrate::migrate(source, target, now, |namespace, copied| {
        bar.set_position(copied.inserted + copied.skipped);
        bar.set_message(format!(
            "{namespace}: {} copied, {} already there",
            copied.inserted, copied.skipped
        ));
    })
    .await;
    bar.finish_and_clear();
    Ok(report?)
}
