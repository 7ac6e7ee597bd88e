//! `report.md`: the paper's tables for one run.

use std::fmt::Write;

use super::markdown as md;
use super::output::PredictorSettings;
use super::summary::{Rates, StateTotals, Summary};
use crate::suite::state::{StateCheck, WriteKind};

/// How many tools the "fail most" table lists.
const WORST_TOOLS: usize = 10;

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn rates_row(name: &str, r: &Rates) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} |\n",
        r.conversations,
        pct(r.success_rate),
        pct(r.soft_success_rate),
        pct(r.precision),
        pct(r.recall),
        pct(r.action_precision),
        pct(r.incorrect_action_rate)
    )
}

/// Table 1's header, after the first column's name.
pub const TABLE1_HEADER: &str = "| Conversations | Success rate | Soft success rate | Precision | Recall | Action precision | Incorrect-action rate |";
pub const TABLE1_RULE: &str = "|---|---:|---:|---:|---:|---:|---:|---:|";

/// `n` as a share of `total`, in percent ("-" for no total).
fn share(n: usize, total: usize) -> String {
    if total == 0 {
        "-".to_string()
    } else {
        pct(n as f64 / total as f64)
    }
}

/// The predictor's settings in words, in parentheses; empty for none.
fn predictor_details(p: &PredictorSettings) -> String {
    let mut parts = Vec::new();
    if let Some(model) = &p.model {
        parts.push(format!("model {}", md::code(model)));
    }
    if let Some(mode) = &p.api_mode {
        parts.push(format!("API mode {}", md::code(mode)));
    }
    match p.no_docs {
        Some(true) => parts.push("tool documentation blanked".to_string()),
        Some(false) => parts.push("tool documentation sent".to_string()),
        None => {}
    }
    if p.model.is_some() {
        parts.push(match p.temperature {
            Some(t) => format!("temperature {t}"),
            None => "the server's default temperature".to_string(),
        });
    }
    if let Some(file) = &p.predictions {
        parts.push(format!("predictions {}", md::code(file)));
    }
    if let Some(sha) = &p.predictions_sha256 {
        parts.push(format!("SHA-256 `{sha}`"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// Render the report.
pub fn render(summary: &Summary) -> String {
    let mut out = String::new();
    let s = summary;
    let _ = writeln!(out, "# Evaluation report\n");
    let _ = writeln!(
        out,
        "Predictor `{}`{}, text similarity `{}`, at most {} calls per assistant turn.",
        s.predictor,
        predictor_details(&s.settings.settings),
        s.similarity,
        s.max_calls_per_turn
    );
    if s.resumed > 0 {
        let _ = writeln!(
            out,
            "{} of the {} {} taken from an earlier run with the same settings and inputs.",
            s.resumed,
            crate::words::count(s.rates.conversations, "conversation"),
            crate::words::verb(s.resumed, "was", "were"),
        );
    }
    if !s.failures.is_empty() {
        let _ = writeln!(
            out,
            "\n{} could not be evaluated and {} not counted:\n",
            crate::words::count(s.failures.len(), "conversation"),
            crate::words::verb(s.failures.len(), "is", "are")
        );
        for f in &s.failures {
            let _ = writeln!(out, "- {}", md::text(&f.error.to_string()));
        }
    }
    out.push('\n');

    let _ = writeln!(out, "## Results by subset (the paper's Table 1)\n");
    out.push_str("Rates in percent. Precision, recall, action precision and incorrect-action rate pool the calls of all conversations; success rate is the share of conversations that recall every gold call without a bad action, soft success rate the mean of recall × (1 − incorrect-action rate) over conversations.\n\n");
    let _ = writeln!(out, "| Subset {TABLE1_HEADER}\n{TABLE1_RULE}");
    for (name, subset) in &s.by_subset {
        out.push_str(&rates_row(&md::text(name), &subset.rates));
    }
    if s.by_subset.len() != 1 {
        out.push_str(&rates_row("**all**", &s.rates));
    }
    let _ = writeln!(
        out,
        "\n{} predictions, {} gold calls, {} matched; {} actions, {} bad; soft success rate {}.\n",
        s.predictions,
        s.ground_truths,
        s.matches,
        s.actions,
        s.bad_actions,
        pct(s.rates.soft_success_rate)
    );

    let failed = s.rates.conversations - s.successes;
    let _ = writeln!(out, "## Why conversations failed (the paper's Table 2)\n");
    let _ = writeln!(
        out,
        "Over the {}, as the reference's error analysis counts them: a premature tool call is one bad action in a turn without gold calls; a turn with faulty planning calls tools the gold turn does not (or not the ones it does, or too often); a turn with an incorrect invocation calls the right tools with wrong arguments. Shares are of all the errors counted.\n",
        crate::words::count(failed, "failed conversation")
    );
    out.push_str("| Error type | Count | Share (%) |\n|---|---:|---:|\n");
    let e = &s.error_types;
    let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
    for (name, n) in [
        ("Premature tool call", e.premature_tool_call),
        ("Faulty planning", e.faulty_planning),
        ("Incorrect invocation", e.incorrect_invocation),
    ] {
        let _ = writeln!(out, "| {name} | {n} | {} |", share(n, total));
    }
    let _ = writeln!(out, "| **all** | {total} | {} |", share(total, total));

    let _ = writeln!(out, "\n## Tools that fail most\n");
    let mut tools: Vec<_> = s
        .tools
        .iter()
        .filter(|(_, t)| t.missed + t.bad_actions + t.unmatched_predictions > 0)
        .collect();
    tools.sort_by(|a, b| {
        let key = |t: &super::outcome::ToolTally| t.missed + t.bad_actions;
        key(b.1)
            .cmp(&key(a.1))
            .then(b.1.unmatched_predictions.cmp(&a.1.unmatched_predictions))
            .then(a.0.cmp(b.0))
    });
    if tools.is_empty() {
        out.push_str("No tool failed.\n");
    } else {
        out.push_str(
            "| Tool | Gold calls | Missed | Predicted | Unmatched predictions | Bad actions |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|\n");
        for (name, t) in tools.into_iter().take(WORST_TOOLS) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                md::text(name),
                t.gold_calls,
                t.missed,
                t.predicted,
                t.unmatched_predictions,
                t.bad_actions
            );
        }
    }

    if let Some(trials) = &s.trials {
        pass_hat(&mut out, trials);
    }
    failed_conversations(&mut out, s);
    state_check(&mut out, s);

    let _ = writeln!(out, "\n## Call bound\n");
    let _ = writeln!(
        out,
        "{} of {} stopped after {}.",
        s.turns_stopped_by_bound,
        crate::words::count(s.assistant_turns, "assistant turn"),
        crate::words::count(s.max_calls_per_turn, "call")
    );
    if let Some(p) = &s.provenance {
        provenance_section(&mut out, p);
    }
    out
}

/// The `## Provenance` section (also in the reports of runs scored by
/// samples).
pub fn provenance_section(out: &mut String, p: &super::provenance::Provenance) {
    provenance_section_of(out, p, "dialogue");
}

/// The `## Provenance` section of a run whose dataset files are each a
/// `unit` ("dialogue", "scenario").
pub fn provenance_section_of(out: &mut String, p: &super::provenance::Provenance, unit: &str) {
    let _ = writeln!(out, "\n## Provenance\n");
    let _ = writeln!(
        out,
        "- talkforge {}, run finished {}; suite `{}`",
        p.talkforge_version, p.date, p.suite
    );
    let _ = writeln!(
        out,
        "- dataset: {}, SHA-256 `{}` (each file's in summary.json)",
        crate::words::count(p.dataset.files, unit),
        p.dataset.sha256
    );
    let _ = writeln!(
        out,
        "- databases `{}`, SHA-256 `{}`:",
        p.databases.folder, p.databases.sha256
    );
    for (name, sha) in &p.databases.files {
        let _ = writeln!(out, "  - `{name}` `{sha}`");
    }
    for errata in &p.errata {
        let _ = writeln!(
            out,
            "- errata {} `{}`",
            md::code(&errata.file),
            errata.sha256
        );
    }
    let _ = writeln!(out, "- predictor {}", md::code(&p.predictor));
    if let Some(model) = &p.model_requested {
        let reported = if p.models_reported.is_empty() {
            "no reply named a model".to_string()
        } else {
            let names: Vec<String> = p.models_reported.iter().map(|m| md::code(m)).collect();
            format!("the server reported {}", names.join(", "))
        };
        let _ = writeln!(out, "- model requested {}; {reported}", md::code(model));
    }
    if let Some(model) = &p.user_model_requested {
        let reported = if p.user_models_reported.is_empty() {
            "no reply named a model".to_string()
        } else {
            let names: Vec<String> = p.user_models_reported.iter().map(|m| md::code(m)).collect();
            format!("the server reported {}", names.join(", "))
        };
        let _ = writeln!(
            out,
            "- user model requested {}; {reported}",
            md::code(model)
        );
    }
    for (name, sha) in &p.prompt_templates {
        let _ = writeln!(out, "- prompt template `{name}` `{sha}`");
    }
}

/// Every failed conversation with its reasons, turn by turn.
fn failed_conversations(out: &mut String, s: &Summary) {
    let failed: Vec<_> = s
        .per_conversation
        .iter()
        .filter(|c| !c.metrics.success)
        .collect();
    let _ = writeln!(out, "\n## Failed conversations\n");
    if failed.is_empty() {
        out.push_str("None.\n");
        return;
    }
    let known = failed
        .iter()
        .flat_map(|c| &c.why_failed)
        .filter(|r| r.known.is_some())
        .count();
    if known > 0 {
        let _ = writeln!(
            out,
            "{} {} on a gold call whose recorded result is a known erratum (marked *known*); the scores count them as the reference does.\n",
            crate::words::count(known, "reason"),
            crate::words::verb(known, "is", "are")
        );
    }
    for c in failed {
        let _ = writeln!(
            out,
            "- {} ({}, recall {}, {}):",
            md::code(&c.file),
            md::text(&c.subset),
            pct(c.metrics.recall),
            crate::words::count(c.metrics.bad_actions, "bad action")
        );
        for reason in &c.why_failed {
            let mark = if reason.known.is_some() {
                " *known*"
            } else {
                ""
            };
            let _ = writeln!(out, "  - {}{mark}", md::text(&reason.message));
        }
    }
}

/// pass^k per subset and overall.
fn pass_hat(out: &mut String, t: &super::passk::Trials) {
    let _ = writeln!(out, "\n## Reliability over {} trials (pass^k)\n", t.trials);
    let _ = writeln!(
        out,
        "pass^k is the chance that all k of k trials of a conversation succeed (tau-bench's measure), estimated from the {} trials as C(c, k) / C(n, k) with c the conversation's successes, in percent, averaged over conversations. The tables above are the first trial's; each trial's are in its `trial-T` folder.\n",
        t.trials
    );
    let ks: Vec<String> = (1..=t.trials).map(|k| format!("pass^{k}")).collect();
    let _ = writeln!(out, "| Subset | Conversations | {} |", ks.join(" | "));
    let _ = writeln!(out, "|---|---:|{}", "---:|".repeat(t.trials));
    let row = |name: &str, p: &super::passk::PassHat| {
        let cells: Vec<String> = p.pass_hat.iter().map(|x| pct(*x)).collect();
        format!(
            "| {} | {} | {} |\n",
            md::text(name),
            p.units,
            cells.join(" | ")
        )
    };
    for (name, p) in &t.by_subset {
        out.push_str(&row(name, p));
    }
    if t.by_subset.len() != 1 {
        out.push_str(&row("**all**", &t.all));
    }
}

/// The state check: totals, then each conversation whose worlds differ.
fn state_check(out: &mut String, s: &Summary) {
    let Some(t) = &s.state_check else { return };
    let _ = writeln!(out, "\n## State check\n");
    let _ = writeln!(
        out,
        "After each assistant turn the world the predictions left is compared with the world the gold calls leave, record by record and item by item: *collateral* is a write the gold calls never made, *missing* a gold write the predictions did not make, *different* a place both wrote differently. It is reported beside the suite's metrics and changes none of them.\n"
    );
    let _ = writeln!(out, "{}.", state_totals(t, "conversation"));
    let differing: Vec<_> = s
        .per_conversation
        .iter()
        .filter_map(|c| Some((c, c.state_check.as_ref().filter(|k| !k.clean())?)))
        .collect();
    if differing.is_empty() {
        return;
    }
    out.push_str("\n| Conversation | Collateral | Missing | Different | Places |\n|---|---:|---:|---:|---|\n");
    for (c, check) in differing {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md::code(&c.file),
            check.collateral,
            check.missing,
            check.different,
            md::text(&state_places(check))
        );
    }
}

/// The state check's totals in words (no final stop), counting `unit`s
/// (conversations, scenarios).
pub fn state_totals(t: &StateTotals, unit: &str) -> String {
    format!(
        "{} checked: {} ended as the gold worlds, {} left collateral damage; {} collateral {}, {} missing, {} different",
        crate::words::count(t.conversations_checked, unit),
        t.conversations_clean,
        t.conversations_with_collateral,
        t.collateral,
        crate::words::noun_for(t.collateral, "write"),
        t.missing,
        t.different
    )
}

/// A conversation's differing places in words, the first five and how
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

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::eval::failure::{Context, FailureKind};
    use crate::eval::outcome::{CallOutcome, ConversationResult, Identity, TurnOutcome};
    use crate::eval::output::RunInfo;
    use crate::eval::provenance::{DatabasesRecord, Dataset, Provenance};
    use crate::suite::protocol::Metrics;

    /// A run of two conversations, one failed, with a fixed provenance.
    pub(crate) fn sample_summary(model: &str) -> Summary {
        let call = |name: &str, matched: bool, bad_action: bool| CallOutcome {
            api_name: name.to_string().into(),
            matched,
            bad_action,
            arguments: Some(std::borrow::Cow::Owned(
                serde_json::json!({"time": if matched {"07:00:00"} else {"08:00:00"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            )),
            exception: None,
        };
        let id = |name: &str, subset: &str| Identity {
            file: format!("data/{subset}/{name}.json"),
            subset: subset.into(),
            name: name.into(),
            conversation_id: name.into(),
        };
        let good = ConversationResult::new(
            id("add", "easy"),
            Metrics::from_counts(1, 1, 1, 1, 1, 0),
            &[TurnOutcome {
                turn: 1,
                has_gold_list: true,
                gold: vec![call("AddAlarm", true, false)],
                predictions: vec![call("AddAlarm", true, false)],
                stopped_by_bound: false,
            }],
            false,
            &Context::default(),
        );
        let mut gold = call("AddAlarm", false, false);
        gold.arguments = Some(std::borrow::Cow::Owned(
            serde_json::json!({"time": "07:00:00"})
                .as_object()
                .unwrap()
                .clone(),
        ));
        let bad = ConversationResult::new(
            id("wake", "hard"),
            Metrics::from_counts(1, 1, 0, 1, 0, 1),
            &[TurnOutcome {
                turn: 3,
                has_gold_list: true,
                gold: vec![gold],
                predictions: vec![call("AddAlarm", false, true)],
                stopped_by_bound: false,
            }],
            false,
            &Context::default(),
        );
        assert_eq!(bad.why_failed[0].kind, FailureKind::MissedGoldCall);
        let info = RunInfo {
            predictor: format!("openai:{model}"),
            settings: crate::suite::predict::PredictorSettings {
                model: Some(model.into()),
                ..Default::default()
            },
            similarity: "lexical".into(),
            max_calls_per_turn: 10,
            databases_sha256: "d".repeat(64),
            talkforge_version: "0.1.0".into(),
        };
        let mut summary = Summary::new(vec![good, bad], info);
        summary.provenance = Some(Provenance {
            talkforge_version: "0.1.0".into(),
            date: "2026-11-26T12:00:00Z".into(),
            suite: "tooltalk".into(),
            dataset: Dataset::of([("a.json", "1"), ("b.json", "2")]),
            databases: DatabasesRecord {
                folder: "databases".into(),
                sha256: "d".repeat(64),
                files: BTreeMap::from([("Alarm.json".into(), "a".repeat(64))]),
            },
            errata: Vec::new(),
            predictor: format!("openai:{model}"),
            model_requested: Some(model.into()),
            models_reported: vec![format!("{model}-0613")],
            user_model_requested: None,
            user_models_reported: Vec::new(),
            prompt_templates: BTreeMap::from([("prompts/eval-system.j2".into(), "b".repeat(64))]),
        });
        summary
    }

    #[test]
    fn the_report_of_a_run_with_a_failed_conversation() {
        insta::assert_snapshot!(render(&sample_summary("gpt-x")));
    }
}
