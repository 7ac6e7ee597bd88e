//! The lint corpus: every broken file (one defect each, in a folder named
//! after the rule that must catch it) is caught by that rule and no other;
//! every clean file stays clean.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use talkforge::lint::{lint_paths, Options};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint-corpus")
}

/// As `talkforge lint` runs from the repository root: with the dates of
/// the repository's ToolTalk databases.
fn options() -> Options {
    use talkforge::suite::Suite;
    let suite = talkforge::suites::tooltalk::ToolTalk;
    let databases = Path::new(env!("CARGO_MANIFEST_DIR")).join("databases");
    let range = suite.database_dates(&databases).unwrap().unwrap();
    Options {
        date_ranges: vec![(suite.name(), range)],
        ..Options::default()
    }
}

#[test]
fn clean_files_stay_clean() {
    let report = lint_paths(
        &talkforge::suites::registry(),
        &[corpus().join("clean")],
        &options(),
    )
    .unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.files >= 5, "{} files", report.files);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

#[test]
fn every_rule_catches_its_broken_files_and_only_those() {
    let broken = corpus().join("broken");
    let mut covered = BTreeSet::new();
    for entry in std::fs::read_dir(&broken).unwrap() {
        let folder = entry.unwrap().path();
        let rule = folder.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            talkforge::lint::rule(&rule).is_some(),
            "folder {rule} is not a rule"
        );
        let report = lint_paths(
            &talkforge::suites::registry(),
            std::slice::from_ref(&folder),
            &options(),
        )
        .unwrap();
        for finding in &report.findings {
            assert_eq!(finding.rule, rule, "{finding:#?}");
        }
        let caught: BTreeSet<&str> = report.findings.iter().map(|f| f.file.as_str()).collect();
        // A shape the suite's reader refuses is also an unreadable file
        // (exit 2, as for every other command); its finding stays.
        for error in &report.errors {
            let talkforge::Error::Syntax { path, .. } = error else {
                panic!("{rule}: {error}");
            };
            assert_eq!(rule, "schema", "{error}");
            assert!(
                caught.contains(path.display().to_string().as_str()),
                "{error}"
            );
        }
        let files = talkforge::formats::discover(std::slice::from_ref(&folder), &["json", "jsonl"])
            .unwrap();
        // A tau2 tasks file's database beside it is its data.
        let files: Vec<_> = files
            .into_iter()
            .filter(|f| !f.ends_with("db.json"))
            .collect();
        for (i, file) in files.iter().enumerate() {
            // The first of two files claiming an id is not the one at fault.
            if rule == "duplicate-id" && i == 0 {
                continue;
            }
            let name = file.display().to_string();
            assert!(caught.contains(name.as_str()), "{rule} missed {name}");
        }
        covered.insert(rule);
    }
    let all: BTreeSet<String> = talkforge::lint::all_rules()
        .iter()
        .map(|r| r.name.to_owned())
        .collect();
    assert_eq!(covered, all, "every rule has broken examples");
}

#[test]
fn findings_point_at_the_offending_value() {
    let file = corpus().join("broken/unreachable-argument/alarm-time-from-nowhere.json");
    let report = lint_paths(
        &talkforge::suites::registry(),
        std::slice::from_ref(&file),
        &Options::default(),
    )
    .unwrap();
    let [finding] = report.findings.as_slice() else {
        panic!("{:#?}", report.findings)
    };
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text.lines().nth(finding.line.unwrap() - 1).unwrap();
    let at: String = line.chars().skip(finding.column.unwrap() - 1).collect();
    assert!(at.starts_with("\"09:15:00\""), "{line}");
    assert_eq!(finding.argument.as_deref(), Some("time"));
    assert_eq!((finding.turn, finding.call), (Some(3), Some(0)));
}

#[test]
fn apibank_positions_are_lines_and_api_indices() {
    let file =
        corpus().join("broken/unreachable-argument/apibank-token-not-from-get-user-token.jsonl");
    let report = lint_paths(
        &talkforge::suites::registry(),
        std::slice::from_ref(&file),
        &Options::default(),
    )
    .unwrap();
    let [finding] = report.findings.as_slice() else {
        panic!("{:#?}", report.findings)
    };
    // Line 6 of the file (0-based position 5) is the second API line.
    assert_eq!((finding.turn, finding.call), (Some(5), Some(1)));
    assert_eq!(finding.line, Some(6));
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text.lines().nth(5).unwrap();
    let at: String = line.chars().skip(finding.column.unwrap() - 1).collect();
    assert!(at.starts_with("\"z9x8c7v6b5n4\""), "{at}");
}

/// The line and column of a finding, as the text from there on.
fn text_at(file: &Path, finding: &talkforge::lint::Finding) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let line = text.lines().nth(finding.line.unwrap() - 1).unwrap();
    line.chars().skip(finding.column.unwrap() - 1).collect()
}

#[test]
fn leaves_of_lists_and_objects_are_reported_at_their_own_place() {
    let broken = corpus().join("broken/unreachable-argument");
    let only = |name: &str| {
        let file = broken.join(name);
        let report = lint_paths(
            &talkforge::suites::registry(),
            std::slice::from_ref(&file),
            &Options::default(),
        )
        .unwrap();
        let [finding] = report.findings.as_slice() else {
            panic!("{:#?}", report.findings)
        };
        (finding.argument.clone(), text_at(&file, finding))
    };
    // A list of strings (ToolTalk JSON): the element itself.
    let (argument, at) = only("attendee-nobody-named.json");
    assert_eq!(argument.as_deref(), Some("attendees[1]"));
    assert!(at.starts_with("\"dmorales\""), "{at}");
    // A list of objects as JSON in an API-Bank line: the member's value.
    let (argument, at) = only("apibank-health-reading-in-a-json-list.jsonl");
    assert_eq!(argument.as_deref(), Some("health_data[1].value"));
    assert!(at.starts_with("\"91\"}]"), "{at}");
    // The same list written as a Python literal: the text holding it.
    let (argument, at) = only("apibank-health-reading-never-given.jsonl");
    assert_eq!(argument.as_deref(), Some("health_data[1].value"));
    assert!(at.starts_with("\"[{'name': 'blood_pressure'"), "{at}");
}
