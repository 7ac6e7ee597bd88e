//! `--color`: human output is coloured when asked (or on a terminal), plain
//! otherwise, and machine-readable output never is.

use assert_cmd::Command;

const BROKEN: &str = "tests/lint-corpus/broken/unknown-tool";

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("talkforge")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The text without its escape codes.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('\x1b') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('m').expect("an escape ends in m");
        rest = &rest[start + end + 1..];
    }
    out + rest
}

#[test]
fn always_colours_the_same_text_and_never_and_pipes_do_not() {
    let (code, coloured) = run(&["--color", "always", "lint", BROKEN]);
    assert_eq!(code, 1);
    assert!(coloured.contains("\x1b["), "{coloured}");
    let (_, never) = run(&["lint", BROKEN, "--color", "never"]);
    assert!(!never.contains('\x1b'), "{never}");
    let (_, piped) = run(&["lint", BROKEN]);
    assert!(!piped.contains('\x1b'), "{piped}");
    assert_eq!(plain(&coloured), never);
    assert_eq!(piped, never);

    let (_, check) = run(&["--color", "always", "check"]);
    assert!(check.contains("\x1b["), "{check}");
    assert!(plain(&check).ends_with("check passed\n"), "{check}");
}

#[test]
fn json_is_never_coloured() {
    let (_, json) = run(&["--color", "always", "lint", BROKEN, "--format", "json"]);
    assert!(!json.contains('\x1b'), "{json}");
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
}
