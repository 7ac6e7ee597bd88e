//! The inputs that once made a command quadratic (issue 37), each timed at
//! two sizes ten times apart. A command linear in its input takes about
//! ten times as long on the larger one (less, while starting the process
//! is a large part of it); one quadratic in it, a hundred times. So each
//! case must grow at most [`MAX_GROWTH`] times, in time and, where a copy
//! per item was the problem (lint's findings), in peak memory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::bench::{median_run, Target};

/// The most a case may grow for ten times the input.
const MAX_GROWTH: f64 = 15.0;

/// Where the upstream data the cases start from is.
pub struct Upstream {
    pub tooltalk: PathBuf,
    pub apibank: PathBuf,
}

/// A command's arguments, and a folder it writes (removed before each run).
type Run = (Vec<String>, Option<PathBuf>);

/// One input that grows, and the command run over it.
struct Case {
    name: &'static str,
    /// What `n` counts.
    unit: &'static str,
    sizes: [usize; 2],
    /// Peak memory must grow linearly too.
    memory: bool,
    /// Writes the input of size `n` under `dir`; the command to time.
    make: fn(&Path, usize, &Upstream) -> anyhow::Result<Run>,
}

const CASES: &[Case] = &[
    Case {
        name: "evaluate --out, one folder",
        unit: "conversations",
        sizes: [780, 7800],
        memory: false,
        make: one_folder,
    },
    Case {
        name: "lint, findings on one line (human)",
        unit: "findings",
        sizes: [10_000, 100_000],
        memory: true,
        make: |dir, n, _| findings_on_one_line(dir, n, "human"),
    },
    Case {
        name: "lint, findings on one line (sarif)",
        unit: "findings",
        sizes: [10_000, 100_000],
        memory: true,
        make: |dir, n, _| findings_on_one_line(dir, n, "sarif"),
    },
    Case {
        name: "stats, unclosed calls in a sheet",
        unit: "unclosed calls",
        sizes: [8_000, 80_000],
        memory: false,
        make: unclosed_calls,
    },
    Case {
        name: "stats, calls in a .lv3.json",
        unit: "calls",
        sizes: [8_000, 80_000],
        memory: false,
        make: level3_calls,
    },
    Case {
        name: "evaluate --level 1, one dialogue",
        unit: "lines",
        sizes: [20_000, 200_000],
        memory: false,
        make: long_dialogue,
    },
];

/// Time every case at both sizes; print a table; the targets.
pub fn run(
    binary: &Path,
    upstream: &Upstream,
    runs: usize,
    scratch: &Path,
) -> anyhow::Result<Vec<Target>> {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| {:<36} | {:>8} | {:>8} | {:>13} |",
        "case", "size", "seconds", "peak RSS MiB"
    );
    let _ = writeln!(table, "|{:-<38}|{:->10}|{:->10}|{:->15}|", "", "", "", "");
    let mut targets = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let mut figures = Vec::new();
        for n in case.sizes {
            let dir = scratch.join(format!("scale-{i}-{n}"));
            std::fs::create_dir_all(&dir)?;
            let (args, writes) = (case.make)(&dir, n, upstream)
                .with_context(|| format!("making the input of {} ({n})", case.name))?;
            let (seconds, peak) = median_run(binary, &args, runs, writes.as_deref())
                .with_context(|| format!("running {} ({n})", case.name))?;
            let _ = writeln!(
                table,
                "| {:<36} | {:>8} | {seconds:>8.3} | {peak:>13.1} |",
                case.name, n
            );
            figures.push((seconds, peak));
        }
        let [(t0, m0), (t1, m1)] = [figures[0], figures[1]];
        let [n0, n1] = case.sizes;
        targets.push(Target {
            what: format!(
                "{}: time linear in {} ({t0:.3} s at {n0}, {t1:.3} s at {n1}: {:.1}x; at most {MAX_GROWTH}x)",
                case.name,
                case.unit,
                t1 / t0
            ),
            met: t1 <= t0 * MAX_GROWTH,
        });
        if case.memory {
            targets.push(Target {
                what: format!(
                    "{}: memory linear in {} ({m0:.1} MiB at {n0}, {m1:.1} MiB at {n1}: {:.1}x; at most {MAX_GROWTH}x)",
                    case.name,
                    case.unit,
                    m1 / m0
                ),
                met: m1 <= m0 * MAX_GROWTH,
            });
        }
    }
    println!("talkforge bench: inputs that grow (issue 37), median of {runs} runs\n");
    println!("{table}");
    Ok(targets)
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// `n` upstream ToolTalk conversations in one folder, evaluated with
/// `--out`: each atomic write once listed the whole folder.
fn one_folder(dir: &Path, n: usize, upstream: &Upstream) -> anyhow::Result<Run> {
    let data = dir.join("data").join("all");
    std::fs::create_dir_all(&data)?;
    let mut sources = Vec::new();
    for subset in ["easy", "tooltalk"] {
        for entry in std::fs::read_dir(upstream.tooltalk.join(subset))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                sources.push(path);
            }
        }
    }
    sources.sort();
    anyhow::ensure!(!sources.is_empty(), "no upstream ToolTalk conversations");
    for i in 0..n {
        std::fs::copy(
            &sources[i % sources.len()],
            data.join(format!("{i:05}.json")),
        )?;
    }
    let out = dir.join("out");
    let args = strings(&[
        "evaluate",
        &text(&dir.join("data")),
        "--databases",
        &text(&upstream.tooltalk.join("databases")),
        "--predictor",
        "oracle",
        "--format",
        "json",
        "--out",
        &text(&out),
    ]);
    Ok((args, Some(out)))
}

