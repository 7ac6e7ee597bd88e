//! Errata: known problems of a dataset's gold results, recorded so that
//! verify, check and evaluate show them as known rather than failing.
//!
//! An erratum names one gold call by its place (verify's `turn` and
//! `call`: a conversation's turn position and the call's position in its
//! `apis`; an API-Bank dialogue's line and its index among the API lines),
//! the tool called there, why its recorded result is known to be wrong and
//! since when. A conversation file may hold its own under a top-level
//! `errata` key; a dataset one cannot edit gets an errata file
//! (`--errata FILE`), whose entries also name the dialogue's file:
//!
//! ```json
//! {"errata": [{"file": "tooltalk/Some-Conversation.json", "turn": 3, "call": 0,
//!              "api_name": "GetReminders", "reason": "...", "since": "..."}]}
//! ```
//!
//! `file` is the dialogue's path or its last components (matched component
//! by component, so `tooltalk/X.json` names `../data/tooltalk/X.json`).
//! An erratum *applies* while the call it names exists, is of the tool it
//! names and still differs on replay; one that no longer applies is
//! reported as stale (verify and check fail), so the list stays true.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::dialogue::Erratum;

use crate::formats::read::{json_error, read_text};
use crate::{Error, Result};

/// The errata of one dialogue's gold call, as reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    pub reason: String,
    pub since: String,
    /// The errata file that records it, or `"in-file"`.
    pub source: String,
}

/// An erratum that no longer applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stale {
    pub file: String,
    pub turn: usize,
    pub call: usize,
    pub api_name: String,
    /// What is true instead ("the call reproduces now", ...).
    pub why: String,
    /// The errata file that records it, or `"in-file"`.
    pub source: String,
}

/// The source name of errata written in the dialogue itself.
pub const IN_FILE: &str = "in-file";

/// Errata from errata files; a dialogue's own come with the dialogue.
#[derive(Debug, Clone, Default)]
pub struct Errata {
    /// (index among the files' entries, errata file, entry), in file order.
    entries: Vec<(usize, PathBuf, Erratum)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrataFile {
    /// Free text: which dataset the file is about.
    #[serde(default)]
    #[allow(dead_code)]
    dataset: Option<String>,
    errata: Vec<Erratum>,
}

impl Errata {
    /// No errata file.
    pub fn none() -> Self {
        Errata::default()
    }

    /// Read errata files (each `{"errata": [...]}`); an entry without
    /// `file`, or two entries for one call, is an error naming the file.
    pub fn load(paths: &[PathBuf]) -> Result<Self> {
        let mut entries: Vec<(usize, PathBuf, Erratum)> = Vec::new();
        for path in paths {
            let text = read_text(path)?;
            let parsed: ErrataFile =
                serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
            for (i, erratum) in parsed.errata.into_iter().enumerate() {
                let Some(file) = &erratum.file else {
                    return Err(Error::input(
                        path,
                        format!("errata[{i}]: no \"file\" (an errata file names each dialogue)"),
                    ));
                };
                if let Some((_, other, _)) = entries.iter().find(|(_, _, e)| {
                    e.file.as_deref() == Some(file.as_str())
                        && (e.turn, e.call) == (erratum.turn, erratum.call)
                }) {
                    return Err(Error::input(
                        path,
                        format!(
                            "errata[{i}]: {file} turn {} call {} already has an erratum (in {})",
                            erratum.turn,
                            erratum.call,
                            other.display()
                        ),
                    ));
                }
                entries.push((entries.len(), path.clone(), erratum));
            }
        }
        Ok(Errata { entries })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The errata of the dialogue at `path`: the errata files' entries that
    /// name it (with their index, for [`Errata::unmatched`]), then those
    /// the dialogue holds itself.
    pub fn for_dialogue(&self, path: &Path, own: &[Erratum]) -> Vec<Entry> {
        let mut found: Vec<Entry> = self
            .entries
            .iter()
            .filter(|(_, _, e)| e.file.as_deref().is_some_and(|f| names(f, path)))
            .map(|(index, source, erratum)| Entry {
                index: Some(*index),
                erratum: erratum.clone(),
                source: source.display().to_string(),
            })
            .collect();
        found.extend(own.iter().map(|erratum| Entry {
            index: None,
            erratum: erratum.clone(),
            source: IN_FILE.to_string(),
        }));
        found
    }

    /// The entries that name one of `files`, keeping their indices: what
    /// one part of a run judges, the entries naming no file of it left to
    /// the whole run (an [`Errata::unmatched`] of the part's is empty
    /// once it has read its files).
    pub fn naming(&self, files: &[PathBuf]) -> Errata {
        Errata {
            entries: self
                .entries
                .iter()
                .filter(|(_, _, e)| {
                    e.file
                        .as_deref()
                        .is_some_and(|f| files.iter().any(|path| names(f, path)))
                })
                .cloned()
                .collect(),
        }
    }

    /// The indices of the entries (for a part's, [`Errata::naming`], the
    /// whole run's indices).
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().map(|(index, _, _)| *index)
    }

