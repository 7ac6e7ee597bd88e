//! Drafting dialogues with an LLM and keeping only what holds up, as the
//! API-Bank paper built its data (sections 3.3 and 3.4), for any suite
//! that provides [`Drafting`]:
//!
//! 1. a prompt per job (the suite's: one API and a record from its
//!    database, or one accepted scenario; `--drafts N` makes N different
//!    prompts of each) rendered from a minijinja template;
//! 2. the model writes the dialogue ([`transcript`]);
//! 3. the draft goes through the stages of the [`funnel`], in order, and
//!    stops at the first it fails:
//!    - **format**, discarded: it holds no dialogue or no call, a call
//!      cannot be read (`malformed-call`), names an API the suite lacks
//!      (`unknown-api`) or an argument the API does not take
//!      (`unknown-argument`); or, found once it ran, lint finds an error
//!      no later stage explains (`invalid`; placeholders excepted:
//!      ToolTalk's location is the reviewer's to write);
//!    - **execution**, kept apart (`raised`): its calls are executed
//!      (`fill`) and what they returned is recorded; one raised;
//!    - **target**, dropped (`missing-target`): it never calls the API it
//!      was drafted for (a ToolTalk scenario's required call);
//!    - **grounding**, dropped (`ungrounded-argument`): a call uses an
//!      argument the dialogue never grounds (lint's `unreachable-argument`:
//!      the paper's "information the dialogue never mentions", which it
//!      dropped by hand);
//!    - **judge** (only with a judge model, [`judge`]), rejected: a second
//!      model, reading the dialogue with its real results, finds that the
//!      calls do not do what the user asked or a reply states what no
//!      result holds (`judge-rejected`), or answers no verdict
//!      (`judge-unreadable`);
//!    - **accepted** otherwise.
//!
//! Grounding is judged after execution, so an argument taken from an
//! earlier call's real result counts as grounded. What a suite draws from
//! unseeded randomness (an API-Bank token) is seeded by the draft's name,
//! so that a rerun from the cache writes the same files.
//!
//! [`database`] seeds databases the same way.

pub mod database;
pub mod funnel;
pub mod judge;
pub mod transcript;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::sim::Databases;
use crate::suite::docs::{tool_doc, ToolDoc};
use crate::suite::drafting::{name_seed, DraftJob, DraftTurn, Drafting};
use crate::suite::{Suite, WorldOptions};
use crate::{Error, Result};
use transcript::Line;

/// What happened to a draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Accepted,
    /// Executed and recorded, but a call raised: kept apart for review.
    Raised,
    /// Executed, but it never calls the API it was drafted for, or uses an
    /// argument the dialogue never grounds.
    Dropped,
    /// Passed every other check; the judge model refused it.
    Rejected,
    /// Not a usable dialogue (unreadable, unknown API or argument).
    Discarded,
}

impl Verdict {
    /// Every verdict, in the order summaries list them.
    pub const ALL: [Verdict; 5] = [
        Verdict::Accepted,
        Verdict::Raised,
        Verdict::Dropped,
        Verdict::Rejected,
        Verdict::Discarded,
    ];
}

impl Verdict {
    /// The folder of `--out` its files go to.
    pub fn folder(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Raised => "raised",
            Verdict::Dropped => "dropped",
            Verdict::Rejected => "rejected",
            Verdict::Discarded => "discarded",
        }
    }
}

/// One draft's fate.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct DraftOutcome {
    pub name: String,
    pub verdict: Verdict,
    /// Why it was not accepted: `no-dialogue`, `no-call`,
    /// `malformed-call`, `unknown-api`, `unknown-argument`, `invalid`,
    /// `raised`, `missing-target`, `ungrounded-argument`,
    /// `judge-rejected`, `judge-unreadable` (see [`funnel::Stage::of`]).
    pub reason: Option<String>,
    /// The reason in words (which call, which argument, what was raised).
    pub detail: Option<String>,
    /// The file written: the dialogue (discarded: the model's reply).
    pub file: Option<String>,
    /// What the model wrote as API results, dropped.
    pub guessed_results: usize,
    /// The model the server says answered.
    pub model: Option<String>,
    /// What the judge model answered, when one was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<judge::Judgement>,
}

