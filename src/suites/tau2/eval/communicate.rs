//! COMMUNICATE: every item must occur in the text of some assistant
//! message, the item lowercased and the message lowercased with its commas
//! removed (so an item that holds a comma is never found, as in tau2).

use super::message::Message;

/// Per item, whether some assistant message says it.
pub fn checks(items: &[String], trajectory: &[Message]) -> Vec<bool> {
    let said: Vec<String> = trajectory
        .iter()
        .filter_map(|m| match m {
            Message::Assistant {
                content: Some(text),
                ..
            } if !text.trim().is_empty() => Some(text.to_lowercase().replace(',', "")),
            _ => None,
        })
        .collect();
    items
        .iter()
        .map(|item| {
            let item = item.to_lowercase();
            said.iter().any(|text| text.contains(&item))
        })
        .collect()
}

/// 1 when every item is said (1 for none), else 0.
pub fn reward(items: &[String], trajectory: &[Message]) -> f64 {
    if checks(items, trajectory).iter().all(|m| *m) {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn items_are_found_ignoring_case_and_the_messages_commas() {
        let said = [
            Message::User {
                content: Some("Refund 77".into()),
                tool_calls: None,
            },
            Message::assistant_text("Your total is 1,250.50 on the BLUE card."),
        ];
        assert_eq!(
            checks(&items(&["1250.50", "blue card", "77"]), &said),
            [true, true, false]
        );
        // the item keeps its comma, the message loses it
        assert_eq!(reward(&items(&["1,250.50"]), &said), 0.0);
        assert_eq!(reward(&items(&["blue card"]), &said), 1.0);
        assert_eq!(reward(&[], &[]), 1.0);
    }
}
