//! Evaluating a set of API-Bank dialogues at one level: every dialogue's
//! samples in the reference's order (a line's second sample is checked
//! after its first, see [`super::score::score_call`]), each judged at every step
//! from the reference scoring to the lenient one ([`super::score`]),
//! dialogues in parallel, one output file per dialogue under
//! `--out/samples/` (its samples with what the model wrote and what its
//! call returned), reused by a later run with the same settings on the
//! same dialogue.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::super::world::ApiBankWorld;
use super::super::ApiBank;
use super::predict::{recorded, Asker, SampleLines};
use super::prompt::SamplePrompt;
use super::report::{LevelFigures, Summary};
use super::retrieval::KnownPicks;
use super::rouge::rouge_l;
use super::samples::samples;
use super::score::{judge, Cause, Corrections, Predicted, ScoringDifference};
use crate::dialogue::Conversation;
use crate::errata::{self, Entry, Known};
use crate::run::answer::{Answerer, Reported};
use crate::run::driver::{self, failures_error, Done, Kind};
use crate::run::folder::{common_dir, relative};
use crate::run::provenance::{FileHash, Provenance};
use crate::run::trials::{run_trials, UnitOutcome};
use crate::suite::levels::{LevelRun, StartState, SAMPLES_DIR};
use crate::suite::{Suite, World};
use crate::{Error, Result};

/// One call sample's verdict, as the summary lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub file: String,
    /// The 0-based line of the gold API line.
    pub turn: usize,
    pub occurrence: u8,
    /// The gold call's API.
    pub api_name: String,
    /// The chosen scoring's verdict (`--scoring`).
    pub correct: bool,
    /// The reference scoring's verdict.
    #[serde(default)]
    pub correct_reference: bool,
    /// The lenient scoring's verdict.
    #[serde(default)]
    pub correct_lenient: bool,
    /// The chosen scoring's reason for a wrong verdict.
    pub reason: Option<String>,
    /// The ROUGE-L of the reply after this line's result (on the line's
    /// first sample, when the AI replies right after the line).
    pub rouge_l: Option<f64>,
    pub cause: Option<Cause>,
    /// Why the two scorings' verdicts differ, when they do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring_difference: Option<ScoringDifference>,
    /// A wrong sample whose gold call's recorded result is a known
    /// erratum (`--errata`); the verdict is counted as the reference
    /// counts it. Recomputed on every run, so never kept in output files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

/// A sample as its dialogue's output file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleDetail {
    #[serde(flatten)]
    pub record: SampleRecord,
    /// What the model wrote.
    pub output: String,
    /// The call read out of it.
    pub predicted: Option<Predicted>,
    /// What the call returned, when it ran.
    pub result: Option<Value>,
    /// The model's reply after the gold result, when scored.
    pub reply: Option<String>,
    /// The models the server said wrote the call and the reply (absent
    /// for predictors that ask none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
}

/// A dialogue's output file.
#[derive(Serialize, Deserialize)]
struct DialogueOutput {
    evaluation: Value,
    file: String,
    samples: Vec<SampleDetail>,
}

/// One dialogue's records (errata recomputed: they are never kept in
/// output files), and the models the server said answered its samples.
type DialogueResult = (Vec<SampleRecord>, Vec<String>);

/// Call samples as a kind of evaluation: every dialogue's samples
/// answered and scored in the reference's order.
struct Samples<'a> {
    run: &'a LevelRun<'a>,
    answerer: &'a dyn Answerer,
    prompt: &'a SamplePrompt,
    settings: Value,
}

impl Samples<'_> {
    /// A dialogue's result from its samples: a wrong sample is known when
    /// an erratum names its gold call.
    fn result(
        &self,
        path: &Path,
        dialogue: &Conversation,
        details: &[SampleDetail],
    ) -> DialogueResult {
        let errata = self.run.setup.errata.for_dialogue(path, &dialogue.errata);
        let known = |s: &SampleRecord| {
            let gold = dialogue.conversation.get(s.turn)?.calls().first()?;
            let place = gold.place(s.turn, 0);
            errata::at(&errata, place.turn, place.call).map(Entry::known)
        };
        let records = details.iter().map(|d| SampleRecord {
            known: known(&d.record).filter(|_| !d.record.correct),
            ..d.record.clone()
        });
        let models = Reported::all(details.iter().flat_map(|d| &d.models));
        (records.collect(), models)
    }
}

