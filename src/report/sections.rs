//! The sections every kind of report shares, each written once: pass^k,
//! the state check, units whose outcome differs between runs, what could
//! not be evaluated, provenance, and the tokens the models used. A section that does not apply to a
//! kind says so, the same way in every format.

use super::{Cell, Column, Section, Table};
use crate::llm::usage::ModelUsage;
use crate::run::driver::Failure;
use crate::run::provenance::Provenance;
use crate::run::summary::StateTotals;
use crate::suite::state::{StateCheck, WriteKind};

/// One row of the pass^k table: a run's units, or a group of them.
pub struct PassHatRow<'a> {
    pub run: usize,
    /// "all", or the subset.
    pub group: String,
    pub units: usize,
    /// `pass_hat[k - 1]` is pass^k.
    pub pass_hat: &'a [f64],
}

/// pass^k per run (and per group of units where a kind has them), for
/// runs made with `--trials`.
pub fn pass_hat(rows: &[PassHatRow<'_>], unit: &str) -> Section {
    let title = "Reliability (pass^k)";
    let most = rows.iter().map(|r| r.pass_hat.len()).max().unwrap_or(0);
    if most == 0 {
        return Section::not_applicable(
            "pass-hat",
            title,
            "every run made one trial (`evaluate --trials K` estimates pass^k)",
        );
    }
    let heads: Vec<String> = std::iter::once(format!("{}s", capitalised(unit)))
        .chain((1..=most).map(|k| format!("pass^{k}")))
        .collect();
    let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
    let mut table = Table::new("Run", &heads);
    table.columns.insert(1, Column::text("Of"));
    for row in rows {
        let mut cells = vec![
            Cell::Text(row.run.to_string()),
            Cell::Text(row.group.clone()),
            Cell::Count(row.units),
        ];
        cells.extend((0..most).map(|k| Cell::Percent(row.pass_hat.get(k).copied())));
        table.row(cells);
    }
    Section::new("pass-hat", title)
        .text(format!(
            "pass^k is the chance that all k of k trials of a {unit} succeed (tau-bench's estimator C(c, k) / C(n, k), c of n trials succeeding), averaged over {unit}s, in percent."
        ))
        .table(table)
}

/// The state check per run: the worlds the predictions left against the
/// ones the gold calls leave, and the units whose worlds differ (run
/// number, unit, the places in words). `why_not` says why the kind has
/// none.
pub fn state_check(
    runs: &[Option<&StateTotals>],
    differing: Vec<(usize, String, String)>,
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
    let mut table = Table::new(
        "Run",
        &[
            "Checked",
            "Clean",
            "With collateral damage",
            "Collateral",
            "Missing",
            "Different",
        ],
    );
    for (i, totals) in runs.iter().enumerate() {
        let count = |f: fn(&StateTotals) -> usize| match totals {
            Some(t) => Cell::Count(f(t)),
            None => Cell::Text("-".into()),
        };
        table.row(vec![
            Cell::Text((i + 1).to_string()),
            count(|t| t.conversations_checked),
            count(|t| t.conversations_clean),
            count(|t| t.conversations_with_collateral),
            count(|t| t.collateral),
            count(|t| t.missing),
            count(|t| t.different),
        ]);
    }
    let mut section = Section::new("state-check", title)
        .text(format!(
            "Per {unit}, the databases the predictions left are compared with those the gold calls leave: collateral writes went where the gold calls wrote nothing, missing ones were not made, different ones wrote another value. It changes none of the figures above."
        ))
        .table(table);
    if !differing.is_empty() {
        let mut places = Table {
            columns: vec![
                Column::text("Run"),
                Column::text(&capitalised(unit)),
                Column::text("Where the databases differ"),
            ],
            rows: Vec::new(),
        };
        for (run, name, where_) in differing {
            places.row(vec![
                Cell::Text(run.to_string()),
                Cell::Code(name),
                Cell::Text(where_),
            ]);
        }
        section = section.table(places);
    }
    section
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

/// The units whose outcome differs between runs: `rows` holds each such
/// unit's name and its outcome in every run (None where a run lacks it).
pub fn differs(
    title: &str,
    unit_heading: &str,
    runs: usize,
    rows: Vec<(String, Vec<Option<String>>)>,
    alike: &str,
) -> Section {
    let id = "differs";
    if runs < 2 {
        return Section::not_applicable(id, title, "one run has nothing to differ from");
    }
    if rows.is_empty() {
        return Section::new(id, title).text(alike);
    }
    let mut table = Table {
        columns: std::iter::once(Column::text(unit_heading))
            .chain((1..=runs).map(|i| Column::text(&format!("Run {i}"))))
            .collect(),
        rows: Vec::new(),
    };
    for (name, outcomes) in rows {
        let mut row = vec![Cell::Code(name)];
        row.extend(
            outcomes
                .into_iter()
                .map(|o| Cell::Text(o.unwrap_or_else(|| "-".into()))),
        );
        table.row(row);
    }
    Section::new(id, title).table(table)
}

/// Each run's failed units: a count a run, then the table of them (left
/// out when none failed).
pub fn failures(title: &str, counts: Vec<String>, table: Table) -> Section {
    Section::new("failures", title)
        .list(counts)
        .table_if_any(table)
}

/// What each run could not evaluate, and why.
pub fn not_evaluated(runs: &[&[Failure]], unit: &str) -> Section {
    let title = "Not evaluated";
    if runs.iter().all(|r| r.is_empty()) {
        return Section::new("not-evaluated", title)
            .text(format!("Every {unit} of every run was evaluated."));
    }
    let mut table = Table {
        columns: vec![
            Column::text("Run"),
            Column::text("File"),
            Column::text("Why"),
        ],
        rows: Vec::new(),
    };
    for (i, failures) in runs.iter().enumerate() {
        for f in *failures {
            table.row(vec![
                Cell::Text((i + 1).to_string()),
                Cell::Code(f.file.clone()),
                Cell::Text(f.error.clone()),
            ]);
        }
    }
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
    let mut table = Table {
        columns: [
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
        ]
        .iter()
        .map(|c| Column::text(c))
        .collect(),
        rows: Vec::new(),
    };
    for (i, p) in runs.iter().enumerate() {
        let Some(p) = p else {
            let mut row = vec![Cell::Text((i + 1).to_string())];
            row.extend((1..11).map(|_| Cell::Text("-".into())));
            table.row(row);
            continue;
        };
        let short = |s: &str| s[..s.len().min(12)].to_string();
        let mut asked: Vec<String> = p.model_requested.iter().cloned().collect();
        asked.extend(p.user_model_requested.iter().map(|m| format!("{m} (user)")));
        let mut answered = p.models_reported.clone();
        answered.extend(p.user_models_reported.iter().map(|m| format!("{m} (user)")));
        let words = |v: Vec<String>| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(", ")
            }
        };
        table.row(vec![
            Cell::Text((i + 1).to_string()),
            Cell::Text(p.talkforge_version.clone()),
            Cell::Text(p.date.clone()),
            Cell::Text(p.suite.clone()),
            Cell::Text(p.dataset.files.to_string()),
            Cell::Code(p.dataset.sha256.as_deref().map_or("-".into(), short)),
            Cell::Code(short(&p.databases.sha256)),
            Cell::Code(p.predictor.clone()),
            Cell::Text(words(asked)),
            Cell::Text(words(answered)),
            Cell::Text(words(
                p.prompt_templates
                    .iter()
                    .map(|(name, sha)| format!("{name} ({})", short(sha)))
                    .collect(),
            )),
        ]);
    }
    Section::new("provenance", title).table(table)
}

