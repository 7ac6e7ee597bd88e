//! `talkforge tools`: the tool catalog as Markdown, JSON or OpenAI tool schemas.

use clap::ValueEnum;

use super::{Context, Status};
use crate::suite::docs::{catalog_doc, markdown, openai_tools};
use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ToolsFormat {
    /// A reference for people.
    #[default]
    Markdown,
    /// The catalog (schemas/catalog.schema.json).
    Json,
    /// Chat-completions function-calling `tools` entries.
    Openai,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// How to print the result.
    #[arg(long, value_enum, default_value_t)]
    pub format: ToolsFormat,
    /// Whose catalog [default: the first suite, tooltalk].
    #[arg(long)]
    pub suite: Option<String>,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let suite = context
        .suite_named(args.suite.as_deref())?
        .unwrap_or(context.registry.first());
    let catalog = || suite.catalog();
    let text = match args.format {
        ToolsFormat::Markdown => markdown(catalog(), suite.injected_argument()),
        ToolsFormat::Json => pretty(&catalog_doc(catalog()))?,
        ToolsFormat::Openai => pretty(&openai_tools(catalog()))?,
    };
    context.println(format_args!("{}", text.trim_end()));
    Ok(Status::Clean)
}

fn pretty<T: serde::Serialize>(document: &T) -> Result<String, Error> {
    serde_json::to_string_pretty(document).map_err(|e| Error::Other(e.to_string()))
}
