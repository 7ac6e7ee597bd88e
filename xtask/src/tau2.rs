//! The tau2 part of `cargo xtask bench`: `verify` over both upstream
//! domains (airline and retail) in one process, `lint` of each, and
//! verify's peak memory with each domain's tasks file replicated ten
//! times in the file (the same database beside it), which must stay flat:
//! a task's world is dropped once its actions have run.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::bench::{median_run, Target};

/// The domains of the upstream snapshot, each a folder holding
/// `tasks.json` with `db.json` beside it.
pub const DOMAINS: [&str; 2] = ["airline", "retail"];

/// Verify of both domains together, at x1, must take less than this
/// (issue 34, on the 2-core development machine).
const VERIFY_SECONDS: f64 = 7.0;

/// How many times the tasks are repeated for the memory check.
const REPLICAS: usize = 10;

/// Whether `dir` holds both domains' tasks and databases.
pub fn present(dir: &Path) -> bool {
    DOMAINS.iter().all(|domain| {
        let folder = dir.join(domain);
        folder.join("tasks.json").is_file() && folder.join("db.json").is_file()
    })
}

/// One timed command.
struct Figure {
    name: String,
    /// Tasks and gold actions in its input.
    tasks: u64,
    actions: u64,
    seconds: f64,
    peak_rss_mib: f64,
}

/// Time the commands over `upstream` (see the module docs); the targets.
pub fn run(
    binary: &Path,
    upstream: &Path,
    runs: usize,
    scratch: &Path,
) -> anyhow::Result<Vec<Target>> {
    let mut figures = Vec::new();
    for replicas in [1, REPLICAS] {
        let data = scratch.join(format!("x{replicas}"));
        let tasks = replicate(upstream, &data, replicas)?;
        let both: Vec<String> = tasks.iter().map(|p| p.display().to_string()).collect();
        let (n, actions) = count(binary, &both)?;
        let verify = [
            vec!["verify".to_string(), "--suite".into(), "tau2".into()],
            both.clone(),
            vec!["--format".into(), "json".into()],
        ]
        .concat();
        let (seconds, peak) = median_run(binary, &verify, runs, None)?;
        figures.push(Figure {
            name: format!("verify airline+retail x{replicas}"),
            tasks: n,
            actions,
            seconds,
            peak_rss_mib: peak,
        });
        for (domain, file) in DOMAINS.iter().zip(&both) {
            let (n, actions) = count(binary, std::slice::from_ref(file))?;
            let lint: Vec<String> = ["lint", "--suite", "tau2", file, "--format", "json"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let (seconds, peak) = median_run(binary, &lint, runs, None)?;
            figures.push(Figure {
                name: format!("lint {domain} x{replicas}"),
                tasks: n,
                actions,
                seconds,
                peak_rss_mib: peak,
            });
        }
    }
    print(&figures, runs);
    let at = |name: &str| {
        figures
            .iter()
            .find(|f| f.name == name)
            .expect("every command ran at every size")
    };
    let once = at("verify airline+retail x1");
    let grown = at(&format!("verify airline+retail x{REPLICAS}"));
    let targets = vec![
        Target {
            what: format!(
                "tau2 verify of both upstream domains under {VERIFY_SECONDS} s: {:.3} s",
                once.seconds
            ),
            met: once.seconds < VERIFY_SECONDS,
        },
        Target {
            what: format!(
                "tau2 verify: memory flat ({:.1} MiB at x1, {:.1} MiB at x{REPLICAS} tasks; \
                 at most 1.5x)",
                once.peak_rss_mib, grown.peak_rss_mib
            ),
            met: grown.peak_rss_mib <= once.peak_rss_mib * 1.5,
        },
    ];
    // Lint keeps every finding (replicated tasks are duplicates, each
    // found): its growth is shown, not held to a target.
    for domain in DOMAINS {
        let (small, big) = (
            at(&format!("lint {domain} x1")),
            at(&format!("lint {domain} x{REPLICAS}")),
        );
        println!(
            "info   tau2 lint {domain}: {:.1} MiB at x1, {:.1} MiB at x{REPLICAS} (no target)",
            small.peak_rss_mib, big.peak_rss_mib
        );
    }
    Ok(targets)
}

fn print(figures: &[Figure], runs: usize) {
    println!(
        "talkforge bench: upstream tau2 (airline, retail); tasks repeated x1 and x{REPLICAS} \
         in their file; median of {runs} runs, whole process"
    );
    println!();
    println!(
        "| {:<28} | {:>6} | {:>8} | {:>8} | {:>10} | {:>13} |",
        "command", "tasks", "actions", "seconds", "actions/s", "peak RSS MiB"
    );
    println!(
        "|{:-<30}|{:->8}|{:->10}|{:->10}|{:->12}|{:->15}|",
        "", "", "", "", "", ""
    );
    for f in figures {
        println!(
            "| {:<28} | {:>6} | {:>8} | {:>8.3} | {:>10.0} | {:>13.1} |",
            f.name,
            f.tasks,
            f.actions,
            f.seconds,
            f.actions as f64 / f.seconds,
            f.peak_rss_mib
        );
    }
    println!();
}

/// Each domain under `dest/<domain>/`: its tasks repeated `replicas`
/// times in one `tasks.json` (each copy's ids suffixed), its `db.json`
/// beside them; the tasks files.
fn replicate(upstream: &Path, dest: &Path, replicas: usize) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for domain in DOMAINS {
        let from = upstream.join(domain);
        let to = dest.join(domain);
        std::fs::create_dir_all(&to)?;
        let tasks_path = from.join("tasks.json");
        let text = std::fs::read_to_string(&tasks_path)
            .with_context(|| tasks_path.display().to_string())?;
        let tasks: Vec<serde_json::Value> =
            serde_json::from_str(&text).with_context(|| tasks_path.display().to_string())?;
        // Each copy's ids made its own: a file may not hold an id twice.
        let repeated: Vec<serde_json::Value> = (0..replicas)
            .flat_map(|n| {
                tasks.iter().map(move |task| {
                    let mut task = task.clone();
                    if n > 0 {
                        let id = task["id"].as_str().unwrap_or_default().to_string();
                        task["id"] = format!("{id}-copy{n}").into();
                    }
                    task
                })
            })
            .collect();
        let file = to.join("tasks.json");
        std::fs::write(&file, serde_json::to_vec(&repeated)?)?;
        std::fs::copy(from.join("db.json"), to.join("db.json"))?;
        files.push(file);
    }
    Ok(files)
}

/// Tasks and gold actions in `files`, as `stats` counts them.
fn count(binary: &Path, files: &[String]) -> anyhow::Result<(u64, u64)> {
    let out = std::process::Command::new(binary)
        .arg("stats")
        .args(["--suite", "tau2"])
        .args(files)
        .args(["--format", "json"])
        .output()?;
    if !out.status.success() {
        anyhow::bail!("stats failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let n = |k: &str| doc[k].as_u64().unwrap_or(0);
    Ok((n("conversations"), n("gold_calls")))
}
