//! `evaluate --level 3`: conversations with a user over the suite's
//! scenarios.

use std::io::Write;
use std::path::PathBuf;

use super::{check_trials, finish, refuse, Args, PredictorKind, UserKind};
use crate::cli::Status;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::{Choice, Model};
use crate::run::conversation::Bounds;
use crate::run::with_user::{Run, UserSettings};
use crate::suite::interactive::Interactive;
use crate::suite::Suite;
use crate::Error;

/// `--level 3`: the suite's conversational evaluation over the scenario
/// files among `files`.
pub(super) fn run(
    args: &Args,
    interactive: &dyn Interactive,
    suite: &dyn Suite,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    let level = interactive.level();
    if args.scoring.is_some() {
        return Err(Error::Usage(format!(
            "--scoring is for levels 1 and 2: at --level {level} a call is read as it is written (as --scoring lenient reads text) and counts when its arguments are equal to a ground-truth call's or the reference's own check of that API accepts it (see the README)"
        )));
    }
    let given = [
        ("--state", args.state.is_some()),
        ("--template", args.template.is_some()),
        ("--api-mode", args.api_mode.is_some()),
        ("--errata", !args.errata.is_empty()),
        ("--predictions", args.predictions.is_some()),
    ];
    refuse(&given, |flag| {
        format!("{flag} is not used with --level {level}, a conversation with a user over the suite's scenarios")
    })?;
    if args.predictor == PredictorKind::Replay {
        return Err(Error::Usage(format!(
            "--level {level} talks to the assistant as it goes: use --predictor openai (or oracle, to check the scenarios)"
        )));
    }
    // A model on either side answers the same at temperature 0.
    check_trials(
        args,
        args.predictor == PredictorKind::Openai || args.conversation.user == UserKind::Llm,
    )?;
    if args.reset && args.out.is_none() {
        return Err(Error::Usage(
            "--reset runs again what --out holds: give --out".into(),
        ));
    }
    if args.conversation.max_turns == 0 {
        return Err(Error::Usage("--max-turns must be at least 1".into()));
    }
    let formats = suite.formats().iter();
    let formats = formats.filter(|f| f.kind == crate::suite::FormatKind::Scenarios);
    let is_scenario = |f: &&PathBuf| formats.clone().any(|format| format.fits(f).is_some());
    let scenarios: Vec<PathBuf> = files.iter().filter(is_scenario).cloned().collect();
    if scenarios.is_empty() {
        return Err(Error::Usage(format!(
            "no level-{level} scenario among the files given ({} scenarios are {})",
            suite.name(),
            suite
                .endings(crate::suite::FormatKind::Scenarios)
                .iter()
                .map(|e| format!("*.{e}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    // A conversation's models answer at temperature 0 unless told, at
    // most 1024 tokens a message.
    let model = |name: &str, meter: &Meter, role: Role| -> Result<Model, Error> {
        Ok(Model {
            temperature: Some(args.temperature.unwrap_or(0.0)),
            max_tokens: Some(1024),
            ..args.model(name, meter, role)?
        })
    };
    let threads = Some(args.requests.concurrency.max(1));
    let setup = args.setup(suite, threads, |meter| {
        Ok(match args.predictor {
            PredictorKind::Oracle => Choice::Oracle,
            _ => Choice::Llm(model(&args.model, meter, Role::Assistant)?),
        })
    })?;
    let world = args.retrieval.world_options_metered(&setup.meter)?;
    let user = match args.conversation.user {
        UserKind::Llm => UserSettings::Llm(model(args.user_model(), &setup.meter, Role::User)?),
        UserKind::Human => UserSettings::Human,
    };
    let finished = crate::run::with_user::evaluate(
        suite,
        interactive,
        &Run {
            files: &scenarios,
            setup,
            world: &world,
            user,
            bounds: Bounds {
                max_turns: args.conversation.max_turns,
                max_calls_per_turn: args.max_calls_per_turn,
            },
        },
    )?;
    let summary = &finished.summary;
    let human = || crate::run::with_user::human(summary);
    let status = finish(args, out, (summary, human), None, !finished.all_completed)?;
    // A scenario that could not be run to the end is an error (exit 2),
    // after the summary of the others.
    for error in &finished.errors {
        eprintln!("error: {error}");
    }
    if !finished.errors.is_empty() {
        return Err(Error::Other(format!(
            "{} could not be run to the end",
            crate::words::count(finished.errors.len(), "scenario")
        )));
    }
    Ok(status)
}
