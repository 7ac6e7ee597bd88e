//! The sections every kind of report shares, each written once: pass^k,
//! the state check, units whose outcome differs between runs and
//! failures (from each kind's [`Unit`]s, in its [`Words`]),
//! what could not be evaluated, provenance, and the tokens the models
//! used. A section that does not apply to a kind says so, the same way in
//! every format.

use indexmap::IndexMap;

use super::runs::{anchor, Unit, Words};
use super::{Block, Cell, Section, Table};
use crate::llm::usage::ModelUsage;
use crate::run::driver::Failure;
use crate::run::provenance::Provenance;
use crate::run::summary::StateTotals;
use crate::run::trials::Trials;
use crate::suite::state::{StateCheck, WriteKind};

/// A run's number as the first cell of its rows.
pub fn run_cell(index: usize) -> Cell {
    Cell::Text((index + 1).to_string())
}

/// pass^k per run (and per group of units where a kind has them), for
/// runs made with `--trials`.
pub fn pass_hat(runs: &[Option<&Trials>], unit: &str) -> Section {
    let title = "Reliability (pass^k)";
    let mut rows = Vec::new();
    for (i, trials) in runs.iter().enumerate() {
        let Some(trials) = trials else { continue };
        let groups = trials.groups.iter().map(|(n, p)| (n.as_str(), p));
        let all = (trials.groups.len() != 1).then_some(("all", &trials.all));
        rows.extend(groups.chain(all).map(|(group, p)| (i, group, p)));
    }
    let most = rows.iter().map(|r| r.2.pass_hat.len()).max().unwrap_or(0);
    if most == 0 {
        return Section::not_applicable(
            "pass-hat",
            title,
            "every run made one trial (`evaluate --trials K` estimates pass^k)",
        );
    }
    let heads: Vec<String> = ["Run".into(), "Of".into(), format!("{}s", capitalised(unit))]
        .into_iter()
        .chain((1..=most).map(|k| format!("pass^{k}")))
        .collect();
    let rows = rows.into_iter().map(|(i, group, p)| {
        let head = [run_cell(i), Cell::Text(group.into()), Cell::Count(p.units)];
        let shares = (0..most).map(|k| Cell::Percent(p.pass_hat.get(k).copied()));
        head.into_iter().chain(shares).collect()
    });
    Section::new("pass-hat", title)
        .text(format!(
            "pass^k is the chance that all k of k trials of a {unit} succeed (tau-bench's estimator C(c, k) / C(n, k), c of n trials succeeding), averaged over {unit}s, in percent."
        ))
        .table(Table::of(&heads, rows.collect()))
}

