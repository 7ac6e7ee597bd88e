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
    e.ground(&Json::from(&value), kind).is_grounded()
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
        &Json::from(&json!({"events": [{"event_id": "5bff-dd80", "name": "Dentist", "organizer": "j.doe@mail.com"}]})),
    );
    assert!(ok(&e, json!("5bff-dd80"), ValueKind::Exact));
    assert!(ok(&e, json!("j.doe@mail.com"), ValueKind::Exact));
    assert!(!ok(&e, json!("5bff-dd81"), ValueKind::Exact));
    assert!(!ok(&e, json!("jane@mail.com"), ValueKind::Exact));
}

#[test]
fn stems_and_numbers_asked_for_early_still_see_later_pieces() {
    // They are indexed on first use; pieces added afterwards must count.
    let mut e = evidence(&["book two rooms"]);
    assert!(ok(&e, json!(2), ValueKind::Number));
    assert!(!ok(&e, json!(7), ValueKind::Number));
    assert!(!ok(&e, json!("rooms near the lakes"), ValueKind::Text));
    e.add_text(
        Source::User { turn: 2 },
        "for seven nights, somewhere near a lake",
    );
    assert!(ok(&e, json!(7), ValueKind::Number));
    assert!(ok(&e, json!("rooms near the lakes"), ValueKind::Text));
    assert!(ok(&e, json!(2), ValueKind::Number));
}

