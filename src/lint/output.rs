//! The four ways to print a report: human (rustc/ruff style), JSON (the
//! contract in DESIGN.md), SARIF 2.1.0 (GitHub code scanning) and GitHub
//! workflow annotations.

use crate::style;
use crate::words::count as plural;
use std::fmt::Write;

use serde_json::{json, Value};

use super::engine::Report;
use super::registry::{Rule, Severity};
use super::{Finding, Snippet};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    #[default]
    Human,
    Json,
    Sarif,
    Github,
}

pub fn render(report: &Report, rules: &[&'static Rule], format: Format) -> String {
    match format {
        Format::Human => human(report),
        Format::Json => json_text(report),
        Format::Sarif => {
            let mut out = Vec::new();
            write_sarif(report, rules, &mut out).expect("writing to memory cannot fail");
            String::from_utf8(out).expect("SARIF is UTF-8")
        }
        Format::Github => github(report),
    }
}

/// The widest piece of a source line shown around the underlined part.
const CONTEXT: usize = 60;

pub fn human(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        finding_human(f, &mut out);
    }
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    if report.findings.is_empty() && report.errors.is_empty() && report.files == 0 {
        let _ = writeln!(out, "No files to lint.");
    } else if report.findings.is_empty() && report.errors.is_empty() {
        let passed = style::paint(style::GOOD, "All checks passed");
        let _ = writeln!(out, "{passed} ({}).", plural(report.files, "file"));
    } else if report.findings.is_empty() {
        let _ = writeln!(out, "No findings in {}.", plural(report.files, "file"));
    } else {
        let files_with: std::collections::BTreeSet<&str> =
            report.findings.iter().map(|f| f.file.as_str()).collect();
        let _ = writeln!(
            out,
            "Found {} and {} in {} of {}.",
            plural(errors, "error"),
            plural(warnings, "warning"),
            files_with.len(),
            plural(report.files, "file")
        );
    }
    // Named on stderr, each once, as every command names a file it cannot
    // read.
    if !report.errors.is_empty() {
        let _ = writeln!(
            out,
            "{} could not be read (named on stderr).",
            plural(report.errors.len(), "file")
        );
    }
    out
}

/// The file an error is about, when it names one.
fn error_file(error: &crate::Error) -> Option<String> {
    match error {
        crate::Error::Syntax { path, .. } | crate::Error::Input { path, .. } => {
            Some(path.display().to_string())
        }
        _ => None,
    }
}

fn finding_human(f: &Finding, out: &mut String) {
    let place = match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", f.file),
        _ => f.file.clone(),
    };
    let severity = match f.severity {
        Severity::Error => style::ERROR,
        Severity::Warning => style::WARNING,
    };
    let _ = writeln!(
        out,
        "{}: {} {}",
        style::paint(style::PLACE, &place),
        style::paint(severity, &format!("{}[{}]", f.severity, f.rule)),
        f.message
    );
    if let (Some(snippet), Some(line), Some(column)) = (&f.snippet, f.line, f.column) {
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let (shown, caret_at) = window(snippet, column - 1);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{number} | {shown}");
        let _ = writeln!(
            out,
            "{pad} | {}{}",
            " ".repeat(caret_at),
            style::paint(severity, &"^".repeat(snippet.width.clamp(1, CONTEXT)))
        );
        if let Some(help) = &f.help {
            let _ = writeln!(out, "{pad} = {}: {help}", style::paint(style::NOTE, "help"));
        }
    } else if let Some(help) = &f.help {
        let _ = writeln!(out, "  = {}: {help}", style::paint(style::NOTE, "help"));
    }
    out.push('\n');
}

