//! Both upstream datasets lint without a crash, and a few findings we read
//! and judged real are reported, while values we judged reachable are not.
//! Skipped (with a note) when ../shared/upstream is absent, failed under CI.

use talkforge::lint::{lint_paths, Finding, Options, Severity};
use talkforge::test_support::upstream;

fn findings_for<'a>(findings: &'a [Finding], file: &str, rule: &str) -> Vec<&'a Finding> {
    findings
        .iter()
        .filter(|f| f.file.ends_with(file) && f.rule == rule)
        .collect()
}

fn rule_findings<'a>(findings: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

#[test]
fn tooltalk_lints_without_a_crash() {
    let Some(up) = upstream("tooltalk") else {
        return;
    };
    let paths = [up.join("easy"), up.join("tooltalk")];
    // With the dates of upstream's own databases, as
    // `talkforge lint --databases` takes them.
    let suite = talkforge::suites::tooltalk::ToolTalk;
    let range = talkforge::suite::Suite::database_dates(&suite, &up.join("databases"))
        .unwrap()
        .unwrap();
    assert_eq!(
        (range.first.to_string(), range.last.to_string()),
        ("2023-05-05".to_string(), "2023-12-14".to_string())
    );
    let options = Options {
        date_ranges: vec![("tooltalk", range)],
        ..Options::default()
    };
    let report = lint_paths(&talkforge::suites::registry(), &paths, &options).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.files, 78);
    // 42 conversations end on a closing remark after the last answer
    // ("Thanks!", "No that's it"): warnings, as nothing is lost there.
    let closing = rule_findings(&report.findings, "ends-on-user-turn");
    assert_eq!(closing.len(), 42, "{closing:#?}");
    assert!(closing.iter().all(|f| f.severity == Severity::Warning));
    // Every gold call carries the session's token, and every
    // metadata.username is the user's.
    // Every timestamp lies within the databases' dates (2023-09-05 to
    // 2023-12-11).
    for rule in [
        "session-token",
        "username-mismatch",
        "timestamp-out-of-range",
    ] {
        let found = rule_findings(&report.findings, rule);
        assert!(found.is_empty(), "{found:#?}");
    }
    // Indices 8, 7, 8, 9 at positions 7..10: a real upstream slip.
    let index = findings_for(&report.findings, "golden_conversation_1.json", "turn-order");
    assert_eq!(index.len(), 4, "{index:#?}");
    // The scenario text pasted in as a first user turn.
    let twice = findings_for(
        &report.findings,
        "AccountTools-Calendar-Weather-RegisterUser-0.json",
        "turn-order",
    );
    assert_eq!(twice.len(), 1);
    // "depart tomorrow at 8 am and arrive back here on 9/20 at 3 pm", both
    // 10-hour flights: the return is recorded as 03:00-13:00.
    let flight = findings_for(
        &report.findings,
        "Calendar-Reminder-Weather-DeleteReminder-1.json",
        "unreachable-argument",
    );
    assert_eq!(flight.len(), 2, "{flight:#?}");
    assert!(flight[0].message.contains("2023-09-20 03:00:00"));
    // Reachable: "from 8-11" on "this Friday", "around 6 PM", "12:30 AM"
    // in an email, "next month", a weekly series "until the end of next
    // month", rent "on the first day of the month for the rest of the
    // year", a search window to the end of the month.
    for file in [
        "golden_conversation_4.json",
        "Messages-Reminder-Weather-CompleteReminder-1.json",
        "Calendar-Reminder-Weather-DeleteEvent-0.json",
        "CreateEvent-easy.json",
        "FindAlarms-easy.json",
        "Alarm-Calendar-Messages-AddAlarm-1.json",
        "golden_conversation_5.json",
        "golden_conversation_3.json",
    ] {
        let wrong = findings_for(&report.findings, file, "unreachable-argument");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}

