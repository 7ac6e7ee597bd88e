//! Evaluation folders as `report` reads them, whatever their kind: each
//! `summary.json` read back into the envelope evaluate wrote
//! ([`RunSummary`]), the runs introduced, checked to be over the same
//! dataset, and the report put together: the kind's own tables, then the
//! sections every kind shares (pass^k, the state check, outcomes that
//! differ, failures, what could not be evaluated, provenance, tokens), and
//! the JSON document with the keys every kind shares.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use indexmap::IndexMap;

use super::sections;
use super::{Cell, Chart, Report, RunHeader, Scale, Section, Series, Table};
use crate::run::summary::{Figures, RunSummary, FORMAT_VERSION};
use crate::suite::state::StateCheck;
use crate::{Error, Result};

/// One evaluation folder of kind `K`.
pub struct Run<K: Kind> {
    /// The folder as given.
    pub dir: PathBuf,
    /// What sets it apart, in words.
    pub label: String,
    pub summary: RunSummary<K, K::Settings>,
}

/// What a kind of run brings to a report: its words, its label, its own
/// tables, and its units (from which the shared sections are built).
pub trait Kind: Figures + Serialize + DeserializeOwned + Sized {
    type Settings: Serialize + DeserializeOwned;
    /// The name of the kind in the JSON document.
    const NAME: &'static str;
    /// What a unit is ("conversation", "call sample", "scenario").
    const UNIT: &'static str;
    /// What a file of the run is ("dialogue", "trajectory"), where it is
    /// not a unit.
    const FILE: &'static str = Self::UNIT;
    /// Its summaries in words ("a run of whole conversations"); a
    /// summary is of this kind when it has the first of
    /// `WORDS.unit_lists`.
    const WHAT: &'static str;
    /// Whether runs at different levels are scored differently (cannot
    /// share a table).
    const TABLE_PER_LEVEL: bool = false;
    /// How its reports word the units' outcomes.
    const WORDS: Words;

    /// What sets a run apart (its trials aside), in words.
    fn label(summary: &RunSummary<Self, Self::Settings>) -> Vec<String>;
    /// The models, in words, for the list of runs (by default the model
    /// asked for, and those that answered).
    fn models(summary: &RunSummary<Self, Self::Settings>) -> Option<String> {
        let p = summary.provenance.as_ref()?;
        let asked = p.model_requested.as_ref()?;
        Some(if p.models_reported.is_empty() {
            asked.clone()
        } else {
            format!("{asked} (answered as {})", p.models_reported.join(", "))
        })
    }
    fn title(runs: &[Run<Self>]) -> String;
    /// Runs share a dataset within a group (API-Bank's levels 1 and 2
    /// share a page, each level over its own dialogues).
    fn dataset_group(run: &Run<Self>) -> u8 {
        let _ = run;
        0
    }
    /// The kind's own sections, before the shared ones.
    fn tables(runs: &[Run<Self>]) -> Vec<Section>;
    /// A run's units, each with its outcome.
    fn units(run: &Run<Self>) -> Vec<Unit<'_>>;
    /// What a page adds to the failures (ToolTalk draws each failed
    /// dialogue), already escaped, with the anchors drawn ([`anchor`]);
    /// the failures table links a unit whose anchor is among them.
    fn drawn(runs: &[Run<Self>]) -> (String, Vec<String>) {
        let _ = runs;
        Default::default()
    }
    /// The kind's own keys of a run in the JSON document, besides its
    /// figures.
    fn run_document(run: &Run<Self>) -> Value;
    /// The kind's own keys of the JSON document.
    fn document(runs: &[Run<Self>]) -> Value {
        let _ = runs;
        json!({})
    }
}

