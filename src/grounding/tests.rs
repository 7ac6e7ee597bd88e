//! Every heuristic on both sides: a value it must accept and a near miss it
//! must refuse.

use chrono::NaiveDateTime;
use serde_json::json;

use super::*;

const NOW: &str = "2023-09-11 09:00:00"; // a Monday

fn evidence(user: &[&str]) -> Evidence {
    let now = NaiveDateTime::parse_from_str(NOW, "%Y-%m-%d %H:%M:%S").unwrap();
    let mut e = Evidence::new(Some(now));
    for (i, text) in user.iter().enumerate() {
        e.add_text(Source::User { turn: i * 2 }, text);
    }
    e
}

fn ok(e: &Evidence, value: serde_json::Value, kind: ValueKind) -> bool {
    e.ground(&value, kind).is_grounded()
}

#[test]
fn text_ignores_case_whitespace_and_punctuation() {
    let e = evidence(&["Put a CLIENT   meeting, with Alice (alice59), on the calendar."]);
    assert!(ok(&e, json!("Client Meeting"), ValueKind::Text));
    assert!(ok(&e, json!("alice59"), ValueKind::Exact));
    assert!(!ok(&e, json!("bob17"), ValueKind::Exact));
    assert!(!ok(&e, json!("Board Meeting"), ValueKind::Text));
}

#[test]
fn text_content_words_in_any_order_but_exact_values_in_order() {
    let e = evidence(&["the meeting is about the budget review"]);
    assert!(ok(&e, json!("Budget meeting"), ValueKind::Text));
    assert!(!ok(&e, json!("Budget meeting"), ValueKind::Exact));
    assert!(!ok(&e, json!("Budget party"), ValueKind::Text));
}

#[test]
fn values_written_without_spaces_or_separators() {
    let e = evidence(&["I'm John Smith, call me on 708 340 0190"]);
    assert!(ok(&e, json!("JohnSmith"), ValueKind::Exact));
    assert!(ok(&e, json!("708-340-0190"), ValueKind::Exact));
    assert!(!ok(&e, json!("708-340-0191"), ValueKind::Exact));
}

#[test]
fn emails_and_ids_from_earlier_results() {
    let mut e = evidence(&["delete my dentist event"]);
    e.add_value(
        Source::Result {
            turn: 1,
            api: "QueryCalendar".into(),
        },
        &json!({"events": [{"event_id": "5bff-dd80", "name": "Dentist", "organizer": "j.doe@mail.com"}]}),
    );
    assert!(ok(&e, json!("5bff-dd80"), ValueKind::Exact));
    assert!(ok(&e, json!("j.doe@mail.com"), ValueKind::Exact));
    assert!(!ok(&e, json!("5bff-dd81"), ValueKind::Exact));
    assert!(!ok(&e, json!("jane@mail.com"), ValueKind::Exact));
}

#[test]
fn numbers_in_digits_and_words() {
    let e = evidence(&["two adults, 3 rooms, budget of 1,500 dollars"]);
    assert!(ok(&e, json!(2), ValueKind::Number));
    assert!(ok(&e, json!("3"), ValueKind::Number));
    assert!(ok(&e, json!(1500), ValueKind::Number));
    assert!(
        ok(&e, json!(0), ValueKind::Number),
        "none is always sayable"
    );
    assert!(!ok(&e, json!(4), ValueKind::Number));
    assert!(!ok(&e, json!("7"), ValueKind::Text));
}

#[test]
fn clock_times_in_any_spelling() {
    for said in ["at 2pm", "at 2:00 PM", "at 14:00", "at 2 p.m."] {
        let e = evidence(&[said]);
        assert!(ok(&e, json!("14:00:00"), ValueKind::Time), "{said}");
        assert!(!ok(&e, json!("15:00:00"), ValueKind::Time), "{said}");
    }
}

