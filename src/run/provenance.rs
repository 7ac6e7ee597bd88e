//! Where a run's numbers came from: the talkforge that made them, when,
//! the dataset and databases (hashes of every file), the errata, the
//! predictor, the model asked for and the models the server said answered,
//! and the prompt templates. Recorded in `summary.json` (`provenance`) and
//! `report.md`, beside the run's `settings`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Result;

/// What a run reads besides its files, as its provenance records them:
/// the databases (whose fingerprint also goes in the `settings`, so that
/// a resumed run evaluates again what ran on other databases) and the
/// errata files given.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub databases: DatabasesRecord,
    pub errata: Vec<FileHash>,
}

impl Inputs {
    /// Hashes the databases folder `dir` and the errata files.
    pub fn read(dir: &Path, errata: &[std::path::PathBuf]) -> Result<Self> {
        Ok(Inputs {
            databases: DatabasesRecord::read(dir)?,
            errata: errata
                .iter()
                .map(|p| FileHash::of(p))
                .collect::<Result<_>>()?,
        })
    }
}

/// A file and the SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    pub file: String,
    pub sha256: String,
}

impl FileHash {
    pub fn of(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| crate::Error::input(path, e.to_string()))?;
        Ok(FileHash {
            file: path.display().to_string(),
            sha256: crate::llm::sha256_hex(&bytes),
        })
    }
}

/// The dataset evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dataset {
    /// Dialogues given, those that could not be evaluated included.
    pub files: usize,
    /// A SHA-256 over the dialogues' file names and hashes in evaluation
    /// order (each file's own is in `per_conversation`): two runs with the
    /// same value evaluated the same dialogues. Null for a run that wrote
    /// no folder (no `--out`): nothing resumes from it and `report` reads
    /// only run folders, so its files were not hashed.
    pub sha256: Option<String>,
}

impl Dataset {
    /// From each dialogue's (file, SHA-256), in evaluation order. Only the
    /// file *name* enters the digest, so the same dataset copied elsewhere
    /// has the same digest. No digest when a file was not hashed.
    pub fn of<'a>(files: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Self {
        let mut hasher = Sha256::new();
        let mut n = 0;
        let mut hashed = true;
        for (file, sha256) in files {
            let Some(sha256) = sha256 else {
                hashed = false;
                n += 1;
                continue;
            };
            let name = Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            hasher.update(name.as_bytes());
            hasher.update(b"\0");
            hasher.update(sha256.as_bytes());
            hasher.update(b"\n");
            n += 1;
        }
        Dataset {
            files: n,
            sha256: hashed.then(|| format!("{:x}", hasher.finalize())),
        }
    }
}

/// The databases the conversations ran on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabasesRecord {
    pub folder: String,
    /// Over the folder's files, names and bytes (the `settings`' `databases_sha256`).
    pub sha256: String,
    /// Each file's SHA-256, by file name.
    pub files: BTreeMap<String, String>,
}

impl DatabasesRecord {
    /// The `*.json` files of the databases folder `dir`, each read once:
    /// the folder's SHA-256 over every file's name, length and bytes in
    /// name order (the `settings`' `databases_sha256`, so that a resumed
    /// run evaluates again what ran on other databases), and each file's
    /// own SHA-256 by name.
    fn read(dir: &Path) -> Result<Self> {
        let mut folder = Sha256::new();
        let mut files = BTreeMap::new();
        for path in crate::sim::databases::json_files(dir)? {
            let bytes =
                std::fs::read(&path).map_err(|e| crate::Error::input(&path, e.to_string()))?;
            let name = path.file_name().unwrap_or_default();
            let length = (bytes.len() as u64).to_le_bytes();
            for part in [name.as_encoded_bytes(), &length, &bytes] {
                folder.update(part);
            }
            let name = name.to_string_lossy().into_owned();
            files.insert(name, crate::llm::sha256_hex(&bytes));
        }
        Ok(DatabasesRecord {
            folder: dir.display().to_string(),
            sha256: format!("{:x}", folder.finalize()),
            files,
        })
    }
}

