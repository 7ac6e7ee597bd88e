//! The sections every kind of report shares, each written once: pass^k,
//! the state check, units whose outcome differs between runs and
//! failures (from each kind's [`Unit`]s, in its [`Words`]),
//! what could not be evaluated, provenance, and the tokens the models
//! used. A section that does not apply to a kind says so, the same way in
//! every format.

use super::runs::{anchor, by_run, per_run, per_unit, run_cell, unit_rows, Unit, Words};
use super::{Block, Cell, Section, Table};
use crate::llm::usage::ModelUsage;
use crate::run::driver::Failure;
use crate::run::provenance::Provenance;
use crate::run::summary::StateTotals;
use crate::run::trials::{PassHat, Trials};
use crate::suite::state::{StateCheck, WriteKind};

/// pass^k per run (and per group of units where a kind has them), for
/// runs made with `--trials`.
pub fn pass_hat(runs: &[Option<&Trials>], unit: &str) -> Section {
    let title = "Reliability (pass^k)";
    fn groups(trials: &Trials) -> Vec<(&str, &PassHat)> {
        let groups = trials.groups.iter().map(|(n, p)| (n.as_str(), p));
        let all = (trials.groups.len() != 1).then_some(("all", &trials.all));
        groups.chain(all).collect()
    }
    let most = (runs.iter().flatten().flat_map(|t| groups(t)))
        .map(|(_, p)| p.pass_hat.len())
        .max()
        .unwrap_or(0);
    if most == 0 {
        return Section::not_applicable(
            "pass-hat",
            title,
            "every run made one trial (`evaluate --trials K` estimates pass^k)",
        );
    }
    let heads: Vec<String> = ["Of".into(), format!("{}s", capitalised(unit))]
        .into_iter()
        .chain((1..=most).map(|k| format!("pass^{k}")))
        .collect();
    let table = by_run(runs, &heads, |trials| {
        let rows = trials.map(groups).unwrap_or_default().into_iter();
        rows.map(|(group, p)| {
            let head = [Cell::Text(group.into()), Cell::Count(p.units)];
            let shares = (0..most).map(|k| Cell::Percent(p.pass_hat.get(k).copied()));
            head.into_iter().chain(shares).collect()
        })
    });
    Section::new("pass-hat", title)
        .text(format!(
            "pass^k is the chance that all k of k trials of a {unit} succeed (tau-bench's estimator C(c, k) / C(n, k), c of n trials succeeding), averaged over {unit}s, in percent."
        ))
        .table(table)
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
    let totals = per_run(runs, |t| {
        let t = (*t)?;
        Some(vec![
            ("Checked", Cell::Count(t.conversations_checked)),
            ("Clean", Cell::Count(t.conversations_clean)),
            (
                "With collateral damage",
                Cell::Count(t.conversations_with_collateral),
            ),
            ("Collateral", Cell::Count(t.collateral)),
            ("Missing", Cell::Count(t.missing)),
            ("Different", Cell::Count(t.different)),
        ])
    });
    let section = Section::new("state-check", title)
        .text(format!(
            "Per {unit}, the databases the predictions left are compared with those the gold calls leave: collateral writes went where the gold calls wrote nothing, missing ones were not made, different ones wrote another value. It changes none of the figures above."
        ))
        .table(totals);
    let places: Vec<Vec<Cell>> = differing
        .iter()
        .map(|(i, name, check)| {
            let (name, places) = (name.to_string(), state_places(check));
            vec![run_cell(*i), Cell::Code(name), Cell::Text(places)]
        })
        .collect();
    let heads = ["Run", &capitalised(unit), "Where the databases differ"];
    section.table_if_any(Table::of(&heads, places))
}

/// A unit's differing places in words, the first five and how
/// many more: `turn 3 collateral Alarm.ann.a1`.
fn state_places(check: &StateCheck) -> String {
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
    let rows = unit_rows(units.iter().map(Vec::as_slice), |u| u.key.to_string());
    let rows = rows.into_iter().map(|(_, row)| row).filter(|row| {
        let passed: Vec<bool> = row.iter().flatten().map(|u| u.passed).collect();
        passed.contains(&true) && passed.contains(&false)
    });
    rows.collect()
}

/// The units whose outcome differs between runs (`units` per run), each
/// with its outcome in every run, in the kind's words.
pub fn differs(units: &[Vec<Unit>], words: &Words, unit: &str) -> Section {
    let title = format!(
        "{}s whose {} differs between runs",
        words.unit(),
        words.differs
    );
    if units.len() < 2 {
        return Section::not_applicable("differs", title, "one run has nothing to differ from");
    }
    let rows = differing(units).into_iter().map(|row| {
        let name = row.iter().flatten().next().map(|u| u.name.clone());
        let outcomes = row
            .iter()
            .map(|u| u.map_or("-".into(), |u| u.outcome.clone()));
        let outcomes: Vec<Cell> = outcomes.map(Cell::Text).collect();
        (Cell::Code(name.unwrap_or_default()), outcomes)
    });
    let table = per_unit(words.unit(), units.len(), rows);
    if table.rows.is_empty() {
        let alike = format!(
            "None: every {unit} had the same {} in every run.",
            words.differs
        );
        return Section::new("differs", title).text(alike);
    }
    Section::new("differs", title).table(table)
}

