//! Runs of whole conversations side by side (`talkforge report`): one
//! Table 1 (models, documentation ablations, API modes), with Table 2's
//! shares per run, the settings, and the tools that fail most; the
//! shared sections are [`crate::report::runs`]'.

use std::path::Path;

use serde_json::{json, Value};

use super::outcome::ToolTally;
use super::output::RunInfo;
use super::summary::{Conversations, Rates};
use crate::report::runs::{by_run, chart, per_run, Kind, Unit, Words};
use crate::report::{Cell, Chart, Scale, Section};
use crate::run::summary::RunSummary;

/// A run of whole conversations, as `report` reads it.
pub type Run = crate::report::runs::Run<Conversations>;

impl Kind for Conversations {
    type Settings = RunInfo;
    const NAME: &'static str = "conversations";
    const UNIT: &'static str = "conversation";
    const WHAT: &'static str = "a run of whole conversations";
    const WORDS: Words = Words {
        failures: "Failed conversations",
        failed: "failed",
        failure_columns: &["Conversation", "Subset", "Recall", "Why"],
        differs: "outcome",
        passed_key: "success",
        no_state_check: None,
        unit_lists: &["per_conversation"],
    };

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

    /// Conversations are told apart across runs by their file's name.
    fn units(run: &Run) -> Vec<Unit<'_>> {
        let units = run.summary.per_conversation.iter().map(|c| {
            let name = Path::new(&c.file).file_name().unwrap_or_default();
            let name = name.to_string_lossy().into_owned();
            let why = c.why_failed.iter().map(|w| {
                let known = if w.known.is_some() {
                    " (known erratum)"
                } else {
                    ""
                };
                format!("{}{known}", w.message)
            });
            Unit {
                key: json!({ "file": name }),
                name,
                passed: c.metrics.success,
                outcome: if c.metrics.success { "pass" } else { "fail" }.into(),
                state: c.state_check.as_ref(),
                failure: vec![
                    Cell::Code(c.file.clone()),
                    Cell::Text(c.subset.clone()),
                    Cell::Percent(Some(c.metrics.recall)),
                    Cell::Text(why.collect::<Vec<_>>().join("; ")),
                ],
            }
        });
        units.collect()
    }

    fn drawn(runs: &[Run]) -> (String, Vec<String>) {
        super::html::failed_dialogues(runs)
    }

    fn run_document(r: &Run) -> Value {
        let s = &r.summary;
        json!({
            "rates": s.rates,
            "failed": s.per_conversation.iter().filter(|c| !c.metrics.success).map(|c| &c.file).collect::<Vec<_>>(),
        })
    }
}

/// Table 1 with its charts.
fn results(runs: &[Run]) -> Section {
    let heads = [
        "Subset",
        "Conversations",
        "Success rate",
        "Soft success rate",
        "Precision",
        "Recall",
        "Action precision",
        "Incorrect-action rate",
    ];
    let table = by_run(runs, &heads, |run| {
        let s = &run.summary;
        let subsets = s.by_subset.iter().map(|(n, b)| (n.as_str(), &b.rates));
        let all = (s.by_subset.len() != 1).then_some(("all", &s.rates));
        subsets.chain(all).map(|(subset, r)| {
            let rates = [
                r.success_rate,
                r.soft_success_rate,
                r.precision,
                r.recall,
                r.action_precision,
                r.incorrect_action_rate,
            ];
            let head = [Cell::Text(subset.into()), Cell::Count(r.conversations)];
            head.into_iter().chain(rates.map(Cell::Percent)).collect()
        })
    });
    Section::new("results", "Results by run and subset (Table 1)")
        .text("Rates in percent, pooled as `talkforge evaluate` pools them.")
        .table(table)
        .charts(charts(runs))
}

/// Table 2: each error type's share per run.
fn errors(runs: &[Run]) -> Section {
    let table = per_run(runs, |r| {
        let (s, e) = (&r.summary, &r.summary.error_types);
        let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
        vec![
            (
                "Failed conversations",
                Cell::Count(s.rates.conversations - s.totals.successes),
            ),
            (
                "Premature tool call",
                Cell::Fraction(e.premature_tool_call, total),
            ),
            ("Faulty planning", Cell::Fraction(e.faulty_planning, total)),
            (
                "Incorrect invocation",
                Cell::Fraction(e.incorrect_invocation, total),
            ),
        ]
    });
    Section::new("error-types", "Why conversations failed (Table 2)")
        .text("Each error type's share of the errors counted, in percent (count/errors).")
        .table(table)
}

