//! ENV_ASSERTION: each assertion runs a function of the domain on the
//! agent's final state and wants a given true or false. The airline and
//! retail domains have no such function (their tools answer records and
//! text, never a truth value), so an assertion there cannot be scored.

use crate::suites::tau2::common::Output;
use crate::suites::tau2::domain::Db;
use crate::suites::tau2::tasks::EnvAssertion;

/// 1 when every assertion holds on `db` (1 for none), 0 when one fails;
/// an assertion that cannot be run is an error. They run one after another
/// on the agent's state itself, as tau2 runs them.
pub fn reward(assertions: &[EnvAssertion], db: &mut Db) -> Result<f64, String> {
    let mut reward = 1.0;
    for assertion in assertions {
        if assertion
            .env_type
            .as_deref()
            .is_some_and(|t| t != "assistant")
        {
            return Err(format!(
                "the assertion {} runs on the user's environment, which the {} domain does not have",
                assertion.func_name,
                db.domain()
            ));
        }
        let answer = db
            .call(&assertion.func_name, &assertion.arguments)
            .map_err(|e| format!("the assertion {} raised: {e}", assertion.func_name))?;
        let Output::Json(serde_json::Value::Bool(holds)) = answer else {
            return Err(format!(
                "the assertion {} answered {}, not true or false",
                assertion.func_name,
                answer.agent_text()
            ));
        };
        if holds != assertion.assert_value {
            reward = 0.0;
        }
    }
    Ok(reward)
}
