//! `talkforge generate`: render the plugin-subset prompts and, unless
//! `--dry-run`, ask the model and write one scenario pool per prompt.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::requests::{CacheArgs, RequestArgs};
use super::{Context, OutputFormat, Status};
use crate::formats::scenario::ScenarioPool;
use crate::gen::ask::ask_all;
use crate::gen::{render_all, Ask, Filter, Prompt, DEFAULT_TEMPLATE};
use crate::llm::client::{Reply, Settings};
use crate::Error;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    /// Without a subcommand: scenario pools, one per plugin-subset prompt.
    #[command(subcommand)]
    pub what: Option<What>,
    /// The suite whose catalog the prompts document [default: the first
    /// with scenario pools].
    #[arg(long)]
    pub suite: Option<String>,
    /// A minijinja template; the built-in prompts/scenarios.j2 by default.
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// How many plugins each prompt documents (all subsets of that size).
    #[arg(long, default_value_t = 3)]
    pub plugins_per_prompt: usize,
    /// How many scenarios each prompt asks for.
    #[arg(long, default_value_t = 3)]
    pub scenarios: usize,
    /// The least number of tool calls a scenario should need (asked for).
    #[arg(long, default_value_t = 5)]
    pub min_calls: usize,
    /// The least number of distinct tools a scenario must mention (asked
    /// for, and enforced by the filter).
    #[arg(long, default_value_t = 3)]
    pub min_tools: usize,
    /// The chat model to ask.
    #[arg(long, default_value = super::requests::DEFAULT_MODEL)]
    pub model: String,
    /// Sampling temperature sent to the model.
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f32,
    /// The most tokens one reply may hold.
    #[arg(long, default_value_t = 2048)]
    pub max_tokens: u32,
    /// Only the first N prompts.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Render and count without sending anything.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub requests: RequestArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
    /// Where pools go (with --dry-run: the rendered prompts and a manifest,
    /// only when given).
    #[arg(long, help_heading = "Output")]
    pub out: Option<PathBuf>,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t, help_heading = "Output")]
    pub format: OutputFormat,
    /// Ask again for every prompt, replacing the pools --out already holds
    /// (without it, a pool of the same prompt is kept and any other is
    /// refused).
    #[arg(long, help_heading = "Output")]
    pub force: bool,
}

/// What else `generate` drafts with the model.
#[derive(Debug, clap::Subcommand)]
pub enum What {
    /// Draft dialogues, keep those whose calls are well formed and grounded,
    /// and record what the calls really return.
    Dialogues(Box<super::drafts::DialogueArgs>),
    /// Propose add-record calls, run them, and write a new databases folder
    /// holding what they added.
    Database(Box<super::drafts::DatabaseArgs>),
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    match &args.what {
        Some(What::Dialogues(args)) => return super::drafts::dialogues(args, context),
        Some(What::Database(args)) => return super::drafts::database(args, context),
        None => {}
    }
    let suite = pools_suite(context, args.suite.as_deref())?;
    let (template, template_name) = match &args.template {
        Some(path) => (
            crate::formats::read::read_text(path)?,
            path.display().to_string(),
        ),
        None => (
            DEFAULT_TEMPLATE.to_owned(),
            "prompts/scenarios.j2".to_owned(),
        ),
    };
    let ask = Ask {
        scenarios: args.scenarios,
        min_calls: args.min_calls,
        min_tools: args.min_tools,
    };
    let mut prompts = render_all(
        suite.catalog(),
        &template,
        &template_name,
        args.plugins_per_prompt,
        ask,
    )?;
    if let Some(limit) = args.limit {
        prompts.truncate(limit);
    }
    let summary = if args.dry_run {
        dry_run(args, &prompts)?
    } else {
        send(args, prompts)?
    };
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("json")
        )),
        OutputFormat::Human if args.dry_run => context.println(format_args!(
            "{} rendered, nothing sent; {} written",
            number(&summary["prompts"], "prompt"),
            crate::words::count(summary["files"].as_array().map_or(0, Vec::len), "file")
        )),
        OutputFormat::Human => {
            let kept = summary["kept"].as_u64().unwrap_or_default();
            if kept > 0 {
                context.println(format_args!(
                    "{} kept from an earlier run (--force asks again)",
                    number(&summary["kept"], "pool")
                ));
            }
            context.println(format_args!(
                "{}, {} ({} accepted, {} rejected), {} written",
                number(&summary["prompts"], "prompt"),
                number(&summary["scenarios"], "scenario"),
                summary["accepted"],
                summary["rejected"],
                crate::words::count(summary["files"].as_array().map_or(0, Vec::len), "file")
            ));
        }
    }
    Ok(Status::Clean)
}