/// What each run was made with.
fn settings(runs: &[Run]) -> Section {
    let or_dash = |v: Option<String>| Cell::Text(v.unwrap_or_else(|| "-".into()));
    let docs = |blank: bool| if blank { "blanked" } else { "sent" }.to_string();
    let table = per_run(runs, |r| {
        let (s, p) = (&r.summary, &r.summary.settings.settings);
        let temperature = match (&p.model, p.temperature) {
            (_, Some(t)) => t.to_string(),
            (Some(_), None) => "server default".into(),
            (None, None) => "-".into(),
        };
        let stopped = format!(
            "{} of {}",
            s.totals.turns_stopped_by_bound, s.totals.assistant_turns
        );
        vec![
            ("Predictor", Cell::Code(s.predictor.clone())),
            ("Model", or_dash(p.model.clone())),
            ("API mode", or_dash(p.api_mode.clone())),
            ("Tool docs", or_dash(p.no_docs.map(docs))),
            ("Temperature", Cell::Text(temperature)),
            ("Predictions", or_dash(p.predictions.clone())),
            ("Similarity", Cell::Text(s.settings.similarity.clone())),
            (
                "Calls per turn at most",
                Cell::Count(s.settings.max_calls_per_turn),
            ),
            ("Turns stopped there", Cell::Text(stopped)),
            ("Resumed", Cell::Count(s.resumed)),
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
    let heads = [
        "Tool",
        "Gold calls",
        "Missed",
        "Predicted",
        "Unmatched predictions",
        "Bad actions",
    ];
    let table = by_run(runs, &heads, |run| {
        let tools = run.summary.tools.iter();
        let mut tools: Vec<_> = tools
            .filter(|(_, t)| t.missed + t.bad_actions + t.unmatched_predictions > 0)
            .collect();
        tools.sort_by(|a, b| {
            let key = |t: &ToolTally| (t.missed + t.bad_actions, t.unmatched_predictions);
            key(b.1).cmp(&key(a.1)).then(a.0.cmp(b.0))
        });
        tools.into_iter().take(WORST_TOOLS).map(|(name, t)| {
            let counts = [
                t.gold_calls,
                t.missed,
                t.predicted,
                t.unmatched_predictions,
                t.bad_actions,
            ];
            std::iter::once(Cell::Text(name.clone()))
                .chain(counts.map(Cell::Count))
                .collect()
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
    let subsets = runs
        .iter()
        .flat_map(|r| r.summary.by_subset.keys().cloned());
    let subsets: Vec<String> = subsets
        .collect::<indexmap::IndexSet<_>>()
        .into_iter()
        .collect();
    let per_subset = |title: &str, f: fn(&Rates) -> Option<f64>| {
        chart(runs, title, subsets.clone(), Scale::Percent, |r, i| {
            let rates = runs[r].summary.by_subset.get(&subsets[i]).map(|b| &b.rates);
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
    let mut tools: indexmap::IndexMap<&str, usize> = Default::default();
    for run in runs {
        for (name, t) in &run.summary.tools {
            *tools.entry(name).or_default() += t.gold_calls + t.predicted;
        }
    }
    let mut tools: Vec<_> = tools.into_iter().collect();
    tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let names: Vec<String> = tools
        .iter()
        .take(CHART_TOOLS)
        .map(|(n, _)| n.to_string())
        .collect();
    let per_tool = |title: &str, f: fn(&ToolTally) -> (usize, usize)| {
        chart(runs, title, names.clone(), Scale::Percent, |r, i| {
            let of = runs[r].summary.tools.get(&names[i]).map(f);
            let share = of.filter(|(_, n)| *n > 0);
            (share.map(|(k, n)| k as f64 / n as f64), of.map(|(_, n)| n))
        })
    };
    if !names.is_empty() {
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
    let types = types.iter().map(|t| t.to_string()).collect();
    let errors = chart(
        runs,
        "Error types per run (Table 2)",
        types,
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
    charts.push(errors);
    charts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::report::tests::sample_summary;

    /// A run as `report` reads it back from what evaluate writes.
    fn run(dir: &str, model: &str) -> Run {
        let text = serde_json::to_string(&sample_summary(model)).unwrap();
        Run::parse(Path::new(dir), &text).unwrap()
    }

    #[test]
    fn a_summary_reads_back_and_two_runs_compare_in_markdown() {
        let runs = [run("runs/x", "gpt-x"), run("runs/y", "gpt-y")];
        assert_eq!(runs[0].label, "openai:gpt-x");
        assert_eq!(runs[0].summary.per_conversation.len(), 2);
        assert_eq!(runs[0].summary.per_conversation[1].why_failed.len(), 2);
        assert!(crate::report::runs::same_dataset(&runs));
        let report = crate::report::runs::report(&runs);
        insta::assert_snapshot!(report.markdown().unwrap());
    }
}
