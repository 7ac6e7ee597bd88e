//! schemas/scenario-pool.schema.json is the schemars schema of
//! `ScenarioPool`; regenerate with `TALKFORGE_UPDATE_SCHEMAS=1 cargo test
//! --test gen_schema` (or `cargo xtask schemas` once it lists the pool).

use std::path::Path;

use talkforge::model::ScenarioPool;

#[test]
fn committed_pool_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/scenario-pool.schema.json");
    let schema = schemars::schema_for!(ScenarioPool);
    let want = format!("{}\n", serde_json::to_string_pretty(&schema).unwrap());
    if std::env::var_os("TALKFORGE_UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(have, want, "regenerate {}", path.display());

    // And a pool as generate writes it validates against it.
    let validator = jsonschema::validator_for(&serde_json::to_value(&schema).unwrap()).unwrap();
    let pool = serde_json::json!({
        "name": "A-B-C-AddAlarm", "plugins": ["Alarm"], "required_tool": "AddAlarm",
        "model": "m", "prompt_sha256": "00", "raw_reply": "r",
        "scenarios": [{"text": "t", "tools": ["AddAlarm"], "accepted": false, "reasons": ["x"]}]
    });
    assert!(validator.is_valid(&pool));
    assert!(!validator.is_valid(&serde_json::json!({"name": "only"})));
}