impl Kind for Samples<'_> {
    type Outcome = DialogueResult;
    type Detail = Vec<SampleDetail>;

    const UNIT: &'static str = "dialogue";
    const FOLDER: &'static str = SAMPLES_DIR;

    fn settings(&self) -> &Value {
        &self.settings
    }

    fn evaluate(&self, input: &driver::Input<'_>) -> Result<(DialogueResult, Vec<SampleDetail>)> {
        let (path, run) = (input.path, self.run);
        let dialogue = ApiBank.parse_dialogue(path, input.text)?;
        crate::suite::missing_database(ApiBank.catalog(), &run.setup.databases, &dialogue)
            .map_err(|m| Error::input(path, m))?;
        let asker = Asker {
            answerer: self.answerer,
            prompt: self.prompt,
            file: input.rel,
            dialogue: &dialogue,
        };
        let details = score_dialogue(&asker, run)
            .map_err(|e| Error::Other(format!("{}: {e}", path.display())))?;
        Ok((self.result(path, &dialogue, &details), details))
    }

    fn write_output(
        &self,
        input: &driver::Input<'_>,
        stamp: &Value,
        _outcome: &DialogueResult,
        samples: Vec<SampleDetail>,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let output = DialogueOutput {
            evaluation: stamp.clone(),
            file: input.rel.to_string(),
            samples,
        };
        serde_json::to_writer_pretty(&mut *out, &output)?;
        out.write_all(b"\n")
    }

    fn resume(&self, input: &driver::Input<'_>, stored: Value) -> Option<DialogueResult> {
        let stored: DialogueOutput = serde_json::from_value(stored)
            .map_err(|e| {
                eprintln!(
                    "warning: {}: {e}; evaluating it again",
                    input.path.display()
                )
            })
            .ok()?;
        let dialogue = ApiBank.parse_dialogue(input.path, input.text).ok()?;
        Some(self.result(input.path, &dialogue, &stored.samples))
    }
}

/// Evaluate `run.files` at `run.level`, in `run.setup.trials` trials.
pub fn evaluate(run: &LevelRun<'_>) -> Result<crate::run::summary::Outcome> {
    let prompt = SamplePrompt::of(run)?;
    let summary = run_trials(
        &run.setup,
        "api",
        "dialogue",
        |trial, out| evaluate_trial(run, &prompt, out, trial),
        |summary| summary.per_sample.iter().map(unit_outcome).collect(),
        |_| {},
        write_summary,
    )?;
    // A finding unless every sample was correct in every trial.
    let trials = summary.trials.as_ref();
    let findings = summary.correct < summary.samples || trials.is_some_and(|t| !t.all_succeeded());
    Ok(crate::run::summary::Outcome {
        human: summary.human(),
        findings,
        document: serde_json::to_value(&summary).expect("the summary serializes"),
        failure: failures_error(
            &summary.failures,
            run.files.len(),
            "dialogue",
            run.setup.out.as_deref(),
        ),
    })
}

/// A sample as its trials count it: named by its file, line and occurrence.
fn unit_outcome(s: &SampleRecord) -> UnitOutcome {
    let mut unit = UnitOutcome::file(&s.file, Some(s.api_name.clone()), s.correct);
    unit.key.insert("turn".into(), s.turn.into());
    unit.key.insert("occurrence".into(), s.occurrence.into());
    unit.key
        .insert("api_name".into(), s.api_name.clone().into());
    unit
}

/// `summary.json` and `report.md` in `dir`.
fn write_summary(dir: &Path, summary: &Summary) -> Result<()> {
    let title = format!("API-Bank level {}: {}", summary.level, summary.predictor);
    crate::report::runs::write_run(dir, summary, title)
}

