//! `talkforge generate dialogues` and `talkforge generate database`: LLM
//! drafts filtered by lint and grounded by execution (see `gen::drafts`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::requests::{CacheArgs, RequestArgs};
use super::{Context, OutputFormat, Status};
use crate::gen::ask::{ask_all, Question};
use crate::gen::drafts::database::{self, SeedSummary};
use crate::gen::drafts::{self, funnel, judge, Candidate, DraftOutcome, DraftSummary, Examined};
use crate::gen::drafts::{Output, Template};
use crate::llm::client::Settings;
use crate::llm::usage::{ModelUsage, Role};
use crate::suite::drafting::{DraftRequest, Drafting};
use crate::suite::{Registry, Suite};
use crate::Error;

/// How drafts are grouped into prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum GroupBy {
    /// One prompt per API.
    #[default]
    Api,
    /// One prompt for all the APIs that read the same database.
    Database,
}

/// What both subcommands ask the model with.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// The chat model to ask.
    #[arg(long, default_value = super::requests::DEFAULT_MODEL)]
    pub model: String,
    /// Sampling temperature sent to the model (some variety helps drafts).
    #[arg(long, default_value_t = 0.7)]
    pub temperature: f32,
    /// The most tokens one reply may hold.
    #[arg(long, default_value_t = 2048)]
    pub max_tokens: u32,
    #[command(flatten)]
    pub requests: RequestArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

impl ModelArgs {
    fn settings(&self) -> Result<Settings, Error> {
        Ok(Settings {
            http: self.requests.http()?,
            model: self.model.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            cache: self.cache.root().map(Path::to_path_buf),
            trial: None,
        })
    }

    /// The same server and cache for another model, at temperature 0 (a
    /// judge answers the same dialogue the same way).
    fn judge_settings(&self, model: &str) -> Result<Settings, Error> {
        Ok(Settings {
            model: model.to_string(),
            temperature: 0.0,
            ..self.settings()?
        })
    }
}

#[derive(Debug, clap::Args)]
pub struct DialogueArgs {
    /// The suite whose dialogues to draft (apibank, tooltalk).
    #[arg(long)]
    pub suite: String,
    /// The databases folder [default: the suite's own].
    #[arg(long)]
    pub databases: Option<PathBuf>,
    /// Whose words a tool search in a draft answers with: the reference's
    /// or this project's catalog [default: what talkforge.toml's subsets
    /// of the suite that run with these databases declare, else the
    /// reference's].
    #[arg(long, value_enum)]
    pub tool_descriptions: Option<crate::suite::ToolDescriptions>,
    /// Draft for these APIs only (comma-separated) [default: every API;
    /// ToolTalk: scenarios that use one of them].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub apis: Vec<String>,
    /// One prompt per API, or one per database for the APIs reading it.
    #[arg(long, value_enum, default_value_t)]
    pub by: GroupBy,
    /// Prompts per API (or database, or scenario): N different prompts,
    /// each with another record drawn while there are enough, another
    /// situation and its own number.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub drafts: usize,
    /// Seeds the records drawn into prompts.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Scenario pool files or folders to draft from (ToolTalk).
    #[arg(long, value_name = "PATH")]
    pub scenarios: Vec<PathBuf>,
    /// A minijinja template [default: the suite's prompts/draft-<suite>.j2].
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// Only the first N prompts.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Render the prompts (written under --out/prompts when --out is
    /// given) without sending anything.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    /// After the other checks, ask this model (same server and cache as
    /// --model) whether each draft's calls do what the user asked and its
    /// replies state only what the results hold; drafts it refuses go to
    /// rejected/ with its reason.
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// The judge's minijinja template [default: prompts/judge-draft.j2].
    #[arg(long, value_name = "FILE", requires = "judge_model")]
    pub judge_template: Option<PathBuf>,
    /// Where drafts go, one folder per verdict (accepted, raised, dropped,
    /// rejected, discarded), with summary.json [default: drafts/<suite>].
    #[arg(long, help_heading = "Output")]
    pub out: Option<PathBuf>,
    /// Draft again the prompts whose drafts --out already holds (without
    /// it they are kept as they are: a reviewer may have edited them).
    #[arg(long, help_heading = "Output")]
    pub force: bool,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t, help_heading = "Output")]
    pub format: OutputFormat,
}

