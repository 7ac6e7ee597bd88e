//! The HTML report of runs of conversations with a user (`talkforge
//! report --format html` over API-Bank level-3 folders): one
//! self-contained page with the results table, a chart of the turns each
//! scenario took in each run and one of the completion rate per run
//! (inline SVG from [`super::charts`]), pass^k where the runs have it,
//! the scenarios whose completion differs, the state check where the runs
//! have it, and why each scenario not completed stopped.
//!
//! The page carries the same checking script as the other reports
//! ([`super::html`]), so the browser test reads one verdict for all.

use std::fmt::Write;

use super::charts::{bar_chart, Series};
use super::html::{esc, page_start, runs_list, PAGE_END};
use super::scenario_runs::{
    cell, completion_differs, scenario_rows, state_differs, ScenarioLine, ScenarioRunDir,
};
use crate::Result;

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// The page.
pub fn render(runs: &[ScenarioRunDir]) -> Result<String> {
    let level = runs[0].summary.level;
    let mut out = page_start(
        &format!("talkforge evaluation report: level {level}"),
        &format!("Evaluation report: runs at level {level} (conversations with a user)"),
        runs,
    );
    runs_list(&mut out, runs, "scenarios");
    results(&mut out, runs);
    charts(&mut out, runs).map_err(|e| crate::Error::Other(format!("drawing the charts: {e}")))?;
    turns_table(&mut out, runs);
    pass_hat(&mut out, runs);
    differing(&mut out, runs);
    state_check(&mut out, runs);
    not_completed(&mut out, runs);
    out.push_str(PAGE_END);
    Ok(out)
}

fn results(out: &mut String, runs: &[ScenarioRunDir]) {
    out.push_str("<h2>Results by run (Table 4)</h2>\n<p>Completion rate is completed scenarios / scenarios, in percent; mean turns is over completed scenarios.</p>\n");
    out.push_str("<table><tr><th>Run</th><th>Scenarios</th><th>Completed</th><th>Completion rate</th><th>Mean turns to completion</th><th>Turn limit</th></tr>\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            i + 1,
            s.scenarios,
            s.completed,
            pct(s.completion_rate),
            s.mean_turns.map_or("-".to_string(), |m| format!("{m:.2}")),
            s.max_turns
        );
    }
    out.push_str("</table>\n");
}

fn charts(out: &mut String, runs: &[ScenarioRunDir]) -> std::result::Result<(), String> {
    out.push_str("<h2>Charts</h2>\n");
    let run_name = |i: usize| format!("run {}: {}", i + 1, runs[i].label);
    let mut figure = |svg: String| {
        let _ = writeln!(out, "<figure>{svg}</figure>");
    };
    let rows = scenario_rows(runs);
    let names: Vec<String> = rows.iter().map(|(n, _)| n.clone()).collect();
    let series: Vec<Series> = (0..runs.len())
        .map(|i| Series {
            name: run_name(i),
            values: rows
                .iter()
                .map(|(_, row)| row[i].and_then(|s| s.turns).map(|t| t as f64))
                .collect(),
        })
        .collect();
    // The axis reaches the longest conversation (at least one turn).
    let longest = runs
        .iter()
        .flat_map(|r| &r.summary.per_scenario)
        .filter_map(|s| s.turns)
        .max()
        .unwrap_or(1)
        .max(1);
    figure(bar_chart(
        "Turns to completion per scenario (no bar: not completed)",
        &names,
        &series,
        longest as f64,
        false,
    )?);
    let labels = ["Completion rate".to_string()];
    let series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Series {
            name: run_name(i),
            values: vec![Some(r.summary.completion_rate)],
        })
        .collect();
    figure(bar_chart(
        "Completion rate per run",
        &labels,
        &series,
        1.0,
        true,
    )?);
    Ok(())
}

fn turns_table(out: &mut String, runs: &[ScenarioRunDir]) {
    out.push_str("<h2>Turns to completion per scenario</h2>\n<table><tr><th>Scenario</th>");
    for i in 1..=runs.len() {
        let _ = write!(out, "<th>Run {i}</th>");
    }
    out.push_str("</tr>\n");
    for (name, row) in scenario_rows(runs) {
        row_html(out, &name, &row);
    }
    out.push_str("</table>\n");
}

