//! The main job (`talkforge check`): everything CI needs to trust the
//! repository's dataset, in one run. The databases load and match their
//! schemas (schemas/databases/), every dialogue and scenario pool passes
//! lint (which includes the `schema` rule), and every gold call reproduces
//! or cannot be checked offline by design. A repository may hold several
//! families: each suite runs over its own files with its own databases
//! folder (talkforge.toml's subsets say which, see `dataset`), and the
//! steps report them together.

use crate::style;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use crate::dataset::{split, Declarations, Part};
use crate::dialogue::Conversation;
use crate::errata::Errata;
use crate::formats::discover;
use crate::lint::{lint_files, Config, InputFormat, Options};
use crate::policy::Policy;
use crate::schema::validate_databases;
use crate::sim::Databases;
use crate::stats::{stats_files, Stats};
use crate::suite::{Registry, Suite, ToolDescriptions, WorldOptions};
use crate::verify::{verify_files_with_errata, Difference, Unchecked};
use crate::words::{count, verb};
use crate::Error;

/// How one step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passed,
    /// It ran and found problems (exit 1).
    Failed,
    /// Some input could not be read (exit 2).
    Broken,
}

/// One step of the check, for the summary.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub name: &'static str,
    pub outcome: Outcome,
    /// One line for the summary.
    pub summary: String,
    /// The first problems, one line each (the full lists are in the report).
    pub problems: Vec<String>,
    /// Each part's own outcome and summary, when several suites (or
    /// databases folders) ran: `summary` joins them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartStep>,
}

/// How a step went for one part of the dataset.
#[derive(Debug, Clone, Serialize)]
pub struct PartStep {
    pub suite: String,
    pub databases: String,
    pub outcome: Outcome,
    pub summary: String,
}

/// Everything `check` found.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub root: String,
    pub outcome: Outcome,
    pub steps: Vec<Step>,
    /// The lint findings, as `talkforge lint --format json` prints them.
    pub lint: Value,
    pub differs: Vec<Difference>,
    /// Gold calls that cannot be reproduced offline by design (listed
    /// when there are any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_checked: Vec<Unchecked>,
    /// The counts over every suite's files (a tool two suites share
    /// counts both's calls).
    pub stats: Option<Stats>,
    /// The counts of each suite's files, by suite name.
    pub stats_by_suite: IndexMap<String, Stats>,
    /// How many tools the dataset's suites have.
    #[serde(skip)]
    pub catalog_tools: usize,
    /// How many of those the gold calls use (a tool the catalog lacks is
    /// lint's to report, not counted here).
    #[serde(skip)]
    pub catalog_tools_used: usize,
}

const SHOWN_PROBLEMS: usize = 8;

/// Run every step over the dataset under `root`, its files read by the
/// suites of `registry`.
pub fn check_repository(registry: &Registry, root: &Path) -> Result<CheckReport, Error> {
    check_repository_with_errata(registry, None, root, &Errata::none())
}

/// [`check_repository`], with errata files besides the dialogues' own
/// errata: a difference an erratum records passes, and an erratum that no
/// longer applies (or names no dialogue) fails the verify step. Each suite
/// runs over its own files with its own databases (see `dataset`);
/// `only` (`--suite`) checks that suite's files alone.
pub fn check_repository_with_errata(
    registry: &Registry,
    only: Option<&'static dyn Suite>,
    root: &Path,
    errata: &Errata,
) -> Result<CheckReport, Error> {
    check_repository_with(registry, only, root, errata, None)
}