/// The template's text and its name (a path, or the built-in's).
#[derive(Debug, Clone)]
pub struct Template {
    pub name: String,
    pub text: String,
}

/// A rendered prompt.
#[derive(Debug, Clone)]
pub struct DraftPrompt {
    pub job: DraftJob,
    pub text: String,
}

/// Render a prompt per job. The template gets `tools` (names), `tool_docs`
/// (each tool's documentation, without the argument the world supplies),
/// `draft` (the job's number in its group) and the job's own variables.
pub fn render(
    suite: &dyn Suite,
    template: &Template,
    jobs: Vec<DraftJob>,
) -> Result<Vec<DraftPrompt>> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template(&template.name, &template.text)
        .map_err(|e| Error::input(&template.name, e.to_string()))?;
    let compiled = env.get_template(&template.name).expect("just added");
    jobs.into_iter()
        .map(|job| {
            let docs: Vec<ToolDoc> = job
                .tools
                .iter()
                .filter_map(|name| suite.catalog().tool(name))
                .map(|spec| documented(suite, spec))
                .collect();
            let mut variables = match &job.context {
                Value::Object(map) => map.clone(),
                _ => serde_json::Map::new(),
            };
            variables.insert("tools".into(), serde_json::json!(job.tools));
            variables.insert("draft".into(), job.draft.into());
            variables.insert(
                "tool_docs".into(),
                serde_json::to_value(&docs).expect("json"),
            );
            let text = compiled
                .render(minijinja::Value::from_serialize(&variables))
                .map_err(|e| Error::input(&template.name, e.to_string()))?;
            Ok(DraftPrompt { job, text })
        })
        .collect()
}

/// A tool's documentation as a prompt shows it: without the argument the
/// world supplies.
pub fn documented(suite: &dyn Suite, spec: &crate::suite::ToolSpec) -> ToolDoc {
    let mut doc = tool_doc(spec);
    if let Some(injected) = suite.injected_argument() {
        doc.parameters.retain(|p| p.name != injected);
    }
    doc
}

/// Where a run writes: `out/<verdict>/<name>.<ext>`.
#[derive(Debug, Clone)]
pub struct Output {
    pub dir: PathBuf,
    pub extension: &'static str,
}

impl Output {
    fn path(&self, verdict: Verdict, name: &str) -> PathBuf {
        let extension = match verdict {
            Verdict::Discarded => "txt",
            _ => self.extension,
        };
        self.dir
            .join(verdict.folder())
            .join(format!("{name}.{extension}"))
    }

    /// Where the judge's answer about a rejected draft is written, beside
    /// it.
    fn judge_note(&self, name: &str) -> PathBuf {
        self.dir
            .join(Verdict::Rejected.folder())
            .join(format!("{name}.judge.txt"))
    }

    /// A draft of this name already written by an earlier run (a reviewer
    /// may have edited it).
    pub fn existing(&self, name: &str) -> Option<PathBuf> {
        Verdict::ALL
            .into_iter()
            .map(|v| self.path(v, name))
            .chain([self.judge_note(name)])
            .find(|p| p.exists())
    }

    fn write(&self, verdict: Verdict, name: &str, text: &str) -> Result<String> {
        self.write_to(&self.path(verdict, name), text)
    }

    fn write_to(&self, path: &Path, text: &str) -> Result<String> {
        let folder = path.parent().expect("under out");
        std::fs::create_dir_all(folder)
            .map_err(|e| Error::input(folder, format!("cannot create: {e}")))?;
        crate::formats::atomic_write(path, text.as_bytes())?;
        Ok(path.display().to_string())
    }

    /// Remove what an earlier run wrote for `name` (with --force).
    pub fn clear(&self, name: &str) -> Result<()> {
        while let Some(path) = self.existing(name) {
            std::fs::remove_file(&path)
                .map_err(|e| Error::input(&path, format!("cannot remove: {e}")))?;
        }
        Ok(())
    }
}

/// What became of one reply: settled (written under its verdict), or a
/// draft that passed every check and waits for the judge (or to be
/// accepted, when there is none).
#[derive(Debug)]
pub enum Examined {
    Settled(DraftOutcome),
    Passed(Box<Candidate>),
}