fn row_html(out: &mut String, name: &str, row: &[Option<&ScenarioLine>]) {
    let _ = write!(out, "<tr><td>{}</td>", esc(name));
    for s in row {
        let class = match s {
            Some(s) if s.completed => "ok",
            Some(_) => "bad",
            None => "",
        };
        let _ = write!(out, "<td class=\"{class}\">{}</td>", esc(&cell(*s)));
    }
    out.push_str("</tr>\n");
}

fn pass_hat(out: &mut String, runs: &[ScenarioRunDir]) {
    if !runs.iter().any(|r| r.summary.trials.is_some()) {
        return;
    }
    out.push_str("<h2>Reliability (pass^k over scenarios completed)</h2>\n<p>The chance that all k of k trials of a scenario complete, in percent, averaged over scenarios.</p>\n<ul>\n");
    for (i, run) in runs.iter().enumerate() {
        if let Some(t) = &run.summary.trials {
            let _ = writeln!(
                out,
                "<li>run {}: {}</li>",
                i + 1,
                super::passk::pass_hat_words(&t.all.pass_hat)
            );
        }
    }
    out.push_str("</ul>\n");
}

fn differing(out: &mut String, runs: &[ScenarioRunDir]) {
    if runs.len() < 2 {
        return;
    }
    let rows = completion_differs(runs);
    out.push_str("<h2>Scenarios whose completion differs between runs</h2>\n");
    if rows.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str("<table><tr><th>Scenario</th>");
    for i in 1..=runs.len() {
        let _ = write!(out, "<th>Run {i}</th>");
    }
    out.push_str("</tr>\n");
    for (name, row) in rows {
        row_html(out, &name, &row);
    }
    out.push_str("</table>\n");
}

fn state_check(out: &mut String, runs: &[ScenarioRunDir]) {
    if runs.iter().all(|r| r.summary.state_check.is_none()) {
        return;
    }
    out.push_str("<h2>State check</h2>\n<p>The databases each conversation left against those the ground-truth calls leave: <em>collateral</em> is a write the ground truth never made, <em>missing</em> a ground-truth write not made, <em>different</em> a place both wrote differently. It changes none of the figures above.</p>\n");
    out.push_str("<table><tr><th>Run</th><th>Checked</th><th>Clean</th><th>With collateral damage</th><th>Collateral</th><th>Missing</th><th>Different</th></tr>\n");
    for (i, run) in runs.iter().enumerate() {
        match &run.summary.state_check {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
                    i + 1,
                    t.conversations_checked,
                    t.conversations_clean,
                    t.conversations_with_collateral,
                    t.collateral,
                    t.missing,
                    t.different
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td colspan=6>not checked</td></tr>",
                    i + 1
                );
            }
        }
    }
    out.push_str("</table>\n");
    let rows: Vec<(usize, &ScenarioLine, String)> = runs
        .iter()
        .enumerate()
        .flat_map(|(i, run)| {
            state_differs(run)
                .into_iter()
                .map(move |(s, check)| (i + 1, s, super::report::state_places(check)))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<table class=wrong><tr><th>Run</th><th>Scenario</th><th>Places</th></tr>\n");
    for (run, s, places) in rows {
        let _ = writeln!(
            out,
            "<tr><td>{run}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.scenario),
            esc(&places)
        );
    }
    out.push_str("</table>\n");
}

fn not_completed(out: &mut String, runs: &[ScenarioRunDir]) {
    out.push_str("<h2>Scenarios not completed</h2>\n");
    for (r, run) in runs.iter().enumerate() {
        let failed: Vec<&ScenarioLine> = run
            .summary
            .per_scenario
            .iter()
            .filter(|s| !s.completed)
            .collect();
        let _ = writeln!(
            out,
            "<h3>Run {}: {} of {} not completed</h3>",
            r + 1,
            failed.len(),
            run.summary.scenarios
        );
        if failed.is_empty() {
            continue;
        }
        out.push_str("<table class=wrong><tr><th>Scenario</th><th>File</th><th>Why</th></tr>\n");
        for s in failed {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                esc(&s.scenario),
                esc(&s.file),
                esc(&s.why())
            );
        }
        out.push_str("</table>\n");
    }
}