/// One trial (`None` for a run of one) with its outputs in `out`.
fn evaluate_trial(
    run: &LevelRun<'_>,
    prompt: &SamplePrompt,
    out: Option<PathBuf>,
    trial: Option<usize>,
) -> Result<Summary> {
    // The dialogues by their paths below the folder evaluated.
    let base = common_dir(run.files);
    let files = run.files.iter();
    let relative: Vec<String> = files
        .map(|f| relative(f, &base).to_string_lossy().into_owned())
        .collect();
    let lines = || {
        let read = run.files.iter().map(|path| ApiBank.read_dialogue(path));
        let dialogues = read.collect::<Result<Vec<_>>>()?;
        Ok(SampleLines::new(
            relative.iter().map(String::as_str).zip(&dialogues),
        ))
    };
    let (settings, templates) = prompt.record();
    let answerer = (run.setup.answerer).answerer(trial, lines, settings, templates)?;
    let info = json!({
        "suite": "apibank",
        "level": run.level,
        "state": run.state,
        "scoring": run.scoring,
        "predictor": answerer.name(),
        "settings": recorded(&answerer.settings()),
        "retriever": run.world.retriever_name(),
        "databases_sha256": run.setup.provenance.databases.sha256,
        "talkforge_version": env!("CARGO_PKG_VERSION"),
    });
    let kind = Samples {
        run,
        answerer: answerer.as_ref(),
        prompt,
        settings: info.clone(),
    };
    let (mut records, mut models) = (Vec::new(), Vec::new());
    let pass = driver::evaluate(&kind, run.files, &run.setup, out.as_deref(), |done| {
        if let Done::Evaluated { outcome, .. } = done {
            records.extend(outcome.0);
            models.extend(outcome.1);
        }
    })?;
    let mut figures = LevelFigures::new(run.level, run.files.len(), &info, records);
    // None when the run writes no folder (its files are not hashed).
    figures.dialogue_hashes = (relative.into_iter().zip(&pass.dataset))
        .filter_map(|(file, (_, sha256))| {
            let sha256 = sha256.clone()?;
            Some(FileHash { file, sha256 })
        })
        .collect();
    let provenance = Provenance::of_run(
        ApiBank.name(),
        &pass.dataset,
        &run.setup.provenance,
        answerer.as_ref(),
        &models,
    );
    let mut summary = Summary::new(figures, info, pass);
    summary.provenance = Some(provenance);
    Ok(summary)
}