/// How a kind words its units' outcomes in the shared sections.
pub struct Words {
    /// The failures section's title, what a failed unit is said to be
    /// ("failed", "wrong"), and the columns of a failed unit's row, the
    /// first naming the unit ("Conversation").
    pub failures: &'static str,
    pub failed: &'static str,
    pub failure_columns: &'static [&'static str],
    /// What differs between runs ("outcome"): the title of the section
    /// of units whose it does and that list's JSON key (`outcome_differs`).
    pub differs: &'static str,
    /// Each unit's field in that list holding whether it passed in every
    /// run.
    pub passed_key: &'static str,
    /// Why the kind has no state check, where it has none.
    pub no_state_check: Option<&'static str>,
    /// The keys of its figures that the JSON document leaves out of a run
    /// (lists of every unit, the first the list of its units); it keeps
    /// the others.
    pub unit_lists: &'static [&'static str],
}

impl Words {
    /// The heading of a column of units.
    pub fn unit(&self) -> &'static str {
        self.failure_columns[0]
    }
}

/// One unit of a run as the shared sections read it.
pub struct Unit<'a> {
    /// Its identity across runs and in the JSON document's list of
    /// outcomes that differ (`{"file": ...}`).
    pub key: Value,
    /// How the tables of outcomes and of the state check name it.
    pub name: String,
    pub passed: bool,
    /// Its outcome in words ("pass", "wrong (wrong API)", "4").
    pub outcome: String,
    pub state: Option<&'a StateCheck>,
    /// Its row in the failures table (read only when it failed).
    pub failure: Vec<Cell>,
}

/// The anchor on a page of run `run`'s (from 0) unit at `index`.
pub fn anchor(run: usize, index: usize) -> String {
    format!("r{}-c{index}", run + 1)
}

impl<K: Kind> Run<K> {
    /// The run of a summary in `dir`.
    pub fn new(dir: &Path, summary: RunSummary<K, K::Settings>) -> Self {
        let summary = summary.counted();
        let mut label = K::label(&summary);
        if let Some(t) = &summary.trials {
            label.push(format!("{} trials", t.trials));
        }
        Run {
            dir: dir.to_path_buf(),
            label: label.join(", "),
            summary,
        }
    }

    /// Parse `text`, the `summary.json` in `dir` (one without
    /// `format_version` that does not read is said to be older).
    pub fn parse(dir: &Path, text: &str) -> Result<Self> {
        let path = dir.join("summary.json");
        let summary = serde_json::from_str(text)
            .map_err(|e| older_format(&path, text, crate::formats::read::json_error(&path, &e)))?;
        Ok(Run::new(dir, summary))
    }

    /// The folder of its output files (a run of trials: the first
    /// trial's).
    pub fn output_dir(&self) -> PathBuf {
        match self.summary.trials {
            Some(_) => self.dir.join("trial-1"),
            None => self.dir.clone(),
        }
    }

    /// The dataset digest its provenance records.
    pub fn dataset(&self) -> Option<&str> {
        let provenance = self.summary.provenance.as_ref();
        provenance.and_then(|p| p.dataset.sha256.as_deref())
    }
}

/// Refuse a summary written by a newer talkforge.
fn check_version(path: &Path, summary: &Value) -> Result<()> {
    let version = summary.get("format_version").and_then(Value::as_u64);
    match version.filter(|v| *v > u64::from(FORMAT_VERSION)) {
        Some(version) => Err(Error::input(
            path,
            format!("written by a newer talkforge (summary format {version}; this one reads formats up to {FORMAT_VERSION}): report it with that talkforge or a newer one"),
        )),
        None => Ok(()),
    }
}

/// A summary that cannot be read: said to come from an older format when
/// it has no `format_version`.
fn older_format(path: &Path, text: &str, error: Error) -> Error {
    let versioned = serde_json::from_str::<Value>(text)
        .ok()
        .is_some_and(|v| v.get("format_version").is_some());
    if versioned {
        return error;
    }
    Error::input(
        path,
        format!("comes from an older summary format (written before `format_version`) that this talkforge cannot read: evaluate again to write it anew ({error})"),
    )
}

