//! Writing verify's report while the files are verified: each difference
//! is written as soon as its file's window is done, so the report's size
//! never sits in memory (a dataset whose every call differs writes
//! megabytes of diffs). The counts are known only at the end, so they come
//! after the lists: in the JSON object after `differs`, `not_checked` and
//! `retrieval`, and in the human report on the last line.

use crate::style;
use crate::words::{count, verb};
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::{verify_each, Report};
use crate::errata::Errata;
use crate::sim::Databases;
use crate::suite::{NotChecked, Suite, WorldOptions};

/// What to verify.
pub struct Run<'a> {
    pub files: &'a [PathBuf],
    pub suite: &'a dyn Suite,
    pub databases: &'a Databases,
    pub options: &'a WorldOptions,
    /// Errata files' entries (the dialogues' own come with them).
    pub errata: &'a Errata,
}

/// Verify and write the report as one JSON object (pretty, newline at the
/// end). Returns the report without its differences.
pub fn write_json(run: &Run<'_>, mut out: impl Write) -> std::io::Result<Report> {
    let streamed = Streamed {
        run,
        report: RefCell::new(Report::default()),
    };
    serde_json::to_writer_pretty(&mut out, &streamed).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(streamed.report.into_inner())
}

/// Verify and write the human report: each difference, then the calls not
/// checked and the retrieval notes, then the counts. Returns the report
/// without its differences.
pub fn write_human(run: &Run<'_>, mut out: impl Write) -> std::io::Result<Report> {
    let mut report = Report::default();
    let mut written = Ok(());
    verify_each(
        run.files,
        run.suite,
        run.databases,
        run.options,
        run.errata,
        |result| {
            for d in report.add(result) {
                if written.is_ok() {
                    if let Some(known) = &d.known {
                        written = writeln!(
                            out,
                            "{} {} ({}) differs, a known erratum ({}): {} [since {}]",
                            style::paint(style::PLACE, &d.file),
                            d.place_words(),
                            d.api_name,
                            known.source,
                            known.reason,
                            known.since
                        );
                        continue;
                    }
                    written = writeln!(
                        out,
                        "{} {} ({}) {}:\n{}",
                        style::paint(style::PLACE, &d.file),
                        d.place_words(),
                        d.api_name,
                        style::paint(style::ERROR, "differs"),
                        style::paint_diff(&d.diff)
                    );
                }
            }
        },
    );
    written?;
    for n in &report.not_checked {
        let why = match n.reason {
            NotChecked::Random => "it draws from unseeded randomness",
            NotChecked::External => "it asks a live web service",
        };
        writeln!(
            out,
            "{} {} ({}) not checked: {why}",
            n.file,
            n.place_words(),
            n.api_name
        )?;
    }
    for r in &report.retrieval {
        writeln!(
            out,
            "{} {}: the recording retrieved {}, the {} retriever picks {}",
            r.file,
            r.place_words(),
            r.recorded,
            run.options.retriever.name(),
            r.retriever
        )?;
    }
    for stale in &report.stale_errata {
        writeln!(
            out,
            "{} turn {} call {} ({}) {}: {} ({})",
            style::paint(style::PLACE, &stale.file),
            stale.turn,
            stale.call,
            stale.api_name,
            style::paint(style::ERROR, "erratum no longer applies"),
            stale.why,
            stale.source
        )?;
    }
    write!(
        out,
        "{}, {}: {} {}, {} {}",
        count(report.conversations, "conversation"),
        count(report.calls, "gold call"),
        report.reproduced,
        verb(report.reproduced, "reproduces", "reproduce"),
        report.differing(),
        verb(report.differing(), "differs", "differ")
    )?;
    if report.known > 0 {
        write!(out, " ({} known)", report.known)?;
    }
    if !report.not_checked.is_empty() {
        write!(out, ", {} not checked", report.not_checked.len())?;
    }
    if !report.stale_errata.is_empty() {
        write!(
            out,
            ", {} no longer {}",
            count(report.stale_errata.len(), "erratum"),
            verb(report.stale_errata.len(), "applies", "apply")
        )?;
    }
    writeln!(out)?;
    Ok(report)
}

/// The JSON report, verifying as serde writes its `differs` list.
struct Streamed<'a> {
    run: &'a Run<'a>,
    /// Filled while `differs` is written; read for the fields after it.
    report: RefCell<Report>,
}

