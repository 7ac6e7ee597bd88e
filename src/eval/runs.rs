//! Several evaluation folders side by side (`talkforge report`): each
//! run's `summary.json` read back, checked to be of one kind and over the
//! same dataset; runs of whole conversations put in one Table 1 (models,
//! documentation ablations, API modes), with Table 2's shares per run and
//! the conversations whose outcome differs between runs.

use std::path::Path;

use serde_json::{json, Value};

use super::outcome::{ConversationResult, ToolTally};
use super::output::RunInfo;
use super::summary::{Conversations, Rates};
use crate::report::runs::{chart, mixed, run_row, run_rows, state_rows, unit_rows, Kind, Shape};
use crate::report::{sections, Cell, Chart, Scale, Section, Table};
use crate::run::summary::RunSummary;

/// A run of whole conversations, as `report` reads it.
pub type Run = crate::report::runs::Run<Conversations>;

/// The conversations (by file name) that succeeded in some runs and
/// failed in others, with each run's outcome (null where a run lacks it).
pub fn outcome_differs(runs: &[Run]) -> Vec<(String, Vec<Option<bool>>)> {
    let name = |c: &ConversationResult| {
        let name = Path::new(&c.file).file_name().unwrap_or_default();
        name.to_string_lossy().into_owned()
    };
    let rows = unit_rows(runs, |r| &r.summary.per_conversation, name);
    mixed(rows, |c| c.metrics.success)
        .into_iter()
        .map(|(file, row)| {
            (
                file,
                row.iter().map(|c| c.map(|c| c.metrics.success)).collect(),
            )
        })
        .collect()
}

impl Kind for Conversations {
    type Settings = RunInfo;
    const NAME: &'static str = "conversations";
    const UNIT: &'static str = "conversation";
    const FILE: &'static str = "conversation";
    const WHAT: &'static str = "a run of whole conversations (`per_conversation`)";

    fn shape(summary: &Value) -> Option<Shape> {
        summary.get("per_conversation")?;
        Some(Shape {
            words: "a run of whole conversations".into(),
            table: String::new(),
        })
    }

    /// The predictor and the settings that tell runs apart.
    fn label(s: &RunSummary<Self, RunInfo>) -> Vec<String> {
        let p = &s.settings.settings;
        let mut parts = vec![s.predictor.clone()];
        if let Some(mode) = &p.api_mode {
            parts.push(format!("api {mode}"));
        }
        if p.no_docs == Some(true) {
            parts.push("no docs".into());
        }
        if let Some(t) = p.temperature {
            parts.push(format!("T={t}"));
        }
        if s.settings.similarity != "lexical" {
            parts.push(s.settings.similarity.clone());
        }
        parts
    }

    fn title(_: &[Run]) -> String {
        "Evaluation runs compared".to_string()
    }

    /// Settings, Tables 1 and 2 with charts, and the tools that fail most.
    fn tables(runs: &[Run]) -> Vec<Section> {
        vec![settings(runs), results(runs), errors(runs), tools(runs)]
    }

