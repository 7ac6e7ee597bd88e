//! `evaluate` for a suite evaluated by whole conversations (ToolTalk's
//! Algorithms 1 and 2).

use std::io::Write;
use std::path::PathBuf;

use super::{finish, refuse, Args, PredictorKind, SimilarityKind};
use crate::cli::Status;
use crate::eval::embeddings::Embeddings;
use crate::eval::lexical::Lexical;
use crate::eval::run::{evaluate, RunOptions, Similarity};
use crate::eval::summary::Summary;
use crate::llm::usage::Role;
use crate::run::driver::failures_error;
use crate::run::turn_request::{ApiMode, TurnPrompt};
use crate::suite::similarity::ExactText;
use crate::suite::Suite;
use crate::Error;

pub(super) fn run(
    args: &Args,
    suite: &dyn Suite,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    refuse_level_options(args, suite)?;
    // A conversation makes one request at a time: a run that asks a
    // server evaluates at most `--concurrency` conversations at once.
    let asks_a_server =
        args.predictor == PredictorKind::Openai || args.similarity == SimilarityKind::Embeddings;
    let threads = match asks_a_server {
        true => Some(args.requests.concurrency),
        false => args.jobs,
    };
    let setup = args.setup(suite, threads, |meter| args.choice(meter))?;
    let prompt = TurnPrompt {
        catalog: suite.catalog(),
        api_mode: args.api_mode.unwrap_or(ApiMode::All),
        docs: !args.no_docs,
    };
    let similarity: Box<dyn Similarity> = match args.similarity {
        SimilarityKind::Lexical => Box::new(Lexical),
        SimilarityKind::Exact => Box::new(ExactText),
        SimilarityKind::Embeddings => Box::new(Embeddings::new(
            args.client(&setup.meter, Role::Embeddings)?,
            args.similarity_model.clone(),
            args.cache.folder("embeddings"),
        )),
    };
    let options = RunOptions {
        suite,
        setup,
        max_calls_per_turn: args.max_calls_per_turn,
        prompt,
    };
    let summary = evaluate(files, similarity.as_ref(), &options)?;
    let failure = failures_error(
        &summary.failures,
        files.len(),
        "conversation",
        args.out.as_deref(),
    );
    // With trials: a finding unless every conversation succeeded every time.
    let failed = match &summary.trials {
        Some(t) => t.all.pass_hat.last().is_some_and(|p| *p < 1.0),
        None => summary.totals.successes < summary.rates.conversations,
    };
    finish(args, out, (&summary, || human(&summary)), failure, failed)
}

/// Options that only suites evaluated at levels take are usage errors for
/// the others.
fn refuse_level_options(args: &Args, suite: &dyn Suite) -> Result<(), Error> {
    let given = [
        ("--level", args.level.is_some()),
        ("--state", args.state.is_some()),
        ("--scoring", args.scoring.is_some()),
        ("--template", args.template.is_some()),
        (
            "--api-mode functions",
            args.api_mode == Some(ApiMode::Functions),
        ),
    ];
    refuse(&given, |flag| {
        format!(
            "{flag} is for suites evaluated by samples at levels (API-Bank); the {} suite is evaluated by whole conversations",
            suite.name()
        )
    })
}

/// Failed conversations the human output names, at most.
const SHOWN_FAILURES: usize = 10;

fn human(s: &Summary) -> String {
    let pct = |x: Option<f64>| match x {
        Some(x) => format!("{}%", crate::report::pct(x)),
        None => "-".to_string(),
    };
    let mut out = format!(
        "{}, predictor {}, similarity {}\n",
        crate::words::count(s.rates.conversations, "conversation"),
        s.predictor,
        s.similarity
    );
    for (name, subset) in &s.by_subset {
        let r = &subset.rates;
        out += &format!(
            "  {name}: success {} ({}), precision {}, recall {}, incorrect actions {}\n",
            pct(r.success_rate),
            crate::words::count(r.conversations, "conversation"),
            pct(r.precision),
            pct(r.recall),
            pct(r.incorrect_action_rate)
        );
    }
    let (r, t) = (&s.rates, &s.totals);
    out += &format!(
        "success rate {} ({}/{}), soft success {}\nprecision {} ({}/{}), recall {} ({}/{}), incorrect-action rate {} ({}/{})\n",
        pct(r.success_rate),
        t.successes,
        r.conversations,
        pct(r.soft_success_rate),
        pct(r.precision),
        t.matches,
        t.predictions,
        pct(r.recall),
        t.matches,
        t.ground_truths,
        pct(r.incorrect_action_rate),
        t.bad_actions,
        t.actions
    );
    // The failed conversations, each with its first reason (all of them
    // are in summary.json and report.md).
    let failed = s.per_conversation.iter().filter(|c| !c.metrics.success);
    for c in failed.clone().take(SHOWN_FAILURES) {
        let first = c
            .why_failed
            .first()
            .map_or("failed", |r| r.message.as_str());
        out += &format!("  failed {}: {first}\n", c.file);
    }
    let more = failed.count().saturating_sub(SHOWN_FAILURES);
    if more > 0 {
        out += &format!("  and {more} more failed (see summary.json or --out's report.md)\n");
    }
    if t.turns_stopped_by_bound > 0 {
        out += &format!(
            "{} assistant turns stopped by the call bound ({})\n",
            t.turns_stopped_by_bound, s.max_calls_per_turn
        );
    }
    out + &s.human_footer("conversation", "")
}