/// The suite `--suite` names, else the first registered that has scenario
/// pools; one without them is a usage error.
pub fn pools_suite(
    context: &Context<'_>,
    name: Option<&str>,
) -> Result<&'static dyn crate::suite::Suite, Error> {
    match context.suite_named(name)? {
        Some(suite) if suite.scenario_pools().is_some() => Ok(suite),
        Some(suite) => Err(Error::Usage(format!(
            "the {} suite has no scenario pools",
            suite.name()
        ))),
        None => context
            .registry
            .suites()
            .iter()
            .copied()
            .find(|suite| suite.scenario_pools().is_some())
            .ok_or_else(|| Error::Usage("no registered suite has scenario pools".into())),
    }
}

/// A count from the summary with its noun ("1 prompt").
fn number(value: &serde_json::Value, noun: &str) -> String {
    crate::words::count(value.as_u64().unwrap_or_default() as usize, noun)
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::input(dir, format!("cannot create: {e}")))
}

fn dry_run(args: &Args, prompts: &[Prompt]) -> Result<serde_json::Value, Error> {
    let mut files = Vec::new();
    if let Some(out) = &args.out {
        create_dir(out)?;
        let mut entries = Vec::new();
        for prompt in prompts {
            let path = out.join(format!("{}.prompt.md", prompt.name));
            crate::formats::atomic_write(&path, prompt.text.as_bytes())?;
            files.push(path.display().to_string());
            entries.push(json!({
                "name": prompt.name,
                "plugins": prompt.plugins.iter().map(|p| p.name).collect::<Vec<_>>(),
                "required_tool": prompt.required_tool,
                "prompt_sha256": prompt.sha256(),
            }));
        }
        let manifest = json!({
            "template": args.template.as_ref().map_or("prompts/scenarios.j2".to_owned(), |p| p.display().to_string()),
            "plugins_per_prompt": args.plugins_per_prompt,
            "generated": false,
            "prompts": entries,
        });
        let path = out.join("manifest.json");
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&manifest).expect("json")
        );
        crate::formats::atomic_write(&path, text.as_bytes())?;
        files.push(path.display().to_string());
    }
    Ok(
        json!({"prompts": prompts.len(), "scenarios": 0, "accepted": 0, "rejected": 0, "files": files}),
    )
}

fn send(args: &Args, prompts: Vec<Prompt>) -> Result<serde_json::Value, Error> {
    let settings = Settings {
        http: args.requests.http()?,
        model: args.model.clone(),
        temperature: args.temperature,
        max_tokens: args.max_tokens,
        cache: args.cache.root().map(Path::to_path_buf),
        trial: None,
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("scenarios"));
    create_dir(&out)?;
    let (to_send, kept) = existing_pools(args, &out, &prompts)?;
    // Pools are written as replies arrive, so an interrupted run keeps
    // what it got (and the cache keeps every reply).
    let (mut scenarios, mut accepted, mut files, mut failures) = (0, 0, Vec::new(), Vec::new());
    for (i, pool, path) in &kept {
        scenarios += pool.scenarios.len();
        accepted += pool.scenarios.iter().filter(|s| s.accepted).count();
        files.push((*i, path.display().to_string()));
    }
    let texts = to_send
        .iter()
        .map(|&i| prompts[i].text.clone().into())
        .collect();
    let usage = ask_all(
        settings,
        crate::llm::usage::Role::Generator,
        texts,
        args.requests.concurrency,
        "prompts",
        |k, result| {
            let i = to_send[k];
            match result.and_then(|reply| write_pool(args, &out, &prompts[i], reply)) {
                Ok((n, ok, file)) => {
                    scenarios += n;
                    accepted += ok;
                    files.push((i, file));
                }
                Err(err) => failures.push((i, err)),
            }
        },
    )?;
    files.sort();
    let files: Vec<String> = files.into_iter().map(|(_, f)| f).collect();
    if !failures.is_empty() {
        // Pools already answered are written and cached; a rerun resumes.
        failures.sort_by_key(|(i, _)| *i);
        let lines: Vec<String> = failures
            .iter()
            .map(|(i, err)| format!("  prompt {}: {err}", prompts[*i].name))
            .collect();
        return Err(Error::Other(format!(
            "{} of {} failed ({} written; a rerun sends only the failed ones):\n{}",
            failures.len(),
            crate::words::count(prompts.len(), "prompt"),
            crate::words::count(files.len(), "pool"),
            lines.join("\n")
        )));
    }
    let mut summary = json!({
        "prompts": prompts.len(),
        "scenarios": scenarios,
        "accepted": accepted,
        "rejected": scenarios - accepted,
        "files": files,
        "kept": kept.len(),
    });
    // The tokens the model used; left out when nothing was asked.
    if !usage.is_empty() {
        summary["usage"] = json!(usage);
    }
    Ok(summary)
}

