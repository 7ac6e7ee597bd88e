//! The state check's totals in words (the human output of a level-3
//! run).

use super::summary::StateTotals;

/// The state check's totals in words (no final stop), counting `unit`s
/// (conversations, scenarios).
pub fn state_totals(t: &StateTotals, unit: &str) -> String {
    format!(
        "{} checked: {} ended as the gold worlds, {} left collateral damage; {} collateral {}, {} missing, {} different",
        crate::words::count(t.conversations_checked, unit),
        t.conversations_clean,
        t.conversations_with_collateral,
        t.collateral,
        crate::words::noun_for(t.collateral, "write"),
        t.missing,
        t.different
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use crate::eval::failure::{Context, FailureKind};
    use crate::eval::outcome::{CallOutcome, CallRequest, ConversationResult, TurnOutcome};
    use crate::eval::output::RunInfo;
    use crate::eval::summary::Summary;
    use crate::run::provenance::{DatabasesRecord, Dataset, Provenance};
    use crate::suite::protocol::Metrics;

    /// A run of two conversations, one failed, with a fixed provenance.
    pub(crate) fn sample_summary(model: &str) -> Summary {
        let call = |name: &str, matched: bool, bad_action: bool| CallOutcome {
            request: CallRequest {
                api_name: name.to_string().into(),
                parameters: Some(std::borrow::Cow::Owned(
                    serde_json::json!({"time": if matched {"07:00:00"} else {"08:00:00"}})
                        .as_object()
                        .unwrap()
                        .clone(),
                )),
            },
            matched,
            bad_action,
            exception: None,
        };
        // A result of `turn` for conversation `name` of `subset`.
        let result = |name: &str, subset: &str, metrics, turn| ConversationResult {
            file: format!("data/{subset}/{name}.json"),
            subset: subset.into(),
            name: name.into(),
            conversation_id: name.into(),
            ..ConversationResult::new(metrics, &[turn], &Context::default())
        };
        let good = result(
            "add",
            "easy",
            Metrics::from_counts(1, 1, 1, 1, 1, 0),
            TurnOutcome {
                turn: 1,
                gold: vec![call("AddAlarm", true, false)],
                predictions: vec![call("AddAlarm", true, false)],
                stopped_by_bound: false,
            },
        );
        let mut gold = call("AddAlarm", false, false);
        gold.request.parameters = Some(std::borrow::Cow::Owned(
            serde_json::json!({"time": "07:00:00"})
                .as_object()
                .unwrap()
                .clone(),
        ));
        let bad = result(
            "wake",
            "hard",
            Metrics::from_counts(1, 1, 0, 1, 0, 1),
            TurnOutcome {
                turn: 3,
                gold: vec![gold],
                predictions: vec![call("AddAlarm", false, true)],
                stopped_by_bound: false,
            },
        );
        assert_eq!(bad.why_failed[0].kind, FailureKind::MissedGoldCall);
        let info = RunInfo {
            predictor: format!("openai:{model}"),
            settings: crate::run::answer::Settings {
                model: Some(model.into()),
                ..Default::default()
            },
            similarity: "lexical".into(),
            max_calls_per_turn: 10,
            databases_sha256: "d".repeat(64),
            talkforge_version: "0.1.0".into(),
        };
        let mut summary = crate::eval::summary::summary_of(vec![good, bad], info);
        summary.provenance = Some(Provenance {
            talkforge_version: "0.1.0".into(),
            date: "2026-11-26T12:00:00Z".into(),
            suite: "tooltalk".into(),
            dataset: Dataset::of([("a.json", Some("1")), ("b.json", Some("2"))]),
            databases: DatabasesRecord {
                folder: "databases".into(),
                sha256: "d".repeat(64),
                files: BTreeMap::from([("Alarm.json".into(), "a".repeat(64))]),
            },
            errata: Vec::new(),
            predictor: format!("openai:{model}"),
            model_requested: Some(model.into()),
            models_reported: vec![format!("{model}-0613")],
            user_model_requested: None,
            user_models_reported: Vec::new(),
            prompt_templates: BTreeMap::from([("prompts/eval-system.j2".into(), "b".repeat(64))]),
        });
        summary
    }

    #[test]
    fn the_report_of_a_run_with_a_failed_conversation() {
        let summary = sample_summary("gpt-x");
        let text =
            crate::report::runs::report_md(&summary, "out".as_ref(), "Evaluation report".into())
                .unwrap();
        insta::assert_snapshot!(text);
    }
}
