//! The file formats, each read into and written from the model in
//! `dialogue/`: ToolTalk conversations (.json) and API-Bank dialogues
//! (.jsonl); scenario pools; finding dataset files, reading JSON with
//! errors that name the file, line and column, and atomic writes.

pub mod apibank;
pub mod call_text;
pub mod canonical;
pub mod discover;
pub mod plain;
pub mod read;
pub mod scenario;
pub mod write;

pub use discover::{discover, discover_dialogues, folder_name};
pub use read::{load_conversation, read_conversation, read_json, LoadedConversation};
pub use scenario::{Scenario, ScenarioPool};
pub use write::{
    atomic_write, atomic_write_unsynced, atomic_write_unsynced_with, atomic_write_with,
    create_folder, to_python_json, write_python_json,
};
