//! What simulators share: databases and their tables (shared between
//! worlds until written), the context a tool runs in, Python-compatible
//! random streams, time parsing and argument semantics.

pub mod ctx;
pub mod databases;
pub mod object;
pub mod pyargs;
pub mod pyrandom;
pub mod pytime;
pub mod reply;
pub mod table;

pub use ctx::{RunFn, ToolCtx};
pub use databases::{Databases, Tables};
pub use reply::{Reply, Response};