/// Why the runs of a dataset group cannot be compared: one whose dataset
/// is unknown, or two over different datasets.
fn dataset_problem<K: Kind>(runs: &[&Run<K>]) -> Option<Error> {
    if let Some(run) = runs.iter().find(|r| r.dataset().is_none()) {
        return Some(Error::input(
            run.dir.join("summary.json"),
            "no provenance: the dataset it ran on is unknown (rerun it with this talkforge, or pass --allow-different-datasets)",
        ));
    }
    let (first, other) = (
        runs[0],
        runs.iter().find(|r| r.dataset() != runs[0].dataset())?,
    );
    Some(Error::Usage(format!(
        "{} and {} evaluated different datasets (dataset SHA-256 {} and {}); pass --allow-different-datasets to compare them anyway",
        first.dir.display(),
        other.dir.display(),
        first.dataset().unwrap_or_default(),
        other.dataset().unwrap_or_default()
    )))
}

/// The runs of each dataset group (runs at API-Bank's levels 1 and 2
/// share a page, each level over its own dialogues), in the order given.
fn dataset_groups<K: Kind>(runs: &[Run<K>]) -> impl Iterator<Item = Vec<&Run<K>>> {
    let mut groups: IndexMap<u8, Vec<&Run<K>>> = IndexMap::new();
    for run in runs {
        groups.entry(K::dataset_group(run)).or_default().push(run);
    }
    groups.into_values()
}

/// Whether the runs of each dataset group evaluated the same dataset (as
/// far as provenance says).
pub fn same_dataset<K: Kind>(runs: &[Run<K>]) -> bool {
    dataset_groups(runs).all(|runs| runs.len() <= 1 || dataset_problem(&runs).is_none())
}

/// What a summary is, as its kind tells it.
pub struct Shape {
    /// In words ("a run scored by samples at level 1").
    words: String,
    /// Runs of one kind share a report when their tables are the same
    /// (levels 1 and 2 do; scenarios only at one level).
    table: Option<u64>,
}

/// A kind of run as `report` finds it among the kinds the registry
/// lists: what its summaries are, and its report over runs of it.
pub trait RunKind: Sync {
    fn name(&self) -> &'static str;
    /// Its summaries in words, with the key that tells them.
    fn what(&self) -> String;
    /// What `summary` is when it is of this kind.
    fn shape(&self, summary: &Value) -> Option<Shape>;
    /// The report over the `summary.json` texts found in the folders,
    /// all of this kind.
    fn compare(&self, found: &[(PathBuf, String)], allow_different: bool) -> Result<Report>;
}

struct Of<K>(PhantomData<fn() -> K>);

impl<K: Kind> RunKind for Of<K> {
    fn name(&self) -> &'static str {
        K::NAME
    }

    fn what(&self) -> String {
        format!("{} (`{}`)", K::WHAT, K::WORDS.unit_lists[0])
    }

    fn shape(&self, summary: &Value) -> Option<Shape> {
        summary.get(K::WORDS.unit_lists[0])?;
        let level = summary.get("level").and_then(Value::as_u64);
        Some(Shape {
            words: match level {
                Some(level) => format!("{} at level {level}", K::WHAT),
                None => K::WHAT.to_string(),
            },
            table: level.filter(|_| K::TABLE_PER_LEVEL),
        })
    }

    fn compare(&self, found: &[(PathBuf, String)], allow_different: bool) -> Result<Report> {
        let runs = found
            .iter()
            .map(|(dir, text)| Run::<K>::parse(dir, text))
            .collect::<Result<Vec<_>>>()?;
        if !allow_different {
            if let Some(problem) = dataset_groups(&runs).find_map(|g| dataset_problem(&g)) {
                return Err(problem);
            }
        }
        Ok(report(&runs))
    }
}

/// The kind `K` as the registry lists it.
pub fn kind<K: Kind + 'static>() -> &'static dyn RunKind {
    &Of::<K>(PhantomData)
}

