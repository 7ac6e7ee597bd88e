//! For tests only: where the upstream datasets are.
//!
//! Tests that compare with ../shared/upstream must not pass without
//! comparing anything: under CI (the `CI` variable set) a missing folder
//! fails the test; on a developer's machine the test says it was skipped.

use std::path::PathBuf;

/// `../shared/upstream/<sub>` beside the repository, when it is there.
///
/// # Panics
/// When it is missing and `CI` is set.
pub fn upstream(sub: &str) -> Option<PathBuf> {
    locate(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/upstream")
            .join(sub),
        std::env::var_os("CI").is_some(),
    )
}

fn locate(dir: PathBuf, ci: bool) -> Option<PathBuf> {
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        !ci,
        "{} not found, and CI is set: the upstream comparison must run in CI",
        dir.display()
    );
    eprintln!("skipped: {} not found", dir.display());
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_skipped_outside_ci_and_fails_under_ci() {
        let missing = PathBuf::from("/nonexistent/upstream");
        assert_eq!(locate(missing.clone(), false), None);
        let under_ci = std::panic::catch_unwind(|| locate(missing, true));
        assert!(under_ci.is_err());
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(locate(here.clone(), true), Some(here));
    }
}