/// [`check_repository_with_errata`], every tool search answering with
/// `tool_descriptions` when given (else each subset's, see `dataset`).
pub fn check_repository_with(
    registry: &Registry,
    only: Option<&'static dyn Suite>,
    root: &Path,
    errata: &Errata,
    tool_descriptions: Option<ToolDescriptions>,
) -> Result<CheckReport, Error> {
    let conversations_dir = root.join("conversations");
    if !conversations_dir.is_dir() {
        return Err(Error::input(
            &conversations_dir,
            "no conversations folder here (run `talkforge check` from the repository root, or pass --root)",
        ));
    }
    let policy = Policy::load(root)?;
    let declarations = Declarations::new(registry, root, policy.as_ref())?;
    let found = crate::formats::discover::discover_noting(
        std::slice::from_ref(&conversations_dir),
        &registry.endings(only),
    )?;
    crate::formats::discover::note_passed_over(&found.passed_over);
    let mut parts = split(registry, root, &declarations, found.files, only)?;
    if parts.is_empty() {
        // No dialogue yet: the default suite's databases are still checked.
        let suite = only.unwrap_or(registry.first());
        parts.push(Part {
            suite,
            databases: root.join(suite.default_databases()),
            tool_descriptions: ToolDescriptions::default(),
            files: Vec::new(),
        });
    }
    let pools = scenario_pools(&root.join("scenarios"))?;
    let config = Config::discover(root)?;

    let several = parts.len() > 1;
    let label = |part: &Part| {
        several.then(|| PartLabel {
            suite: part.suite.name().to_string(),
            // A self-verifying suite's databases are beside its files.
            databases: match part.suite.companions() {
                [] => part.databases.display().to_string(),
                _ => "beside its files".to_string(),
            },
        })
    };
    let (mut databases_steps, mut verify_steps) = (Vec::new(), Vec::new());
    let mut lint_report = crate::lint::Report::default();
    let (mut differs, mut not_checked, mut matched) = (Vec::new(), Vec::new(), Vec::new());
    let mut stats_by_suite: IndexMap<String, Stats> = IndexMap::new();
    for part in &parts {
        let suite = part.suite;
        let world = WorldOptions {
            tool_descriptions: tool_descriptions.unwrap_or(part.tool_descriptions),
            ..WorldOptions::default()
        };
        // A suite that verifies its own files (tau2) runs each with the
        // databases beside it.
        let own = own_verification(suite, &part.files, errata, &mut matched);
        let (step, databases) = match &own {
            Some(_) => beside_files_step(&part.files, suite),
            None => databases_step(&part.databases, suite),
        };
        databases_steps.push((label(part), step));
        let date_ranges = databases
            .as_ref()
            .and_then(|_| suite.database_dates(&part.databases).ok().flatten())
            .map(|range| vec![(suite.name(), range)])
            .unwrap_or_default();
        let options = Options {
            input_format: InputFormat::Suite(suite),
            config: config.clone(),
            date_ranges,
            ..Options::default()
        };
        merge_lint(
            &mut lint_report,
            lint_files(registry, &part.files, &options),
        );
        let step = match (own, &databases) {
            (Some(own), Some(_)) => own_verify_step(own),
            (None, Some(databases)) => {
                let (step, found) =
                    verify_step(&part.files, suite, databases, &world, errata, &mut matched);
                differs.extend(found.0);
                not_checked.extend(found.1);
                step
            }
            (_, None) => Step {
                name: "verify",
                outcome: Outcome::Broken,
                summary: "not run: the databases could not be loaded".into(),
                problems: Vec::new(),
                parts: Vec::new(),
            },
        };
        verify_steps.push((label(part), step));
        if let Ok(stats) = stats_files(&part.files, suite) {
            match stats_by_suite.get_mut(suite.name()) {
                Some(known) => known.merge(stats),
                None => {
                    stats_by_suite.insert(suite.name().to_string(), stats);
                }
            }
        }
    }
    let conversations: usize = parts.iter().map(|p| p.files.len()).sum();
    // Pools are read by their content, whatever suite they are for.
    let pool_options = Options {
        config: config.clone(),
        ..Options::default()
    };
    merge_lint(
        &mut lint_report,
        lint_files(registry, &pools, &pool_options),
    );

    let mut steps = vec![merged("databases", databases_steps)];
    steps.push(lint_step(&lint_report, conversations, pools.len()));
    let lint = crate::lint::output::json_report(&lint_report);
    let mut verify = merged("verify", verify_steps);
    // An erratum is stale when no part matched it.
    let stale = errata.unmatched(&matched);
    if !stale.is_empty() {
        verify.outcome = worse(verify.outcome, Outcome::Failed);
        verify.problems.extend(stale.iter().map(stale_line));
    }
    steps.push(verify);
    let manifest = root.join("scenarios").join(MANIFEST);
    if manifest.is_file() {
        let suite = parts
            .iter()
            .map(|p| p.suite)
            .find(|s| s.scenario_pools().is_some())
            .unwrap_or(registry.first());
        steps.push(manifest_step(root, &manifest, suite));
    }
    if let Some(policy) = &policy {
        steps.push(policy_step(policy, root, &parts, registry));
    }

    let outcome = steps
        .iter()
        .map(|s| s.outcome)
        .max_by_key(|o| match o {
            Outcome::Passed => 0,
            Outcome::Failed => 1,
            Outcome::Broken => 2,
        })
        .unwrap_or(Outcome::Passed);
    let mut suites: Vec<&'static dyn Suite> = Vec::new();
    for part in &parts {
        if suites.iter().all(|s| s.name() != part.suite.name()) {
            suites.push(part.suite);
        }
    }
    let catalog_tools_used = suites
        .iter()
        .map(|suite| {
            stats_by_suite.get(suite.name()).map_or(0, |stats| {
                suite
                    .catalog()
                    .tools()
                    .iter()
                    .filter(|tool| stats.by_tool.get(tool.name).is_some_and(|&n| n > 0))
                    .count()
            })
        })
        .sum();
    let catalog_tools = suites.iter().map(|s| s.catalog().tools().len()).sum();
    let stats = stats_by_suite.values().cloned().reduce(|mut all, stats| {
        all.merge(stats);
        all
    });
    Ok(CheckReport {
        root: root.display().to_string(),
        outcome,
        steps,
        lint,
        differs,
        not_checked,
        stats,
        stats_by_suite,
        catalog_tools,
        catalog_tools_used,
    })
}