/// A long line cut down to the part around the snippet's place, at
/// `column` (0-based chars): the text to show and where the underline
/// starts in it. Only the characters near the place are looked at, so a
/// line with thousands of findings is not read whole for each.
fn window(snippet: &Snippet, column: usize) -> (String, usize) {
    let line = &*snippet.text;
    let width = snippet.width.min(CONTEXT);
    let short = 2 * CONTEXT + width;
    if line.chars().take(short + 1).count() <= short {
        return (line.to_owned(), column);
    }
    let at = snippet.at.min(line.len());
    // Up to CONTEXT / 2 characters before the place, the underlined ones
    // and CONTEXT / 2 after.
    let back = column.min(CONTEXT / 2);
    let start = match back {
        0 => at,
        _ => line[..at]
            .char_indices()
            .rev()
            .nth(back - 1)
            .map_or(0, |(i, _)| i),
    };
    let end = line[at..]
        .char_indices()
        .nth(width + CONTEXT / 2)
        .map_or(line.len(), |(i, _)| at + i);
    let mut shown = String::new();
    let mut caret = back;
    if column > back {
        shown.push('…');
        caret += 1;
    }
    shown.push_str(&line[start..end]);
    if end < line.len() {
        shown.push('…');
    }
    (shown, caret)
}

/// The JSON contract: `{"files", "findings": [...]}` plus per-rule counts.
pub fn json_report(report: &Report) -> Value {
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let mut finding = json!({
                "file": f.file,
                "rule": f.rule,
                "severity": f.severity.name(),
                "message": f.message,
                "turn": f.turn,
                "call": f.call,
                "argument": f.argument,
                "line": f.line,
                "column": f.column,
                "help": f.help,
            });
            if let Some(task_id) = &f.task_id {
                finding["task_id"] = json!(task_id);
            }
            finding
        })
        .collect();
    json!({
        "files": report.files,
        "findings": findings,
        "counts": report.counts(),
        "errors": report.count(Severity::Error),
        "warnings": report.count(Severity::Warning),
        "unreadable": report.errors.iter().map(|e| json!({
            "file": error_file(e),
            "message": e.to_string(),
        })).collect::<Vec<_>>(),
    })
}

/// [`json_report`] as text.
pub fn json_text(report: &Report) -> String {
    let mut out = Vec::new();
    write_json(report, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// [`json_report`] written to `out` as it is serialised, the findings
/// borrowed from the report rather than copied into a tree.
pub fn write_json(report: &Report, out: impl std::io::Write) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct FindingOut<'a> {
        file: &'a str,
        rule: &'a str,
        severity: &'a str,
        message: &'a str,
        turn: Option<usize>,
        call: Option<usize>,
        argument: Option<&'a str>,
        line: Option<usize>,
        column: Option<usize>,
        help: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        task_id: Option<&'a str>,
    }
    #[derive(serde::Serialize)]
    struct Unreadable {
        file: Option<String>,
        message: String,
    }
    #[derive(serde::Serialize)]
    struct ReportOut<'a> {
        files: usize,
        findings: Vec<FindingOut<'a>>,
        counts: std::collections::BTreeMap<&'static str, usize>,
        errors: usize,
        warnings: usize,
        unreadable: Vec<Unreadable>,
    }
    let report_out = ReportOut {
        files: report.files,
        findings: report
            .findings
            .iter()
            .map(|f| FindingOut {
                file: &f.file,
                rule: f.rule,
                severity: f.severity.name(),
                message: &f.message,
                turn: f.turn,
                call: f.call,
                task_id: f.task_id.as_deref(),
                argument: f.argument.as_deref(),
                line: f.line,
                column: f.column,
                help: f.help.as_deref(),
            })
            .collect(),
        counts: report.counts(),
        errors: report.count(Severity::Error),
        warnings: report.count(Severity::Warning),
        unreadable: report
            .errors
            .iter()
            .map(|e| Unreadable {
                file: error_file(e),
                message: e.to_string(),
            })
            .collect(),
    };
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, &report_out).map_err(std::io::Error::other)?;
    std::io::Write::write_all(&mut out, b"\n")?;
    std::io::Write::flush(&mut out)
}

