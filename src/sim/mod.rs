//! The simulated world: the tool catalog, the tools' behaviour and the
//! state they act on.

pub mod catalog;
pub mod docs;
pub mod names;
pub mod object;
pub mod plugins;
pub mod pyargs;
pub mod pyrandom;
pub mod pytime;
pub mod reply;
pub mod similarity;
pub mod table;
pub mod world;

pub use catalog::{catalog, tool, FieldSpec, ParamSpec, ParamType, Plugin, ToolSpec, ValueFormat};
pub use reply::{Reply, Response};
pub use similarity::TextSimilarity;
pub use world::{Databases, Execution, World};