impl Serialize for Streamed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Report", 9)?;
        object.serialize_field(
            "differs",
            &Differences {
                run: self.run,
                report: &self.report,
            },
        )?;
        let report = self.report.borrow();
        // Listed when there are any, as the gathered report does.
        if report.not_checked.is_empty() {
            object.skip_field("not_checked")?;
        } else {
            object.serialize_field("not_checked", &report.not_checked)?;
        }
        if report.retrieval.is_empty() {
            object.skip_field("retrieval")?;
        } else {
            object.serialize_field("retrieval", &report.retrieval)?;
        }
        object.serialize_field("conversations", &report.conversations)?;
        object.serialize_field("calls", &report.calls)?;
        object.serialize_field("reproduced", &report.reproduced)?;
        if report.known == 0 {
            object.skip_field("known")?;
        } else {
            object.serialize_field("known", &report.known)?;
        }
        if report.errors.is_empty() {
            object.skip_field("errors")?;
        } else {
            object.serialize_field("errors", &report.errors)?;
        }
        if report.stale_errata.is_empty() {
            object.skip_field("stale_errata")?;
        } else {
            object.serialize_field("stale_errata", &report.stale_errata)?;
        }
        object.end()
    }
}

/// The `differs` list: the verification itself, each difference written
/// as its file's window is done.
struct Differences<'a> {
    run: &'a Run<'a>,
    report: &'a RefCell<Report>,
}

impl Serialize for Differences<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut list = serializer.serialize_seq(None)?;
        let mut failed: Option<S::Error> = None;
        let run = self.run;
        verify_each(
            run.files,
            run.suite,
            run.databases,
            run.options,
            run.errata,
            |result| {
                let differs = self.report.borrow_mut().add(result);
                for d in &differs {
                    if failed.is_none() {
                        failed = list.serialize_element(d).err();
                    }
                }
            },
        );
        match failed {
            Some(e) => Err(e),
            None => list.end(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::verify::verify_files;

    /// The project's own easy conversations, one of them with a recorded
    /// result changed so that it differs.
    fn dataset(dir: &Path) -> Vec<PathBuf> {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files =
            crate::formats::discover(&[repo.join("conversations/easy")], &["json"]).unwrap();
        files.sort();
        let text = std::fs::read_to_string(&files[0]).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let call = value["conversation"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find_map(|turn| turn.get_mut("apis").and_then(|a| a.get_mut(0)))
            .unwrap();
        call["response"] = serde_json::json!({"changed": true});
        let changed = dir.join("changed.json");
        std::fs::write(&changed, value.to_string()).unwrap();
        files[0] = changed;
        files
    }

    #[test]
    fn the_streamed_json_holds_what_the_gathered_report_holds_with_the_counts_last() {
        let dir = tempfile::tempdir().unwrap();
        let files = dataset(dir.path());
        let suite = crate::suites::registry().by_name("tooltalk").unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let databases = suite.load_databases(&repo.join("databases")).unwrap();
        let options = WorldOptions::default();
        let run = Run {
            files: &files,
            suite,
            databases: &databases,
            options: &options,
            errata: &Errata::none(),
        };
        let mut out = Vec::new();
        let report = write_json(&run, &mut out).unwrap();
        let gathered = verify_files(&files, suite, &databases, &options);
        assert_eq!(report.differing(), 1);
        assert_eq!(gathered.differs.len(), 1);
        let streamed: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(streamed, serde_json::to_value(&gathered).unwrap());
        let keys: Vec<&str> = streamed
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["differs", "conversations", "calls", "reproduced"]);
        assert!(out.ends_with(b"}\n"));
    }

    #[test]
    fn the_human_report_lists_each_difference_then_the_counts() {
        let dir = tempfile::tempdir().unwrap();
        let files = dataset(dir.path());
        let suite = crate::suites::registry().by_name("tooltalk").unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let databases = suite.load_databases(&repo.join("databases")).unwrap();
        let options = WorldOptions::default();
        let run = Run {
            files: &files,
            suite,
            databases: &databases,
            options: &options,
            errata: &Errata::none(),
        };
        let mut out = Vec::new();
        let report = write_human(&run, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(&format!("{} turn ", files[0].display())),
            "{text}"
        );
        assert!(text.contains("+++ simulated"));
        let last = text.lines().last().unwrap();
        assert_eq!(
            last,
            format!(
                "{} conversations, {} gold calls: {} reproduce, 1 differs",
                files.len(),
                report.calls,
                report.calls - 1
            )
        );
    }
}
