//! `redvote campaign NAME export BOARD`: a board's period as CSV or JSON
//! lines, ranked under the board's tie rule, read in batches of 100
//! members (one `campaign_top` page each, then the real scores for
//! `--kind both` and the display names: separate calls, so Redis is never
//! blocked longer than a page). The rows, columns and the check of a board
//! that moved between batches are the service's (`redvote_serve::export`,
//! docs/export.md).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use redvote::{Campaign, Kind, Paging, View};
use redvote_serve::export::{self, ExportFormat, ExportKind, Progress, BATCH};
use serde_json::json;

use crate::{print, Global};

/// `--kind` of an export.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum KindArg {
    /// The shown board (weights, imported votes, carry), ranked by it
    Shown,
    /// The real board (one per vote), ranked by it
    Real,
    /// The shown order with the real score and real rank beside
    Both,
}

/// `--format` of an export.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// CSV with a header line
    Csv,
    /// One JSON object a line
    Jsonl,
}

/// `campaign NAME export BOARD ...`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Board
    board: String,
    /// hour, day, week, month (the current one), total, or a name such as month:2026-10 (last month: name it)
    #[arg(long, default_value = "total", value_parser = period_arg)]
    period: String,
    /// Which scores: shown, real, or both (the shown order, the real score and rank beside)
    #[arg(long, value_enum, default_value = "shown")]
    kind: KindArg,
    /// csv or jsonl
    #[arg(long, value_enum, default_value = "csv")]
    format: FormatArg,
    /// Write to this file (all or nothing: written beside it, renamed at the end) instead of stdout
    #[arg(long)]
    output: Option<PathBuf>,
    /// Fail (exit 1) when the board moved between two batches, rather than warn
    #[arg(long)]
    strict: bool,
}

/// A period as the scripts take it: hour, day, week, month, total, or one
/// period's name (`day:2026-03-17`, ...).
pub fn period_arg(s: &str) -> Result<String, String> {
    let current = ["hour", "day", "week", "month", "total"].contains(&s);
    if current || redvote_check::calendar::parse_period(s, 0).is_some() {
        Ok(s.to_string())
    } else {
        Err(
            "a period is hour, day, week, month, total, or a name such as \
             hour:2026-03-17T10, day:2026-03-17, week:2026-W12, month:2026-03"
                .to_string(),
        )
    }
}

/// Where the rows go: stdout, or a file written beside the asked one and
/// renamed once complete.
enum Sink {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    File {
        file: std::io::BufWriter<std::fs::File>,
        partial: PathBuf,
        path: PathBuf,
    },
}

impl Sink {
    fn write(&mut self, text: &str) -> Result<()> {
        let done = match self {
            Sink::Stdout(w) => w.write_all(text.as_bytes()).and_then(|()| w.flush()),
            Sink::File { file, partial, .. } => {
                return file
                    .write_all(text.as_bytes())
                    .with_context(|| format!("cannot write {}", partial.display()))
            }
        };
        match done {
            // the reader had enough (`| head -1`): not an error
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            other => Ok(other?),
        }
    }
}

/// Run the export.
pub fn run(g: &Global, c: &Campaign, name: &str, a: &ExportArgs) -> Result<()> {
    let kind = match a.kind {
        KindArg::Shown => ExportKind::Shown,
        KindArg::Real => ExportKind::Real,
        KindArg::Both => ExportKind::Both,
    };
    let format = match a.format {
        FormatArg::Csv => ExportFormat::Csv,
        FormatArg::Jsonl => ExportFormat::Jsonl,
    };
    let mut sink = match &a.output {
        None => Sink::Stdout(std::io::BufWriter::new(std::io::stdout())),
        Some(path) => {
            let mut partial = path.clone().into_os_string();
            partial.push(".partial");
            let partial = PathBuf::from(partial);
            let file = std::fs::File::create(&partial)
                .with_context(|| format!("cannot write {}", partial.display()))?;
            Sink::File {
                file: std::io::BufWriter::new(file),
                partial,
                path: path.clone(),
            }
        }
    };
    let result = export_rows(g, c, &a.board, &a.period, kind, format, a.strict, &mut sink);
    let progress = match (result, &mut sink) {
        (Ok(p), _) => p,
        (Err(err), Sink::File { partial, .. }) => {
            let _ = std::fs::remove_file(&*partial);
            return Err(err.context("nothing written"));
        }
        (Err(err), Sink::Stdout(_)) => return Err(err),
    };
    let warning = "the board moved during the export (votes between two batches): \
                   rows may be missing, repeated or ranked as before the move; \
                   export a past period for a consistent file, or use --strict";
    if progress.shifted {
        if g.json {
            eprintln!("{}", json!({ "warning": warning }));
        } else {
            eprintln!("redvote: warning: {warning}");
        }
    }
    if let Sink::File {
        file,
        partial,
        path,
    } = sink
    {
        let file = file
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all().map(|()| f))
            .with_context(|| format!("cannot write {}", partial.display()))?;
        drop(file);
        std::fs::rename(&partial, &path).with_context(|| {
            format!("cannot rename {} to {}", partial.display(), path.display())
        })?;
        let summary = json!({
            "campaign": name,
            "board": a.board,
            "period": progress.period,
            "kind": kind.as_str(),
            "rows": progress.rows,
            "batches": progress.batches,
            "moved": progress.shifted,
            "output": path.display().to_string(),
        });
        print(g, &summary, |_| {
            format!(
                "exported {} row(s) of {} {} in {} batch(es) to {}",
                progress.rows,
                a.board,
                progress.period,
                progress.batches,
                path.display()
            )
        })?;
    }
    Ok(())
}

/// Read every batch and write its rows.
#[allow(clippy::too_many_arguments)]
fn export_rows(
    g: &Global,
    c: &Campaign,
    board: &str,
    period: &str,
    kind: ExportKind,
    format: ExportFormat,
    strict: bool,
    sink: &mut Sink,
) -> Result<Progress> {
    let mut con = g.connect_for(c.root_key())?;
    let mut progress = Progress::new(period);
    if format == ExportFormat::Csv {
        sink.write(export::csv_header(kind))?;
    }
    while !progress.done {
        let view = View::new(kind.ranked(), progress.period.clone());
        let call = c.top(&[board], &view, Paging::new(progress.page, BATCH));
        let page = g
            .run_on(&mut con, &call)?
            .into_iter()
            .next()
            .context("campaign_top answered no page")?;
        if progress.advance(&page) && strict {
            bail!(
                "the board moved during the export (before batch {}, after {} row(s)): \
                 rows may be missing or repeated; export a past period, or run it again",
                progress.batches,
                progress.rows - page.entries.len() as u64
            );
        }
        let members: Vec<&str> = page.entries.iter().map(|e| e.member.as_str()).collect();
        if members.is_empty() {
            continue;
        }
        let real = if kind == ExportKind::Both {
            let real = View::new(Kind::Real, progress.period.clone());
            Some(g.run_on(&mut con, &c.standing(board, &real, &members))?)
        } else {
            None
        };
        let mut pipe = redis::pipe();
        for k in export::name_keys(c, board, &members) {
            pipe.hget(k, "name");
        }
        let names: Vec<Option<String>> = pipe
            .query(con.redis()?)
            .context("cannot read the options' display names")?;
        let mut text = String::new();
        for row in export::rows(kind, &page, real.as_deref(), names) {
            export::render(&row, kind, format, &mut text);
        }
        sink.write(&text)?;
    }
    if let Sink::Stdout(w) = sink {
        match w.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            other => other?,
        }
    }
    Ok(progress)
}