    /// The conversations whose worlds ended otherwise than the gold calls'.
    fn state_differs(
        runs: &[Run],
    ) -> std::result::Result<Vec<(usize, String, String)>, &'static str> {
        Ok(state_rows(runs, |run| {
            let units = run.summary.per_conversation.iter();
            units.map(|c| (c.file.as_str(), c.state_check.as_ref()))
        }))
    }

    fn differs(runs: &[Run]) -> Section {
        let differs = outcome_differs(runs)
            .into_iter()
            .map(|(file, outcomes)| {
                let outcomes = outcomes
                    .into_iter()
                    .map(|o| o.map(|ok| if ok { "pass" } else { "fail" }.to_string()))
                    .collect();
                (file, outcomes)
            })
            .collect();
        sections::differs(
            "Conversations whose outcome differs between runs",
            "Conversation",
            runs.len(),
            differs,
            "None: every conversation succeeded or failed in every run alike.",
        )
    }

    fn failures(runs: &[Run]) -> Section {
        failures(runs)
    }

    fn run_document(r: &Run) -> Value {
        let s = &r.summary;
        json!({
            "predictor": s.predictor,
            "rates": s.rates,
            "by_subset": s.by_subset,
            "error_types": s.error_types,
            "failed": s.per_conversation.iter().filter(|c| !c.metrics.success).map(|c| &c.file).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[Run]) -> Value {
        json!({
            "outcome_differs": outcome_differs(runs)
                .into_iter()
                .map(|(file, outcomes)| json!({"file": file, "success": outcomes}))
                .collect::<Vec<_>>(),
        })
    }
}

/// Table 1 with its charts.
fn results(runs: &[Run]) -> Section {
    let mut table = Table::with(
        &["Run", "Subset"],
        &[
            "Conversations",
            "Success rate",
            "Soft success rate",
            "Precision",
            "Recall",
            "Action precision",
            "Incorrect-action rate",
        ],
    );
    run_rows(&mut table, runs, |run| {
        let s = &run.summary;
        let mut rows: Vec<(&str, &Rates)> = s
            .by_subset
            .iter()
            .map(|(n, b)| (n.as_str(), &b.rates))
            .collect();
        if s.by_subset.len() != 1 {
            rows.push(("all", &s.rates));
        }
        let rate = Cell::Percent;
        rows.into_iter()
            .map(|(subset, r)| {
                vec![
                    Cell::Text(subset.to_string()),
                    Cell::Count(r.conversations),
                    rate(r.success_rate),
                    rate(r.soft_success_rate),
                    rate(r.precision),
                    rate(r.recall),
                    rate(r.action_precision),
                    rate(r.incorrect_action_rate),
                ]
            })
            .collect::<Vec<_>>()
    });
    Section::new("results", "Results by run and subset (Table 1)")
        .text("Rates in percent, pooled as `talkforge evaluate` pools them.")
        .table(table)
        .charts(charts(runs))
}

/// Table 2: each error type's share per run.
fn errors(runs: &[Run]) -> Section {
    let mut errors = Table::new(
        "Run",
        &[
            "Failed conversations",
            "Premature tool call",
            "Faulty planning",
            "Incorrect invocation",
        ],
    );
    run_row(&mut errors, runs, |run| {
        let s = &run.summary;
        let e = &s.error_types;
        let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
        vec![
            Cell::Count(s.rates.conversations - s.successes),
            Cell::Fraction(e.premature_tool_call, total),
            Cell::Fraction(e.faulty_planning, total),
            Cell::Fraction(e.incorrect_invocation, total),
        ]
    });
    Section::new("error-types", "Why conversations failed (Table 2)")
        .text("Each error type's share of the errors counted, in percent (count/errors).")
        .table(errors)
}

/// What each run was made with.
fn settings(runs: &[Run]) -> Section {
    let mut table = Table::with(
        &[
            "Run",
            "Predictor",
            "Model",
            "API mode",
            "Tool docs",
            "Temperature",
            "Predictions",
            "Similarity",
        ],
        &["Calls per turn at most", "Turns stopped there", "Resumed"],
    );
    let or_dash = |v: Option<String>| Cell::Text(v.unwrap_or_else(|| "-".into()));
    run_row(&mut table, runs, |run| {
        let s = &run.summary;
        let p = &s.settings.settings;
        vec![
            Cell::Code(s.predictor.clone()),
            or_dash(p.model.clone()),
            or_dash(p.api_mode.clone()),
            or_dash(
                p.no_docs
                    .map(|blank| if blank { "blanked" } else { "sent" }.into()),
            ),
            match (&p.model, p.temperature) {
                (_, Some(t)) => Cell::Text(t.to_string()),
                (Some(_), None) => Cell::Text("server default".into()),
                (None, None) => Cell::Text("-".into()),
            },
            or_dash(p.predictions.clone()),
            Cell::Text(s.settings.similarity.clone()),
            Cell::Count(s.settings.max_calls_per_turn),
            Cell::Text(format!(
                "{} of {}",
                s.turns_stopped_by_bound, s.assistant_turns
            )),
            Cell::Count(s.resumed),
        ]
    });
    Section::new("settings", "Settings")
        .text("A resumed conversation was taken from an earlier run with the same settings and inputs.")
        .table(table)
}

/// Tools listed per run, at most, where they fail most.
const WORST_TOOLS: usize = 15;

/// Each run's tools that fail most: missed gold calls and bad actions.
fn tools(runs: &[Run]) -> Section {
    let mut table = Table::with(
        &["Run", "Tool"],
        &[
            "Gold calls",
            "Missed",
            "Predicted",
            "Unmatched predictions",
            "Bad actions",
        ],
    );
    run_rows(&mut table, runs, |run| {
        let mut tools: Vec<_> = run
            .summary
            .tools
            .iter()
            .filter(|(_, t)| t.missed + t.bad_actions + t.unmatched_predictions > 0)
            .collect();
        tools.sort_by(|a, b| {
            let key = |t: &ToolTally| t.missed + t.bad_actions;
            key(b.1)
                .cmp(&key(a.1))
                .then(b.1.unmatched_predictions.cmp(&a.1.unmatched_predictions))
                .then(a.0.cmp(b.0))
        });
        tools.into_iter().take(WORST_TOOLS).map(|(name, t)| {
            vec![
                Cell::Text(name.clone()),
                Cell::Count(t.gold_calls),
                Cell::Count(t.missed),
                Cell::Count(t.predicted),
                Cell::Count(t.unmatched_predictions),
                Cell::Count(t.bad_actions),
            ]
        })
    });
    let section = Section::new("tools", "Tools that fail most");
    if table.rows.is_empty() {
        return section.text("No tool failed.");
    }
    section.table(table)
}

/// Tools shown in the per-tool charts, at most (the most called).
const CHART_TOOLS: usize = 40;

fn charts(runs: &[Run]) -> Vec<Chart> {
    // Subsets in the order first seen.
    let mut subsets: Vec<String> = Vec::new();
    for run in runs {
        for name in run.summary.by_subset.keys() {
            if !subsets.contains(name) {
                subsets.push(name.clone());
            }
        }
    }
    let per_subset = |title: &str, f: fn(&Rates) -> Option<f64>| {
        chart(runs, title, subsets.clone(), Scale::Percent, |r, i| {
            let rates = runs[r].summary.by_subset.get(&subsets[i]);
            let rates = rates.map(|b| &b.rates);
            (rates.and_then(f), rates.map(|r| r.conversations))
        })
    };
    let mut charts = vec![
        per_subset("Success rate by subset", |r| r.success_rate),
        per_subset("Incorrect-action rate by subset", |r| {
            r.incorrect_action_rate
        }),
    ];
    // The tools called or expected most, across the runs.
    let mut tools: Vec<(String, usize)> = Vec::new();
    for run in runs {
        for (name, t) in &run.summary.tools {
            match tools.iter_mut().find(|(n, _)| n == name) {
                Some((_, n)) => *n += t.gold_calls + t.predicted,
                None => tools.push((name.clone(), t.gold_calls + t.predicted)),
            }
        }
    }
    tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    tools.truncate(CHART_TOOLS);
    let tool_names: Vec<String> = tools.into_iter().map(|(n, _)| n).collect();
    let per_tool = |title: &str, f: fn(&ToolTally) -> (usize, usize)| {
        chart(runs, title, tool_names.clone(), Scale::Percent, |r, i| {
            let of = runs[r].summary.tools.get(&tool_names[i]).map(f);
            let share = of.filter(|(_, n)| *n > 0);
            (share.map(|(k, n)| k as f64 / n as f64), of.map(|(_, n)| n))
        })
    };
    if !tool_names.is_empty() {
        charts.push(per_tool("Gold calls matched, by tool", |t| {
            (t.gold_calls - t.missed, t.gold_calls)
        }));
        charts.push(per_tool("Bad actions per call made, by tool", |t| {
            (t.bad_actions, t.predicted)
        }));
    }
    let types = [
        "Premature tool call",
        "Faulty planning",
        "Incorrect invocation",
    ];
    let errors = chart(
        runs,
        "Error types per run (Table 2)",
        types.iter().map(|t| t.to_string()).collect(),
        Scale::Plain,
        |r, i| {
            let e = &runs[r].summary.error_types;
            let n = [
                e.premature_tool_call,
                e.faulty_planning,
                e.incorrect_invocation,
            ];
            (Some(n[i] as f64), None)
        },
    );
    charts.push(errors.uncounted());
    charts
}

/// Each run's failed conversations with their reasons (and, on a page,
/// each drawn as a dialogue).
fn failures(runs: &[Run]) -> Section {
    let mut table = Table::with(&["Run", "Conversation", "Subset"], &["Recall"]);
    table.columns.push(crate::report::Column::text("Why"));
    let (drawn, anchors) = super::html::failed_dialogues(runs);
    let mut counts = Vec::new();
    let mut number = 0;
    run_rows(&mut table, runs, |run| {
        number += 1;
        let conversations = &run.summary.per_conversation;
        let failed = conversations.iter().filter(|c| !c.metrics.success).count();
        counts.push(format!(
            "run {number}: {failed} of {} failed",
            conversations.len()
        ));
        let failed = conversations.iter().enumerate();
        let failed = failed.filter(|(_, c)| !c.metrics.success);
        failed
            .map(|(c_index, c)| {
                let why: Vec<String> = c
                    .why_failed
                    .iter()
                    .map(|w| {
                        let known = if w.known.is_some() {
                            " (known erratum)"
                        } else {
                            ""
                        };
                        format!("{}{known}", w.message)
                    })
                    .collect();
                let anchor = super::html::anchor(number, c_index);
                let name = if anchors.contains(&anchor) {
                    Cell::CodeLink(c.file.clone(), anchor)
                } else {
                    Cell::Code(c.file.clone())
                };
                vec![
                    name,
                    Cell::Text(c.subset.clone()),
                    Cell::Percent(Some(c.metrics.recall)),
                    Cell::Text(why.join("; ")),
                ]
            })
            .collect::<Vec<_>>()
    });
    let mut section = sections::failures("Failed conversations", counts, table);
    if !drawn.is_empty() {
        section
            .blocks
            .push(crate::report::Block::Html { html: drawn });
    }
    section
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::report::tests::sample_summary;

    /// A run as `report` reads it back from what evaluate writes.
    fn run(dir: &str, model: &str) -> Run {
        let text = serde_json::to_string(&sample_summary(model)).unwrap();
        Run::parse(Path::new(dir), Path::new("summary.json"), &text).unwrap()
    }

    #[test]
    fn a_summary_reads_back_and_two_runs_compare_in_markdown() {
        let runs = [run("runs/x", "gpt-x"), run("runs/y", "gpt-y")];
        assert_eq!(runs[0].label, "openai:gpt-x");
        assert_eq!(runs[0].summary.per_conversation.len(), 2);
        assert_eq!(runs[0].summary.per_conversation[1].why_failed.len(), 2);
        assert!(crate::report::runs::same_dataset(&runs));
        let report = crate::report::runs::report(&runs);
        insta::assert_snapshot!(crate::report::markdown::render(&report).unwrap());
    }
}
