//! The data: conversations, turns, gold calls, scenarios and databases.

pub mod conversation;
pub mod database;
pub mod scenario;

pub use conversation::{Conversation, GoldCall, Metadata, Request, Role, Turn, User};
pub use scenario::{Scenario, ScenarioPool};
