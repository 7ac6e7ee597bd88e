//! Running the rules: files in parallel (rayon), findings placed at their
//! line and column, reported in file order.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::config::Config;
use super::document::{Document, InputFormat, LintText, Reading};
use super::registry::{all_rules, Check, FileIds, FileInput, Position, Rule, Severity};
use super::view::{CallTrees, View};
use super::{Anchor, Diagnostic, Finding, Snippet};
use crate::formats::apibank::Dialogue;
use crate::json::locate::locate_nearest;
use crate::json::tree::Json;
use crate::suite::Registry;
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
    /// `--databases`: the folder tasks files are replayed with (None:
    /// where their suite looks, beside each file).
    pub databases: Option<PathBuf>,
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
    /// Files linted (not counting those that could not be read at all).
    pub files: usize,
    pub findings: Vec<Finding>,
    /// Files that could not be read (exit 2): not at all, or not by
    /// their suite's reader, as every other command reads them.
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

/// Lint the files under `paths` that `registry`'s formats name (only the
/// forced suite's, with `--suite`).
pub fn lint_paths(registry: &Registry, paths: &[PathBuf], options: &Options) -> Result<Report> {
    let endings = registry.endings(options.input_format.forced());
    let files = crate::formats::discover_dialogues(paths, &endings)?;
    Ok(lint_files(registry, &files, options))
}

struct FileOutcome {
    findings: Vec<Finding>,
    ids: Option<FileIds>,
    error: Option<Error>,
}

/// Lint these files, in parallel, each with the suite and format
/// `registry` reads it with; the report lists them in file order.
pub fn lint_files(registry: &Registry, files: &[PathBuf], options: &Options) -> Report {
    let rules = options.rules();
    let outcomes: Vec<FileOutcome> = files
        .par_iter()
        .enumerate()
        .map(|(index, path)| lint_file(registry, index, path, &rules, options))
        .collect();
    finish(registry, files, outcomes, &rules, options)
}