#[test]
fn apibank_lints_without_a_crash() {
    let Some(up) = upstream("apibank") else {
        return;
    };
    let paths = [up.join("lv1-lv2-samples")];
    let report = lint_paths(&talkforge::suites::registry(), &paths, &Options::default()).unwrap();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.files, 264);
    // Five dialogues end on the user's thanks.
    let closing = rule_findings(&report.findings, "ends-on-user-turn");
    assert_eq!(closing.len(), 5, "{closing:#?}");
    assert!(rule_findings(&report.findings, "session-token").is_empty());
    // The one empty file.
    let empty = findings_for(&report.findings, "SearchEngine-level-1-1.jsonl", "schema");
    assert_eq!(empty.len(), 1);
    // The user asks to move an alarm "from 8:00AM"; the call says 07:00.
    let alarm = findings_for(
        &report.findings,
        "level-1-given-desc/ModifyAlarm-level-1-2.jsonl",
        "unreachable-argument",
    );
    assert_eq!(alarm.len(), 1, "{alarm:#?}");
    assert_eq!(alarm[0].argument.as_deref(), Some("from_time"));
    assert_eq!((alarm[0].turn, alarm[0].call), (Some(10), Some(1)));
    // Credentials nobody gave, and a date only the assistant said ("for
    // tomorrow, October 26th", with no date of today anywhere) and acted on
    // before the user answered.
    let creds = findings_for(
        &report.findings,
        "AddAgenda-AddMeeting-GetUserToken-level-2-2.jsonl",
        "unreachable-argument",
    );
    let arguments: Vec<_> = creds.iter().map(|f| f.argument.as_deref()).collect();
    assert_eq!(
        arguments,
        [Some("username"), Some("password"), Some("time")],
        "{creds:#?}"
    );
    // Attendees the assistant names just before the call, nobody else:
    // each one reported with its place in the list.
    let attendees = findings_for(
        &report.findings,
        "level-1-given-desc/QueryMeeting-level-1-1.jsonl",
        "unreachable-argument",
    );
    let arguments: Vec<_> = attendees.iter().map(|f| f.argument.as_deref()).collect();
    assert_eq!(arguments, [Some("attendees[0]"), Some("attendees[1]")]);
    // Readings inside a list of records that the user never gave ("I want
    // to record my blood pressure and heart rate", no figures), while the
    // record's other parts (user id, time, the readings' names) were given.
    for file in [
        "RecordHealthData-AppointmentRegistration-EmergencyKnowledge-level-2-4.jsonl",
        "RecordHealthData-AppointmentRegistration-QueryRegistration-level-2-2.jsonl",
    ] {
        let readings = findings_for(&report.findings, file, "unreachable-argument");
        let arguments: Vec<_> = readings.iter().map(|f| f.argument.as_deref()).collect();
        assert_eq!(
            arguments,
            [Some("health_data[0].value"), Some("health_data[1].value")],
            "{file}"
        );
    }
    // Readings the user stated, in lists of records, are reachable.
    for file in [
        "level-1-given-desc/RecordHealthData-level-1-1.jsonl",
        "CancelRegistration-RecordHealthData-level-2-2.jsonl",
    ] {
        let wrong: Vec<_> = findings_for(&report.findings, file, "unreachable-argument")
            .into_iter()
            .filter(|f| f.argument.as_deref().is_some_and(|a| a.contains('[')))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
    // Reachable: "Today is 2023-03-17" anchors "tomorrow"; "Next Monday.
    // 2022-03-14." then "Friday"; "12-10" typed as asked; "on 7-15".
    for file in [
        "level-1-given-desc/QueryAgenda-level-1-1.jsonl",
        "level-1-given-desc/BookHotel-level-1-4.jsonl",
        "level-1-given-desc/QueryHistoryToday-level-1-1.jsonl",
        "level-2-toolsearcher/AddAlarm-level-3-1.jsonl",
    ] {
        let wrong = findings_for(&report.findings, file, "unreachable-argument");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
    // Reachable: "tomorrow ... at 9am", "the night of July 15th",
    // "nauseous" -> "nausea", "Amazon" -> "AMZN".
    for file in [
        "level-2-toolsearcher/BookHotel-level-3-2.jsonl",
        "QueryRegistration-SymptomSearch-RecordHealthData-level-2-2.jsonl",
        "OpenBankAccount-QueryStock-level-2-1.jsonl",
    ] {
        let wrong: Vec<_> = findings_for(&report.findings, file, "unreachable-argument")
            .into_iter()
            .filter(|f| f.argument.as_deref() != Some("user_id"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
