//! ToolTalk (Farn & Shin, 2023): 28 tools in 7 plugins, conversations
//! whose user starts logged in or not, and its session rules.

use std::path::Path;

use crate::dialogue::Conversation;
use crate::sim::Databases;
use crate::suite::format::{
    DatabaseFormat, FileFormat, FormatKind, FormatSchema, LintReading, Results,
};
use crate::suite::{Catalog, Execution, LintHelp, Suite};
use crate::{Error, Result};

pub mod catalog;
pub mod compare;
pub mod databases;
pub mod drafting;
pub mod plugins;
pub mod scaffold;
pub mod seed;
pub mod world;

pub use catalog::{catalog, tool};
pub use world::{World, ACCOUNT_DB, SESSION_TOKEN};

/// ToolTalk's conversations: one JSON document a file, in the model's
/// shape, written as the reference's `json.dumps(indent=4)`.
pub static CONVERSATIONS: FileFormat = FileFormat {
    name: "tooltalk-conversation",
    kind: FormatKind::Dialogues,
    endings: &["json"],
    names: &[],
    schema: Some(FormatSchema {
        file_name: "conversation.schema.json",
        make: crate::formats::read::conversation_schema,
    }),
    parse: crate::formats::read::parse_conversation,
    many: None,
    canonical: crate::formats::canonical::tooltalk,
    load: crate::formats::load_conversation,
    results: Results::Recorded(crate::formats::write::record_results),
    lint: LintReading::Conversation,
};

/// ToolTalk's databases: one table a file, written as the reference
/// writes them.
static DATABASES: DatabaseFormat = DatabaseFormat {
    schemas: databases::SCHEMAS,
    text: database_text,
};

/// The table as ToolTalk writes its databases, the final newline kept.
fn database_text(databases: &Databases, name: &str, old: Option<&str>) -> String {
    let table = databases.get(name).cloned().unwrap_or_default();
    let mut text = crate::formats::write::to_python_json(&table);
    if old.is_some_and(|t| t.ends_with('\n')) {
        text.push('\n');
    }
    text
}

/// The ToolTalk suite.
#[derive(Debug, Clone, Copy)]
pub struct ToolTalk;

impl Suite for ToolTalk {
    fn name(&self) -> &'static str {
        "tooltalk"
    }

    fn catalog(&self) -> &'static Catalog {
        catalog()
    }

    fn formats(&self) -> &'static [&'static FileFormat] {
        static FORMATS: [&FileFormat; 1] = [&CONVERSATIONS];
        &FORMATS
    }

    fn database_format(&self) -> &'static DatabaseFormat {
        &DATABASES
    }

    fn default_databases(&self) -> &'static str {
        "databases"
    }

    /// Every file must be one of ToolTalk's databases (a misspelt name
    /// would otherwise be loaded and never read), `Account.json` must be
    /// there, and its records must have their fields' types: the world reads
    /// them for every conversation, so a malformed one is reported here,
    /// in its own file, rather than as a failure of each conversation.
    fn load_databases(&self, dir: &Path) -> Result<Databases> {
        let databases = Databases::load(dir)?;
        let known: Vec<&str> = databases::SCHEMAS.iter().map(|(name, _)| *name).collect();
        crate::suite::unknown_database(dir, &databases, &known, "ToolTalk")?;
        if databases.get(ACCOUNT_DB).is_none() {
            return Err(Error::input(
                dir,
                format!("account database {ACCOUNT_DB}.json not found"),
            ));
        }
        // Read as its typed records: a wrong shape is named at its line and
        // column, at a fraction of a full schema validation's cost (which
        // `check` runs over every database).
        let account = dir.join(format!("{ACCOUNT_DB}.json"));
        let text = crate::formats::read::read_text(&account)?;
        serde_json::from_str::<databases::AccountDatabase>(&text)
            .map_err(|e| crate::formats::read::json_error(&account, &e))?;
        Ok(databases)
    }

    fn evaluation(&self) -> crate::suite::Evaluation {
        crate::suite::Evaluation::Conversations
    }

    fn seed_databases(
        &self,
        dialogues: &[crate::formats::LoadedConversation],
        initial: &Databases,
    ) -> Result<crate::suite::Seeded> {
        seed::seed_databases(dialogues, initial)
    }

    fn injected_argument(&self) -> Option<&'static str> {
        Some(SESSION_TOKEN)
    }

    /// Every text in every record of every database that is a date
    /// (`%Y-%m-%d`) or a time stamp (`%Y-%m-%d %H:%M:%S`), by its date.
    fn database_dates(&self, dir: &Path) -> Result<Option<crate::suite::DateRange>> {
        let databases = self.load_databases(dir)?;
        Ok(databases::date_range(&databases))
    }

    fn drafting(&self) -> Option<&'static dyn crate::suite::drafting::Drafting> {
        Some(&drafting::ToolTalkDrafting)
    }

    fn scenario_pools(&self) -> Option<&'static dyn crate::suite::pools::ScenarioPools> {
        Some(&scaffold::ToolTalkPools)
    }

    fn lint_help(&self) -> &'static LintHelp {
        &LintHelp {
            unknown_tool: "`talkforge tools` lists the catalog",
            no_session: "nobody is logged in (no earlier UserLogin or RegisterUser)",
            open_session: "call UserLogin with the user's credentials before it, or start the conversation logged in with `user.session_token`",
            credential_source: "an earlier UserLogin",
        }
    }

    fn world(
        &self,
        databases: &Databases,
        dialogue: &Conversation,
        _options: &crate::suite::WorldOptions,
    ) -> std::result::Result<Box<dyn crate::suite::World>, String> {
        crate::suite::missing_database(catalog(), databases, dialogue)?;
        Ok(Box::new(World::for_conversation(databases, dialogue)?))
    }
}

/// ToolTalk's simulators are seeded: a recording changes nothing about
/// how a call runs.
impl crate::suite::World for World {
    fn execute(
        &mut self,
        api_name: &str,
        parameters: serde_json::Map<String, serde_json::Value>,
        _recorded: Option<&crate::dialogue::GoldCall>,
    ) -> Execution {
        World::execute(self, api_name, parameters)
    }

    fn boxed_clone(&self) -> Box<dyn crate::suite::World> {
        Box::new(self.clone())
    }

    fn databases(&self) -> crate::sim::Databases {
        crate::sim::Databases::from_shared_tables(self.tables().clone())
    }

    fn tables(&self) -> Option<&crate::sim::Tables> {
        Some(World::tables(self))
    }
}