/// The report from each file's outcome (in file order) and the rules that
/// look across files.
fn finish(
    registry: &Registry,
    files: &[PathBuf],
    outcomes: Vec<FileOutcome>,
    rules: &[&'static Rule],
    options: &Options,
) -> Report {
    let mut report = Report::default();
    let mut ids = Vec::with_capacity(outcomes.len());
    let mut per_file: Vec<Vec<Finding>> = Vec::with_capacity(files.len());
    for outcome in outcomes {
        // A file the rules ran over counts as linted, even when the
        // suite's reader refuses it (its error is listed too).
        if outcome.ids.is_some() {
            report.files += 1;
        }
        report.errors.extend(outcome.error);
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
                    registry, files, file, rule, diagnostic, &ids, &by_file, options, findings,
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
    registry: &Registry,
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
        .map(|(_, position)| position.clone());
    let finding = match (known, file_ids) {
        // The file's name as displayed was kept with its identifiers.
        (Some(position), Some(f)) => finding(f.path.clone(), rule, diagnostic, position, options),
        _ => {
            let reading = Reading::of(registry, path, options.input_format);
            let Ok(text) = LintText::read(path, &reading) else {
                return;
            };
            let Ok(document) =
                Document::of_text(path, &text, &reading, options.databases.as_deref())
            else {
                return;
            };
            let mut placed = place_all(&document, vec![(rule, diagnostic)], options);
            match placed.pop() {
                Some(finding) => finding,
                None => return,
            }
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
fn lint_file(
    registry: &Registry,
    index: usize,
    path: &Path,
    rules: &[&'static Rule],
    options: &Options,
) -> FileOutcome {
    let failed = |error| FileOutcome {
        findings: Vec::new(),
        ids: None,
        error: Some(error),
    };
    let reading = Reading::of(registry, path, options.input_format);
    let text = match LintText::read(path, &reading) {
        Ok(text) => text,
        Err(e) => return failed(e),
    };
    let document = match Document::of_text(path, &text, &reading, options.databases.as_deref()) {
        Ok(document) => document,
        Err(e) => return failed(e),
    };
    let suite = reading.suite_of(registry, &document);
    let conversation = FileInput::conversation_of(&document);
    let trees = conversation.map(CallTrees::of);
    let view = View::of(
        &document,
        suite,
        reading.format.records_results(),
        conversation.zip(trees.as_ref()),
    );
    let date_range = options
        .date_ranges
        .iter()
        .find(|(name, _)| *name == suite.name())
        .map(|(_, range)| *range);
    let input = FileInput {
        suite,
        document: &document,
        conversation,
        view: view.as_ref(),
        date_range,
    };
    let mut diagnostics = Vec::new();
    let mut found = Vec::new();
    for rule in rules {
        let Check::File(check) = rule.check else {
            continue;
        };
        if options.config.ignores(path, rule.name) {
            continue;
        }
        check(&input, &mut diagnostics);
        found.extend(diagnostics.drain(..).map(|d| (*rule, d)));
    }
    // Findings about a task's gold actions name the task.
    if let Document::Tasks(file) = &document {
        for (_, d) in found.iter_mut().filter(|(_, d)| d.task_id.is_none()) {
            let task = d.turn.and_then(|t| file.facts.tasks.get(t));
            d.task_id = task.map(|t| t.id.clone());
        }
    }
    // A file whose shape the schema rule finds broken may be one the
    // suite's reader refuses: every other command then cannot run on it
    // (exit 2), and neither can lint say it is fine to use. Its findings
    // still say where the shape breaks.
    let error = found
        .iter()
        .any(|(rule, _)| rule.name == super::rules::schema::NAME)
        .then(|| refused_by_reader(path, &text, &reading))
        .flatten();
    FileOutcome {
        findings: place_all(&document, found, options),
        ids: Some(file_ids(index, &document)),
        error,
    }
}

/// The error the suite's reader gives for a file, as every other command
/// reads it, when it refuses it.
fn refused_by_reader(path: &Path, text: &LintText, reading: &Reading) -> Option<Error> {
    let text = text.source.as_deref().unwrap_or(&text.text);
    (reading.format.parse)(path, text).err()
}

fn file_ids(index: usize, document: &Document<'_>) -> FileIds {
    let mut ids = Vec::new();
    let mut places = Vec::new();
    if let Document::Conversation(file) = document {
        for field in ["conversation_id", "name"] {
            if let Some(value) = file.value.get(field).and_then(Json::as_str) {
                ids.push((field, value.to_owned(), format!("/{field}")));
            }
        }
        let anchors: Vec<Anchor> = ids.iter().map(|(_, _, p)| Anchor::value(p)).collect();
        let positions = Places::new(document).positions(&anchors, true);
        places = ids
            .iter()
            .zip(positions)
            .map(|((_, _, pointer), position)| (pointer.clone(), position))
            .collect();
    }
    FileIds {
        file: index,
        path: document.path().display().to_string(),
        ids,
        places,
    }
}

/// Turn a file's diagnostics into findings at their lines and columns.
fn place_all(
    document: &Document<'_>,
    found: Vec<(&Rule, Diagnostic)>,
    options: &Options,
) -> Vec<Finding> {
    if found.is_empty() {
        return Vec::new();
    }
    let mut places = Places::new(document);
    let anchored: Vec<Anchor> = found
        .iter()
        .filter(|(_, d)| d.place.is_none())
        .filter_map(|(_, d)| d.at.clone())
        .collect();
    let mut positions = places
        .positions(&anchored, !options.skip_snippets)
        .into_iter();
    found
        .into_iter()
        .map(|(rule, d)| {
            let position = match (d.place, &d.at) {
                (Some((line, column)), _) => Some(places.at(line, column, !options.skip_snippets)),
                (None, Some(_)) => positions.next().flatten(),
                (None, None) => None,
            };
            finding(
                document.path().display().to_string(),
                rule,
                d,
                position,
                options,
            )
        })
        .collect()
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
        Some(Position {
            line,
            column,
            snippet,
        }) => (
            Some(line),
            Some(column),
            (!options.skip_snippets).then_some(snippet),
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
        task_id: d.task_id,
        argument: d.argument,
        line,
        column,
        help: d.help,
        snippet,
    }
}

/// Where in one file anchors and places are: anchors located together
/// (one pass over the file, or over each line of a dialogue written one
/// object a line), their lines and columns found in one sweep in offset
/// order, and each source line shared by the findings on it. Placing each
/// finding from the start of the file instead costs the square of its
/// length when findings are many; the sweep reads only as far as the last
/// place, so a file with a few findings near its top is not read whole.
struct Places<'d, 't> {
    document: &'d Document<'t>,
    /// The text anchors point into.
    text: Lines<'t>,
    /// The text whose lines findings show, when it is not `text`: a
    /// scenario's own.
    source: Option<Lines<'t>>,
    /// Each line shown so far (1-based), without its line end.
    lines: HashMap<usize, Arc<str>>,
    /// A scenario's lines placed so far: column, byte offset of the
    /// column and width of the line's text.
    source_lines: HashMap<usize, (usize, usize, usize)>,
}

impl<'d, 't> Places<'d, 't> {
    fn new(document: &'d Document<'t>) -> Self {
        let source = match document {
            Document::Lines(Dialogue {
                source: Some(source),
                ..
            }) => Some(Lines::new(source)),
            _ => None,
        };
        Places {
            document,
            text: Lines::new(document.text()),
            source,
            lines: HashMap::new(),
            source_lines: HashMap::new(),
        }
    }

    /// The line shown for 1-based `line` (empty past the end).
    fn shown_line(&mut self, line: usize) -> Arc<str> {
        let shown = self.source.as_mut().unwrap_or(&mut self.text);
        if let Some(text) = self.lines.get(&line) {
            return text.clone();
        }
        let range = shown.range(line).unwrap_or_default();
        let text: Arc<str> = Arc::from(shown.text[range].trim_end_matches('\r'));
        self.lines.insert(line, text.clone());
        text
    }

    /// A place given by line and column, underlining one character.
    fn at(&mut self, line: usize, column: usize, snippet: bool) -> Position {
        let text = if snippet {
            self.shown_line(line)
        } else {
            Arc::from("")
        };
        let at = text
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(text.len(), |(at, _)| at);
        Position {
            line,
            column,
            snippet: Snippet { text, at, width: 1 },
        }
    }

    /// Where each anchor is (None when its line or value is not in the
    /// file); with `snippet`, with the line it is on.
    fn positions(&mut self, anchors: &[Anchor], snippet: bool) -> Vec<Option<Position>> {
        let text = self.text.text;
        // The anchors by the text their pointer is relative to: a line of
        // a dialogue (by its position), or the whole file.
        let mut scopes: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
        for (i, anchor) in anchors.iter().enumerate() {
            let scope = match self.document {
                Document::Lines(_) => anchor.line,
                _ => None,
            };
            scopes.entry(scope).or_default().push(i);
        }
        // (byte offset in the file, byte length) of each anchor's value.
        let mut spans = vec![None; anchors.len()];
        for (scope, members) in scopes {
            let (scope_text, scope_start) = match (scope, self.document) {
                (Some(position), Document::Lines(dialogue)) => {
                    let Ok(line) = dialogue
                        .lines
                        .binary_search_by_key(&position, |l| l.position)
                    else {
                        continue;
                    };
                    let line = &dialogue.lines[line];
                    (dialogue.line_text(line), line.offset)
                }
                _ => (text, 0),
            };
            let pointers: Vec<&str> = members.iter().map(|&i| &*anchors[i].pointer).collect();
            for (&i, nearest) in members.iter().zip(locate_nearest(scope_text, &pointers)) {
                let Some(nearest) = nearest else { continue };
                let located = nearest.located;
                let (start, len) = match (anchors[i].key && nearest.exact, located.key) {
                    (true, Some(key)) => (key, scope_text[key..].find(':').unwrap_or(1)),
                    _ => (located.value, located.len),
                };
                spans[i] = Some((scope_start + start, len));
            }
        }
        // Lines and columns in offset order, each column counted on from
        // the one before it on its line.
        let mut order: Vec<usize> = (0..spans.len()).filter(|&i| spans[i].is_some()).collect();
        order.sort_by_key(|&i| spans[i].map(|(offset, _)| offset));
        let mut positions = vec![None; spans.len()];
        let mut cursor = Cursor::default();
        let mut widths: HashMap<(usize, usize), usize> = HashMap::new();
        for i in order {
            let Some((offset, len)) = spans[i] else {
                continue;
            };
            positions[i] = Some(self.position(offset, len, snippet, &mut cursor, &mut widths));
        }
        positions
    }

    /// The place of a value at `offset` of `len` bytes in the file, at or
    /// after the cursor's offset.
    fn position(
        &mut self,
        offset: usize,
        len: usize,
        snippet: bool,
        cursor: &mut Cursor,
        widths: &mut HashMap<(usize, usize), usize>,
    ) -> Position {
        let text = self.text.text;
        let offset = offset.min(text.len());
        let (line, range) = self.text.line_of(offset);
        if cursor.line != line {
            *cursor = Cursor {
                line,
                offset: range.start,
                chars: 0,
            };
        }
        cursor.chars += chars(&text.as_bytes()[cursor.offset..offset]);
        cursor.offset = offset;
        let column = cursor.chars + 1;
        if self.source.is_some() {
            // A scenario read as a dialogue: its lines are the file's, and
            // the place is the line's text in the file.
            let text = self.shown_line(line);
            let (column, at, width) = *self.source_lines.entry(line).or_insert_with(|| {
                let column = text.chars().take_while(|c| c.is_whitespace()).count() + 1;
                let width = text.trim().chars().count().max(1);
                (column, text.len() - text.trim_start().len(), width)
            });
            return Position {
                line,
                column,
                snippet: Snippet { text, at, width },
            };
        }
        let end = (offset + len).min(range.end).max(offset);
        // Findings may share a value: its width is counted once.
        let width = *widths
            .entry((offset, end))
            .or_insert_with(|| chars(&text.as_bytes()[offset..end]).max(1));
        let text = if snippet {
            self.shown_line(line)
        } else {
            Arc::from("")
        };
        let at = (offset - range.start).min(text.len());
        Position {
            line,
            column,
            snippet: Snippet { text, at, width },
        }
    }
}

/// The last place the sweep of [`Places::positions`] reached: its line,
/// byte offset, and characters from its line's start.
#[derive(Default)]
struct Cursor {
    line: usize,
    offset: usize,
    chars: usize,
}

/// The characters starting in `bytes` (a character cut at the end counts,
/// as [`crate::formats::read::line_column`] counts it).
fn chars(bytes: &[u8]) -> usize {
    match bytes.is_ascii() {
        true => bytes.len(),
        false => bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count(),
    }
}

/// A text's line starts, found as far as a place asks for them.
struct Lines<'t> {
    text: &'t str,
    /// Byte offset of each line's start, up to `scanned`.
    starts: Vec<usize>,
    /// How far the text has been searched for line ends.
    scanned: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        crate::formats::read::count_text_scan();
        Lines {
            text,
            starts: vec![0],
            scanned: 0,
        }
    }

    /// Find the line starts up to and including `offset`.
    fn scan_to(&mut self, offset: usize) {
        let end = (offset + 1).min(self.text.len());
        if end <= self.scanned {
            return;
        }
        let from = self.scanned;
        self.starts.extend(
            memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..end]).map(|p| from + p + 1),
        );
        self.scanned = end;
    }

    /// The 1-based line holding `offset`, and its byte range without its
    /// `\n`.
    fn line_of(&mut self, offset: usize) -> (usize, std::ops::Range<usize>) {
        self.scan_to(offset);
        let line = self.starts.partition_point(|&start| start <= offset);
        let range = self.range(line).unwrap_or(offset..offset);
        (line, range)
    }

    /// The byte range of 1-based line `line` without its `\n`; None past
    /// the last line.
    fn range(&mut self, line: usize) -> Option<std::ops::Range<usize>> {
        let index = line.checked_sub(1)?;
        while self.starts.len() <= index + 1 && self.scanned < self.text.len() {
            // Up to the end of the line after the last one found.
            let from = self.scanned;
            let next = memchr::memchr(b'\n', &self.text.as_bytes()[from..])
                .map_or(self.text.len(), |p| from + p);
            self.scan_to(next);
        }
        let start = *self.starts.get(index)?;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |next| next - 1);
        Some(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read::TEXT_SCANS;

    /// A call passing `n` arguments its tool does not take, on one line of
    /// an API-Bank dialogue.
    fn many_unknown_arguments(n: usize) -> String {
        let mut params = serde_json::Map::new();
        params.insert("token".into(), "t".into());
        for i in 0..n {
            params.insert(format!("a{i}"), "x".into());
        }
        let lines = [
            serde_json::json!({"role": "User", "text": "wake me at seven"}),
            serde_json::json!({"role": "API", "api_name": "AddAlarm", "param_dict": params,
                "result": {"api_name": "AddAlarm", "input": params, "output": "success",
                "exception": null}}),
            serde_json::json!({"role": "AI", "text": "done"}),
        ];
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn findings_on_one_line_share_it_and_are_placed_in_one_pass() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AddAlarm-level-1-1.jsonl");
        let text = many_unknown_arguments(3000);
        std::fs::write(&path, &text).unwrap();
        let options = Options::default();
        let rules = options.rules();
        let scans = TEXT_SCANS.with(std::cell::Cell::get);
        let registry = crate::suites::registry();
        let outcome = lint_file(&registry, 0, &path, &rules, &options);
        let scans = TEXT_SCANS.with(std::cell::Cell::get) - scans;
        let unknown = outcome
            .findings
            .iter()
            .filter(|f| f.rule == "unknown-argument")
            .count();
        assert_eq!(unknown, 3000);
        // Each copy of a source line counted once, however many findings
        // hold it.
        let held: std::collections::HashSet<(usize, usize)> = outcome
            .findings
            .iter()
            .filter_map(|f| f.snippet.as_ref())
            .map(|s| (s.text.as_ptr() as usize, s.text.len()))
            .collect();
        let held: usize = held.iter().map(|(_, len)| len).sum();
        assert!(
            held <= text.len(),
            "the findings hold {held} bytes of lines from a {} byte file",
            text.len()
        );
        assert!(
            scans <= 10,
            "{scans} passes over the file to place 3,000 findings"
        );
    }
}
