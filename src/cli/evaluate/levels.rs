//! `evaluate` for a suite evaluated by samples at levels (API-Bank's
//! levels 1 and 2).

use std::io::Write;
use std::path::PathBuf;

use super::{finish, Args, PredictorKind};
use crate::cli::Status;
use crate::run::turn_request::ApiMode;
use crate::suite::levels::{LevelProtocol, LevelRun};
use crate::suite::Suite;
use crate::Error;

/// `evaluate` for a suite evaluated by samples at levels.
pub(super) fn run(
    args: &Args,
    suite: &dyn Suite,
    protocol: &dyn LevelProtocol,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    // A scenario is no dialogue of samples.
    let files: Vec<PathBuf> = files
        .iter()
        .filter(|f| suite.records_results(f))
        .cloned()
        .collect();
    if files.is_empty() {
        return Err(Error::Usage(format!(
            "no {} dialogue among the files given (level-3 scenarios are evaluated with --level 3)",
            suite.name()
        )));
    }
    let levels = protocol.levels();
    let known = |level: &u8| levels.iter().any(|l| l.number == *level);
    let Some(level) = args.level.filter(known) else {
        let why = match args.level {
            Some(level) => format!("has no level {level}: --level takes"),
            None => "is evaluated at a level: give --level, one of".into(),
        };
        let listed = levels
            .iter()
            .map(|l| format!("{} ({})", l.number, l.summary));
        let with_user = (suite.interactive()).map(|i| {
            format!(
                "{} (conversations with a user over its scenarios)",
                i.level()
            )
        });
        let listed: Vec<String> = listed.chain(with_user).collect();
        return Err(Error::Usage(format!(
            "the {} suite {why} {}",
            suite.name(),
            listed.join("; ")
        )));
    };
    let functions = match args.api_mode {
        None => false,
        Some(ApiMode::Functions) => true,
        Some(other) => return Err(Error::Usage(format!(
            "--api-mode {} is for conversation suites; at a level the level decides which APIs are shown, and --api-mode functions offers them as tools",
            other.name()
        ))),
    };
    if args.template.is_some() && args.predictor != PredictorKind::Openai {
        return Err(Error::Usage(
            "--template shapes what the openai predictor asks; the oracle and replay predictors ask nothing".into(),
        ));
    }
    // A model is asked at most `--concurrency` dialogues at once.
    let asks_a_model = args.predictor == PredictorKind::Openai;
    let threads = asks_a_model
        .then_some(args.requests.concurrency)
        .or(args.jobs);
    let setup = args.setup(suite, threads, |meter| args.choice(meter))?;
    let run = LevelRun {
        level,
        files: &files,
        world: args.retrieval.world_options_metered(&setup.meter)?,
        setup,
        state: args.state.unwrap_or_default(),
        scoring: args.scoring.unwrap_or_default(),
        template: args.template.clone(),
        functions,
        no_docs: args.no_docs,
    };
    let outcome = protocol.evaluate(&run)?;
    let document = (&outcome.document, || outcome.human.clone());
    finish(args, out, document, outcome.failure, outcome.findings)
}