/// The tokens each run's models used, per model and role (not
/// applicable when no run asked a model: oracle and replay runs use none).
pub fn usage(runs: &[&[ModelUsage]]) -> Section {
    let title = "Tokens used";
    if runs.iter().all(|r| r.is_empty()) {
        return Section::not_applicable("usage", title, "no run asked a model");
    }
    let mut table = Table::new(
        "Run",
        &[
            "Requests",
            "Cached",
            "Prompt tokens",
            "Completion tokens",
            "Total tokens",
            "Cached replies' tokens",
            "Without usage",
        ],
    );
    table.columns.insert(1, Column::text("Model"));
    let count = |n: u64| Cell::Count(n as usize);
    for (i, usage) in runs.iter().enumerate() {
        let run = Cell::Text((i + 1).to_string());
        if usage.is_empty() {
            let mut row = vec![run.clone(), Cell::Text("no model was asked".into())];
            row.extend((0..7).map(|_| Cell::Text("-".into())));
            table.row(row);
        }
        for u in *usage {
            table.row(vec![
                run.clone(),
                Cell::Text(crate::llm::usage::who(u)),
                count(u.requests),
                count(u.cached),
                count(u.prompt_tokens),
                count(u.completion_tokens),
                count(u.total_tokens),
                count(u.cached_total_tokens),
                count(u.without_usage),
            ]);
        }
    }
    Section::new("usage", title)
            .text(
                "The tokens each model used, as its server reported them (`usage`). The token columns are what this run spent on the requests it sent; a reply taken from the cache cost nothing in this run, and what the cached replies cost when first asked is shown apart. Replies without usage (a server that sends none, a cache entry older than talkforge keeping it) are counted but add no tokens.",
            )
        .table(table)
}
