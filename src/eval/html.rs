//! The HTML report (`talkforge report --format html`): one self-contained
//! page, nothing fetched from the network. Table 1 and Table 2 of every
//! run, charts (success and incorrect-action rate per subset and per tool,
//! error types per run) drawn as inline SVG by [`super::charts`], every
//! failed conversation with its reasons, each linked to the conversation
//! rendered as a dialogue with the predictions beside the gold calls.
//!
//! A short inline script records script errors and checks that every
//! chart drew something; it writes the verdict into the page's
//! `data-check` attribute, which the browser test reads.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::charts::{bar_chart, Series};
use super::runs::{outcome_differs, same_dataset, Run, RunDir};
use crate::Result;

/// Failed conversations rendered per run, at most.
const DIALOGUES_PER_RUN: usize = 300;

/// Tools shown in the per-tool charts, at most (the most called).
const CHART_TOOLS: usize = 40;

/// Escape text for HTML.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

pub(crate) const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; line-height: 1.4; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
.warn { background: #fff3cd; padding: 0.5em 1em; border: 1px solid #e0c36a; }
figure { margin: 1.5em 0; }
.reasons { margin: 0.2em 0 0.8em 0; }
.known { color: #7a5c00; }
article.dialogue { border: 1px solid #ccc; border-radius: 6px; padding: 0.5em 1em; margin: 1.5em 0; }
.turn { margin: 0.6em 0; }
.user { background: #eef4ff; padding: 0.4em 0.8em; border-radius: 4px; }
.assistant { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.assistant > div { background: #f7f7f7; padding: 0.4em 0.8em; border-radius: 4px; }
.failing { outline: 2px solid #d55e00; }
.call { font-family: ui-monospace, monospace; font-size: 0.85em; white-space: pre-wrap; word-break: break-word; margin: 0.3em 0; }
.ok { color: #007a4d; } .bad { color: #b00020; }
"#;

/// Records script errors and checks the charts; the verdict goes into
/// `document.body.dataset.check` ("ok" or what went wrong).
pub(crate) const CHECK_SCRIPT: &str = r#"
window.talkforgeErrors = [];
window.addEventListener('error', function (e) { window.talkforgeErrors.push(String(e.message)); });
window.addEventListener('load', function () {
  var problems = window.talkforgeErrors.slice();
  var charts = document.querySelectorAll('svg.chart');
  var visible = function (e) { var b = e.getBBox(); return b.width > 0 || b.height > 0; };
  var count = function (svg, selector, keep) {
    return Array.prototype.filter.call(svg.querySelectorAll(selector), keep).length;
  };
  var bars = 0;
  if (charts.length === 0) { problems.push('no chart'); }
  charts.forEach(function (svg, i) {
    // A chart shows its labels and axes; its bars are counted (a chart
    // of zeros has none).
    var texts = count(svg, 'text', function (t) { return t.textContent.trim() !== '' && visible(t); });
    var axes = count(svg, 'line, polyline', visible);
    var shown = count(svg, 'rect', function (r) {
      var b = r.getBBox();
      return (r.getAttribute('fill') || '').toUpperCase() !== '#FFFFFF' && b.width > 0 && b.height > 0;
    });
    if (!(visible(svg) && texts > 0 && axes > 0)) { problems.push('chart ' + i + ' is blank'); }
    bars += shown;
  });
  document.body.dataset.bars = String(bars);
  document.body.dataset.check = problems.length === 0 ? 'ok' : problems.join('; ');
});
"#;

/// The page.
pub fn render(runs: &[Run]) -> Result<String> {
    let mut out = page_start("talkforge evaluation report", "Evaluation report", runs);
    runs_list(&mut out, runs, "dialogues");
    table1(&mut out, runs);
    table2(&mut out, runs);
    charts(&mut out, runs).map_err(|e| crate::Error::Other(format!("drawing the charts: {e}")))?;
    differing(&mut out, runs);
    failures(&mut out, runs);
    out.push_str(PAGE_END);
    Ok(out)
}

/// How every report page ends.
pub const PAGE_END: &str = "</body>\n</html>\n";

/// A report page up to its first section: the head (the style and the
/// checking script), the heading, and a warning when the runs did not all
/// evaluate the same dataset.
pub fn page_start(title: &str, heading: &str, runs: &[impl RunDir]) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", esc(title));
    let _ = writeln!(out, "<style>{STYLE}</style>");
    let _ = writeln!(out, "<script>{CHECK_SCRIPT}</script>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", esc(heading));
    if !same_dataset(runs) {
        out.push_str("<p class=\"warn\">These runs did not all evaluate the same dataset (compared on request): their figures are not directly comparable.</p>\n");
    }
    out
}

/// The list of runs: each folder, what sets it apart, and what its
/// provenance says (`files` names what the dataset counts).
pub fn runs_list(out: &mut String, runs: &[impl RunDir], files: &str) {
    out.push_str("<h2>Runs</h2>\n<ol>\n");
    for run in runs {
        let _ = write!(
            out,
            "<li><code>{}</code>: {}",
            esc(&run.dir().display().to_string()),
            esc(run.label())
        );
        if let Some(p) = run.provenance() {
            let _ = write!(
                out,
                " <small>(talkforge {}, {}; suite {}; dataset {} {files}, SHA-256 <code>{}</code>",
                esc(&p.talkforge_version),
                esc(&p.date),
                esc(&p.suite),
                p.dataset.files,
                esc(&p.dataset.sha256[..p.dataset.sha256.len().min(12)])
            );
            match (run.models(), &p.model_requested) {
                (Some(models), _) => {
                    let _ = write!(out, "; models: {}", esc(&models));
                }
                (None, Some(model)) => {
                    let _ = write!(
                        out,
                        "; model {} reported as {}",
                        esc(model),
                        esc(&p.models_reported.join(", "))
                    );
                }
                (None, None) => {}
            }
            out.push_str(")</small>");
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ol>\n");
}

fn table1(out: &mut String, runs: &[Run]) {
    out.push_str("<h2>Results by run and subset (Table 1)</h2>\n<p>Rates in percent, pooled as <code>talkforge evaluate</code> pools them.</p>\n");
    out.push_str("<table><tr><th>Run</th><th>Subset</th><th>Conversations</th><th>Success rate</th><th>Soft success rate</th><th>Precision</th><th>Recall</th><th>Action precision</th><th>Incorrect-action rate</th></tr>\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let mut rows: Vec<(&str, &super::summary::Rates)> = s
            .by_subset
            .iter()
            .map(|(n, b)| (n.as_str(), &b.rates))
            .collect();
        if s.by_subset.len() != 1 {
            rows.push(("all", &s.rates));
        }
        for (subset, r) in rows {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
                i + 1,
                esc(subset),
                r.conversations,
                pct(r.success_rate),
                pct(r.soft_success_rate),
                pct(r.precision),
                pct(r.recall),
                pct(r.action_precision),
                pct(r.incorrect_action_rate)
            );
        }
    }
    out.push_str("</table>\n");
}

fn table2(out: &mut String, runs: &[Run]) {
    out.push_str("<h2>Why conversations failed (Table 2)</h2>\n<p>Counts, with shares of all the errors counted in percent.</p>\n");
    out.push_str("<table><tr><th>Run</th><th>Failed conversations</th><th>Premature tool call</th><th>Faulty planning</th><th>Incorrect invocation</th></tr>\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let e = &s.error_types;
        let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
        let cell = |n: usize| {
            if total == 0 {
                format!("{n}")
            } else {
                format!("{n} ({})", pct(n as f64 / total as f64))
            }
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
            i + 1,
            s.rates.conversations - s.successes,
            cell(e.premature_tool_call),
            cell(e.faulty_planning),
            cell(e.incorrect_invocation)
        );
    }
    out.push_str("</table>\n");
}

fn charts(out: &mut String, runs: &[Run]) -> std::result::Result<(), String> {
    out.push_str("<h2>Charts</h2>\n");
    let run_name = |i: usize| format!("run {}: {}", i + 1, runs[i].label);
    // Subsets in the order first seen.
    let mut subsets: Vec<String> = Vec::new();
    for run in runs {
        for name in run.summary.by_subset.keys() {
            if !subsets.contains(name) {
                subsets.push(name.clone());
            }
        }
    }
    let per_subset = |f: &dyn Fn(&super::summary::Rates) -> f64| -> Vec<Series> {
        runs.iter()
            .enumerate()
            .map(|(i, run)| Series {
                name: run_name(i),
                values: subsets
                    .iter()
                    .map(|s| run.summary.by_subset.get(s).map(|b| f(&b.rates)))
                    .collect(),
            })
            .collect()
    };
    let mut figure = |svg: String| {
        let _ = writeln!(out, "<figure>{svg}</figure>");
    };
    figure(bar_chart(
        "Success rate by subset",
        &subsets,
        &per_subset(&|r| r.success_rate),
        1.0,
        true,
    )?);
    figure(bar_chart(
        "Incorrect-action rate by subset",
        &subsets,
        &per_subset(&|r| r.incorrect_action_rate),
        1.0,
        true,
    )?);
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
    let per_tool = |f: &dyn Fn(&super::outcome::ToolTally) -> Option<f64>| -> Vec<Series> {
        runs.iter()
            .enumerate()
            .map(|(i, run)| Series {
                name: run_name(i),
                values: tool_names
                    .iter()
                    .map(|t| run.summary.tools.get(t).and_then(f))
                    .collect(),
            })
            .collect()
    };
    if !tool_names.is_empty() {
        figure(bar_chart(
            "Gold calls matched, by tool",
            &tool_names,
            &per_tool(&|t| (t.gold_calls > 0).then(|| 1.0 - t.missed as f64 / t.gold_calls as f64)),
            1.0,
            true,
        )?);
        figure(bar_chart(
            "Bad actions per call made, by tool",
            &tool_names,
            &per_tool(&|t| (t.predicted > 0).then(|| t.bad_actions as f64 / t.predicted as f64)),
            1.0,
            true,
        )?);
    }
    let kinds = [
        "Premature tool call".to_string(),
        "Faulty planning".to_string(),
        "Incorrect invocation".to_string(),
    ];
    let error_series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let e = &run.summary.error_types;
            Series {
                name: run_name(i),
                values: [
                    e.premature_tool_call,
                    e.faulty_planning,
                    e.incorrect_invocation,
                ]
                .iter()
                .map(|n| Some(*n as f64))
                .collect(),
            }
        })
        .collect();
    let most = error_series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(1.0f64, |a, b| a.max(*b));
    figure(bar_chart(
        "Error types per run (Table 2)",
        &kinds,
        &error_series,
        most.ceil(),
        false,
    )?);
    Ok(())
}

fn differing(out: &mut String, runs: &[Run]) {
    if runs.len() < 2 {
        return;
    }
    let rows = outcome_differs(runs);
    out.push_str("<h2>Conversations whose outcome differs between runs</h2>\n");
    if rows.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str("<table><tr><th>Conversation</th>");
    for i in 1..=runs.len() {
        let _ = write!(out, "<th>Run {i}</th>");
    }
    out.push_str("</tr>\n");
    for (file, row) in rows {
        let _ = write!(out, "<tr><td><code>{}</code></td>", esc(&file));
        for o in row {
            out.push_str(match o {
                Some(true) => "<td class=ok>pass</td>",
                Some(false) => "<td class=bad>fail</td>",
                None => "<td>-</td>",
            });
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// Each run's failed conversations with their reasons, then each
/// rendered as a dialogue.
fn failures(out: &mut String, runs: &[Run]) {
    out.push_str("<h2>Failed conversations</h2>\n");
    let mut dialogues = String::new();
    for (r, run) in runs.iter().enumerate() {
        let failed: Vec<_> = run
            .summary
            .per_conversation
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.success)
            .collect();
        let _ = writeln!(
            out,
            "<h3>Run {}: {} of {} failed</h3>",
            r + 1,
            failed.len(),
            run.summary.per_conversation.len()
        );
        if failed.is_empty() {
            continue;
        }
        let outputs = OutputFiles::new(run);
        out.push_str("<ul>\n");
        for (shown, (c_index, c)) in failed.into_iter().enumerate() {
            let anchor = format!("r{}-c{}", r + 1, c_index);
            let rendered = shown < DIALOGUES_PER_RUN;
            let document = if rendered {
                outputs.document(&c.file)
            } else {
                None
            };
            let name = esc(&c.file);
            match &document {
                Some(_) => {
                    let _ = write!(out, "<li><a href=\"#{anchor}\"><code>{name}</code></a>");
                }
                None => {
                    let _ = write!(out, "<li><code>{name}</code>");
                }
            }
            let _ = write!(out, " ({}, recall {})", esc(&c.subset), pct(c.recall));
            out.push_str("<ul class=reasons>");
            for reason in &c.why_failed {
                let known = if reason.known.is_some() {
                    " <span class=known>(known erratum)</span>"
                } else {
                    ""
                };
                let link = if document.is_some() {
                    format!(
                        " <a href=\"#{anchor}-t{}\">turn {}</a>",
                        reason.turn, reason.turn
                    )
                } else {
                    String::new()
                };
                let _ = write!(out, "<li>{}{known}{link}</li>", esc(&reason.message));
            }
            out.push_str("</ul></li>\n");
            if let Some(document) = document {
                let failing: Vec<usize> = c.why_failed.iter().map(|w| w.turn).collect();
                dialogue(&mut dialogues, &anchor, &c.file, r + 1, &document, &failing);
            }
        }
        out.push_str("</ul>\n");
    }
    if !dialogues.is_empty() {
        out.push_str("<h2>Dialogues</h2>\n<p>Each failed conversation as evaluated: the gold calls (left) beside what the assistant did (right); turns with a failure are outlined.</p>\n");
        out.push_str(&dialogues);
    }
}

/// Where a run's per-conversation output files are.
struct OutputFiles {
    /// The folder holding `conversations/` (a run of trials: the first trial's).
    base: PathBuf,
    /// The deepest folder holding every evaluated file.
    common: PathBuf,
}

impl OutputFiles {
    fn new(run: &Run) -> Self {
        let base = if run.summary.trials.is_some() {
            run.dir.join("trial-1")
        } else {
            run.dir.clone()
        };
        let files: Vec<PathBuf> = run
            .summary
            .per_conversation
            .iter()
            .map(|c| PathBuf::from(&c.file))
            .collect();
        OutputFiles {
            base,
            common: super::run::common_dir(&files),
        }
    }

    /// The output file of the conversation evaluated from `file`, parsed.
    fn document(&self, file: &str) -> Option<Value> {
        let path = self
            .base
            .join(super::run::CONVERSATIONS_DIR)
            .join(super::run::relative(Path::new(file), &self.common));
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// One conversation as a dialogue: user turns, and for each assistant
/// turn the gold calls and text beside the predictions and answer.
fn dialogue(
    out: &mut String,
    anchor: &str,
    file: &str,
    run: usize,
    document: &Value,
    failing: &[usize],
) {
    let _ = writeln!(
        out,
        "<article class=dialogue id=\"{anchor}\"><h3>Run {run}: <code>{}</code></h3>",
        esc(file)
    );
    let turns = document
        .get("conversation")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (t, turn) in turns.iter().enumerate() {
        let text = turn.get("text").and_then(Value::as_str).unwrap_or_default();
        let role = turn.get("role").and_then(Value::as_str).unwrap_or_default();
        let class = if failing.contains(&t) {
            "turn failing"
        } else {
            "turn"
        };
        let _ = write!(out, "<div class=\"{class}\" id=\"{anchor}-t{t}\">");
        if role == "user" {
            let _ = write!(
                out,
                "<div class=user><b>User</b> (turn {t}): {}</div>",
                esc(text)
            );
        } else {
            out.push_str("<div class=assistant><div><b>Gold</b> (turn ");
            let _ = write!(out, "{t})");
            for call in turn
                .get("apis")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                call_html(out, call, false);
            }
            let _ = write!(out, "<p>{}</p></div><div><b>Assistant</b>", esc(text));
            for p in turn
                .get("predictions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if p.get("role").and_then(Value::as_str) == Some("api") {
                    call_html(out, p, true);
                } else {
                    let answer = p.get("text").and_then(Value::as_str).unwrap_or_default();
                    let _ = write!(out, "<p>{}</p>", esc(answer));
                }
            }
            if turn.get("stopped_by_call_bound") == Some(&Value::Bool(true)) {
                out.push_str("<p class=bad>stopped by the call bound</p>");
            }
            out.push_str("</div></div>");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</article>\n");
}

fn call_html(out: &mut String, call: &Value, predicted: bool) {
    let name = call
        .pointer("/request/api_name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let parameters = call
        .pointer("/request/parameters")
        .map(|p| p.to_string())
        .unwrap_or_else(|| "null".into());
    let matched = call.get("match").and_then(Value::as_bool).unwrap_or(false);
    let mut marks = vec![if matched {
        "<span class=ok>matched</span>".to_string()
    } else {
        "<span class=bad>not matched</span>".to_string()
    }];
    if predicted && call.get("bad_action") == Some(&Value::Bool(true)) {
        marks.push("<span class=bad>bad action</span>".into());
    }
    if let Some(exception) = call.get("exception").and_then(Value::as_str) {
        marks.push(format!("<span class=bad>raised: {}</span>", esc(exception)));
    }
    let _ = write!(
        out,
        "<div class=call>{}({}) {}</div>",
        esc(name),
        esc(&parameters),
        marks.join(" ")
    );
}
