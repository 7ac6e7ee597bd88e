//! `report.md` of a level-3 run: the completion rate and the mean turns
//! to completion (the paper's Table 4), pass^k over trials where there
//! are several, each scenario's result, and for each scenario not
//! completed why the conversation stopped and which ground-truth calls
//! were never made; the state check (the databases each conversation left
//! against the ground truth's); then the provenance.

use std::fmt::Write;

use super::run::{ScenarioOutcome, Stop, Summary};
use crate::eval::markdown as md;

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// Why a conversation stopped, in words.
pub fn stop_words(o: &ScenarioOutcome, max_turns: usize) -> String {
    match o.stopped {
        Stop::Completed => format!(
            "completed in {}",
            crate::words::count(o.turns_taken, "turn")
        ),
        Stop::MaxTurns => format!("not completed within the {max_turns}-turn limit"),
        Stop::UserLeft => format!(
            "the user left after {}",
            crate::words::count(o.turns_taken, "turn")
        ),
        Stop::Error => format!(
            "could not be run to the end: {}",
            o.error.as_deref().unwrap_or("unknown error")
        ),
    }
}

/// The report.
pub fn render_report(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# API-Bank level 3: conversations with a user\n");
    let _ = writeln!(
        out,
        "Assistant `{}`, user `{}`, at most {} turns a scenario{}.\n",
        s.assistant,
        s.user,
        s.max_turns,
        if s.resumed > 0 {
            format!(
                "; {} taken from this folder as an earlier run left them",
                crate::words::count(s.resumed, "scenario")
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "## Results (Table 4)\n");
    out.push_str("A scenario is completed when the assistant has made every ground-truth call; its score is the turns that took. The mean is over completed scenarios.\n\n");
    out.push_str("| Scenarios | Completed | Completion rate (%) | Mean turns to completion |\n|---:|---:|---:|---:|\n");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} |",
        s.scenarios,
        s.completed,
        pct(s.completion_rate),
        s.mean_turns.map_or("-".to_string(), |m| format!("{m:.2}"))
    );
    if let Some(t) = &s.trials {
        let _ = writeln!(
            out,
            "\n## Reliability over {} trials (pass^k, completion as the unit)\n",
            t.trials
        );
        out.push_str("pass^k is the chance that k trials of a scenario all complete, in percent. The figures above are trial 1's; each trial's own are in its `trial-T` folder.\n\n");
        let ks: Vec<String> = (1..=t.trials).map(|k| format!("pass^{k}")).collect();
        let _ = writeln!(
            out,
            "| Scenario | Completed | {} | Turns per trial |\n|---|---:|{}---|",
            ks.join(" | "),
            "---:|".repeat(t.trials)
        );
        let row = |name: &str, completed: String, hats: &[f64], turns: String| {
            let hats: Vec<String> = hats.iter().map(|p| pct(*p)).collect();
            format!(
                "| {name} | {completed} | {} | {turns} |\n",
                hats.join(" | ")
            )
        };
        for u in &t.per_scenario {
            let turns: Vec<String> = u
                .turns
                .iter()
                .map(|t| t.map_or("-".to_string(), |t| t.to_string()))
                .collect();
            out += &row(
                &u.scenario,
                format!("{}/{}", u.completed, u.trials),
                &u.pass_hat,
                turns.join(", "),
            );
        }
        out += &row(
            "**all**",
            format!("{} scenarios", t.all.units),
            &t.all.pass_hat,
            String::new(),
        );
    }
    let _ = writeln!(out, "\n## Scenarios\n");
    out.push_str("| Scenario | File | Completed | Turns | Ground-truth calls made | Calls made | Stopped |\n|---|---|:---:|---:|---:|---:|---|\n");
    for o in &s.per_scenario {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {}/{} | {} | {} |",
            o.scenario,
            o.file,
            if o.completed { "yes" } else { "no" },
            o.turns.map_or("-".to_string(), |t| t.to_string()),
            o.ground_truth_made,
            o.ground_truth,
            o.calls,
            stop_words(o, s.max_turns)
        );
    }
    let failed: Vec<&ScenarioOutcome> = s.per_scenario.iter().filter(|o| !o.completed).collect();
    let _ = writeln!(out, "\n## Scenarios not completed\n");
    if failed.is_empty() {
        out.push_str("None.\n");
    }
    for o in failed {
        let _ = writeln!(
            out,
            "### {} (`{}`)\n\nStopped: {}.\n",
            o.scenario,
            o.file,
            stop_words(o, s.max_turns)
        );
        if !o.missing.is_empty() {
            out.push_str("Ground-truth calls never made:\n\n");
            for m in &o.missing {
                let raises = o
                    .ground_truth_raising
                    .iter()
                    .find(|r| r.line == m.line)
                    .and_then(|r| r.exception.as_deref())
                    .map(|e| format!(" (raises as written: {e})"))
                    .unwrap_or_default();
                let _ = writeln!(out, "- line {}: `{}`{raises}", m.line, m.api_name);
            }
            out.push('\n');
        }
    }
    state_check(&mut out, s);
    if let Some(p) = &s.provenance {
        crate::eval::report::provenance_section_of(&mut out, p, "scenario");
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The state check: totals, then each scenario whose databases differ
/// from the ground truth's.
fn state_check(out: &mut String, s: &Summary) {
    let Some(t) = &s.state_check else { return };
    while out.ends_with("\n\n") {
        out.pop();
    }
    let _ = writeln!(out, "\n## State check\n");
    out.push_str("When a conversation ends, the databases the assistant's calls left are compared with those the ground-truth calls leave when run in order on the initial databases, record by record and field by field: *collateral* is a write the ground truth never made, *missing* a ground-truth write the assistant did not make, *different* a place both wrote differently. A ground-truth call that raises writes nothing. It is reported beside the results above and changes none of them.\n\n");
    let unchecked = s.scenarios.saturating_sub(t.conversations_checked);
    let _ = writeln!(
        out,
        "{}{}.",
        crate::eval::report::state_totals(t, "scenario"),
        if unchecked > 0 {
            format!(" ({unchecked} not checked: a conversation that could not run, or one kept from a version without the check)")
        } else {
            String::new()
        }
    );
    let differing: Vec<_> = s
        .per_scenario
        .iter()
        .filter_map(|o| Some((o, o.state_check.as_ref().filter(|k| !k.clean())?)))
        .collect();
    if differing.is_empty() {
        return;
    }
    out.push_str(
        "\n| Scenario | Collateral | Missing | Different | Places |\n|---|---:|---:|---:|---|\n",
    );
    for (o, check) in differing {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            md::text(&o.scenario),
            check.collateral,
            check.missing,
            check.different,
            md::text(&crate::eval::report::state_places(check))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::passk::CompletionTrials;
    use crate::suite::state::{StateCheck, StateWrite, WriteKind};
    use crate::suites::apibank::level3::run::{summarise, CallAt};

    fn outcome(name: &str, turns: Option<usize>, stopped: Stop) -> ScenarioOutcome {
        ScenarioOutcome {
            file: format!("lv3/{name}.txt"),
            scenario: name.into(),
            scene: name.into(),
            completed: turns.is_some(),
            turns,
            turns_taken: turns.unwrap_or(5),
            stopped,
            ground_truth: 2,
            ground_truth_made: if turns.is_some() { 2 } else { 1 },
            made: Vec::new(),
            calls: 3,
            missing: if turns.is_some() {
                Vec::new()
            } else {
                vec![CallAt {
                    line: 23,
                    api_name: "QueryBalance".into(),
                    exception: None,
                }]
            },
            ground_truth_raising: vec![CallAt {
                line: 23,
                api_name: "QueryBalance".into(),
                exception: Some("The token is incorrect.".into()),
            }],
            error: None,
            state_check: Some(if turns.is_some() {
                StateCheck::default()
            } else {
                StateCheck::new(vec![
                    StateWrite {
                        turn: 5,
                        kind: WriteKind::Collateral,
                        database: "Agenda".into(),
                        record: "4".into(),
                        item: None,
                    },
                    StateWrite {
                        turn: 5,
                        kind: WriteKind::Different,
                        database: "Reminder".into(),
                        record: "0".into(),
                        item: Some("time".into()),
                    },
                ])
            }),
            assistant_models: Vec::new(),
            user_models: Vec::new(),
            resumed: false,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn the_report_gives_table_4_pass_hat_and_why_scenarios_stopped() {
        let mut summary = summarise(
            vec![
                outcome("Alarm", Some(3), Stop::Completed),
                outcome("Shopping", None, Stop::MaxTurns),
                outcome("Reminder", None, Stop::UserLeft),
            ],
            5,
            "llm:m".into(),
            "llm:u".into(),
        );
        summary.trials = Some(CompletionTrials::new(&[
            vec![
                ("a".into(), "Alarm".into(), Some(3)),
                ("s".into(), "Shopping".into(), None),
                ("r".into(), "Reminder".into(), None),
            ],
            vec![
                ("a".into(), "Alarm".into(), Some(4)),
                ("s".into(), "Shopping".into(), Some(5)),
                ("r".into(), "Reminder".into(), None),
            ],
        ]));
        let report = render_report(&summary);
        assert!(report.contains("| 3 | 1 | 33.3 | 3.00 |"), "{report}");
        assert!(report
            .contains("- line 23: `QueryBalance` (raises as written: The token is incorrect.)"));
        insta::assert_snapshot!("level3_report", report);
    }
}