/// An API-Bank call passing `n` arguments its API does not take, on one
/// line: each finding once kept a copy of the line.
fn findings_on_one_line(dir: &Path, n: usize, format: &str) -> anyhow::Result<Run> {
    let mut params = serde_json::Map::new();
    params.insert("token".into(), "t".into());
    for i in 0..n {
        params.insert(format!("a{i}"), "x".into());
    }
    let lines = [
        serde_json::json!({"role": "User", "text": "Wake me at seven."}),
        serde_json::json!({"role": "API", "api_name": "AddAlarm", "param_dict": params,
            "result": {"api_name": "AddAlarm", "input": params, "output": "success",
                       "exception": null}}),
        serde_json::json!({"role": "AI", "text": "Done."}),
    ];
    let path = dir.join("AddAlarm-level-1-1.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, body)?;
    Ok((strings(&["lint", &text(&path), "--format", format]), None))
}

/// A level-3 sheet whose call line repeats `[AddAlarm(token=(` `n` times
/// before the call it holds: the call parser once read from every `[` to
/// the end of the line.
fn unclosed_calls(dir: &Path, n: usize, _: &Upstream) -> anyhow::Result<Run> {
    let sheet = format!(
        "Scene: Alarm\n\nFirst Utterance: Wake me at seven.\n\nKey Info:\n- none\n\nAPI Call:\n{}[GetToday()]\n",
        "[AddAlarm(token=(".repeat(n)
    );
    std::fs::write(dir.join("Alarm.txt"), sheet)?;
    Ok((
        strings(&[
            "stats",
            "--suite",
            "apibank",
            &text(dir),
            "--format",
            "json",
        ]),
        None,
    ))
}

/// A `.lv3.json` scenario of `n` ground-truth calls: each call was once
/// placed by reading the file from its start.
fn level3_calls(dir: &Path, n: usize, _: &Upstream) -> anyhow::Result<Run> {
    let calls: Vec<serde_json::Value> = (0..n)
        .map(|_| serde_json::json!({"api_name": "GetToday", "param_dict": {}}))
        .collect();
    let scenario = serde_json::json!({"scene": "Today", "first_utterance": "What day is it?",
        "key_info": ["none"], "ground_truth": calls});
    std::fs::write(
        dir.join("today.lv3.json"),
        serde_json::to_string_pretty(&scenario)?,
    )?;
    Ok((strings(&["stats", &text(dir), "--format", "json"]), None))
}

/// One API-Bank dialogue of `n` lines (a question, GetToday, an answer,
/// over and over) evaluated at level 1: each sample once read the whole
/// dialogue again.
fn long_dialogue(dir: &Path, n: usize, upstream: &Upstream) -> anyhow::Result<Run> {
    let round = [
        serde_json::json!({"role": "User", "text": "What day is it?"}),
        serde_json::json!({"role": "API", "api_name": "GetToday", "param_dict": {},
            "result": {"api_name": "GetToday", "input": {}, "output": "2023-03-31",
                       "exception": null}}),
        serde_json::json!({"role": "AI", "text": "It is 2023-03-31."}),
    ];
    let round: String = round.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("GetToday-level-1-1.jsonl"), round.repeat(n / 3))?;
    Ok((
        strings(&[
            "evaluate",
            &text(dir),
            "--level",
            "1",
            "--databases",
            &text(&upstream.apibank.join("init_database")),
            "--predictor",
            "oracle",
            "--format",
            "json",
        ]),
        None,
    ))
}