/// SARIF 2.1.0 as GitHub code scanning reads it, written to `out` as it
/// is serialised: the findings are borrowed from the report rather than
/// copied into a tree (a file may have thousands of findings).
pub fn write_sarif(
    report: &Report,
    rules: &[&'static Rule],
    out: impl std::io::Write,
) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Text<'a> {
        text: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Help<'a> {
        text: &'a str,
        markdown: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Level {
        level: &'static str,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Descriptor<'a> {
        id: &'a str,
        name: &'a str,
        short_description: Text<'a>,
        full_description: Text<'a>,
        help: Help<'a>,
        default_configuration: Level,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Region {
        start_line: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        start_column: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        end_column: Option<usize>,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ArtifactLocation {
        uri: String,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct PhysicalLocation {
        artifact_location: ArtifactLocation,
        region: Region,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Location {
        physical_location: PhysicalLocation,
    }
    #[derive(serde::Serialize)]
    struct Message {
        text: String,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct SarifResult<'a> {
        rule_id: &'a str,
        level: &'static str,
        message: Message,
        locations: [Location; 1],
        #[serde(skip_serializing_if = "Option::is_none")]
        rule_index: Option<usize>,
    }
    let docs: Vec<String> = rules.iter().map(|r| r.explain()).collect();
    let firsts: Vec<String> = docs.iter().map(|doc| first_paragraph(doc)).collect();
    let descriptors: Vec<Descriptor<'_>> = rules
        .iter()
        .zip(docs.iter().zip(&firsts))
        .map(|(r, (doc, first))| Descriptor {
            id: r.name,
            name: r.name,
            short_description: Text { text: r.summary },
            full_description: Text { text: first },
            help: Help {
                text: doc,
                markdown: doc,
            },
            default_configuration: Level {
                level: sarif_level(r.severity),
            },
        })
        .collect();
    // One result at a time, as the sequence is written.
    struct Results<'a> {
        report: &'a Report,
        rules: &'a [&'static Rule],
    }
    impl serde::Serialize for Results<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(self.report.findings.iter().map(|f| SarifResult {
                rule_id: f.rule,
                level: sarif_level(f.severity),
                message: Message {
                    text: match &f.help {
                        Some(h) => format!("{}\n{h}", f.message),
                        None => f.message.clone(),
                    },
                },
                locations: [
                    Location {
                        physical_location:
                            PhysicalLocation {
                                artifact_location: ArtifactLocation { uri: uri(&f.file) },
                                region:
                                    Region {
                                        start_line: f.line.unwrap_or(1),
                                        start_column: f.column,
                                        end_column:
                                            f.column.and_then(|c| {
                                                f.snippet.as_ref().map(|s| c + s.width)
                                            }),
                                    },
                            },
                    },
                ],
                rule_index: self.rules.iter().position(|r| r.name == f.rule),
            }))
        }
    }
    #[derive(serde::Serialize)]
    struct Driver<'a> {
        name: &'static str,
        #[serde(rename = "informationUri")]
        information_uri: &'static str,
        version: &'static str,
        rules: Vec<Descriptor<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Tool<'a> {
        driver: Driver<'a>,
    }
    #[derive(serde::Serialize)]
    struct Run<'a> {
        tool: Tool<'a>,
        results: Results<'a>,
    }
    #[derive(serde::Serialize)]
    struct Sarif<'a> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        version: &'static str,
        runs: [Run<'a>; 1],
    }
    let sarif = Sarif {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "talkforge",
                    information_uri: "https://github.com/talkforge/talkforge",
                    version: env!("CARGO_PKG_VERSION"),
                    rules: descriptors,
                },
            },
            results: Results { report, rules },
        }],
    };
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, &sarif).map_err(std::io::Error::other)?;
    std::io::Write::write_all(&mut out, b"\n")?;
    std::io::Write::flush(&mut out)
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn first_paragraph(doc: &str) -> String {
    doc.lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A relative, forward-slash URI for a file path.
fn uri(file: &str) -> String {
    let path = file.replace('\\', "/");
    let path = path.trim_start_matches("./");
    path.split('/')
        .map(|segment| {
            segment
                .chars()
                .map(|c| match c {
                    ' ' => "%20".to_owned(),
                    '%' => "%25".to_owned(),
                    '#' => "%23".to_owned(),
                    '?' => "%3F".to_owned(),
                    c => c.to_string(),
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// GitHub workflow commands, one line per finding.
pub fn github(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut props = format!("file={}", escape_property(&f.file));
        if let Some(l) = f.line {
            let _ = write!(props, ",line={l}");
        }
        if let Some(c) = f.column {
            let _ = write!(props, ",col={c}");
        }
        let _ = write!(props, ",title={}", escape_property(f.rule));
        let message = match &f.help {
            Some(h) => format!("{}\n{h}", f.message),
            None => f.message.clone(),
        };
        let _ = writeln!(out, "::{command} {props}::{}", escape_data(&message));
    }
    out
}

fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(value: &Value) -> String {
        let mut text = serde_json::to_string_pretty(value).expect("JSON values serialise");
        text.push('\n');
        text
    }

    fn snippet(line: &str, at: usize, width: usize) -> Snippet {
        Snippet {
            text: line.into(),
            at,
            width,
        }
    }

    #[test]
    fn long_lines_are_cut_around_the_column() {
        let line = format!("{}X{}", "a".repeat(200), "b".repeat(200));
        let (shown, caret) = window(&snippet(&line, 200, 1), 200);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().nth(caret), Some('X'));
        assert_eq!(shown.chars().count(), 1 + 30 + 1 + 30 + 1);
        let (shown, caret) = window(&snippet("short X", 6, 1), 6);
        assert_eq!((shown.as_str(), caret), ("short X", 6));
        // Characters of several bytes, near either end of the line.
        let line = format!("é{}X{}é", "ü".repeat(10), "ö".repeat(300));
        let at = line.find('X').unwrap();
        let (shown, caret) = window(&snippet(&line, at, 2), 11);
        assert!(!shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().nth(caret), Some('X'));
        assert_eq!(shown.chars().count(), 11 + 2 + 30 + 1);
        let at = line.rfind('ö').unwrap();
        let (shown, caret) = window(&snippet(&line, at, 1), 311);
        assert!(shown.starts_with('…') && !shown.ends_with('…'));
        assert_eq!(shown.chars().nth(caret), Some('ö'));
        assert_eq!(shown.chars().skip(caret).count(), 2);
    }

    #[test]
    fn json_text_is_the_tree_printed() {
        let finding = |rule: &'static str, severity, help: Option<&str>| Finding {
            file: "a \"b\".json".into(),
            rule,
            severity,
            message: "m\nn".into(),
            turn: Some(1),
            call: None,
            task_id: Some("7".into()),
            argument: Some("x".into()),
            line: Some(3),
            column: None,
            help: help.map(str::to_owned),
            snippet: None,
        };
        let report = Report {
            files: 2,
            findings: vec![
                finding("schema", Severity::Error, None),
                finding("turn-order", Severity::Warning, Some("h")),
            ],
            errors: Vec::new(),
        };
        assert_eq!(json_text(&report), pretty(&json_report(&report)));
        // Enough findings to be written in several parallel chunks.
        let many = Report {
            files: 3000,
            findings: (0..2500)
                .map(|i| finding("schema", Severity::Error, (i % 3 == 0).then_some("h")))
                .collect(),
            errors: Vec::new(),
        };
        assert_eq!(json_text(&many), pretty(&json_report(&many)));
        let unreadable = Report {
            files: 1,
            findings: Vec::new(),
            errors: vec![crate::Error::syntax("bad.json", 3, 4, "expected `,`")],
        };
        assert_eq!(json_text(&unreadable), pretty(&json_report(&unreadable)));
        let doc: Value = serde_json::from_str(&json_text(&unreadable)).unwrap();
        assert_eq!(doc["unreadable"][0]["file"], "bad.json");
        assert_eq!(
            json_text(&Report::default()),
            pretty(&json_report(&Report::default()))
        );
    }

    #[test]
    fn the_human_summary_counts_unreadable_files_named_on_stderr() {
        let mut report = Report {
            files: 2,
            ..Report::default()
        };
        assert_eq!(human(&report), "All checks passed (2 files).\n");
        report
            .errors
            .push(crate::Error::syntax("bad.json", 3, 4, "expected `,`"));
        let text = human(&report);
        assert!(!text.contains("All checks passed"), "{text}");
        assert!(text.contains("No findings in 2 files."), "{text}");
        // Named once, on stderr, by the command.
        assert!(
            text.ends_with("1 file could not be read (named on stderr).\n"),
            "{text}"
        );
        assert!(!text.contains("bad.json"), "{text}");
        assert_eq!(human(&Report::default()), "No files to lint.\n");
    }

    #[test]
    fn github_escaping() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn uris_are_relative_and_escaped() {
        assert_eq!(uri("./a b/c#1.json"), "a%20b/c%231.json");
        assert_eq!(uri("..\\shared\\x.json"), "../shared/x.json");
    }
}