#[derive(Debug, clap::Args)]
pub struct DatabaseArgs {
    /// The suite whose databases to seed (apibank).
    #[arg(long)]
    pub suite: String,
    /// The databases folder to start from (never written) [default: the
    /// suite's own].
    #[arg(long)]
    pub databases: Option<PathBuf>,
    /// The new databases folder: every database, with the added records.
    #[arg(long)]
    pub out: PathBuf,
    /// Propose calls of these APIs only (comma-separated) [default: every
    /// API that adds records].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub apis: Vec<String>,
    /// Calls each prompt asks for.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub count: usize,
    /// Seeds the example records shown in prompts.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A minijinja template [default: the suite's prompts/seed-<suite>.j2].
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// Render the prompts (written under --out/prompts) without sending
    /// anything.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Write into --out even when it holds files.
    #[arg(long, help_heading = "Output")]
    pub force: bool,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t, help_heading = "Output")]
    pub format: OutputFormat,
}

fn drafting_suite(
    registry: &Registry,
    name: &str,
) -> Result<(&'static dyn Suite, &'static dyn Drafting), Error> {
    let suite = registry.named(Some(name))?.expect("named");
    let drafting = suite
        .drafting()
        .ok_or_else(|| Error::Usage(format!("the {name} suite cannot draft with an LLM")))?;
    Ok((suite, drafting))
}

fn template_of(given: Option<&Path>, built_in: (&str, &str)) -> Result<Template, Error> {
    Ok(match given {
        Some(path) => Template {
            name: path.display().to_string(),
            text: crate::formats::read::read_text(path)?,
        },
        None => Template {
            name: built_in.0.to_string(),
            text: built_in.1.to_string(),
        },
    })
}

