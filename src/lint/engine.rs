//! Running the rules: files in parallel (rayon), findings placed at their
//! line and column, reported in file order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::config::Config;
use super::document::{Document, InputFormat, LintText};
use super::registry::{all_rules, Check, FileIds, FileInput, Position, Rule, Severity};
use super::view::{CallTrees, View};
use super::{Diagnostic, Finding, Snippet};
use crate::formats::apibank::Dialogue;
use crate::formats::read::line_column;
use crate::json::locate::locate;
use crate::json::tree::Json;
use crate::{Error, Result};

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub input_format: InputFormat,
    /// Rules named on the command line (None: the config's, else all).
    pub select: Option<Vec<&'static Rule>>,
    pub ignore: Vec<&'static Rule>,
    pub config: Config,
    /// Leave out the source lines under findings (for outputs that do not
    /// show them: JSON, GitHub annotations).
    pub skip_snippets: bool,
    /// The dates each suite's databases hold, by suite name (for
    /// `timestamp-out-of-range`; a suite not listed is not checked).
    pub date_ranges: Vec<(&'static str, crate::suite::DateRange)>,
}

impl Options {
    /// The rules that run, in registry order.
    pub fn rules(&self) -> Vec<&'static Rule> {
        let selected = self.select.as_ref().or(self.config.select.as_ref());
        all_rules()
            .iter()
            .copied()
            .filter(|r| selected.is_none_or(|s| s.iter().any(|x| x.name == r.name)))
            .filter(|r| !self.ignore.iter().any(|x| x.name == r.name))
            .filter(|r| !self.config.ignore.iter().any(|x| x.name == r.name))
            .collect()
    }
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Files read (not counting those that could not be).
    pub files: usize,
    pub findings: Vec<Finding>,
    /// Files that could not be read (exit 2).
    pub errors: Vec<Error>,
}

