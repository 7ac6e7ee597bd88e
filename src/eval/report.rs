//! `report.md`: the paper's tables for one run.

use std::fmt::Write;

use super::output::PredictorSettings;
use super::summary::{Rates, Summary};

/// How many tools the "fail most" table lists.
const WORST_TOOLS: usize = 10;

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn rates_row(name: &str, r: &Rates) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} |\n",
        r.conversations,
        pct(r.success_rate),
        pct(r.precision),
        pct(r.recall),
        pct(r.incorrect_action_rate)
    )
}

/// The predictor's settings in words, in parentheses; empty for none.
fn predictor_details(p: &PredictorSettings) -> String {
    let mut parts = Vec::new();
    if let Some(model) = &p.model {
        parts.push(format!("model `{model}`"));
    }
    if let Some(mode) = &p.api_mode {
        parts.push(format!("API mode `{mode}`"));
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
        parts.push(format!("predictions `{file}`"));
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
            let _ = writeln!(out, "- {}", f.error);
        }
    }
    out.push('\n');

    let _ = writeln!(out, "## Results by subset (the paper's Table 1)\n");
    out.push_str("Rates in percent. Precision, recall and incorrect-action rate pool the calls of all conversations; success rate is the share of conversations that recall every gold call without a bad action.\n\n");
    out.push_str(
        "| Subset | Conversations | Success rate | Precision | Recall | Incorrect action rate |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    for (name, subset) in &s.by_subset {
        out.push_str(&rates_row(name, &subset.rates));
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
        "Over the {failed} failed conversations, as the reference's error analysis counts them: a premature tool call is one bad action in a turn without gold calls; a turn with faulty planning calls tools the gold turn does not (or not the ones it does, or too often); a turn with an incorrect invocation calls the right tools with wrong arguments.\n"
    );
    out.push_str("| Error type | Count |\n|---|---:|\n");
    let e = &s.error_types;
    let _ = writeln!(out, "| Premature tool call | {} |", e.premature_tool_call);
    let _ = writeln!(out, "| Faulty planning | {} |", e.faulty_planning);
    let _ = writeln!(out, "| Incorrect invocation | {} |", e.incorrect_invocation);

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
                "| {name} | {} | {} | {} | {} | {} |",
                t.gold_calls, t.missed, t.predicted, t.unmatched_predictions, t.bad_actions
            );
        }
    }

    let _ = writeln!(out, "\n## Call bound\n");
    let _ = writeln!(
        out,
        "{} of {} stopped after {}.",
        s.turns_stopped_by_bound,
        crate::words::count(s.assistant_turns, "assistant turn"),
        crate::words::count(s.max_calls_per_turn, "call")
    );
    out
}