pub fn dialogues(args: &DialogueArgs, context: &mut Context<'_>) -> Result<Status, Error> {
    if args.drafts == 0 {
        return Err(Error::Usage("--drafts must be at least 1".into()));
    }
    args.model.requests.http()?;
    let (suite, drafting) = drafting_suite(context.registry, &args.suite)?;
    let databases_dir = super::databases_dir(args.databases.as_deref(), suite)?;
    let databases = suite.load_databases(&databases_dir)?;
    let execution = drafts::Execution {
        databases: &databases,
        tool_descriptions: match args.tool_descriptions {
            Some(given) => given,
            None => crate::dataset::declared_tool_descriptions(
                context.registry,
                &std::env::current_dir().unwrap_or_default(),
                suite,
                &databases_dir,
            )?
            .unwrap_or_default(),
        },
    };
    let request = DraftRequest {
        databases: &databases,
        databases_dir: &databases_dir,
        tools: &args.apis,
        by_database: args.by == GroupBy::Database,
        per_group: args.drafts,
        seed: args.seed,
        scenarios: &args.scenarios,
    };
    let mut jobs = drafting.dialogue_jobs(&request)?;
    if let Some(limit) = args.limit {
        jobs.truncate(limit);
    }
    let template = template_of(args.template.as_deref(), drafting.dialogue_template())?;
    let prompts = drafts::render(suite, &template, jobs)?;
    let judge_template = match &args.judge_model {
        Some(_) => Some(judge::checked(template_of(
            args.judge_template.as_deref(),
            judge::TEMPLATE,
        )?)?),
        None => None,
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("drafts").join(suite.name()));
    if args.dry_run {
        let files = match args.out {
            Some(_) => write_prompts(
                &out,
                prompts
                    .iter()
                    .map(|p| (p.job.name.as_str(), p.text.as_str())),
            )?,
            None => Vec::new(),
        };
        let summary = json!({"prompts": prompts.len(), "drafts": 0, "files": files});
        match args.format {
            OutputFormat::Json => context.println(format_args!(
                "{}",
                serde_json::to_string_pretty(&summary).expect("json")
            )),
            OutputFormat::Human => context.println(format_args!(
                "{} rendered, nothing sent; {} written",
                crate::words::count(prompts.len(), "prompt"),
                crate::words::count(files.len(), "file")
            )),
        }
        return Ok(Status::Clean);
    }
    create_dir(&out)?;
    let output = Output {
        dir: out.clone(),
        extension: suite.formats()[0].endings[0],
    };
    let earlier = earlier_outcomes(&out.join("summary.json"));
    let (mut to_send, mut kept) = (Vec::new(), Vec::new());
    for (i, prompt) in prompts.iter().enumerate() {
        if args.force {
            output.clear(&prompt.job.name)?;
            to_send.push(i);
        } else if output.existing(&prompt.job.name).is_some() {
            kept.push(prompt.job.name.clone());
        } else {
            to_send.push(i);
        }
    }
    let mut outcomes: Vec<DraftOutcome> = kept
        .iter()
        .filter_map(|name| earlier.get(name).cloned())
        .collect();
    let mut failures = Vec::new();
    let mut candidates: Vec<(usize, Candidate)> = Vec::new();
    // The draft's number enters the cache key: two drafts of one prompt
    // never answer for each other.
    let questions = to_send
        .iter()
        .map(|&i| Question {
            text: prompts[i].text.clone(),
            tag: Some(format!("draft {}", prompts[i].job.draft)),
        })
        .collect();
    let mut usage = ask_all(
        args.model.settings()?,
        Role::Generator,
        questions,
        args.model.requests.concurrency,
        "prompts",
        |k, reply| {
            let i = to_send[k];
            let job = &prompts[i].job;
            let examined = reply.and_then(|reply| {
                drafts::examine(
                    suite,
                    drafting,
                    execution,
                    job,
                    &reply.text,
                    reply.model,
                    &output,
                )
            });
            let settled = match examined {
                Ok(Examined::Passed(candidate)) if judge_template.is_some() => {
                    candidates.push((i, *candidate));
                    return;
                }
                Ok(Examined::Passed(candidate)) => candidate.accept(&output, None),
                Ok(Examined::Settled(outcome)) => Ok(outcome),
                Err(e) => Err(e),
            };
            match settled {
                Ok(outcome) => outcomes.push(outcome),
                Err(e) => failures.push(format!("  prompt {}: {e}", job.name)),
            }
        },
    )?;
    if let (Some(model), Some(template)) = (&args.judge_model, &judge_template) {
        usage.extend(judge_candidates(
            suite,
            args,
            model,
            template,
            candidates,
            &prompts,
            &output,
            (&mut outcomes, &mut failures),
        )?);
    }
    let mut summary = DraftSummary::new(prompts.len(), outcomes, kept, args.judge_model.clone());
    summary.usage = usage;
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&summary).expect("json")
    );
    crate::formats::atomic_write(&out.join("summary.json"), text.as_bytes())?;
    if !failures.is_empty() {
        failures.sort();
        return Err(Error::Other(format!(
            "{} of {} failed (the others are written and cached; a rerun sends only the failed ones):\n{}",
            failures.len(),
            crate::words::count(prompts.len(), "prompt"),
            failures.join("\n")
        )));
    }
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("json")
        )),
        OutputFormat::Human => context.print(format_args!("{}", human_drafts(&summary, &out))),
    }
    Ok(Status::Clean)
}

