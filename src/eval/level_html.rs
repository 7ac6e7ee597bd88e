//! The HTML report of runs scored by samples at a level (`talkforge report
//! --format html` over API-Bank level folders): one self-contained page
//! with the results table, charts of API-call accuracy per API and of the
//! error causes per run (inline SVG from [`super::charts`]), the samples
//! whose verdict differs, and every wrong sample with its reason and what
//! the model wrote (read from the run's per-dialogue output files).
//!
//! The page carries the same checking script as the conversation report
//! ([`super::html`]), so the browser test reads one verdict for both.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use super::charts::{bar_chart, Series};
use super::html::{esc, page_start, runs_list, PAGE_END};
use super::level_runs::{
    apis, cause_label, cause_share, causes, verdict, verdict_differs, LevelRunDir, SampleLine,
};
use crate::Result;

/// APIs shown in the per-API chart, at most (those with most samples).
const CHART_APIS: usize = 60;

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// The page.
pub fn render(runs: &[LevelRunDir]) -> Result<String> {
    let level = runs[0].summary.level;
    let mut out = page_start(
        &format!("talkforge evaluation report: level {level}"),
        &format!("Evaluation report: runs at level {level}"),
        runs,
    );
    runs_list(&mut out, runs, "dialogues");
    results(&mut out, runs);
    causes_table(&mut out, runs);
    charts(&mut out, runs).map_err(|e| crate::Error::Other(format!("drawing the charts: {e}")))?;
    pass_hat(&mut out, runs);
    differing(&mut out, runs);
    wrong_samples(&mut out, runs);
    out.push_str(PAGE_END);
    Ok(out)
}

fn results(out: &mut String, runs: &[LevelRunDir]) {
    out.push_str("<h2>Results by run</h2>\n<p>API-call accuracy is correct call samples / call samples, in percent; ROUGE-L is the mean over the reply samples.</p>\n");
    out.push_str("<table><tr><th>Run</th><th>Level</th><th>Dialogues</th><th>Call samples</th><th>Correct</th><th>API-call accuracy</th><th>Replies</th><th>ROUGE-L</th></tr>\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            i + 1,
            s.level,
            s.dialogues,
            s.samples,
            s.correct,
            pct(s.accuracy),
            s.replies,
            s.rouge_l.map_or("-".to_string(), |r| format!("{r:.4}"))
        );
    }
    out.push_str("</table>\n");
}

fn causes_table(out: &mut String, runs: &[LevelRunDir]) {
    let causes = causes(runs);
    out.push_str("<h2>Error causes by run</h2>\n<p>Wrong samples per cause, with their share of the run's wrong samples in percent.</p>\n<table><tr><th>Run</th><th>Wrong</th>");
    for c in &causes {
        let _ = write!(out, "<th>{}</th>", esc(&cause_label(c)));
    }
    out.push_str("</tr>\n");
    for (i, run) in runs.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=n>{}</td>",
            i + 1,
            run.summary.samples - run.summary.correct
        );
        for c in &causes {
            let n = run.summary.causes.get(c).copied().unwrap_or(0);
            match cause_share(run, c) {
                Some(share) => {
                    let _ = write!(out, "<td class=n>{n} ({})</td>", pct(share));
                }
                None => {
                    let _ = write!(out, "<td class=n>{n}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn charts(out: &mut String, runs: &[LevelRunDir]) -> std::result::Result<(), String> {
    out.push_str("<h2>Charts</h2>\n");
    let run_name = |i: usize| format!("run {}: {}", i + 1, runs[i].label);
    let mut figure = |svg: String| {
        let _ = writeln!(out, "<figure>{svg}</figure>");
    };
    let overall = ["API-call accuracy".to_string(), "ROUGE-L".to_string()];
    let series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Series {
            name: run_name(i),
            values: vec![Some(r.summary.accuracy), r.summary.rouge_l],
        })
        .collect();
    figure(bar_chart(
        "API-call accuracy and ROUGE-L per run",
        &overall,
        &series,
        1.0,
        true,
    )?);
    let mut names = apis(runs);
    names.truncate(CHART_APIS);
    if !names.is_empty() {
        let series: Vec<Series> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                name: run_name(i),
                values: names
                    .iter()
                    .map(|api| {
                        let t = r.summary.by_api.get(api)?;
                        (t.samples > 0).then(|| t.correct as f64 / t.samples as f64)
                    })
                    .collect(),
            })
            .collect();
        figure(bar_chart(
            "API-call accuracy by API",
            &names,
            &series,
            1.0,
            true,
        )?);
    }
    let keys = causes(runs);
    let labels: Vec<String> = keys.iter().map(|k| cause_label(k)).collect();
    let series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Series {
            name: run_name(i),
            values: keys.iter().map(|k| cause_share(r, k)).collect(),
        })
        .collect();
    figure(bar_chart(
        "Error causes per run (share of the wrong samples)",
        &labels,
        &series,
        1.0,
        true,
    )?);
    Ok(())
}