impl Report {
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// Findings per rule, for summaries.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts = BTreeMap::new();
        for f in &self.findings {
            *counts.entry(f.rule).or_insert(0) += 1;
        }
        counts
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Lint the files under `paths`.
pub fn lint_paths(paths: &[PathBuf], options: &Options) -> Result<Report> {
    let files = crate::formats::discover_dialogues(paths, &options.input_format.extensions())?;
    Ok(lint_files(&files, options))
}

struct FileOutcome {
    findings: Vec<Finding>,
    ids: Option<FileIds>,
    error: Option<Error>,
}

/// Lint these files, in parallel; the report lists them in file order.
pub fn lint_files(files: &[PathBuf], options: &Options) -> Report {
    let rules = options.rules();
    let outcomes: Vec<FileOutcome> = files
        .par_iter()
        .enumerate()
        .map(|(index, path)| lint_file(index, path, &rules, options))
        .collect();
    finish(files, outcomes, &rules, options)
}

/// The report from each file's outcome (in file order) and the rules that
/// look across files.
fn finish(
    files: &[PathBuf],
    outcomes: Vec<FileOutcome>,
    rules: &[&'static Rule],
    options: &Options,
) -> Report {
    let mut report = Report::default();
    let mut ids = Vec::with_capacity(outcomes.len());
    let mut per_file: Vec<Vec<Finding>> = Vec::with_capacity(files.len());
    for outcome in outcomes {
        match outcome.error {
            Some(e) => report.errors.push(e),
            None => report.files += 1,
        }
        ids.extend(outcome.ids);
        per_file.push(outcome.findings);
    }
    let mut by_file = vec![None; files.len()];
    for (i, f) in ids.iter().enumerate() {
        by_file[f.file] = Some(i);
    }
    // Findings across files, placed in parallel (a copied dataset may have
    // one for every file).
    let mut dataset: Vec<Vec<(&'static Rule, Diagnostic)>> = vec![Vec::new(); files.len()];
    for rule in rules {
        let Check::Dataset(check) = rule.check else {
            continue;
        };
        for (file, diagnostic) in check(&ids) {
            dataset[file].push((rule, diagnostic));
        }
    }
    per_file
        .par_iter_mut()
        .zip(dataset.into_par_iter())
        .enumerate()
        .for_each(|(file, (findings, diagnostics))| {
            for (rule, diagnostic) in diagnostics {
                place_dataset(
                    files, file, rule, diagnostic, &ids, &by_file, options, findings,
                );
            }
            sort(findings);
        });
    report
        .findings
        .reserve_exact(per_file.iter().map(Vec::len).sum());
    for findings in &mut per_file {
        report.findings.append(findings);
    }
    report
}

/// Place one finding of a rule that looks across files.
#[allow(clippy::too_many_arguments)]
fn place_dataset(
    files: &[PathBuf],
    file: usize,
    rule: &Rule,
    diagnostic: Diagnostic,
    ids: &[FileIds],
    by_file: &[Option<usize>],
    options: &Options,
    findings: &mut Vec<Finding>,
) {
    let path = &files[file];
    if options.config.ignores(path, rule.name) {
        return;
    }
    // Identifiers were placed when their file was read; anything else
    // means reading the file again.
    let file_ids = by_file[file].map(|i| &ids[i]);
    let known = file_ids
        .and_then(|f| {
            let anchor = diagnostic.at.as_ref()?;
            f.places
                .iter()
                .find(|(pointer, _)| *pointer == anchor.pointer)
        })
        .map(|(_, position)| match position {
            Some((line, column, _, width)) if options.skip_snippets => {
                Some((*line, *column, String::new(), *width))
            }
            other => other.clone(),
        });
    let finding = match (known, file_ids) {
        // The file's name as displayed was kept with its identifiers.
        (Some(position), Some(f)) => finding(f.path.clone(), rule, diagnostic, position, options),
        _ => {
            let Ok(text) = LintText::read(path, options.input_format) else {
                return;
            };
            let Ok(document) = Document::of_text(path, &text, options.input_format) else {
                return;
            };
            place(&document, rule, diagnostic, options)
        }
    };
    findings.push(finding);
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (a.line.unwrap_or(0), a.column.unwrap_or(0), a.rule).cmp(&(
            b.line.unwrap_or(0),
            b.column.unwrap_or(0),
            b.rule,
        ))
    });
}

/// Lint one file: read and parse it, run every per-file rule over it.
fn lint_file(index: usize, path: &Path, rules: &[&'static Rule], options: &Options) -> FileOutcome {
    let failed = |error| FileOutcome {
        findings: Vec::new(),
        ids: None,
        error: Some(error),
    };
    let text = match LintText::read(path, options.input_format) {
        Ok(text) => text,
        Err(e) => return failed(e),
    };
    let document = match Document::of_text(path, &text, options.input_format) {
        Ok(document) => document,
        Err(e) => return failed(e),
    };
    let conversation = FileInput::conversation_of(&document);
    let trees = conversation.map(CallTrees::of);
    let view = View::of(&document, conversation.zip(trees.as_ref()));
    let date_range = document.suite().and_then(|suite| {
        options
            .date_ranges
            .iter()
            .find(|(name, _)| *name == suite.name())
            .map(|(_, range)| *range)
    });
    let input = FileInput {
        document: &document,
        conversation,
        view: view.as_ref(),
        date_range,
    };
    let mut findings = Vec::new();
    let mut diagnostics = Vec::new();
    for rule in rules {
        let Check::File(check) = rule.check else {
            continue;
        };
        if options.config.ignores(path, rule.name) {
            continue;
        }
        diagnostics.clear();
        check(&input, &mut diagnostics);
        for d in diagnostics.drain(..) {
            findings.push(place(&document, rule, d, options));
        }
    }
    FileOutcome {
        findings,
        ids: Some(file_ids(index, &document)),
        error: None,
    }
}

fn file_ids(index: usize, document: &Document<'_>) -> FileIds {
    let mut ids = Vec::new();
    let mut places = Vec::new();
    if let Document::Conversation(file) = document {
        for field in ["conversation_id", "name"] {
            if let Some(value) = file.value.get(field).and_then(Json::as_str) {
                let pointer = format!("/{field}");
                let position = anchor_position(document, &super::Anchor::value(pointer.clone()));
                places.push((pointer.clone(), position));
                ids.push((field, value.to_owned(), pointer));
            }
        }
    }
    FileIds {
        file: index,
        path: document.path().display().to_string(),
        ids,
        places,
    }
}

/// Turn a diagnostic into a finding at its line and column.
fn place(document: &Document<'_>, rule: &Rule, d: Diagnostic, options: &Options) -> Finding {
    let text = shown_text(document);
    let mut position = d.place.map(|(line, column)| {
        let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
        (line, column, line_text.to_owned(), 1)
    });
    if let Some(anchor) = &d.at {
        position = position.or_else(|| anchor_position(document, anchor));
    }
    finding(
        document.path().display().to_string(),
        rule,
        d,
        position,
        options,
    )
}

/// A finding at a known position.
fn finding(
    file: String,
    rule: &Rule,
    d: Diagnostic,
    position: Option<Position>,
    options: &Options,
) -> Finding {
    let severity = options
        .config
        .severity_of(rule)
        .or(d.severity)
        .unwrap_or(rule.severity);
    let (line, column, snippet) = match position {
        Some((line, column, text, width)) => (
            Some(line),
            Some(column),
            (!options.skip_snippets).then(|| Snippet {
                text: text.trim_end_matches('\r').to_owned(),
                width,
            }),
        ),
        None => (None, None, None),
    };
    Finding {
        file,
        rule: rule.name,
        severity,
        message: d.message,
        turn: d.turn,
        call: d.call,
        argument: d.argument,
        line,
        column,
        help: d.help,
        snippet,
    }
}

/// The text whose lines findings show: a scenario's own, else the file's.
fn shown_text<'t>(document: &Document<'t>) -> &'t str {
    match document {
        Document::Lines(Dialogue {
            source: Some(source),
            ..
        }) => source,
        other => other.text(),
    }
}

