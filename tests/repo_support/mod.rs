//! Test helpers: the repository's own dataset copied into a temporary
//! folder, for tests that break or extend it.

#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of the repository's conversations (every family's, the card
/// among them), databases (subfolders too) and policy (talkforge.toml).
pub fn copy_of_the_repository() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for folder in ["conversations", "databases"] {
        copy_tree(&repo().join(folder), &tmp.path().join(folder));
    }
    fs::copy(
        repo().join("talkforge.toml"),
        tmp.path().join("talkforge.toml"),
    )
    .unwrap();
    tmp
}

/// Copy the folder `from` to `to`, subfolders included.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            fs::copy(&path, target).unwrap();
        }
    }
}