    /// The errata-file entries whose index is not in `matched`: they name
    /// no dialogue that was read.
    pub fn unmatched(&self, matched: &[usize]) -> Vec<Stale> {
        self.entries
            .iter()
            .filter(|(i, _, _)| !matched.contains(i))
            .map(|(_, source, e)| Stale {
                file: e.file.clone().unwrap_or_default(),
                turn: e.turn,
                call: e.call,
                api_name: e.api_name.clone(),
                why: "it names no dialogue of the dataset".to_string(),
                source: source.display().to_string(),
            })
            .collect()
    }
}

/// One erratum of a dialogue, with where it was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its index among the errata files' entries; `None` for the dialogue's own.
    pub index: Option<usize>,
    pub erratum: Erratum,
    pub source: String,
}

impl Entry {
    pub fn known(&self) -> Known {
        Known {
            reason: self.erratum.reason.clone(),
            since: self.erratum.since.clone(),
            source: self.source.clone(),
        }
    }

    pub fn stale(&self, file: &str, why: impl Into<String>) -> Stale {
        Stale {
            file: file.to_string(),
            turn: self.erratum.turn,
            call: self.erratum.call,
            api_name: self.erratum.api_name.clone(),
            why: why.into(),
            source: self.source.clone(),
        }
    }
}

/// The erratum of `entries` at a place, if any.
pub fn at(entries: &[Entry], turn: usize, call: usize) -> Option<&Entry> {
    entries
        .iter()
        .find(|e| (e.erratum.turn, e.erratum.call) == (turn, call))
}

/// Whether `name` (a path or its last components) names `path`.
fn names(name: &str, path: &Path) -> bool {
    let want: Vec<Component<'_>> = Path::new(name)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    let have: Vec<Component<'_>> = path.components().collect();
    !want.is_empty() && have.ends_with(&want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_by_its_last_components() {
        let path = Path::new("../shared/upstream/tooltalk/tooltalk/A.json");
        assert!(names("tooltalk/A.json", path));
        assert!(names("A.json", path));
        assert!(names("./A.json", path));
        assert!(!names("easy/A.json", path));
        assert!(!names("", path));
        assert!(!names("B.json", path));
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_part_keeps_the_entries_naming_its_files_with_their_indices() {
        let dir = tempfile::tempdir().unwrap();
        let entry = |file: &str| {
            format!(
                r#"{{"file": "{file}", "turn": 0, "call": 0, "api_name": "X", "reason": "r", "since": "s"}}"#
            )
        };
        let path = write(
            dir.path(),
            "errata.json",
            &format!(
                "{{\"errata\": [{}, {}]}}",
                entry("a.json"),
                entry("b/tasks.json")
            ),
        );
        let errata = Errata::load(&[path]).unwrap();
        let part = errata.naming(&[PathBuf::from("x/b/tasks.json")]);
        assert_eq!(part.indices().collect::<Vec<_>>(), [1]);
        let found = part.for_dialogue(Path::new("x/b/tasks.json"), &[]);
        assert_eq!(found[0].index, Some(1));
        assert!(part.unmatched(&[1]).is_empty());
        assert_eq!(errata.unmatched(&[1]).len(), 1);
    }

    #[test]
    fn an_errata_file_needs_file_on_each_entry_and_one_entry_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let entry = r#"{"file": "a.json", "turn": 1, "call": 0, "api_name": "X", "reason": "r", "since": "s"}"#;
        let good = write(
            dir.path(),
            "good.json",
            &format!("{{\"errata\": [{entry}]}}"),
        );
        let errata = Errata::load(std::slice::from_ref(&good)).unwrap();
        assert_eq!(errata.len(), 1);
        let found = errata.for_dialogue(Path::new("d/a.json"), &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].index, Some(0));
        assert!(errata.unmatched(&[0]).is_empty());
        assert_eq!(errata.unmatched(&[]).len(), 1);

        let twice = write(
            dir.path(),
            "twice.json",
            &format!("{{\"errata\": [{entry}, {entry}]}}"),
        );
        let e = Errata::load(&[twice]).unwrap_err().to_string();
        assert!(e.contains("twice.json") && e.contains("already has"), "{e}");

        let no_file = write(
            dir.path(),
            "nofile.json",
            r#"{"errata": [{"turn": 1, "call": 0, "api_name": "X", "reason": "r", "since": "s"}]}"#,
        );
        let e = Errata::load(&[no_file]).unwrap_err().to_string();
        assert!(
            e.contains("nofile.json") && e.contains("no \"file\""),
            "{e}"
        );

        let unknown = write(
            dir.path(),
            "unknown.json",
            r#"{"errata": [{"file": "a", "turn": 1, "call": 0, "api_name": "X", "reason": "r", "since": "s", "why": 1}]}"#,
        );
        let e = Errata::load(&[unknown]).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:1:", dir.path().join("unknown.json").display())),
            "{e}"
        );
    }
}