/// The pools `out` already holds for `prompts`: a pool of the same prompt
/// text is kept (a rerun after a failure asks only for the rest), any other
/// file of a pool's name is refused unless `--force`, which asks again for
/// every prompt. Returns the prompts to send (by index) and the kept pools.
#[allow(clippy::type_complexity)]
fn existing_pools(
    args: &Args,
    out: &Path,
    prompts: &[Prompt],
) -> Result<(Vec<usize>, Vec<(usize, ScenarioPool, PathBuf)>), Error> {
    let (mut to_send, mut kept, mut clashes) = (Vec::new(), Vec::new(), Vec::new());
    for (i, prompt) in prompts.iter().enumerate() {
        let path = out.join(format!("{}.json", prompt.name));
        if args.force || !path.exists() {
            to_send.push(i);
            continue;
        }
        let same = crate::formats::read_json(&path)
            .ok()
            .and_then(|(_, value)| serde_json::from_value::<ScenarioPool>(value).ok())
            .filter(|pool| pool.prompt_sha256 == prompt.sha256());
        match same {
            Some(pool) => kept.push((i, pool, path)),
            None => clashes.push(path.display().to_string()),
        }
    }
    if !clashes.is_empty() {
        return Err(Error::Usage(format!(
            "{} in {} would be overwritten: {} (another prompt's pool, or not a pool); \
             pass --force to replace them, or --out to write elsewhere",
            crate::words::count(clashes.len(), "file"),
            out.display(),
            clashes.join(", ")
        )));
    }
    Ok((to_send, kept))
}

/// Filter a reply and write its pool; (scenarios, accepted, file).
fn write_pool(
    args: &Args,
    out: &Path,
    prompt: &Prompt,
    reply: Reply,
) -> Result<(usize, usize, String), Error> {
    let filter = Filter {
        catalog: prompt.catalog,
        required_tool: prompt.required_tool.to_owned(),
        offered: prompt.tools().map(|t| t.name.to_owned()).collect(),
        min_tools: args.min_tools,
    };
    let pool = ScenarioPool {
        name: prompt.name.clone(),
        plugins: prompt.plugins.iter().map(|p| p.name.to_string()).collect(),
        required_tool: prompt.required_tool.to_owned(),
        // What the server says answered; the name asked for when it is silent.
        model: reply.model.unwrap_or_else(|| args.model.clone()),
        prompt_sha256: prompt.sha256(),
        scenarios: filter.apply(&reply.text),
        raw_reply: reply.text,
    };
    let accepted = pool.scenarios.iter().filter(|s| s.accepted).count();
    let path = out.join(format!("{}.json", prompt.name));
    let text = format!("{}\n", crate::formats::to_python_json(&pool));
    crate::formats::atomic_write(&path, text.as_bytes())?;
    Ok((pool.scenarios.len(), accepted, path.display().to_string()))
}