/// (line, column, the line's text, underline width) of an anchor.
fn anchor_position(document: &Document<'_>, anchor: &super::Anchor) -> Option<Position> {
    let text = document.text();
    let (scope, scope_start) = match (anchor.line, document) {
        (Some(position), Document::Lines(dialogue)) => {
            let line = dialogue.lines.iter().find(|l| l.position == position)?;
            (dialogue.line_text(line), line.offset)
        }
        _ => (text, 0),
    };
    // Fall back to the nearest enclosing value that exists.
    let mut pointer = anchor.pointer.as_str();
    let located = loop {
        if let Some(found) = locate(scope, pointer) {
            break found;
        }
        match pointer.rfind('/') {
            Some(cut) => pointer = &pointer[..cut],
            None => return None,
        }
    };
    let exact = pointer.len() == anchor.pointer.len();
    let (start, len) = match (anchor.key && exact, located.key) {
        (true, Some(key)) => (key, scope[key..].find(':').unwrap_or(1)),
        _ => (located.value, located.len),
    };
    let offset = scope_start + start;
    let (line, column) = line_column(text, offset);
    if let Document::Lines(Dialogue {
        source: Some(source),
        ..
    }) = document
    {
        // A scenario read as a dialogue: its lines are the file's, and the
        // place is the line's text in the file.
        let line_text = source.lines().nth(line - 1).unwrap_or("");
        let column = line_text.chars().take_while(|c| c.is_whitespace()).count() + 1;
        let width = line_text.trim().chars().count().max(1);
        return Some((line, column, line_text.to_owned(), width));
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
    let line_text = &text[line_start..line_end];
    let width = text[offset..(offset + len).min(line_end)]
        .chars()
        .count()
        .max(1);
    Some((line, column, line_text.to_owned(), width))
}