/// Ask the judge about every draft that passed the other checks (in
/// prompt order), and write each under the verdict it gets. A draft whose
/// judging failed is not written: a rerun drafts it again from the cache
/// and asks the judge again.
#[allow(clippy::too_many_arguments)]
fn judge_candidates(
    suite: &dyn Suite,
    args: &DialogueArgs,
    model: &str,
    template: &Template,
    mut candidates: Vec<(usize, Candidate)>,
    prompts: &[drafts::DraftPrompt],
    output: &Output,
    (outcomes, failures): (&mut Vec<DraftOutcome>, &mut Vec<String>),
) -> Result<Vec<ModelUsage>, Error> {
    candidates.sort_by_key(|(i, _)| *i);
    let questions = candidates
        .iter()
        .map(|(i, candidate)| {
            judge::prompt(
                suite,
                template,
                &candidate.dialogue,
                &prompts[*i].job.targets,
            )
            .map(Question::from)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut waiting: Vec<Option<Candidate>> =
        candidates.into_iter().map(|(_, c)| Some(c)).collect();
    ask_all(
        args.model.judge_settings(model)?,
        Role::Judge,
        questions,
        args.model.requests.concurrency,
        "drafts judged",
        |k, reply| {
            let candidate = waiting[k].take().expect("one reply a draft");
            let name = candidate.outcome.name.clone();
            let settled = reply.and_then(|reply| {
                let judgement = judge::read(&reply.text, reply.model);
                if judgement.accepts() {
                    candidate.accept(output, Some(judgement))
                } else {
                    candidate.reject(output, judgement)
                }
            });
            match settled {
                Ok(outcome) => outcomes.push(outcome),
                Err(e) => failures.push(format!("  judging {name}: {e}")),
            }
        },
    )
}

/// The outcomes an earlier run recorded, by draft name (none when its
/// summary is missing or unreadable: those drafts are then kept uncounted).
fn earlier_outcomes(path: &Path) -> HashMap<String, DraftOutcome> {
    #[derive(serde::Deserialize)]
    struct Earlier {
        per_draft: Vec<DraftOutcome>,
    }
    crate::formats::read_json(path)
        .ok()
        .and_then(|(_, value)| serde_json::from_value::<Earlier>(value).ok())
        .map(|earlier| {
            earlier
                .per_draft
                .into_iter()
                .map(|o| (o.name.clone(), o))
                .collect()
        })
        .unwrap_or_default()
}

fn human_drafts(s: &DraftSummary, out: &Path) -> String {
    let judged = match &s.judge_model {
        Some(_) => format!(", {} rejected by the judge", s.rejected),
        None => String::new(),
    };
    let mut text = format!(
        "{}: {} accepted, {} raised (kept apart), {} dropped{judged}, {} discarded; drop rate {:.1}%\n",
        crate::words::count(s.drafts, "draft"),
        s.accepted,
        s.raised,
        s.dropped,
        s.discarded,
        s.drop_rate * 100.0
    );
    text += &funnel::table(&s.stages);
    if !s.kept.is_empty() {
        text += &format!(
            "  {} kept from an earlier run (--force drafts them again)\n",
            crate::words::count(s.kept.len(), "draft")
        );
    }
    let folders: Vec<String> = drafts::Verdict::ALL
        .iter()
        .filter(|v| s.judge_model.is_some() || **v != drafts::Verdict::Rejected)
        .map(|v| format!("{}/", v.folder()))
        .collect();
    text += &format!(
        "written under {} ({}, summary.json)\n",
        out.display(),
        folders.join(", ")
    );
    text += &crate::llm::usage::human(&s.usage);
    text
}

pub fn database(args: &DatabaseArgs, context: &mut Context<'_>) -> Result<Status, Error> {
    if args.count == 0 {
        return Err(Error::Usage("--count must be at least 1".into()));
    }
    args.model.requests.http()?;
    let (suite, drafting) = drafting_suite(context.registry, &args.suite)?;
    let built_in = drafting.seed_template().ok_or_else(|| {
        Error::Usage(format!(
            "the {} suite cannot seed its databases with an LLM",
            suite.name()
        ))
    })?;
    let source = super::databases_dir(args.databases.as_deref(), suite)?;
    // A dry run writes only its prompts, beside whatever --out holds.
    refuse_to_overwrite(&source, &args.out, args.force || args.dry_run)?;
    let databases = suite.load_databases(&source)?;
    let jobs = drafting.seed_jobs(&databases, &args.apis, args.seed)?;
    let template = template_of(args.template.as_deref(), built_in)?;
    let prompts = database::render(suite, &template, jobs, args.count)?;
    if args.dry_run {
        let files = write_prompts(
            &args.out,
            prompts
                .iter()
                .map(|p| (p.job.name.as_str(), p.text.as_str())),
        )?;
        let summary = json!({"prompts": prompts.len(), "proposals": 0, "files": files});
        match args.format {
            OutputFormat::Json => context.println(format_args!(
                "{}",
                serde_json::to_string_pretty(&summary).expect("json")
            )),
            OutputFormat::Human => context.println(format_args!(
                "{} rendered, nothing sent; {} written",
                crate::words::count(prompts.len(), "prompt"),
                crate::words::count(files.len(), "file")
            )),
        }
        return Ok(Status::Clean);
    }
    let mut replies: Vec<Option<String>> = vec![None; prompts.len()];
    let mut failures = Vec::new();
    let texts = prompts.iter().map(|p| p.text.clone().into()).collect();
    let usage = ask_all(
        args.model.settings()?,
        Role::Generator,
        texts,
        args.model.requests.concurrency,
        "prompts",
        |i, reply| match reply {
            Ok(reply) => replies[i] = Some(reply.text),
            Err(e) => failures.push(format!("  prompt {}: {e}", prompts[i].job.name)),
        },
    )?;
    if !failures.is_empty() {
        // Nothing is written from part of the proposals: the order they
        // run in decides what each adds. The replies are cached.
        failures.sort();
        return Err(Error::Other(format!(
            "{} of {} failed, so nothing was written (the others are cached; rerun):\n{}",
            failures.len(),
            crate::words::count(prompts.len(), "prompt"),
            failures.join("\n")
        )));
    }
    let answered: Vec<_> = prompts
        .into_iter()
        .zip(replies)
        .map(|(prompt, reply)| (prompt.job, reply.unwrap_or_default()))
        .collect();
    let (seeded, per_proposal) = database::run_proposals(suite, drafting, &databases, &answered)?;
    let changed = database::changed_databases(&databases, &seeded);
    let files = database::write_folder(suite, &source, &seeded, &changed, &args.out)?;
    let mut by_reason = std::collections::BTreeMap::new();
    for reason in per_proposal.iter().filter_map(|p| p.reason) {
        *by_reason.entry(reason).or_default() += 1;
    }
    let added = per_proposal.iter().filter(|p| p.added).count();
    let summary = SeedSummary {
        prompts: answered.len(),
        proposals: per_proposal.len(),
        added,
        invalid: per_proposal.len() - added,
        by_reason,
        changed,
        files,
        usage,
        per_proposal,
    };
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("json")
        )),
        OutputFormat::Human => {
            context.println(format_args!(
                "{}: {} added, {} invalid; {} written to {} ({} changed: {})",
                crate::words::count(summary.proposals, "proposed call"),
                summary.added,
                summary.invalid,
                crate::words::count(summary.files.len(), "database"),
                args.out.display(),
                summary.changed.len(),
                summary.changed.join(", ")
            ));
            for p in summary.per_proposal.iter().filter(|p| !p.added) {
                context.println(format_args!(
                    "  {} line {}: {} ({})",
                    p.prompt,
                    p.line,
                    p.reason.unwrap_or_default(),
                    p.detail.as_deref().unwrap_or_default()
                ));
            }
            print!("{}", crate::llm::usage::human(&summary.usage));
        }
    }
    Ok(Status::Clean)
}