fn pass_hat(out: &mut String, runs: &[LevelRunDir]) {
    if !runs.iter().any(|r| r.summary.trials.is_some()) {
        return;
    }
    out.push_str("<h2>Reliability (pass^k over call samples)</h2>\n<p>The chance that all k of k trials of a call sample are correct, in percent, averaged over call samples.</p>\n<ul>\n");
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

fn differing(out: &mut String, runs: &[LevelRunDir]) {
    if runs.len() < 2 {
        return;
    }
    let rows = verdict_differs(runs);
    out.push_str("<h2>Samples whose verdict differs between runs</h2>\n");
    if rows.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str("<table><tr><th>File</th><th>Line</th><th>Sample</th><th>API</th>");
    for i in 1..=runs.len() {
        let _ = write!(out, "<th>Run {i}</th>");
    }
    out.push_str("</tr>\n");
    for ((file, turn, occurrence), api, row) in rows {
        let _ = write!(
            out,
            "<tr><td><code>{}</code></td><td class=n>{turn}</td><td class=n>{}</td><td>{}</td>",
            esc(&file),
            occurrence + 1,
            esc(&api)
        );
        for s in row {
            let class = match s {
                Some(s) if s.correct => "ok",
                Some(_) => "bad",
                None => "",
            };
            let _ = write!(out, "<td class=\"{class}\">{}</td>", esc(&verdict(s)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// What the model wrote for each sample, from a run's output files (read
/// once per dialogue; nothing where a file is missing or unreadable).
struct Outputs<'a> {
    run: &'a LevelRunDir,
    files: HashMap<String, Option<Value>>,
}

impl<'a> Outputs<'a> {
    fn new(run: &'a LevelRunDir) -> Self {
        Outputs {
            run,
            files: HashMap::new(),
        }
    }

    fn written(&mut self, s: &SampleLine) -> Option<String> {
        let dir = self.run.samples_dir();
        let document = self
            .files
            .entry(s.file.clone())
            .or_insert_with(|| read_json(&dir.join(format!("{}.json", s.file))));
        document
            .as_ref()?
            .get("samples")?
            .as_array()?
            .iter()
            .find(|d| d["turn"] == s.turn && d["occurrence"] == s.occurrence)?
            .get("output")?
            .as_str()
            .map(str::to_string)
    }
}

/// A wrong sample's reason, with its erratum when it is known.
fn why(s: &SampleLine) -> String {
    let reason = esc(s.reason.as_deref().unwrap_or("wrong"));
    match &s.known {
        Some(k) => format!(
            "{reason} <span class=known>(known erratum: {})</span>",
            esc(&k.reason)
        ),
        None => reason,
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Each run's wrong samples, with their cause, reason and what the model
/// wrote.
fn wrong_samples(out: &mut String, runs: &[LevelRunDir]) {
    out.push_str("<h2>Wrong samples</h2>\n");
    for (r, run) in runs.iter().enumerate() {
        let wrong: Vec<&SampleLine> = run
            .summary
            .per_sample
            .iter()
            .filter(|s| !s.correct)
            .collect();
        let _ = writeln!(
            out,
            "<h3>Run {}: {} of {} wrong</h3>",
            r + 1,
            wrong.len(),
            run.summary.samples
        );
        if wrong.is_empty() {
            continue;
        }
        let mut outputs = Outputs::new(run);
        out.push_str("<table class=wrong><tr><th>File</th><th>Line</th><th>Sample</th><th>API</th><th>Cause</th><th>Why</th><th>The model wrote</th></tr>\n");
        for s in wrong {
            let written = outputs.written(s).unwrap_or_default();
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td class=n>{}</td><td class=n>{}</td><td>{}</td><td>{}</td><td>{}</td><td><div class=call>{}</div></td></tr>",
                esc(&s.file),
                s.turn,
                s.occurrence + 1,
                esc(&s.api_name),
                esc(&s.cause.as_deref().map(cause_label).unwrap_or_default()),
                why(s),
                esc(&written)
            );
        }
        out.push_str("</table>\n");
    }
}
