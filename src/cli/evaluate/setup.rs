//! What every kind of evaluation sets up alike: the models it asks (their
//! client, cache and meter), who answers, and what a run reads besides
//! its files (the databases, `--errata`, their provenance).

use std::io::IsTerminal;

use super::{Args, PredictorKind};
use crate::errata::Errata;
use crate::llm::client::Client;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::{Choice, Model};
use crate::run::provenance::Inputs;
use crate::run::Setup;
use crate::sim::Databases;
use crate::suite::Suite;
use crate::Error;

impl Args {
    /// A client for the server, counting into `meter` for `role`. Without
    /// a key and without a server named, every request of the assistant
    /// (or of embeddings) would go to OpenAI's public endpoint and be
    /// refused: say so once, before any. (A model playing the user is
    /// asked only when a scenario needs the user, which the oracle may
    /// never: its first request says what failed.)
    pub(super) fn client(&self, meter: &Meter, role: Role) -> Result<Client, Error> {
        let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        let url = std::env::var("OPENAI_BASE_URL").unwrap_or_default();
        let unset = key.is_empty() && self.requests.base_url.is_none() && url.is_empty();
        if unset && role != Role::User {
            return Err(Error::Usage(
                "no server to ask: set OPENAI_API_KEY for OpenAI's, or name an \
                 OpenAI-compatible server with --base-url URL (or OPENAI_BASE_URL)"
                    .into(),
            ));
        }
        Ok(Client::from_env(self.requests.http()?)?.metered(meter, role))
    }

    /// The model `name`, its replies cached and counted into `meter` for `role`.
    pub(super) fn model(&self, name: &str, meter: &Meter, role: Role) -> Result<Model, Error> {
        Ok(Model {
            client: self
                .client(meter, role)?
                .cached_in(self.cache.folder("chat")),
            model: name.to_string(),
            temperature: self.temperature,
            max_tokens: None,
        })
    }

    /// Who answers (`--predictor`), a model counted into `meter`.
    pub(super) fn choice(&self, meter: &Meter) -> Result<Choice, Error> {
        Ok(match self.predictor {
            PredictorKind::Oracle => Choice::Oracle,
            PredictorKind::Replay => Choice::Replay(self.predictions()?),
            PredictorKind::Openai => {
                Choice::Llm(self.model(&self.model, meter, Role::Assistant)?)
            }
        })
    }
}

/// What a run reads besides its files, and the meter its models count
/// their tokens into.
pub(super) struct Loaded {
    databases: Databases,
    inputs: Inputs,
    errata: Errata,
    pub meter: Meter,
}

/// The suite's databases (`--databases`, or its own) and `--errata`.
pub(super) fn load(args: &Args, suite: &dyn Suite) -> Result<Loaded, Error> {
    let dir = crate::cli::databases_dir(args.databases.as_deref(), suite)?;
    Ok(Loaded {
        databases: suite.load_databases(&dir)?,
        inputs: Inputs::read(&dir, &args.errata)?,
        errata: Errata::load(&args.errata)?,
        meter: Meter::new(),
    })
}

impl Loaded {
    /// The run's setup: `answerer` answers, `threads` units at once.
    pub fn setup(&self, args: &Args, answerer: Choice, threads: Option<usize>) -> Setup<'_> {
        Setup {
            databases: &self.databases,
            provenance: self.inputs.clone(),
            errata: &self.errata,
            answerer,
            trials: args.trials,
            out: args.out.clone(),
            reset: args.reset,
            threads,
            progress: std::io::stderr().is_terminal(),
            meter: self.meter.clone(),
        }
    }
}