/// Read every folder's `summary.json`, find its kind among `kinds`, and
/// compare the runs; refuse runs of different kinds or tables, and runs
/// over different datasets (or whose dataset is unknown) unless
/// `allow_different` says so.
pub fn compare(
    kinds: &[&'static dyn RunKind],
    dirs: &[PathBuf],
    allow_different: bool,
) -> Result<Report> {
    let mut first: Option<(&Path, &dyn RunKind, Shape)> = None;
    let mut found = Vec::new();
    for dir in dirs {
        let path = dir.join("summary.json");
        if !path.is_file() {
            return Err(Error::input(
                dir,
                "no summary.json here (an evaluation folder is what `talkforge evaluate --out DIR` writes)",
            ));
        }
        let text = crate::formats::read::read_text(&path)?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| crate::formats::read::json_error(&path, &e))?;
        check_version(&path, &value)?;
        let (kind, shape) = kinds
            .iter()
            .find_map(|k| Some((*k, k.shape(&value)?)))
            .ok_or_else(|| unknown_kind(&path, kinds))?;
        match &first {
            None => first = Some((dir, kind, shape)),
            Some((first_dir, first_kind, first_shape))
                if first_kind.name() != kind.name() || first_shape.table != shape.table =>
            {
                return Err(Error::Usage(format!(
                    "{} is {} and {} {}: they are scored differently and cannot share a table; report them apart",
                    first_dir.display(),
                    first_shape.words,
                    dir.display(),
                    shape.words
                )));
            }
            Some(_) => {}
        }
        found.push((dir.clone(), text));
    }
    let (_, kind, _) = first.ok_or_else(|| Error::Usage("no run folder given".into()))?;
    kind.compare(&found, allow_different)
}

/// A summary of none of `kinds`.
fn unknown_kind(path: &Path, kinds: &[&'static dyn RunKind]) -> Error {
    let mut what: Vec<String> = kinds.iter().map(|k| k.what()).collect();
    let last = what.pop().unwrap_or_default();
    let what = if what.is_empty() {
        format!("not {last}")
    } else {
        format!("neither {} nor {last}", what.join(", "))
    };
    Error::input(
        path,
        format!(
            "{what}: report compares the summaries `talkforge evaluate --out DIR` writes for those"
        ),
    )
}

/// The report over `runs`: the kind's tables, then the shared sections,
/// and the JSON document.
pub fn report<K: Kind>(runs: &[Run<K>]) -> Report {
    // Units are gathered once: a kind may read output files for them.
    let units: Vec<Vec<Unit>> = runs.iter().map(K::units).collect();
    let summaries = || runs.iter().map(|r| &r.summary);
    let state: Vec<_> = summaries().map(|s| s.state_check.as_ref()).collect();
    let differing: Vec<_> = (units.iter().enumerate())
        .flat_map(|(i, units)| units.iter().map(move |u| (i, u)))
        .filter_map(|(i, u)| Some((i, u.name.as_str(), u.state.filter(|c| !c.clean())?)))
        .collect();
    let trials: Vec<_> = summaries().map(|s| s.trials.as_ref()).collect();
    let not_evaluated: Vec<_> = summaries().map(|s| s.failures.as_slice()).collect();
    let provenance: Vec<_> = summaries().map(|s| s.provenance.as_ref()).collect();
    let usage: Vec<_> = summaries().map(|s| s.usage.as_slice()).collect();
    let mut sections = K::tables(runs);
    sections.extend([
        sections::pass_hat(&trials, K::UNIT),
        sections::state_check(&state, &differing, K::UNIT, K::WORDS.no_state_check),
        sections::differs(&units, &K::WORDS, K::UNIT),
        sections::failures(&units, &K::WORDS, K::drawn(runs)),
        sections::not_evaluated(&not_evaluated, K::FILE),
        sections::provenance(&provenance),
        sections::usage(&usage),
    ]);
    Report {
        title: K::title(runs),
        runs: headers(runs),
        warnings: warnings(runs),
        sections,
        document: document(runs, &units),
    }
}

/// The runs as a report introduces them.
fn headers<K: Kind>(runs: &[Run<K>]) -> Vec<RunHeader> {
    runs.iter()
        .enumerate()
        .map(|(i, run)| RunHeader {
            number: i + 1,
            label: run.label.clone(),
            dir: run.dir.display().to_string(),
            models: K::models(&run.summary),
            dataset: run.dataset().map(str::to_string),
            evaluated: run.summary.evaluated,
            not_evaluated: run.summary.not_evaluated,
        })
        .collect()
}

/// What a report says before anything else about `runs`.
fn warnings<K: Kind>(runs: &[Run<K>]) -> Vec<String> {
    let mut warnings = Vec::new();
    if !same_dataset(runs) {
        warnings.push("These runs did not all evaluate the same dataset (compared on request): their figures are not directly comparable.".to_string());
    }
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        if s.not_evaluated > 0 {
            warnings.push(format!(
                "Run {} could not evaluate {} of {}: its figures are over the others (see \"Not evaluated\").",
                i + 1,
                crate::words::count(s.not_evaluated, K::FILE),
                s.evaluated + s.not_evaluated
            ));
        }
    }
    warnings
}