/// A draft that passed every check, not written yet.
#[derive(Debug)]
pub struct Candidate {
    pub outcome: DraftOutcome,
    /// The executed dialogue, as its file is written.
    text: String,
    /// The same, read back: what the judge is shown.
    pub dialogue: crate::dialogue::Conversation,
}

impl Candidate {
    /// Write it under `accepted/`, with what the judge said if one did.
    pub fn accept(
        mut self,
        out: &Output,
        judgement: Option<judge::Judgement>,
    ) -> Result<DraftOutcome> {
        self.outcome.verdict = Verdict::Accepted;
        self.outcome.judge = judgement;
        self.outcome.file = Some(out.write(Verdict::Accepted, &self.outcome.name, &self.text)?);
        Ok(self.outcome)
    }

    /// Write it under `rejected/`, the judge's answer beside it.
    pub fn reject(mut self, out: &Output, judgement: judge::Judgement) -> Result<DraftOutcome> {
        let name = self.outcome.name.clone();
        let reason = match judgement.verdict.as_str() {
            "unreadable" => "judge-unreadable",
            _ => "judge-rejected",
        };
        let note = format!(
            "{}: {}\n(judge model: {})\n",
            judgement.verdict,
            judgement.reason,
            judgement
                .model
                .as_deref()
                .unwrap_or("not named by the server")
        );
        out.write_to(&out.judge_note(&name), &note)?;
        self.outcome.verdict = Verdict::Rejected;
        self.outcome.reason = Some(reason.to_string());
        self.outcome.detail = Some(judgement.reason.clone());
        self.outcome.judge = Some(judgement);
        self.outcome.file = Some(out.write(Verdict::Rejected, &name, &self.text)?);
        Ok(self.outcome)
    }
}

/// What a draft's calls run against: the databases, and whose words a
/// tool search answers with (the subset's the drafts are for: a dialogue
/// of the project's own must not carry the reference's sentences).
#[derive(Clone, Copy)]
pub struct Execution<'a> {
    pub databases: &'a Databases,
    pub tool_descriptions: crate::suite::ToolDescriptions,
}

/// Put one reply through the checks. A draft that fails one is written
/// under its verdict; one that passes them all is returned unwritten.
pub fn examine(
    suite: &'static dyn Suite,
    drafting: &dyn Drafting,
    execution: Execution<'_>,
    job: &DraftJob,
    reply: &str,
    model: Option<String>,
    out: &Output,
) -> Result<Examined> {
    let (lines, guessed_results) = transcript::read(reply);
    let mut outcome = DraftOutcome {
        name: job.name.clone(),
        verdict: Verdict::Discarded,
        reason: None,
        detail: None,
        file: None,
        guessed_results,
        model,
        judge: None,
    };
    let discard = |mut outcome: DraftOutcome, reason: &str, detail: String| -> Result<Examined> {
        outcome.reason = Some(reason.to_string());
        outcome.detail = Some(detail);
        outcome.file = Some(out.write(Verdict::Discarded, &job.name, reply)?);
        Ok(Examined::Settled(outcome))
    };
    let turns = match read_turns(suite, drafting, &lines) {
        Ok(turns) => turns,
        Err((reason, detail)) => return discard(outcome, reason, detail),
    };
    let text = match drafting.dialogue_text(job, &turns) {
        Ok(text) => text,
        Err(why) => return discard(outcome, "no-dialogue", why),
    };
    // Executed in a scratch file of its own (the suite's reader and
    // `fill` work on files), then moved under its verdict.
    let scratch = tempfile::Builder::new()
        .prefix(&format!("{}.", job.name))
        .suffix(&format!(".{}", out.extension))
        .tempfile_in(&out.dir)
        .map_err(|e| Error::input(&out.dir, format!("cannot write a draft: {e}")))?;
    let scratch_path = scratch.path().to_path_buf();
    std::fs::write(&scratch_path, &text).map_err(|e| Error::input(&scratch_path, e.to_string()))?;
    let loaded = match suite.load_dialogue(&scratch_path) {
        Ok(loaded) => loaded,
        Err(e) => return discard(outcome, "invalid", e.to_string()),
    };
    // What the world draws at random is drawn from the draft's name.
    let options = WorldOptions {
        draw_seed: Some(name_seed(&job.name)),
        tool_descriptions: execution.tool_descriptions,
        ..WorldOptions::default()
    };
    let filled = match crate::fill::fill_conversation(&loaded, suite, execution.databases, &options)
    {
        Ok(filled) => filled,
        Err(e) => return discard(outcome, "invalid", e.to_string()),
    };
    let text = filled.new_text.unwrap_or(text);
    std::fs::write(&scratch_path, &text).map_err(|e| Error::input(&scratch_path, e.to_string()))?;
    let checked = check_executed(suite, job, &scratch_path, &text)?;
    drop(scratch);
    match checked {
        Checked::Failed(verdict, reason, detail) => {
            outcome.verdict = verdict;
            outcome.reason = Some(reason.to_string());
            outcome.detail = Some(detail);
            outcome.file = Some(out.write(verdict, &job.name, &text)?);
            Ok(Examined::Settled(outcome))
        }
        Checked::Passed(dialogue) => {
            outcome.verdict = Verdict::Accepted;
            Ok(Examined::Passed(Box::new(Candidate {
                outcome,
                text,
                dialogue: *dialogue,
            })))
        }
    }
}