/// The provenance of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub talkforge_version: String,
    /// When the run finished (UTC, RFC 3339).
    pub date: String,
    /// The suite whose protocol scored the run.
    pub suite: String,
    pub dataset: Dataset,
    pub databases: DatabasesRecord,
    /// The errata files given (a dialogue's own errata are in its file).
    pub errata: Vec<FileHash>,
    /// The predictor's name.
    pub predictor: String,
    /// The model asked for (null for a predictor that asks none).
    pub model_requested: Option<String>,
    /// The models the server said answered, in order of first answer
    /// (empty when no reply named one).
    pub models_reported: Vec<String>,
    /// Conversations with a simulated user: the model asked to play the
    /// user, and the models the server said answered for it (absent
    /// where no model plays a user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_model_requested: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_models_reported: Vec<String>,
    /// The templates the predictor renders its prompts from, by name.
    pub prompt_templates: BTreeMap<String, String>,
}

impl Provenance {
    /// A run's provenance: the suite, the dataset's files with their
    /// digests, the inputs, who answered and the models the server named
    /// (each once); no user model.
    pub fn of_run<'a>(
        suite: &str,
        dataset: &[(String, Option<String>)],
        inputs: &Inputs,
        answerer: &dyn crate::run::answer::Answerer,
        models: impl IntoIterator<Item = &'a String>,
    ) -> Provenance {
        Provenance {
            talkforge_version: env!("CARGO_PKG_VERSION").to_string(),
            date: now(),
            suite: suite.to_string(),
            dataset: Dataset::of(dataset.iter().map(|(f, h)| (f.as_str(), h.as_deref()))),
            databases: inputs.databases.clone(),
            errata: inputs.errata.clone(),
            predictor: answerer.name(),
            model_requested: answerer.settings().model,
            models_reported: crate::run::answer::Reported::all(models),
            user_model_requested: None,
            user_models_reported: Vec::new(),
            prompt_templates: answerer.prompt_templates(),
        }
    }
}

/// The current time as `date` records it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dataset_digest_depends_on_names_hashes_and_order_not_folders() {
        let a = Dataset::of([("x/a.json", Some("1")), ("x/b.json", Some("2"))]);
        let moved = Dataset::of([("y/a.json", Some("1")), ("y/b.json", Some("2"))]);
        let edited = Dataset::of([("x/a.json", Some("1")), ("x/b.json", Some("3"))]);
        let swapped = Dataset::of([("x/b.json", Some("2")), ("x/a.json", Some("1"))]);
        let unhashed = Dataset::of([("x/a.json", Some("1")), ("x/b.json", None)]);
        assert_eq!(a, moved);
        assert_eq!(a.files, 2);
        assert_ne!(a.sha256, edited.sha256);
        assert_ne!(a.sha256, swapped.sha256);
        assert_eq!((unhashed.files, unhashed.sha256), (2, None));
    }

    #[test]
    fn the_databases_record_hashes_each_json_file_and_the_folder_by_names_and_bytes() {
        let write = |dir: &Path, files: &[(&str, &str)]| {
            for (name, text) in files {
                std::fs::write(dir.join(name), text).unwrap();
            }
            DatabasesRecord::read(dir).unwrap()
        };
        let folders: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
        let base = [
            ("A.json", "{}"),
            ("B.json", "{\"b\": 1}"),
            ("notes.txt", "x"),
        ];
        let a = write(folders[0].path(), &base);
        let moved = write(folders[1].path(), &base);
        let edited = write(
            folders[2].path(),
            &[("A.json", "{}"), ("B.json", "{\"b\": 2}")],
        );
        let renamed = write(
            folders[3].path(),
            &[("A.json", "{}"), ("C.json", "{\"b\": 1}")],
        );
        let names: Vec<_> = a.files.keys().map(String::as_str).collect();
        assert_eq!(names, ["A.json", "B.json"]);
        let b = FileHash::of(&folders[0].path().join("B.json")).unwrap();
        assert_eq!(a.files["B.json"], b.sha256);
        assert_eq!(a.folder, folders[0].path().display().to_string());
        assert_eq!(a.sha256, moved.sha256);
        assert_ne!(a.sha256, edited.sha256);
        assert_ne!(a.sha256, renamed.sha256);
        assert_eq!(a.sha256.len(), 64);
    }
}