/// Every sample of `asker`'s dialogue, answered and scored in the
/// reference's order; the reply scores land on the API line's first
/// sample.
fn score_dialogue(asker: &Asker<'_>, run: &LevelRun<'_>) -> Result<Vec<SampleDetail>> {
    let dialogue = asker.dialogue;
    // The world every sample copies: the initial databases, after the
    // dialogue's earlier gold calls with `--state replayed`, whose
    // ToolSearcher answers the dialogue's recorded searches as recorded
    // (see [`super::retrieval`]). Both are done once, onto this one world:
    // doing either for every sample costs the square of the dialogue's
    // length.
    let mut world = ApiBankWorld::new(&run.setup.databases, &run.world).map_err(Error::Other)?;
    let picks = KnownPicks::new(dialogue, world.state_mut().retriever());
    world.state_mut().set_retriever(Arc::new(picks));
    // The lines before it have been replayed onto `world`.
    let mut replayed_to = 0;
    // The gold line's result object as the reference's evaluator holds
    // it, one for each step of the scoring's chain: shared by the line's
    // samples (which come one after the other) and changed by checks that
    // delete from it.
    let mut gold_results: Vec<Value> = Vec::new();
    let samples = samples(dialogue);
    let mut details = Vec::with_capacity(samples.len());
    for sample in &samples {
        let gold = &dialogue.conversation[sample.line].calls()[0];
        if sample.occurrence == 0 {
            gold_results = Corrections::chain()
                .map(|_| gold.response.clone())
                .collect();
        }
        if run.state == StartState::Replayed {
            for (_, _, earlier) in dialogue.gold_calls_in(replayed_to..sample.line) {
                let request = &earlier.request;
                world.execute(&request.api_name, request.parameters.clone(), Some(earlier));
            }
            replayed_to = sample.line;
        }
        let (answer, model) = asker.call(sample.line, sample.occurrence)?;
        let api = &gold.request.api_name;
        let judged = judge(&answer, api, &mut gold_results, &world, run.scoring);
        let verdict = judged.chosen;
        details.push(SampleDetail {
            record: SampleRecord {
                file: asker.file.to_string(),
                turn: sample.line,
                occurrence: sample.occurrence,
                api_name: api.clone(),
                correct: verdict.correct,
                correct_reference: judged.correct_reference,
                correct_lenient: judged.correct_lenient,
                reason: verdict.reason,
                rouge_l: None,
                cause: verdict.cause,
                scoring_difference: judged.difference,
                known: None,
            },
            output: answer.raw,
            predicted: verdict.predicted,
            result: verdict.result,
            reply: None,
            models: model.into_iter().collect(),
        });
    }
    // The replies, asked after every call as the reference asks them; a
    // reply's scores join its API line's first sample.
    for (sample, detail) in samples.iter().zip(&mut details).filter(|(s, _)| s.reply) {
        let line = sample.line + 1;
        let (text, model) = asker.reply(line)?;
        detail.record.rouge_l = Some(rouge_l(&text, &dialogue.conversation[line].text));
        detail.reply = Some(text);
        detail.models = Reported::all(detail.models.iter().chain(&model));
    }
    Ok(details)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::GOLD_CALLS_READ;
    use crate::sim::Databases;

    /// A dialogue of `n` rounds: the user asks, GetToday answers, the AI
    /// replies.
    fn long_dialogue(n: usize) -> Conversation {
        let round = concat!(
            r#"{"role": "User", "text": "What day is it?"}"#,
            "\n",
            r#"{"role": "API", "api_name": "GetToday", "param_dict": {}, "result": {"api_name": "GetToday", "input": {}, "output": "2023-03-31", "exception": null}}"#,
            "\n",
            r#"{"role": "AI", "text": "It is 2023-03-31."}"#,
            "\n",
        );
        crate::formats::apibank::read_conversation(Path::new("d.jsonl"), &round.repeat(n)).unwrap()
    }

    #[test]
    fn each_gold_call_is_read_a_bounded_number_of_times_whatever_the_length() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Account.json"), "{}").unwrap();
        let databases = Arc::new(Databases::load_documents(dir.path()).unwrap());
        let n = 2000;
        let dialogue = long_dialogue(n);
        for state in [StartState::Fresh, StartState::Replayed] {
            let run = LevelRun {
                level: 1,
                files: &[],
                setup: crate::run::Setup {
                    databases: databases.clone(),
                    provenance: Default::default(),
                    errata: Default::default(),
                    answerer: crate::run::answer::Choice::Oracle,
                    trials: 1,
                    out: None,
                    reset: false,
                    threads: None,
                    progress: false,
                    meter: Default::default(),
                },
                world: Default::default(),
                state,
                scoring: Default::default(),
                template: None,
                functions: false,
                no_docs: false,
            };
            let read = GOLD_CALLS_READ.with(std::cell::Cell::get);
            let prompt = SamplePrompt::of(&run).unwrap();
            let asker = Asker {
                answerer: &crate::run::answer::oracle::Oracle,
                prompt: &prompt,
                file: "d.jsonl",
                dialogue: &dialogue,
            };
            let details = score_dialogue(&asker, &run).unwrap();
            let read = GOLD_CALLS_READ.with(std::cell::Cell::get) - read;
            assert_eq!(details.len(), n);
            assert!(details
                .iter()
                .all(|d| d.record.correct && d.record.rouge_l == Some(1.0)));
            assert!(
                read <= 3 * n,
                "{state:?}: {read} gold calls read for {n} samples"
            );
        }
    }
}
