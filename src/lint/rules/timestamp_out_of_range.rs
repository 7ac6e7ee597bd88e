use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds conversations whose `metadata.timestamp` (the moment the
    /// conversation takes place: the assistant's "now") falls on a day
    /// outside the range of dates the suite's databases hold. A warning.
    ///
    /// The range is computed once per run from the databases folder
    /// (`--databases`, else the suite's default folder when it exists; for
    /// `talkforge check`, the repository's): every text value, at any
    /// depth, of every record of every database file that is exactly a
    /// date (`2023-09-11`) or a time stamp (`2023-09-11 09:00:00`) counts
    /// by its date; keys, clock times (`07:00:00`) and other texts do not.
    /// The range runs from the earliest such date to the latest, both
    /// included, and the timestamp's date must lie in it. For ToolTalk
    /// that takes in the calendar's start and end times, the emails'
    /// and messages' dates, the reminders' due dates and the forecasts'
    /// dates. Suites without a clock (API-Bank) are not checked, nor is a
    /// run whose databases could not be read.
    ///
    /// ## Why
    /// Every date the user speaks of ("tomorrow", "next Friday") is
    /// resolved from the timestamp, and so is the grounding lint does:
    /// with a timestamp in another period than the data, the dates the
    /// gold calls rightly use (those of the events, emails and forecasts
    /// that exist) cannot be reached from what the user says, so
    /// `unreachable-argument` flags the right dates; and written to fit
    /// the timestamp instead, the calls ask about days the world holds
    /// nothing for (queries "from today" find nothing, forecasts fail).
    ///
    /// ## Example
    /// ```json
    /// "metadata": {"location": "Seattle", "timestamp": "2025-01-06 09:00:00"}
    /// ```
    /// while the databases hold dates from 2024-05-01 to 2024-05-27: the
    /// conversation should take place between those days.
    name: "timestamp-out-of-range",
    severity: Warning,
    summary: "metadata.timestamp falls outside the dates the databases hold",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(view), Some(range)) = (input.view, input.date_range) else {
        return;
    };
    let Some(now) = view.now else { return };
    if range.contains(now.date()) {
        return;
    }
    let side = if now.date() < range.first {
        "before"
    } else {
        "after"
    };
    out.push(
        Diagnostic::new(
            NAME,
            format!(
                "`metadata.timestamp` {} falls {side} the dates the databases hold ({} to {})",
                now.format("%Y-%m-%d %H:%M:%S"),
                range.first,
                range.last
            ),
        )
        .at(Anchor::value("/metadata/timestamp"))
        .help(format!(
            "set the conversation between {} and {}, or lint with the databases it was written for (`--databases DIR`)",
            range.first, range.last
        )),
    );
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_with_dates};
    use crate::suite::DateRange;

    fn at(timestamp: &str, range: Option<DateRange>) -> Vec<Diagnostic> {
        let mut c = conversation(&[
            ("user", "what time is it?", vec![]),
            ("assistant", "nine", vec![]),
        ]);
        c["metadata"]["timestamp"] = json!(timestamp);
        run_with_dates(&RULE, "c.json", &c.to_string(), range)
    }

    fn september() -> Option<DateRange> {
        let day = |d| NaiveDate::from_ymd_opt(2023, 9, d).unwrap();
        DateRange::of([day(20), day(5), day(11)])
    }

    #[test]
    fn a_timestamp_inside_the_range_passes_its_ends_included() {
        assert_eq!(
            september().map(|r| (r.first.to_string(), r.last.to_string())),
            Some(("2023-09-05".into(), "2023-09-20".into()))
        );
        for inside in [
            "2023-09-05 00:00:00",
            "2023-09-11 09:00:00",
            "2023-09-20 23:59:59",
        ] {
            assert!(at(inside, september()).is_empty(), "{inside}");
        }
    }

    #[test]
    fn a_timestamp_outside_the_range_is_a_warning() {
        let found = at("2023-09-21 08:00:00", september());
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].message.contains("after"), "{}", found[0].message);
        assert!(found[0].message.contains("2023-09-05 to 2023-09-20"));
        let found = at("2022-01-01 08:00:00", september());
        assert!(found[0].message.contains("before"), "{}", found[0].message);
        // Without databases there is nothing to compare with.
        assert!(at("2030-01-01 08:00:00", None).is_empty());
    }
}