/// The draft's turns with their calls read and checked against the
/// catalog, or the reason to discard it.
fn read_turns(
    suite: &dyn Suite,
    drafting: &dyn Drafting,
    lines: &[Line],
) -> std::result::Result<Vec<DraftTurn>, (&'static str, String)> {
    if !lines.iter().any(|l| matches!(l, Line::User(_))) {
        return Err(("no-dialogue", "the reply holds no `User:` line".into()));
    }
    if !lines.iter().any(|l| matches!(l, Line::Call { .. })) {
        return Err(("no-call", "the dialogue makes no API call".into()));
    }
    let mut turns = Vec::with_capacity(lines.len());
    for line in lines {
        turns.push(match line {
            Line::User(text) => DraftTurn::User(text.clone()),
            Line::Assistant(text) => DraftTurn::Assistant(text.clone()),
            Line::Call { line, text } => {
                let (api_name, parameters) = drafting
                    .read_call(text)
                    .map_err(|why| ("malformed-call", format!("line {line}: {why}")))?;
                let Some(spec) = suite.catalog().tool(&api_name) else {
                    return Err((
                        "unknown-api",
                        format!("line {line}: there is no API named {api_name}"),
                    ));
                };
                if let Some(unknown) = parameters.keys().find(|name| {
                    spec.parameter(name).is_none()
                        && Some(name.as_str()) != suite.injected_argument()
                }) {
                    return Err((
                        "unknown-argument",
                        format!("line {line}: {api_name} takes no argument {unknown}"),
                    ));
                }
                DraftTurn::Call {
                    api_name,
                    parameters,
                }
            }
        });
    }
    Ok(turns)
}