/// The JSON document of `report --format json`: per run the keys every
/// kind shares and the kind's own, the units whose outcome differs, then
/// the kind's own keys.
fn document<K: Kind>(runs: &[Run<K>], units: &[Vec<Unit>]) -> Value {
    let list: Vec<Value> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            let mut run = serde_json::to_value(&s.figures).unwrap_or_default();
            if let Some(figures) = run.as_object_mut() {
                figures.retain(|key, _| !K::WORDS.unit_lists.contains(&key.as_str()));
            }
            let shared = json!({
                "dir": r.dir.display().to_string(),
                "label": r.label,
                "settings": s.settings,
                "dataset_sha256": r.dataset(),
                "pass_hat": s.trials.as_ref().map(|t| &t.all.pass_hat),
                "state_check": s.state_check,
                "not_evaluated_files": s.failures,
                "evaluated": s.evaluated,
                "not_evaluated": s.not_evaluated,
                "unit": K::FILE,
            });
            merge(&mut run, shared);
            merge(&mut run, K::run_document(r));
            run
        })
        .collect();
    let differs = sections::differing(units).into_iter().map(|row| {
        let mut entry = row.iter().flatten().next().map(|u| u.key.clone());
        let passed: Vec<_> = row.iter().map(|u| u.map(|u| u.passed)).collect();
        merge(
            entry.get_or_insert_with(|| json!({})),
            json!({ K::WORDS.passed_key: passed }),
        );
        entry
    });
    let mut document = json!({
        "kind": K::NAME,
        "runs": list,
        "same_dataset": same_dataset(runs),
        (format!("{}_differs", K::WORDS.differs)): differs.collect::<Vec<_>>(),
    });
    merge(&mut document, K::document(runs));
    document
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend::<Map<String, Value>>(from);
    }
}

/// `report.md` of a run just made: the report over that one run, as
/// `report` reads it, under `title`.
pub fn report_md<K: Kind + Clone>(
    summary: &RunSummary<K, K::Settings>,
    dir: &Path,
    title: String,
) -> Result<String>
where
    K::Settings: Clone,
{
    let run = Run::new(dir, summary.clone());
    let mut report = report(std::slice::from_ref(&run));
    // report.md sits in the run's folder.
    for header in &mut report.runs {
        header.dir = ".".to_string();
    }
    report.title = title;
    report.markdown()
}

/// `summary.json` and `report.md` (under `title`) of a run just made, in
/// its folder `dir`.
pub fn write_run<K: Kind + Clone>(
    dir: &Path,
    summary: &RunSummary<K, K::Settings>,
    title: String,
) -> Result<()>
where
    K::Settings: Clone,
{
    let report = report_md(summary, dir, title)?;
    crate::run::folder::write_summary(dir, &summary.json(), &report)
}

/// Each unit of the runs (`units` per run; by `key`, in the order first
/// seen) with every run's entry for it (None where a run lacks it).
pub fn unit_rows<'a, T: 'a>(
    units: impl IntoIterator<Item = &'a [T]>,
    key: impl Fn(&T) -> String,
) -> Vec<(String, Vec<Option<&'a T>>)> {
    let units: Vec<&[T]> = units.into_iter().collect();
    let mut rows: IndexMap<String, Vec<Option<&T>>> = IndexMap::new();
    for (i, run) in units.iter().enumerate() {
        for unit in *run {
            rows.entry(key(unit))
                .or_insert_with(|| vec![None; units.len()])[i] = Some(unit);
        }
    }
    rows.into_iter().collect()
}

