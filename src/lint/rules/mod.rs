//! One rule per file. Each declares its stable name, default severity and
//! documentation with `declare_rule!`, and is listed in `registry.rs`.

pub mod argument_type;
pub mod auth_order;
pub mod duplicate_id;
pub mod metadata_mismatch;
pub mod missing_argument;
pub mod placeholder_text;
pub mod scenario_missing_required_tool;
pub mod scenario_unknown_tool;
pub mod schema;
pub mod turn_order;
pub mod unknown_argument;
pub mod unknown_tool;
pub mod unreachable_argument;