/// Write each rendered prompt to `out/prompts/NAME.prompt.md` (a dry
/// run's); the files written.
fn write_prompts<'p>(
    out: &Path,
    prompts: impl Iterator<Item = (&'p str, &'p str)>,
) -> Result<Vec<String>, Error> {
    let folder = out.join(PROMPTS_FOLDER);
    let mut files = Vec::new();
    for (name, text) in prompts {
        create_dir(&folder)?;
        let path = folder.join(format!("{name}.prompt.md"));
        crate::formats::atomic_write(&path, text.as_bytes())?;
        files.push(path.display().to_string());
    }
    Ok(files)
}

/// Where a dry run writes its prompts, under `--out`.
const PROMPTS_FOLDER: &str = "prompts";

/// The new folder must not be the source, nor a folder holding files
/// (unless `force`; the prompts a dry run wrote there do not count).
fn refuse_to_overwrite(source: &Path, out: &Path, force: bool) -> Result<(), Error> {
    let same = match (source.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(Error::Usage(format!(
            "--out {} is the databases folder it starts from; write the seeded databases to a new folder",
            out.display()
        )));
    }
    let holds_files = std::fs::read_dir(out).is_ok_and(|mut entries| {
        entries.any(|entry| {
            entry.is_ok_and(|e| !(e.file_name() == PROMPTS_FOLDER && e.path().is_dir()))
        })
    });
    if holds_files && !force {
        return Err(Error::Usage(format!(
            "{} already holds files; pass --force to write into it, or name a new folder",
            out.display()
        )));
    }
    Ok(())
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::input(dir, format!("cannot create: {e}")))
}