#[test]
fn closest_dates_kept_from_reading_match_those_read_afresh() {
    let mut e = evidence(&[
        "Lunch with Ana at 12:30 on September 14th",
        "and the DENTIST on 9/20 at 4pm, Zoë says",
    ]);
    e.add_value(
        Source::Result {
            turn: 1,
            api: "QueryCalendar".into(),
        },
        &Json::from(&json!({"events": [{"start_time": "2023-09-15 10:00:00"}]})),
    );
    let mut afresh = e.clone();
    for piece in &mut afresh.pieces {
        piece.mentions = None;
    }
    let mut found = 0;
    for (value, kind) in [
        ("2023-09-14 12:45:00", ValueKind::Timestamp),
        ("2023-09-22 16:00:00", ValueKind::Timestamp),
        ("2023-09-21", ValueKind::Date),
        ("16:30:00", ValueKind::Time),
        ("09-16", ValueKind::MonthDay),
    ] {
        let closest = e.closest(value, kind);
        assert_eq!(closest, afresh.closest(value, kind), "{value}");
        found += usize::from(closest.is_some());
    }
    assert!(found >= 3, "{found}");
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
fn without_an_anchor_only_dates_stated_in_full_count() {
    let mut e = Evidence::new(None);
    e.add_text(
        Source::User { turn: 0 },
        "set an alarm at 7am tomorrow, on Friday",
    );
    assert!(!ok(&e, json!("2023-03-15 07:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-03-17 07:00:00"), ValueKind::Timestamp));
    e.add_text(
        Source::Assistant { turn: 1 },
        "Now, let me check what is currently set.",
    );
    assert!(!ok(&e, json!("2023-03-15 07:00:00"), ValueKind::Timestamp));
    e.add_text(Source::User { turn: 2 }, "and one on March 20th at 7am");
    assert!(ok(&e, json!("2023-03-20 07:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-03-21 07:00:00"), ValueKind::Timestamp));
}

#[test]
fn today_is_said_in_the_dialogue_anchors_relative_words() {
    let mut e = Evidence::new(None);
    e.add_text(
        Source::User { turn: 0 },
        "Can you set an alarm for tomorrow morning at 7am? Today is 2023-03-15.",
    );
    assert!(ok(&e, json!("2023-03-16 07:00:00"), ValueKind::Timestamp));
    assert!(ok(&e, json!("2023-03-15 07:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-03-17 07:00:00"), ValueKind::Timestamp));
    // A date that is not said to be today's anchors nothing.
    let mut e = Evidence::new(None);
    e.add_text(
        Source::User { turn: 0 },
        "My trip is on 2023-03-15; remind me a day before, tomorrow.",
    );
    assert_eq!(e.today(), None);
    assert!(
        ok(&e, json!("2023-03-14"), ValueKind::Date),
        "a day before a stated date"
    );
    assert!(!ok(&e, json!("2023-03-10"), ValueKind::Date));
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
        e.ground(&Json::from(&json!(["alice59", "carol"])), ValueKind::Exact),
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
    assert!(ok(&e, json!("2023-10-01"), ValueKind::Date));
    assert!(
        ok(&e, json!("2023-10-11"), ValueKind::Date),
        "the same day of it"
    );
    assert!(
        !ok(&e, json!("2023-10-17"), ValueKind::Date),
        "a day nobody named"
    );
    assert!(!ok(&e, json!("2023-11-20"), ValueKind::Date));
    let e = evidence(&["what about the 5th of next month?"]);
    assert!(ok(&e, json!("2023-10-05"), ValueKind::Date));
    assert!(!ok(&e, json!("2023-11-05"), ValueKind::Date));
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
    assert!(ok(&e, json!("2023-10-01 00:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-10-02 00:00:00"), ValueKind::Timestamp));
}

fn at(now: &str, user: &[&str]) -> Evidence {
    let now = NaiveDateTime::parse_from_str(now, "%Y-%m-%d %H:%M:%S").unwrap();
    let mut e = Evidence::new(Some(now));
    for (i, text) in user.iter().enumerate() {
        e.add_text(Source::User { turn: i * 2 }, text);
    }
    e
}

fn date(e: &Evidence, d: &str) -> bool {
    ok(e, json!(d), ValueKind::Date)
}

#[test]
fn a_bare_weekday_is_the_coming_or_the_last_one() {
    // NOW is Monday 2023-09-11.
    let e = evidence(&["is anything on Friday?"]);
    assert!(date(&e, "2023-09-15"));
    assert!(date(&e, "2023-09-08"));
    assert!(!date(&e, "2023-09-22"), "a week too far");
    assert!(!date(&e, "2023-09-01"));
    let e = evidence(&["the review is on Monday"]);
    assert!(date(&e, "2023-09-18"), "said on a Monday: next week's");
    assert!(date(&e, "2023-09-04"));
    assert!(!date(&e, "2023-09-25"));
}

#[test]
fn this_next_and_last_weekdays() {
    let e = evidence(&["next Friday"]);
    assert!(date(&e, "2023-09-15"), "the coming one");
    assert!(date(&e, "2023-09-22"), "next week's");
    assert!(!date(&e, "2023-09-29"));
    assert!(!date(&e, "2023-09-08"));
    let e = evidence(&["this Friday"]);
    assert!(date(&e, "2023-09-15"));
    assert!(!date(&e, "2023-09-22"));
    let e = evidence(&["last Friday"]);
    assert!(date(&e, "2023-09-08"));
    assert!(!date(&e, "2023-09-15"));
    assert!(!date(&e, "2023-09-01"));
    // Said on a Wednesday, "this Monday" may be two days ago.
    let e = at("2023-09-13 09:00:00", &["what did I miss this Monday?"]);
    assert!(date(&e, "2023-09-11"));
    assert!(date(&e, "2023-09-18"));
    assert!(!date(&e, "2023-09-04"));
}

#[test]
fn weeks_are_calendar_weeks() {
    let e = evidence(&["anything next week?"]);
    for d in ["2023-09-17", "2023-09-18", "2023-09-22", "2023-09-24"] {
        assert!(date(&e, d), "{d}");
    }
    assert!(!date(&e, "2023-09-25"));
    assert!(!date(&e, "2023-10-02"));
    let e = evidence(&["what did I do last week?"]);
    assert!(date(&e, "2023-09-04"));
    assert!(date(&e, "2023-09-10"));
    assert!(!date(&e, "2023-08-28"));
    // "week" alone names no days.
    let e = evidence(&["I go twice a week"]);
    assert!(!date(&e, "2023-09-20"));
    let e = evidence(&["this weekend"]);
    assert!(date(&e, "2023-09-16"));
    assert!(date(&e, "2023-09-17"));
    assert!(!date(&e, "2023-09-15"));
    assert!(!date(&e, "2023-09-23"));
}

#[test]
fn a_day_of_the_month_is_the_nearest_one_either_side() {
    let e = evidence(&["is the dentist on the 12th?"]);
    assert!(date(&e, "2023-09-12"));
    assert!(date(&e, "2023-08-12"));
    assert!(!date(&e, "2023-10-12"));
    assert!(!date(&e, "2024-03-12"));
    let e = at("2023-09-20 09:00:00", &["is the dentist on the 12th?"]);
    assert!(date(&e, "2023-10-12"));
    assert!(date(&e, "2023-09-12"));
    assert!(!date(&e, "2023-11-12"));
    let e = evidence(&["in October, on the 12th"]);
    assert!(date(&e, "2023-10-12"));
    assert!(!date(&e, "2023-11-12"));
}

#[test]
fn month_and_day_in_a_year_near_now() {
    let e = evidence(&["on September 12th"]);
    assert!(date(&e, "2023-09-12"));
    assert!(date(&e, "2024-09-12"));
    assert!(!date(&e, "2099-09-12"));
}

#[test]
fn repeats_carry_a_known_date_forward() {
    let mut e = evidence(&["set up the sync weekly until the end of next month"]);
    e.add_text(
        Source::Request {
            turn: 1,
            api: "CreateEvent".into(),
        },
        "2023-09-18 09:00:00",
    );
    assert!(date(&e, "2023-09-25"));
    assert!(!date(&e, "2023-09-26"));
    let mut e = evidence(&["pay rent on the first day of the month for the rest of the year"]);
    assert!(date(&e, "2023-10-01"));
    assert!(date(&e, "2023-11-01"), "a month after a known date");
    assert!(!date(&e, "2023-12-01"), "not yet");
    e.add_text(
        Source::Request {
            turn: 1,
            api: "AddReminder".into(),
        },
        "2023-11-01 00:00:00",
    );
    assert!(date(&e, "2023-12-01"));
    assert!(!date(&e, "2023-12-02"));
    let e = evidence(&["pay rent on the first day of the month"]);
    assert!(!date(&e, "2023-11-01"), "no repeat said");
}

#[test]
fn a_weekday_after_a_date_stated_in_full() {
    let mut e = Evidence::new(None);
    e.add_text(
        Source::User { turn: 0 },
        "Check in next Monday, 2022-03-14.",
    );
    e.add_text(Source::User { turn: 2 }, "Check out Friday.");
    assert!(date(&e, "2022-03-18"));
    assert!(!date(&e, "2022-03-25"));
    assert!(!date(&e, "2022-03-17"));
}

#[test]
fn times_in_words() {
    let e = evidence(&["set an alarm for ten am"]);
    assert!(ok(&e, json!("10:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("10:30:00"), ValueKind::Time));
    assert!(!ok(&e, json!("22:00:00"), ValueKind::Time));
    let e = evidence(&["wake me at seven"]);
    assert!(ok(&e, json!("07:00:00"), ValueKind::Time));
    assert!(ok(&e, json!("19:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("07:30:00"), ValueKind::Time));
    let e = evidence(&["lunch at half past twelve, tea at quarter to four"]);
    assert!(ok(&e, json!("12:30:00"), ValueKind::Time));
    assert!(ok(&e, json!("15:45:00"), ValueKind::Time));
    assert!(!ok(&e, json!("16:15:00"), ValueKind::Time));
    let e = evidence(&["the flight is at seven thirty am, boarding 0700"]);
    assert!(ok(&e, json!("07:30:00"), ValueKind::Time));
    assert!(ok(&e, json!("07:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("19:30:00"), ValueKind::Time));
    let e = evidence(&["on March twenty-first at ten am"]);
    assert!(ok(&e, json!("2024-03-21 10:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2024-03-22 10:00:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2024-03-21 11:00:00"), ValueKind::Timestamp));
}

fn bound(e: &Evidence, value: &str) -> bool {
    e.ground_bound(&Json::from(&json!(value)), ValueKind::Timestamp)
        .is_grounded()
}

#[test]
fn search_bounds_any_moment_of_a_known_day() {
    let e = evidence(&["any emails from Bob tomorrow?"]);
    assert!(bound(&e, "2023-09-12 13:37:00"));
    assert!(!ok(&e, json!("2023-09-12 13:37:00"), ValueKind::Timestamp));
    assert!(!bound(&e, "2023-09-20 13:37:00"));
}

#[test]
fn search_bounds_at_the_edges_of_a_window_around_known_dates() {
    // Nothing said: today's week and month bound the window.
    let e = evidence(&["delete every event about Paris"]);
    assert!(bound(&e, "2023-09-30 23:59:59"), "the end of this month");
    assert!(
        bound(&e, "2023-10-01 00:00:00"),
        "the end as next month's first midnight"
    );
    assert!(bound(&e, "2023-09-17 23:59:59"), "within a week");
    assert!(!bound(&e, "2023-09-30 12:00:00"), "not a day's edge");
    assert!(!bound(&e, "2023-12-31 23:59:59"));
    assert!(!bound(&e, "2023-10-31 23:59:59"));
    // A month named or "next month": its first and last second.
    for said in ["what is on in October?", "anything next month?"] {
        let e = evidence(&[said]);
        assert!(bound(&e, "2023-10-01 00:00:00"), "{said}");
        assert!(bound(&e, "2023-10-31 23:59:59"), "{said}");
        assert!(
            !ok(&e, json!("2023-10-31 23:59:59"), ValueKind::Timestamp),
            "{said}"
        );
        assert!(!bound(&e, "2023-11-30 23:59:59"), "{said}");
    }
    // Without an anchor: only around dates stated in full.
    let mut e = Evidence::new(None);
    e.add_text(Source::User { turn: 0 }, "my readings since 2023-03-15");
    assert!(bound(&e, "2023-03-31 23:59:59"));
    assert!(!bound(&e, "2023-05-31 23:59:59"));
}

#[test]
fn the_closest_text_shares_a_word() {
    let e = evidence(&["is there more than one meeting with Karen Zang?"]);
    let c = e.closest("Karen Zhang", ValueKind::Text).unwrap();
    assert_eq!(c.text, "Karen Zang");
    let e = evidence(&["are there more than three meetings?"]);
    assert_eq!(e.closest("Karen Zhang", ValueKind::Text), None);
}

#[test]
fn arithmetic_from_grounded_times_and_dates() {
    let e = evidence(&["the review is at 3pm, set an alarm an hour before"]);
    assert!(ok(&e, json!("14:00:00"), ValueKind::Time));
    assert!(!ok(&e, json!("13:00:00"), ValueKind::Time));
    let e = evidence(&["my talk on September 20th at 10am, move it 30 minutes later"]);
    assert!(ok(&e, json!("2023-09-20 10:30:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-20 10:45:00"), ValueKind::Timestamp));
    let e = evidence(&["my talk on September 20th at 10am, move it later"]);
    assert!(!ok(&e, json!("2023-09-20 10:30:00"), ValueKind::Timestamp));
    // Halves: "an hour and a half", "two and a half hours".
    let e = evidence(&["the workshop on September 20th at 9am runs an hour and a half"]);
    assert!(ok(&e, json!("2023-09-20 10:30:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-20 11:00:00"), ValueKind::Timestamp));
    let e = evidence(&["the workshop on September 20th at 9am runs two and a half hours"]);
    assert!(ok(&e, json!("2023-09-20 11:30:00"), ValueKind::Timestamp));
    assert!(!ok(&e, json!("2023-09-20 11:00:00"), ValueKind::Timestamp));
    // Across midnight.
    let e = evidence(&["the party on September 20th starts at 11pm; pick me up 2 hours later"]);
    assert!(ok(&e, json!("2023-09-21 01:00:00"), ValueKind::Timestamp));
}

#[test]
fn the_day_before_and_after_a_known_date() {
    for said in [
        "my flight is on September 20th, remind me the day before",
        "my flight is on September 20th, book a room for the day after",
        "my flight is on September 20th, and the tour is the following day",
        "my flight is on September 20th, and the tour is the next day",
        "my flight is on September 20th, I pack the previous day",
    ] {
        let e = evidence(&[said]);
        let near = ["2023-09-19", "2023-09-21"].map(|d| ok(&e, json!(d), ValueKind::Date));
        assert!(near.contains(&true), "{said}");
        assert!(!ok(&e, json!("2023-09-22"), ValueKind::Date), "{said}");
        assert!(!ok(&e, json!("2023-09-18"), ValueKind::Date), "{said}");
    }
    let e = evidence(&["my flight is on September 20th, remind me a day before"]);
    assert!(ok(&e, json!("2023-09-19"), ValueKind::Date));
    let e = evidence(&["my flight is on September 20th, the day is busy"]);
    assert!(!ok(&e, json!("2023-09-19"), ValueKind::Date));
}

#[test]
fn leaves_nothing_describes_are_read_by_their_shape() {
    let kind = |v: serde_json::Value| ValueKind::of_shape(&Json::from(&v));
    assert_eq!(
        kind(json!("2024-02-06 07:15:00")),
        Some(ValueKind::Timestamp)
    );
    assert_eq!(kind(json!("2024-02-06")), Some(ValueKind::Date));
    assert_eq!(kind(json!("07:15:00")), Some(ValueKind::Time));
    assert_eq!(kind(json!(84)), Some(ValueKind::Number));
    assert_eq!(kind(json!("126/84")), Some(ValueKind::Text));
    assert_eq!(kind(json!(true)), None);
    assert_eq!(kind(json!(null)), None);
}