/// Each run's failed units: how many, then their rows, the name linked
/// to where a page draws it (`drawn`: what a page adds, and the anchors
/// it draws).
pub fn failures(units: &[Vec<Unit>], words: &Words, drawn: (String, Vec<String>)) -> Section {
    let (html, anchors) = drawn;
    let anchors = &anchors;
    let counts = units.iter().enumerate().map(|(i, units)| {
        let n = units.iter().filter(|u| !u.passed).count();
        format!("run {}: {n} of {} {}", i + 1, units.len(), words.failed)
    });
    let table = by_run(
        units.iter().enumerate(),
        words.failure_columns,
        |(i, units)| {
            let failed = units.iter().enumerate().filter(|(_, u)| !u.passed);
            failed.map(move |(index, unit)| {
                let mut cells = unit.failure.clone();
                if let Some(Cell::Code(name)) = cells.first() {
                    let anchor = anchor(i, index);
                    if anchors.contains(&anchor) {
                        cells[0] = Cell::CodeLink(name.clone(), anchor);
                    }
                }
                cells
            })
        },
    );
    let mut section = Section::new("failures", words.failures)
        .list(counts.collect())
        .table_if_any(table);
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
    let table = by_run(runs, &["File", "Why"], |failures| {
        let rows = failures.iter();
        rows.map(|f| vec![Cell::Code(f.file.clone()), Cell::Text(f.error.clone())])
    });
    Section::new("not-evaluated", title)
        .text(format!(
            "These {unit}s could not be evaluated; a run's figures are over the others."
        ))
        .table(table)
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
    let short = |s: &str| s[..s.len().min(12)].to_string();
    let words = |v: Vec<String>| match v.is_empty() {
        true => "-".into(),
        false => v.join(", "),
    };
    let table = per_run(runs, |p| {
        let p = (*p)?;
        let user = |m: &String| format!("{m} (user)");
        let asked = p.model_requested.iter().cloned();
        let asked = asked.chain(p.user_model_requested.iter().map(user));
        let answered = p.models_reported.iter().cloned();
        let answered = answered.chain(p.user_models_reported.iter().map(user));
        let templates = p.prompt_templates.iter();
        let templates = templates.map(|(name, sha)| format!("{name} ({})", short(sha)));
        let dataset = p.dataset.sha256.as_deref().map_or("-".into(), short);
        Some(vec![
            ("talkforge", Cell::Text(p.talkforge_version.clone())),
            ("Finished", Cell::Text(p.date.clone())),
            ("Suite", Cell::Text(p.suite.clone())),
            ("Dataset files", Cell::Text(p.dataset.files.to_string())),
            ("Dataset SHA-256", Cell::Code(dataset)),
            ("Databases SHA-256", Cell::Code(short(&p.databases.sha256))),
            ("Predictor", Cell::Code(p.predictor.clone())),
            ("Model asked", Cell::Text(words(asked.collect()))),
            (
                "Models that answered",
                Cell::Text(words(answered.collect())),
            ),
            ("Prompt templates", Cell::Text(words(templates.collect()))),
        ])
    });
    Section::new("provenance", title).table(table)
}

/// The tokens each run's models used, per model and role (not
/// applicable when no run asked a model: oracle and replay runs use none).
pub fn usage(runs: &[&[ModelUsage]]) -> Section {
    let title = "Tokens used";
    if runs.iter().all(|r| r.is_empty()) {
        return Section::not_applicable("usage", title, "no run asked a model");
    }
    let heads = [
        "Model",
        "Requests",
        "Cached",
        "Prompt tokens",
        "Completion tokens",
        "Total tokens",
        "Cached replies' tokens",
        "Without usage",
    ];
    let table = by_run(runs, &heads, |usage| {
        if usage.is_empty() {
            let mut row = vec![Cell::Text("no model was asked".into())];
            row.extend((0..7).map(|_| Cell::Text("-".into())));
            return vec![row];
        }
        let rows = usage.iter().map(|u| {
            let counts = [
                u.requests,
                u.cached,
                u.prompt_tokens,
                u.completion_tokens,
                u.total_tokens,
                u.cached_total_tokens,
                u.without_usage,
            ];
            let counts = counts.into_iter().map(|n| Cell::Count(n as usize));
            std::iter::once(Cell::Text(crate::llm::usage::who(u)))
                .chain(counts)
                .collect()
        });
        rows.collect()
    });
    Section::new("usage", title)
            .text(
                "The tokens each model used, as its server reported them (`usage`). The token columns are what this run spent on the requests it sent; a reply taken from the cache cost nothing in this run, and what the cached replies cost when first asked is shown apart. Replies without usage (a server that sends none, a cache entry older than talkforge keeping it) are counted but add no tokens.",
            )
        .table(table)
}