/// A chart of a value per category per run (a series a run, named by
/// its number and label): `point` gives the value of a run (by its index
/// in `runs`) in a category (by its index) and the units it is over (a
/// chart whose values are not shares of units has none).
pub fn chart<K: Kind>(
    runs: &[Run<K>],
    title: &str,
    categories: Vec<String>,
    scale: Scale,
    point: impl Fn(usize, usize) -> (Option<f64>, Option<usize>),
) -> Chart {
    let mut series: Vec<Series> = (runs.iter().enumerate())
        .map(|(i, run)| {
            let (values, counts) = (0..categories.len()).map(|c| point(i, c)).unzip();
            Series {
                name: format!("run {}: {}", i + 1, run.label),
                values,
                counts,
            }
        })
        .collect();
    if series.iter().all(|s| s.counts.iter().all(Option::is_none)) {
        series.iter_mut().for_each(|s| s.counts.clear());
    }
    Chart {
        title: title.to_string(),
        categories,
        series,
        scale,
    }
}

/// The models that answered, or the one asked for when none did.
pub fn answered(asked: &Option<String>, reported: &[String]) -> Option<String> {
    match reported.is_empty() {
        true => asked.clone(),
        false => Some(reported.join(", ")),
    }
}

/// A run's number (from its index) as the first cell of its rows.
pub fn run_cell(index: usize) -> Cell {
    Cell::Text((index + 1).to_string())
}

/// A table of each item's rows (an item a run: `rows` gives its cells),
/// each led by the run's number ("Run"); `heads` names the columns after
/// it.
pub fn by_run<T, R: IntoIterator<Item = Vec<Cell>>>(
    items: impl IntoIterator<Item = T>,
    heads: &[impl AsRef<str>],
    mut rows: impl FnMut(T) -> R,
) -> Table {
    let mut all = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let rows = rows(item).into_iter();
        all.extend(rows.map(|cells| std::iter::once(run_cell(i)).chain(cells).collect()));
    }
    let heads: Vec<&str> = std::iter::once("Run")
        .chain(heads.iter().map(AsRef::as_ref))
        .collect();
    Table::of(&heads, all)
}

/// A table with a row an item (a run), led by the run's number ("Run"):
/// `row` gives its cells, each under its heading, or none (dashes).
pub fn per_run<T, R: Into<Option<Vec<(&'static str, Cell)>>>>(
    items: impl IntoIterator<Item = T>,
    row: impl Fn(T) -> R,
) -> Table {
    let rows: Vec<Option<Vec<(&str, Cell)>>> = items.into_iter().map(|i| row(i).into()).collect();
    let first = rows.iter().flatten().next();
    let heads: Vec<&str> = first.map_or(Vec::new(), |r| r.iter().map(|c| c.0).collect());
    let dashes = vec![Cell::Text("-".into()); heads.len()];
    by_run(rows, &heads, |row| {
        [row.map_or(dashes.clone(), |r| r.into_iter().map(|c| c.1).collect())]
    })
}

/// A table with a row a unit and a column a run ("Run 1", ...), led by
/// the unit (headed `head`); `rows` gives each unit's cell and its cells
/// in the runs.
pub fn per_unit<R: IntoIterator<Item = Cell>>(
    head: &str,
    runs: usize,
    rows: impl IntoIterator<Item = (Cell, R)>,
) -> Table {
    let heads = std::iter::once(head.to_string()).chain((1..=runs).map(|i| format!("Run {i}")));
    let rows = rows.into_iter();
    let rows = rows.map(|(unit, cells)| std::iter::once(unit).chain(cells).collect());
    Table::of(&heads.collect::<Vec<_>>(), rows.collect())
}