/// Which part of the dataset a step's summary is about, when there are
/// several.
struct PartLabel {
    suite: String,
    databases: String,
}

impl std::fmt::Display for PartLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.suite, self.databases)
    }
}

/// One step from each part's: the worst outcome, every problem, and, when
/// there are several parts, each part's own (`summary` joins their
/// summaries, each after its label).
fn merged(name: &'static str, steps: Vec<(Option<PartLabel>, Step)>) -> Step {
    let mut outcome = Outcome::Passed;
    let mut summaries = Vec::new();
    let mut problems = Vec::new();
    let mut parts = Vec::new();
    for (label, step) in steps {
        outcome = worse(outcome, step.outcome);
        match label {
            Some(label) => {
                summaries.push(format!("{label}: {}", step.summary));
                parts.push(PartStep {
                    suite: label.suite,
                    databases: label.databases,
                    outcome: step.outcome,
                    summary: step.summary,
                });
            }
            None => summaries.push(step.summary),
        }
        problems.extend(step.problems);
    }
    Step {
        name,
        outcome,
        summary: summaries.join("; "),
        problems,
        parts,
    }
}

fn worse(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Broken => 2,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// Add one lint run's report to the whole check's.
fn merge_lint(into: &mut crate::lint::Report, report: crate::lint::Report) {
    into.files += report.files;
    into.findings.extend(report.findings);
    into.errors.extend(report.errors);
}

/// The committed record of the prompts `generate` renders (see
/// scenarios/README.md).
const MANIFEST: &str = "dry-run-manifest.json";

/// The manifest lists the prompts the catalog and its template render now
/// (names and text hashes): a pool's `prompt_sha256` is looked up there.
fn manifest_step(root: &Path, path: &Path, suite: &dyn Suite) -> Step {
    let problem = match manifest_differs(root, path, suite) {
        Ok(false) => None,
        Ok(true) => Some(format!(
            "{}: stale, the prompts render differently now \
             (`talkforge generate --dry-run --out DIR` writes it again, see scenarios/README.md)",
            path.display()
        )),
        Err(e) => Some(e.to_string()),
    };
    Step {
        name: "scenarios",
        outcome: if problem.is_none() {
            Outcome::Passed
        } else {
            Outcome::Failed
        },
        summary: match &problem {
            None => format!("{MANIFEST} lists the prompts the template renders"),
            Some(_) => format!("{MANIFEST} is stale"),
        },
        problems: problem.into_iter().collect(),
        parts: Vec::new(),
    }
}

fn manifest_differs(root: &Path, path: &Path, suite: &dyn Suite) -> Result<bool, Error> {
    let (_, manifest) = crate::formats::read_json(path)?;
    let template_name = manifest["template"]
        .as_str()
        .unwrap_or("prompts/scenarios.j2");
    let template = match root.join(template_name) {
        file if file.is_file() => crate::formats::read::read_text(&file)?,
        _ => crate::gen::DEFAULT_TEMPLATE.to_string(),
    };
    let per_prompt = manifest["plugins_per_prompt"].as_u64().unwrap_or(3) as usize;
    let rendered = crate::gen::render_all(
        suite.catalog(),
        &template,
        template_name,
        per_prompt,
        Default::default(),
    )?;
    let listed: Vec<(&str, &str)> = manifest["prompts"]
        .as_array()
        .map(|prompts| {
            prompts
                .iter()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap_or_default(),
                        p["prompt_sha256"].as_str().unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let hashes: Vec<String> = rendered.iter().map(|p| p.sha256()).collect();
    let now: Vec<(&str, &str)> = rendered
        .iter()
        .zip(&hashes)
        .map(|(p, hash)| (p.name.as_str(), hash.as_str()))
        .collect();
    Ok(listed != now)
}

/// The dataset's files read into the model, each by its part's suite
/// (those that cannot be read are lint's and verify's to report), with
/// their paths; a file of many dialogues (tau2's tasks) gives each.
pub fn read_dataset(parts: &[Part]) -> Vec<(PathBuf, Conversation)> {
    parts
        .iter()
        .flat_map(|part| {
            part.files.iter().flat_map(|path| {
                part.suite
                    .read_dialogues(path)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|conversation| (path.clone(), conversation))
            })
        })
        .collect()
}

/// The dataset policy of talkforge.toml, and the card's tables being
/// current.
fn policy_step(policy: &Policy, root: &Path, parts: &[Part], registry: &Registry) -> Step {
    let dataset = read_dataset(parts);
    let suites = crate::dataset::subset_suites(registry, root, policy, parts);
    let mut problems = policy.problems(root, &suites, &dataset);
    if let Some(card) = &policy.card {
        let path = root.join(card);
        let fallback = parts.first().map_or(registry.first(), |p| p.suite);
        let tables = crate::card::tables(policy, root, &suites, fallback, &dataset);
        match crate::formats::read::read_text(&path)
            .and_then(|text| Ok((crate::card::fill(&path, &text, &tables)?, text)))
        {
            Ok((current, text)) if current != text => problems.push(format!(
                "{}: the card's tables are out of date (`talkforge card --write` writes them)",
                path.display()
            )),
            Ok(_) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    let checked = count(policy.subsets.len(), "subset");
    Step {
        name: "policy",
        outcome: if problems.is_empty() {
            Outcome::Passed
        } else {
            Outcome::Failed
        },
        summary: if problems.is_empty() {
            format!("{checked} and the card follow talkforge.toml's [dataset] policy")
        } else {
            format!(
                "{} of talkforge.toml's [dataset] policy",
                count(problems.len(), "breach")
            )
        },
        problems,
        parts: Vec::new(),
    }
}

/// The scenario pools under `dir`: JSON files holding a `scenarios` list
/// (the dry-run manifest and other notes are not pools).
fn scenario_pools(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let files = discover(&[dir.to_path_buf()], &["json"])?;
    Ok(files
        .into_iter()
        .filter(|path| {
            // An unreadable file is a pool candidate: lint will say why.
            crate::formats::read_json(path)
                .map(|(_, value)| value.get("scenarios").is_some_and(Value::is_array))
                .unwrap_or(true)
        })
        .collect())
}

fn databases_step(dir: &Path, suite: &dyn Suite) -> (Step, Option<Databases>) {
    let broken = |problem: String| Step {
        name: "databases",
        outcome: Outcome::Broken,
        summary: "the databases could not be loaded".into(),
        problems: vec![problem],
        parts: Vec::new(),
    };
    let databases = match suite.load_databases(dir) {
        Ok(databases) => databases,
        Err(e) => return (broken(e.to_string()), None),
    };
    let violations = match validate_databases(dir, suite) {
        Ok(violations) => violations,
        Err(e) => return (broken(e.to_string()), None),
    };
    let loaded = databases.names().count();
    let step = if violations.is_empty() {
        Step {
            name: "databases",
            outcome: Outcome::Passed,
            summary: format!(
                "{} {} and {} their schemas",
                count(loaded, "database"),
                verb(loaded, "loads", "load"),
                verb(loaded, "matches", "match")
            ),
            problems: Vec::new(),
            parts: Vec::new(),
        }
    } else {
        Step {
            name: "databases",
            outcome: Outcome::Failed,
            summary: format!(
                "{} in {}",
                count(violations.len(), "schema violation"),
                count(loaded, "database")
            ),
            problems: violations.iter().map(|v| v.to_string()).collect(),
            parts: Vec::new(),
        }
    };
    (step, Some(databases))
}

/// A suite that verifies its files itself and keeps each file's
/// databases beside it (tau2: `db.json` beside `tasks.json`): its report,
/// None for the others. It judges the errata naming its files (added to
/// `matched`); one naming no file of any part is the whole check's to
/// report, once.
fn own_verification(
    suite: &dyn Suite,
    files: &[PathBuf],
    errata: &Errata,
    matched: &mut Vec<usize>,
) -> Option<Result<crate::suite::OwnVerification, Error>> {
    if suite.companions().is_empty() {
        return None;
    }
    let errata = errata.naming(files);
    matched.extend(errata.indices());
    suite.verify_own(files, None, &errata)
}

/// The databases beside each file, each folder loaded once.
fn beside_files_step(files: &[PathBuf], suite: &dyn Suite) -> (Step, Option<Databases>) {
    let mut folders: Vec<&Path> = files.iter().filter_map(|f| f.parent()).collect();
    folders.sort();
    folders.dedup();
    let problems: Vec<String> = folders
        .iter()
        .filter_map(|dir| suite.load_databases(dir).err())
        .map(|e| e.to_string())
        .collect();
    let step = match problems.is_empty() {
        true => Step {
            name: "databases",
            outcome: Outcome::Passed,
            summary: format!("the databases beside {} load", count(files.len(), "file")),
            problems,
            parts: Vec::new(),
        },
        false => Step {
            name: "databases",
            outcome: Outcome::Broken,
            summary: "the databases could not be loaded".into(),
            problems,
            parts: Vec::new(),
        },
    };
    let loaded = step.outcome == Outcome::Passed;
    (step, loaded.then(Databases::default))
}

/// The verify step from a suite's own report: its totals, and its
/// defects and stale errata as problems.
fn own_verify_step(own: Result<crate::suite::OwnVerification, Error>) -> Step {
    match own {
        Err(e) => Step {
            name: "verify",
            outcome: Outcome::Broken,
            summary: "could not run".into(),
            problems: vec![e.to_string()],
            parts: Vec::new(),
        },
        Ok(own) => {
            let mut lines: Vec<&str> = own.human.lines().collect();
            let summary = lines.pop().unwrap_or_default().to_string();
            Step {
                name: "verify",
                outcome: match own.fails {
                    true => Outcome::Failed,
                    false => Outcome::Passed,
                },
                summary,
                problems: lines
                    .into_iter()
                    .filter(|l| l.contains("DEFECT") || l.contains("stale erratum"))
                    .map(str::to_string)
                    .collect(),
                parts: Vec::new(),
            }
        }
    }
}

fn lint_step(report: &crate::lint::Report, conversations: usize, pools: usize) -> Step {
    use crate::lint::Severity;
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let mut problems: Vec<String> = report.errors.iter().map(|e| e.to_string()).collect();
    problems.extend(report.findings.iter().map(|f| {
        let place = match (f.line, f.column) {
            (Some(line), Some(column)) => format!("{}:{line}:{column}", f.file),
            _ => f.file.clone(),
        };
        format!("{place}: {}[{}] {}", f.severity.name(), f.rule, f.message)
    }));
    let outcome = if !report.errors.is_empty() {
        Outcome::Broken
    } else if errors > 0 {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    let mut summary = format!(
        "{} and {}: {}, {}",
        count(conversations, "conversation"),
        count(pools, "scenario pool"),
        count(errors, "error"),
        count(warnings, "warning")
    );
    if !report.errors.is_empty() {
        summary.push_str(&format!(
            ", {}",
            count(report.errors.len(), "unreadable file")
        ));
    }
    Step {
        name: "lint",
        outcome,
        summary,
        problems,
        parts: Vec::new(),
    }
}

/// Verify one part; the errata it matched are added to `matched` (an
/// erratum no part matches is stale, which the caller reports).
fn verify_step(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases: &Databases,
    world: &WorldOptions,
    errata: &Errata,
    matched: &mut Vec<usize>,
) -> (Step, (Vec<Difference>, Vec<Unchecked>)) {
    let report = verify_files_with_errata(files, suite, databases, world, errata);
    matched.extend(report.matched_errata.iter().copied());
    let (verified, calls) = (report.conversations, report.calls);
    let fails = report.fails();
    let (differs, unreadable) = (report.differs, report.errors);
    let outcome = if !unreadable.is_empty() {
        Outcome::Broken
    } else if fails {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    let mut summary = format!(
        "{} of {} in {} {}",
        report.reproduced,
        count(calls, "gold call"),
        count(verified, "conversation"),
        verb(report.reproduced, "reproduces", "reproduce")
    );
    if !report.not_checked.is_empty() {
        summary.push_str(&format!(
            " ({} cannot be checked offline)",
            report.not_checked.len()
        ));
    }
    if report.known > 0 {
        summary.push_str(&format!(
            "; {} {} as known errata record",
            report.known,
            verb(report.known, "differs", "differ")
        ));
    }
    let mut problems = unreadable;
    problems.extend(differs.iter().filter(|d| d.known.is_none()).map(|d| {
        format!(
            "{} {} ({}): the recorded result differs",
            d.file,
            d.place_words(),
            d.api_name
        )
    }));
    problems.extend(report.stale_errata.iter().map(stale_line));
    (
        Step {
            name: "verify",
            outcome,
            summary,
            problems,
            parts: Vec::new(),
        },
        (differs, report.not_checked),
    )
}

fn stale_line(e: &crate::errata::Stale) -> String {
    format!(
        "{} turn {} call {} ({}): the erratum in {} no longer applies: {}",
        e.file, e.turn, e.call, e.api_name, e.source, e.why
    )
}

/// The one-screen summary.
pub fn render(report: &CheckReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mark = |outcome: Outcome| {
        let (mark, look) = match outcome {
            Outcome::Passed => ("ok", style::GOOD),
            Outcome::Failed => ("FAILED", style::ERROR),
            Outcome::Broken => ("BROKEN", style::ERROR),
        };
        style::paint(look, &format!("{mark:<7}"))
    };
    for step in &report.steps {
        if step.parts.is_empty() {
            let _ = writeln!(
                out,
                "{:<10} {} {}",
                step.name,
                mark(step.outcome),
                step.summary
            );
        }
        // Several suites: each on its own line, with its own outcome.
        for (i, part) in step.parts.iter().enumerate() {
            let name = if i == 0 { step.name } else { "" };
            let _ = writeln!(
                out,
                "{name:<10} {} {} ({}): {}",
                mark(part.outcome),
                part.suite,
                part.databases,
                part.summary
            );
        }
        for problem in step.problems.iter().take(SHOWN_PROBLEMS) {
            let _ = writeln!(out, "           {problem}");
        }
        if step.problems.len() > SHOWN_PROBLEMS {
            let more = step.problems.len() - SHOWN_PROBLEMS;
            let hint = match step.name {
                "lint" => "talkforge lint conversations",
                "verify" => "talkforge verify conversations",
                _ => "talkforge check --format json",
            };
            let _ = writeln!(out, "           ... and {more} more (`{hint}` shows all)");
        }
    }
    if let Some(stats) = &report.stats {
        let subsets: Vec<String> = stats
            .by_subset
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "{:<10} {:<7} {} ({}), {}, {} of {} used",
            "dataset",
            "",
            count(stats.conversations, "conversation"),
            subsets.join(", "),
            count(stats.gold_calls, "gold call"),
            report.catalog_tools_used,
            count(report.catalog_tools, "tool"),
        );
    }
    let verdict = match report.outcome {
        Outcome::Passed => style::paint(style::GOOD, "check passed"),
        Outcome::Failed => style::paint(style::ERROR, "check failed"),
        Outcome::Broken => style::paint(style::ERROR, "check could not read all of its input"),
    };
    let _ = writeln!(out, "{verdict}");
    out
}
