//! What every kind of evaluation sets up alike: the models it asks (their
//! client, cache and meter), who answers, and what a run reads besides
//! its files (the databases, `--errata`, their provenance).

use std::io::IsTerminal;
use std::path::Path;

use super::{Args, PredictorKind};
use crate::errata::Errata;
use crate::eval::provenance::{database_files, FileHash, Inputs};
use crate::llm::client::Client;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::{Choice, Model};
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
    databases_sha256: String,
    provenance: Inputs,
    errata: Errata,
    pub meter: Meter,
}

/// The suite's databases (`--databases`, or its own) and `--errata`.
pub(super) fn load(args: &Args, suite: &dyn Suite) -> Result<Loaded, Error> {
    let dir = crate::cli::databases_dir(args.databases.as_deref(), suite)?;
    Ok(Loaded {
        databases: suite.load_databases(&dir)?,
        databases_sha256: crate::sim::databases::folder_sha256(&dir)?,
        provenance: provenance_inputs(args, &dir)?,
        errata: Errata::load(&args.errata)?,
        meter: Meter::new(),
    })
}

impl Loaded {
    /// The run's setup: `answerer` answers, `threads` units at once.
    pub fn setup(&self, args: &Args, answerer: Choice, threads: Option<usize>) -> Setup<'_> {
        Setup {
            databases: &self.databases,
            databases_sha256: self.databases_sha256.clone(),
            provenance: self.provenance.clone(),
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

/// What the summary's provenance records of the inputs.
fn provenance_inputs(args: &Args, databases_dir: &Path) -> Result<Inputs, Error> {
    Ok(Inputs {
        databases_folder: databases_dir.display().to_string(),
        databases_files: database_files(databases_dir)?,
        errata_files: args
            .errata
            .iter()
            .map(|p| FileHash::of(p))
            .collect::<Result<_, _>>()?,
    })
}
