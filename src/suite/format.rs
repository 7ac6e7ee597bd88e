//! File formats: what a suite's files are, stated by the suite. A suite
//! may read several (API-Bank: its dialogues and two ways of writing a
//! level-3 scenario); each format says which files it is (the endings of
//! their names), what they hold, its JSON Schema where it has one, and how
//! every command handles it: read into the model, laid out for `fmt`,
//! loaded and written by `fill` (or why it records nothing), and read by
//! `lint`. The shared implementations live in `formats/`; a suite picks
//! them, or brings its own.

use std::path::Path;

use serde_json::Value;

use crate::dialogue::Conversation;
use crate::formats::write::Recorded;
use crate::formats::LoadedConversation;
use crate::Result;

/// What the files of a format hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    /// Dialogues with their gold calls (verified, filled, evaluated).
    Dialogues,
    /// Scenarios for a simulated user, read as the dialogue of their
    /// ground-truth calls (verified; they record no results).
    Scenarios,
}

/// A JSON Schema a format's files follow.
#[derive(Debug, Clone, Copy)]
pub struct FormatSchema {
    /// Its file under `schemas/`.
    pub file_name: &'static str,
    /// Makes it (from the serde types, so the two cannot drift).
    pub make: fn() -> Value,
}

/// Whether and how `fill` writes results into a file of the format.
#[derive(Clone, Copy)]
pub enum Results {
    /// The text of a loaded file with the given gold calls' results
    /// replaced, in the format's own layout.
    Recorded(fn(&LoadedConversation, &[Recorded]) -> Result<String>),
    /// The files record no results; why, for the error a write gets.
    NotRecorded(&'static str),
}

/// How `lint` reads a file of the format: as the model's JSON
/// conversation (or a scenario pool, by its content), as dialogue lines
/// (one JSON object a line, as API-Bank's dialogues), or as the dialogue
/// lines a function makes of the file, each where the file has its source
/// (a line-based format of its own).
#[derive(Clone, Copy)]
pub enum LintReading {
    Conversation,
    Lines,
    LinesFrom(fn(&Path, &str) -> Result<String>),
    /// A file of tasks for a simulated user, read by the suite into the
    /// facts lint's task rules judge (tau2's `tasks.json`).
    Tasks(super::linted_tasks::ReadTasks),
}

/// Reads every dialogue of a file that holds many (tau2's tasks).
pub type ParseMany = fn(&Path, &str) -> Result<Vec<Conversation>>;

/// One file format of a suite. Every field is stated: there is no
/// default format.
pub struct FileFormat {
    /// A short name for messages (`tooltalk-conversation`).
    pub name: &'static str,
    pub kind: FormatKind,
    /// The endings of its files' names, without the leading dot
    /// (`json`, `lv3.json`); the longest ending that fits a name wins
    /// across every registered format ([`FileFormat::fits`]).
    pub endings: &'static [&'static str],
    /// Whole file names it reads whatever its endings (tau2's
    /// `tasks.json`); such a name fits ahead of every ending.
    pub names: &'static [&'static str],
    pub schema: Option<FormatSchema>,
    /// A file's text in the model.
    pub parse: fn(&Path, &str) -> Result<Conversation>,
    /// For a file that holds many dialogues (tau2's tasks): each of them,
    /// for the commands that count dialogues; None: the file is one.
    pub many: Option<ParseMany>,
    /// A file's text in the format's canonical layout (`fmt`): the same
    /// values, laid out as the format's own writer lays them out.
    pub canonical: fn(&Path, &str) -> Result<String>,
    /// A file read to record results in it (`fill`, and the dialogues
    /// `fill --seed` reads): its text, model and the gold calls it records
    /// no result for.
    pub load: fn(&Path) -> Result<LoadedConversation>,
    pub results: Results,
    pub lint: LintReading,
}

impl FileFormat {
    /// The length of the longest of the format's endings that `path`'s
    /// name has after a dot and a non-empty stem (case-insensitive); None
    /// when none fits.
    pub fn fits(&self, path: &Path) -> Option<usize> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if self.names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            return Some(usize::MAX);
        }
        self.endings
            .iter()
            .filter(|ending| {
                name.strip_suffix(&ending.to_ascii_lowercase())
                    .and_then(|rest| rest.strip_suffix('.'))
                    .is_some_and(|stem| !stem.is_empty())
            })
            .map(|ending| ending.len())
            .max()
    }

    /// Read one file into the model.
    pub fn read(&self, path: &Path) -> Result<Conversation> {
        (self.parse)(path, &crate::formats::read::read_text(path)?)
    }

    /// Every dialogue of one file's text: the file's own, or the many it
    /// holds.
    pub fn dialogues(&self, path: &Path, text: &str) -> Result<Vec<Conversation>> {
        match self.many {
            Some(many) => many(path, text),
            None => Ok(vec![(self.parse)(path, text)?]),
        }
    }

    /// Whether `fill` records results in the format's files.
    pub fn records_results(&self) -> bool {
        matches!(self.results, Results::Recorded(_))
    }
}

impl std::fmt::Debug for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileFormat")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("endings", &self.endings)
            .finish()
    }
}

/// A database file's stem and the function that makes its JSON Schema
/// (`schemas/databases/<stem>.schema.json`).
pub type DatabaseSchema = (&'static str, fn() -> Value);

/// How a suite's database files are written and checked.
pub struct DatabaseFormat {
    /// The JSON Schemas of its database files, by file stem.
    pub schemas: &'static [DatabaseSchema],
    /// The text of database `name` in `databases` after seeding, for a
    /// folder whose file held `old` (None: no such file yet).
    pub text: fn(&crate::sim::Databases, &str, Option<&str>) -> String,
}

/// Load a file that records no results: its text and model, no call
/// unrecorded (a format of [`Results::NotRecorded`] picks it).
pub fn load_unrecorded(
    path: &Path,
    parse: fn(&Path, &str) -> Result<Conversation>,
) -> Result<LoadedConversation> {
    let text = crate::formats::read::read_text(path)?;
    let conversation = parse(path, &text)?;
    Ok(LoadedConversation {
        path: path.to_path_buf(),
        text,
        conversation,
        unrecorded: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(endings: &'static [&'static str]) -> FileFormat {
        FileFormat {
            name: "test",
            kind: FormatKind::Dialogues,
            endings,
            names: &["tasks.json"],
            schema: None,
            parse: |_, _| unreachable!(),
            many: None,
            canonical: |_, _| unreachable!(),
            load: |_| unreachable!(),
            results: Results::NotRecorded("test"),
            lint: LintReading::Lines,
        }
    }

    #[test]
    fn an_ending_fits_after_a_dot_and_a_stem_whatever_the_case() {
        let f = format(&["json", "lv3.json"]);
        assert_eq!(f.fits(Path::new("a/x.lv3.json")), Some(8));
        assert_eq!(f.fits(Path::new("X.JSON")), Some(4));
        assert_eq!(f.fits(Path::new("a/.json")), None);
        assert_eq!(f.fits(Path::new("a/xjson")), None);
        assert_eq!(f.fits(Path::new("a/x.jsonl")), None);
        assert_eq!(f.fits(Path::new("a/Tasks.json")), Some(usize::MAX));
    }
}
