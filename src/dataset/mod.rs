//! Finding, reading, validating and writing dataset files.

pub mod discover;
pub mod read;
pub mod schema;
pub mod write;

pub use discover::{discover, discover_alongside, folder_name};
pub use read::{load_conversation, read_conversation, read_json, LoadedConversation};
pub use schema::{validate, validate_databases, SchemaKind, SchemaViolation};
pub use write::{atomic_write, atomic_write_unsynced, atomic_write_with, to_python_json};