/// What the checks after execution found.
enum Checked {
    Failed(Verdict, &'static str, String),
    /// Every check holds: the dialogue read back.
    Passed(Box<crate::dialogue::Conversation>),
}

/// The checks of the executed draft, in the funnel's order: a call that
/// raised puts it apart; then missing the API it was drafted for drops it,
/// then an ungrounded argument; then any other lint error discards it.
fn check_executed(
    suite: &'static dyn Suite,
    job: &DraftJob,
    path: &Path,
    text: &str,
) -> Result<Checked> {
    // Linted as the suite's own dialogue, its content able to say
    // otherwise as for any file `lint` reads.
    let registry = crate::suite::Registry::new(vec![suite]);
    let options = crate::lint::engine::Options {
        skip_snippets: true,
        ..Default::default()
    };
    let report = crate::lint::engine::lint_files(&registry, &[path.to_path_buf()], &options);
    if let Some(error) = report.errors.into_iter().next() {
        return Ok(Checked::Failed(
            Verdict::Discarded,
            "invalid",
            error.to_string(),
        ));
    }
    let dialogue = suite.parse_dialogue(path, text)?;
    let raised: Vec<String> = dialogue
        .gold_calls()
        .filter_map(|(turn, call, gold)| {
            let exception = gold.exception.as_ref()?;
            let place = gold.place(turn, call);
            Some(format!(
                "{} {}: {exception}",
                crate::dialogue::place_words(place.turn, place.call, gold.line()),
                gold.request.api_name
            ))
        })
        .collect();
    // A call that raised puts the draft apart whatever else lint says
    // (a value in the wrong format is often why it raised).
    if !raised.is_empty() {
        return Ok(Checked::Failed(
            Verdict::Raised,
            "raised",
            raised.join("; "),
        ));
    }
    let missing: Vec<&str> = job
        .targets
        .iter()
        .filter(|target| {
            !dialogue
                .gold_calls()
                .any(|(_, _, call)| call.request.api_name == **target)
        })
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Ok(Checked::Failed(
            Verdict::Dropped,
            "missing-target",
            format!(
                "it never calls {}, the API it was drafted for",
                missing.join(" nor ")
            ),
        ));
    }
    // A placeholder (ToolTalk's location) is the reviewer's to fill, as
    // in a scaffolded file; `check` fails until it is.
    let errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == crate::lint::Severity::Error && f.rule != "placeholder-text")
        .collect();
    // At the draft's line, as every finding a person reads.
    let describe = |f: &crate::lint::Finding| match f.line {
        Some(line) => format!("line {line}: {} ({})", f.message, f.rule),
        None => format!("{} ({})", f.message, f.rule),
    };
    let ungrounded: Vec<String> = errors
        .iter()
        .filter(|f| f.rule == "unreachable-argument")
        .map(|f| describe(f))
        .collect();
    if !ungrounded.is_empty() {
        return Ok(Checked::Failed(
            Verdict::Dropped,
            "ungrounded-argument",
            ungrounded.join("; "),
        ));
    }
    if !errors.is_empty() {
        let all: Vec<String> = errors.iter().map(|f| describe(f)).collect();
        return Ok(Checked::Failed(
            Verdict::Discarded,
            "invalid",
            all.join("; "),
        ));
    }
    Ok(Checked::Passed(Box::new(dialogue)))
}

/// What a run did, as `generate dialogues` reports it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DraftSummary {
    pub prompts: usize,
    /// Replies judged in this run (drafts an earlier run wrote are kept).
    pub drafts: usize,
    pub accepted: usize,
    pub raised: usize,
    pub dropped: usize,
    /// Refused by the judge model.
    pub rejected: usize,
    pub discarded: usize,
    /// (dropped + rejected + discarded) / drafts: what the filter threw
    /// away.
    pub drop_rate: f64,
    pub by_reason: BTreeMap<String, usize>,
    /// How many drafts each check kept and dropped, in order: each stage's
    /// `kept` is the next one's input.
    pub stages: Vec<funnel::StageCount>,
    /// The judge model asked, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_model: Option<String>,
    /// Drafts an earlier run wrote, left as they are (--force drafts again).
    pub kept: Vec<String>,
    /// The tokens each model asked used, the judge apart (absent when
    /// nothing was asked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<crate::llm::usage::ModelUsage>,
    pub per_draft: Vec<DraftOutcome>,
}

impl DraftSummary {
    pub fn new(
        prompts: usize,
        mut outcomes: Vec<DraftOutcome>,
        kept: Vec<String>,
        judge_model: Option<String>,
    ) -> Self {
        outcomes.sort_by(|a, b| a.name.cmp(&b.name));
        let count = |v: Verdict| outcomes.iter().filter(|o| o.verdict == v).count();
        let mut by_reason = BTreeMap::new();
        for reason in outcomes.iter().filter_map(|o| o.reason.clone()) {
            *by_reason.entry(reason).or_default() += 1;
        }
        let (dropped, rejected, discarded) = (
            count(Verdict::Dropped),
            count(Verdict::Rejected),
            count(Verdict::Discarded),
        );
        DraftSummary {
            prompts,
            drafts: outcomes.len(),
            accepted: count(Verdict::Accepted),
            raised: count(Verdict::Raised),
            dropped,
            rejected,
            discarded,
            drop_rate: crate::suite::protocol::ratio(
                dropped + rejected + discarded,
                outcomes.len(),
                0.0,
            ),
            by_reason,
            stages: funnel::stages(&outcomes, judge_model.is_some()),
            judge_model,
            kept,
            usage: Vec::new(),
            per_draft: outcomes,
        }
    }
}
