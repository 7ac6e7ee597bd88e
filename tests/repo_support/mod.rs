//! Test helpers: the repository's own dataset copied into a temporary
//! folder, for tests that break or extend it.

#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of the repository's ToolTalk conversations (easy/, hard/) and
/// databases, its policy (talkforge.toml) and card.
pub fn copy_of_the_repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for folder in ["conversations/easy", "conversations/hard", "databases"] {
        let to = tmp.path().join(folder);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(repo().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            // The ToolTalk part: API-Bank's databases/apibank/ stays out.
            if path.is_file() {
                fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    for file in ["talkforge.toml", "conversations/README.md"] {
        fs::copy(repo().join(file), tmp.path().join(file)).unwrap();
    }
    tmp
}