/// The state check per run: the worlds the predictions left against the
/// ones the gold calls leave, and the units whose worlds differ (run
/// index, unit, check). `why_not` says why the kind has none.
pub fn state_check(
    runs: &[Option<&StateTotals>],
    differing: &[(usize, &str, &StateCheck)],
    unit: &str,
    why_not: Option<&str>,
) -> Section {
    let title = "State check";
    if let Some(why) = why_not {
        return Section::not_applicable("state-check", title, why);
    }
    if runs.iter().all(Option::is_none) {
        return Section::not_applicable(
            "state-check",
            title,
            "no run recorded one (made before the state check)",
        );
    }
    let heads = [
        "Run",
        "Checked",
        "Clean",
        "With collateral damage",
        "Collateral",
        "Missing",
        "Different",
    ];
    let rows = runs.iter().enumerate().map(|(i, totals)| {
        let counts = totals.map(|t| {
            [
                t.conversations_checked,
                t.conversations_clean,
                t.conversations_with_collateral,
                t.collateral,
                t.missing,
                t.different,
            ]
        });
        let cells = (0..6).map(|k| counts.map_or(Cell::Text("-".into()), |c| Cell::Count(c[k])));
        std::iter::once(run_cell(i)).chain(cells).collect()
    });
    let section = Section::new("state-check", title)
        .text(format!(
            "Per {unit}, the databases the predictions left are compared with those the gold calls leave: collateral writes went where the gold calls wrote nothing, missing ones were not made, different ones wrote another value. It changes none of the figures above."
        ))
        .table(Table::of(&heads, rows.collect()));
    let places: Vec<Vec<Cell>> = differing
        .iter()
        .map(|(i, name, check)| {
            let name = Cell::Code(name.to_string());
            vec![run_cell(*i), name, Cell::Text(state_places(check))]
        })
        .collect();
    let heads = ["Run", &capitalised(unit), "Where the databases differ"];
    section.table_if_any(Table::of(&heads, places))
}
/// A unit's differing places in words, the first five and how
/// many more: `turn 3 collateral Alarm.ann.a1`.
pub fn state_places(check: &StateCheck) -> String {
    let places: Vec<String> = check
        .writes
        .iter()
        .take(5)
        .map(|w| {
            let kind = match w.kind {
                WriteKind::Collateral => "collateral",
                WriteKind::Missing => "missing",
                WriteKind::Different => "different",
            };
            let place = std::iter::once(w.database.as_str())
                .chain((!w.record.is_empty()).then_some(w.record.as_str()))
                .chain(w.item.as_deref())
                .collect::<Vec<_>>()
                .join(".");
            format!("turn {} {kind} {place}", w.turn)
        })
        .collect();
    let more = check.writes.len().saturating_sub(5);
    if more > 0 {
        format!("{}, {more} more", places.join(", "))
    } else {
        places.join(", ")
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The units whose outcome differs between runs: each with every run's
/// (None where a run lacks it), in the order first seen.
pub fn differing<'u, 'a>(units: &'u [Vec<Unit<'a>>]) -> Vec<Vec<Option<&'u Unit<'a>>>> {
    let mut rows: IndexMap<String, Vec<Option<&Unit>>> = IndexMap::new();
    for (i, run) in units.iter().enumerate() {
        for unit in run {
            let row = rows.entry(unit.key.to_string());
            row.or_insert_with(|| vec![None; units.len()])[i] = Some(unit);
        }
    }
    rows.into_values()
        .filter(|row| {
            let passed: Vec<bool> = row.iter().flatten().map(|u| u.passed).collect();
            passed.contains(&true) && passed.contains(&false)
        })
        .collect()
}

/// The units whose outcome differs between runs (`units` per run), each
/// with its outcome in every run, in the kind's words.
pub fn differs(units: &[Vec<Unit>], words: &Words) -> Section {
    let (id, title) = ("differs", words.differs);
    if units.len() < 2 {
        return Section::not_applicable(id, title, "one run has nothing to differ from");
    }
    let rows: Vec<Vec<Cell>> = differing(units)
        .into_iter()
        .map(|row| {
            let name = row.iter().flatten().next().map(|u| u.name.clone());
            let outcomes = row
                .iter()
                .map(|u| u.map_or("-".into(), |u| u.outcome.clone()));
            std::iter::once(Cell::Code(name.unwrap_or_default()))
                .chain(outcomes.map(Cell::Text))
                .collect()
        })
        .collect();
    if rows.is_empty() {
        return Section::new(id, title).text(words.alike);
    }
    let heads: Vec<String> = std::iter::once(words.heading.to_string())
        .chain((1..=units.len()).map(|i| format!("Run {i}")))
        .collect();
    Section::new(id, title).table(Table::of(&heads, rows))
}

/// Each run's failed units: how many, then their rows, the name linked
/// to where a page draws it (`drawn`: what a page adds, and the anchors
/// it draws).
pub fn failures(units: &[Vec<Unit>], words: &Words, drawn: (String, Vec<String>)) -> Section {
    let (html, anchors) = drawn;
    let mut counts = Vec::new();
    let mut rows = Vec::new();
    for (i, units) in units.iter().enumerate() {
        let failed: Vec<_> = units
            .iter()
            .enumerate()
            .filter(|(_, u)| !u.passed)
            .collect();
        let (n, of) = (failed.len(), units.len());
        counts.push(format!("run {}: {n} of {of} {}", i + 1, words.failed));
        for (index, unit) in failed {
            let mut cells = unit.failure.clone();
            if let Some(Cell::Code(name)) = cells.first() {
                let anchor = anchor(i, index);
                if anchors.contains(&anchor) {
                    cells[0] = Cell::CodeLink(name.clone(), anchor);
                }
            }
            rows.push(std::iter::once(run_cell(i)).chain(cells).collect());
        }
    }
    let heads: Vec<&str> = std::iter::once("Run")
        .chain(words.failure_columns.iter().copied())
        .collect();
    let mut section = Section::new("failures", words.failures)
        .list(counts)
        .table_if_any(Table::of(&heads, rows));
    if !html.is_empty() {
        section.blocks.push(Block::Html { html });
    }
    section
}

/// What each run could not evaluate, and why.
pub fn not_evaluated(runs: &[&[Failure]], unit: &str) -> Section {
    let title = "Not evaluated";
    if runs.iter().all(|r| r.is_empty()) {
        return Section::new("not-evaluated", title)
            .text(format!("Every {unit} of every run was evaluated."));
    }
    let rows = runs.iter().enumerate().flat_map(|(i, failures)| {
        failures.iter().map(move |f| {
            let file = Cell::Code(f.file.clone());
            vec![run_cell(i), file, Cell::Text(f.error.clone())]
        })
    });
    Section::new("not-evaluated", title)
        .text(format!(
            "These {unit}s could not be evaluated; a run's figures are over the others."
        ))
        .table(Table::of(&["Run", "File", "Why"], rows.collect()))
}

/// Where each run's numbers come from.
pub fn provenance(runs: &[Option<&Provenance>]) -> Section {
    let title = "Provenance";
    if runs.iter().all(Option::is_none) {
        return Section::not_applicable(
            "provenance",
            title,
            "no run recorded its provenance (made before talkforge recorded it)",
        );
    }
    let heads = [
        "Run",
        "talkforge",
        "Finished",
        "Suite",
        "Dataset files",
        "Dataset SHA-256",
        "Databases SHA-256",
        "Predictor",
        "Model asked",
        "Models that answered",
        "Prompt templates",
    ];
    let short = |s: &str| s[..s.len().min(12)].to_string();
    let words = |v: Vec<String>| {
        if v.is_empty() {
            "-".into()
        } else {
            v.join(", ")
        }
    };
    let rows = runs.iter().enumerate().map(|(i, p)| {
        let Some(p) = p else {
            let dashes = (1..heads.len()).map(|_| Cell::Text("-".into()));
            return std::iter::once(run_cell(i)).chain(dashes).collect();
        };
        let user = |m: &String| format!("{m} (user)");
        let asked = p.model_requested.iter().cloned();
        let asked = asked.chain(p.user_model_requested.iter().map(user));
        let answered = p.models_reported.iter().cloned();
        let answered = answered.chain(p.user_models_reported.iter().map(user));
        let templates = p.prompt_templates.iter();
        let templates = templates.map(|(name, sha)| format!("{name} ({})", short(sha)));
        vec![
            run_cell(i),
            Cell::Text(p.talkforge_version.clone()),
            Cell::Text(p.date.clone()),
            Cell::Text(p.suite.clone()),
            Cell::Text(p.dataset.files.to_string()),
            Cell::Code(p.dataset.sha256.as_deref().map_or("-".into(), short)),
            Cell::Code(short(&p.databases.sha256)),
            Cell::Code(p.predictor.clone()),
            Cell::Text(words(asked.collect())),
            Cell::Text(words(answered.collect())),
            Cell::Text(words(templates.collect())),
        ]
    });
    Section::new("provenance", title).table(Table::of(&heads, rows.collect()))
}

/// The tokens each run's models used, per model and role (not
/// applicable when no run asked a model: oracle and replay runs use none).
pub fn usage(runs: &[&[ModelUsage]]) -> Section {
    let title = "Tokens used";
    if runs.iter().all(|r| r.is_empty()) {
        return Section::not_applicable("usage", title, "no run asked a model");
    }
    let heads = [
        "Run",
        "Model",
        "Requests",
        "Cached",
        "Prompt tokens",
        "Completion tokens",
        "Total tokens",
        "Cached replies' tokens",
        "Without usage",
    ];
    let mut rows = Vec::new();
    for (i, usage) in runs.iter().enumerate() {
        if usage.is_empty() {
            let mut row = vec![run_cell(i), Cell::Text("no model was asked".into())];
            row.extend((0..7).map(|_| Cell::Text("-".into())));
            rows.push(row);
        }
        for u in *usage {
            let counts = [
                u.requests,
                u.cached,
                u.prompt_tokens,
                u.completion_tokens,
                u.total_tokens,
                u.cached_total_tokens,
                u.without_usage,
            ];
            let head = [run_cell(i), Cell::Text(crate::llm::usage::who(u))];
            let counts = counts.into_iter().map(|n| Cell::Count(n as usize));
            rows.push(head.into_iter().chain(counts).collect());
        }
    }
    Section::new("usage", title)
            .text(
                "The tokens each model used, as its server reported them (`usage`). The token columns are what this run spent on the requests it sent; a reply taken from the cache cost nothing in this run, and what the cached replies cost when first asked is shown apart. Replies without usage (a server that sends none, a cache entry older than talkforge keeping it) are counted but add no tokens.",
            )
        .table(Table::of(&heads, rows))
}