#[test]
fn bare_hours_and_parts_of_the_day() {
    let e = evidence(&["from 8 to 9 in the morning"]);
    assert!(ok(&e, json!("09:00:00"), ValueKind::Time));
    assert!(ok(&e, json!("08:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("08:20:00"), ValueKind::Time));
    let e = evidence(&["anything this afternoon?"]);
    assert!(ok(&e, json!("2023-09-11 12:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-11 21:00:00"), ValueKind::Timestamp));
}

#[test]
fn times_shifted_by_a_mentioned_duration() {
    let e = evidence(&["the meeting is at 8 am, set an alarm 30 minutes before"]);
    assert!(ok(&e, json!("07:30:00"), ValueKind::Time));
    assert!(!ok(&e, json!("07:15:00"), ValueKind::Time));
    let e = evidence(&["the meeting is at 8 am, set an alarm before it"]);
    assert!(!ok(&e, json!("07:30:00"), ValueKind::Time));
}

#[test]
fn dates_in_any_spelling() {
    for said in [
        "on September 12th",
        "on 9/12",
        "on 12 Sep",
        "on 2023-09-12",
        "on the 12th",
    ] {
        let e = evidence(&[said]);
        assert!(ok(&e, json!("2023-09-12"), ValueKind::Date), "{said}");
        assert!(!ok(&e, json!("2023-09-14"), ValueKind::Date), "{said}");
    }
}

#[test]
fn relative_dates_from_the_conversation_now() {
    let e = evidence(&["tomorrow at 2pm"]);
    assert!(ok(&e, json!("2023-09-12 14:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-13 14:00:00"), ValueKind::Timestamp));
    let e = evidence(&["yesterday"]);
    assert!(ok(&e, json!("2023-09-10"), ValueKind::Date));
    let e = evidence(&["on Friday"]);
    assert!(ok(&e, json!("2023-09-15"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-09-14"), ValueKind::Date));
    let e = evidence(&["sometime next week"]);
    assert!(ok(&e, json!("2023-09-18"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-11-18"), ValueKind::Date));
}

#[test]
fn today_needs_no_mention_but_other_days_do() {
    let e = evidence(&["remind me to call mum"]);
    assert!(ok(&e, json!("2023-09-11"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-09-21"), ValueKind::Date));
}

#[test]
fn without_a_now_relative_words_get_the_benefit_of_the_doubt() {
    let mut e = Evidence::new(None);
    e.add_text(Source::User { turn: 0 }, "set an alarm at 7am");
    assert!(!ok(&e, json!("2023-03-15 07:00:00"), ValueKind::Timestamp));
    e.add_text(Source::User { turn: 2 }, "tomorrow please");
    assert!(ok(&e, json!("2023-03-15 07:00:00"), ValueKind::Timestamp));
}

#[test]
fn get_today_supplies_now_late() {
    let mut e = Evidence::new(None);
    e.add_text(
        Source::User { turn: 0 },
        "what happened on this day in history?",
    );
    assert!(!ok(&e, json!("03-15"), ValueKind::MonthDay));
    e.set_today(chrono::NaiveDate::from_ymd_opt(2023, 3, 15).unwrap());
    assert!(ok(&e, json!("03-15"), ValueKind::MonthDay));
    assert!(!ok(&e, json!("03-16"), ValueKind::MonthDay));
}

#[test]
fn lists_are_grounded_element_by_element() {
    let e = evidence(&["invite alice59 and bob17"]);
    assert!(ok(&e, json!(["alice59", "bob17"]), ValueKind::Exact));
    assert_eq!(
        e.ground(&json!(["alice59", "carol"]), ValueKind::Exact),
        Grounding::Unreachable {
            value: "carol".into()
        }
    );
}

#[test]
fn month_names_from_mentions_or_now() {
    let e = evidence(&["what's the weather usually like here?"]);
    assert!(
        ok(&e, json!("September"), ValueKind::Text),
        "the current month"
    );
    assert!(!ok(&e, json!("March"), ValueKind::Text));
    let e = evidence(&["how was it in march?"]);
    assert!(ok(&e, json!("March"), ValueKind::Text));
}

#[test]
fn closest_text_for_the_help_line() {
    let e = evidence(&["book the Grand Hotel please", "at 8 am"]);
    let c = e.closest("Grnd Hotel", ValueKind::Text).unwrap();
    assert_eq!(c.text, "Grand Hotel");
    assert_eq!(c.source, Source::User { turn: 0 });
    let c = e.closest("07:30:00", ValueKind::Time).unwrap();
    assert_eq!(c.text, "8 am");
    assert_eq!(c.source.to_string(), "user, turn 2");
}

#[test]
fn around_a_time_allows_a_window() {
    let e = evidence(&["any alarms around 6 PM?"]);
    assert!(ok(&e, json!("17:00:00"), ValueKind::Time));
    assert!(ok(&e, json!("19:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("16:00:00"), ValueKind::Time));
    let e = evidence(&["any alarms at 6 PM?"]);
    assert!(!ok(&e, json!("17:00:00"), ValueKind::Time));
}

#[test]
fn the_hours_around_now_need_no_mention() {
    // NOW is 09:00.
    let e = evidence(&["is anything on right now?"]);
    assert!(ok(&e, json!("2023-09-11 10:00:00"), ValueKind::Timestamp));
    assert!(ok(&e, json!("2023-09-11 08:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-11 11:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-11 09:40:00"), ValueKind::Timestamp));
}

#[test]
fn ranges_written_with_a_dash() {
    let e = evidence(&["It goes from 8-11 on Friday"]);
    assert!(ok(&e, json!("2023-09-15 20:00:00"), ValueKind::Timestamp));
    assert!(ok(&e, json!("2023-09-15 23:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-15 22:00:00"), ValueKind::Timestamp));
}

#[test]
fn calendar_months_relative_to_now() {
    let e = evidence(&["anything next month?"]);
    assert!(ok(&e, json!("2023-10-31 23:59:59"), ValueKind::Timestamp));
    assert!(ok(&e, json!("2023-10-01"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-11-20"), ValueKind::Date));
}

#[test]
fn small_hours_belong_to_the_evening_before() {
    let e = evidence(&["the flight on September 11 lands at 12:30 AM"]);
    assert!(ok(&e, json!("2023-09-12 00:30:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-13 00:30:00"), ValueKind::Timestamp));
    let e = evidence(&["the flight on September 11 lands at 12:30 PM"]);
    assert!(!ok(&e, json!("2023-09-12 12:30:00"), ValueKind::Timestamp));
}

#[test]
fn words_that_share_a_long_stem() {
    let e = evidence(&["I'm feeling nauseous"]);
    assert!(ok(&e, json!("nausea"), ValueKind::Text));
    assert!(!ok(&e, json!("nausea"), ValueKind::Exact));
    let e = evidence(&["I'm feeling nervous"]);
    assert!(!ok(&e, json!("nausea"), ValueKind::Text));
    let e = evidence(&["call Janet"]);
    assert!(
        !ok(&e, json!("Jane"), ValueKind::Text),
        "short words need the whole word"
    );
}

#[test]
fn dates_a_number_of_nights_away() {
    let e = evidence(&["a room for the night of July 15th"]);
    assert!(ok(&e, json!("2023-07-16"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-07-18"), ValueKind::Date));
    let e = evidence(&["three nights from July 15th"]);
    assert!(ok(&e, json!("2023-07-18"), ValueKind::Date));
    let e = evidence(&["a room on July 15th"]);
    assert!(!ok(&e, json!("2023-07-16"), ValueKind::Date));
}

#[test]
fn ordinal_day_words() {
    let e = evidence(&["remind me on the first day of every month"]);
    assert!(ok(&e, json!("2023-11-01 00:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-11-02 00:00:00"), ValueKind::Timestamp));
}
