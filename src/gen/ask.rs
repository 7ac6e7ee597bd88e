//! Sending many prompts through the LLM client: at most `concurrency` in
//! flight, a progress bar on stderr, each reply handed over as it arrives
//! (so that a run interrupted halfway keeps what it got; the client's
//! cache keeps every reply, so a rerun pays only for the rest).

use std::sync::Arc;

use crate::llm::client::{Prompter, Reply, Settings};
use crate::llm::usage::{Meter, ModelUsage, Role};
use crate::{Error, Result};

/// One prompt to send, and what else its cache key holds (see
/// [`Prompter::complete_tagged`]).
#[derive(Debug, Clone)]
pub struct Question {
    pub text: String,
    pub tag: Option<String>,
}

impl From<String> for Question {
    fn from(text: String) -> Self {
        Question { text, tag: None }
    }
}

/// Ask the model every prompt of `prompts` (for `role`); `on_reply` gets
/// each prompt's index and its reply (or why there is none), in arrival
/// order. Returns the tokens the model used.
pub fn ask_all(
    settings: Settings,
    role: Role,
    prompts: Vec<Question>,
    concurrency: usize,
    noun: &str,
    mut on_reply: impl FnMut(usize, Result<Reply>),
) -> Result<Vec<ModelUsage>> {
    // The key goes to the Authorization header and nowhere else.
    let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let meter = Meter::new();
    let client = Arc::new(Prompter::new(settings, &api_key)?.metered(&meter, role));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))?;
    let progress = indicatif::ProgressBar::new(prompts.len() as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {noun} {{msg}}"
        ))
        .expect("valid template"),
    );
    let semaphore = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    runtime.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for (i, question) in prompts.into_iter().enumerate() {
            let client = Arc::clone(&client);
            let semaphore = Arc::clone(&semaphore);
            tasks.spawn(async move {
                let _permit = semaphore.acquire_owned().await.expect("never closed");
                let tag = question.tag.as_deref();
                (i, client.complete_tagged(&question.text, tag).await)
            });
        }
        while let Some(joined) = tasks.join_next().await {
            let (i, result) = joined.expect("a request task panicked");
            progress.inc(1);
            on_reply(i, result);
        }
    });
    progress.finish_and_clear();
    Ok(meter.usage())
}
