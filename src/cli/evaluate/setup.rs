//! What every kind of evaluation sets up alike: the models it asks (their
//! client, cache and meter), who answers, and what a run reads besides
//! its files (the databases, `--errata`, their provenance).

use std::io::IsTerminal;
use std::sync::Arc;

use super::{Args, PredictorKind};
use crate::errata::Errata;
use crate::llm::client::Client;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::{Choice, Model};
use crate::run::provenance::Inputs;
use crate::run::Setup;
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

impl Args {
    /// The run's setup: the suite's databases (`--databases`, or its own)
    /// and `--errata` with their provenance, a fresh meter, `threads`
    /// units at once, and who answers as `answerer` makes it from the
    /// meter its models count into.
    pub(super) fn setup(
        &self,
        suite: &dyn Suite,
        threads: Option<usize>,
        answerer: impl FnOnce(&Meter) -> Result<Choice, Error>,
    ) -> Result<Setup, Error> {
        let dir = crate::cli::databases_dir(self.databases.as_deref(), suite)?;
        let meter = Meter::new();
        Ok(Setup {
            databases: Arc::new(suite.load_databases(&dir)?),
            provenance: Inputs::read(&dir, &self.errata)?,
            errata: Arc::new(Errata::load(&self.errata)?),
            answerer: answerer(&meter)?,
            trials: self.trials,
            out: self.out.clone(),
            reset: self.reset,
            threads,
            progress: std::io::stderr().is_terminal(),
            meter,
        })
    }
}
