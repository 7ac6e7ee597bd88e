//! ToolTalk's catalog: 28 tools in 7 plugins (the plugins are the catalog's
//! groups, the names conversations list in `suites_used`).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::plugins::{plugins, Tool};
use crate::suite::catalog::{Catalog, ToolSpec};

/// The catalog, built once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let plugins = plugins();
        let groups = plugins.iter().map(|(group, _)| *group).collect();
        let tools = plugins
            .iter()
            .flat_map(|(_, tools)| tools.iter().map(|tool| &tool.spec))
            .collect();
        Catalog::new(groups, tools)
    })
}

/// A ToolTalk tool's catalog entry by name.
pub fn tool(name: &str) -> Option<&'static ToolSpec> {
    catalog().tool(name)
}

/// A ToolTalk tool, with its behaviour, by name.
pub fn behaviour(name: &str) -> Option<&'static Tool> {
    static TOOLS: OnceLock<HashMap<&'static str, &'static Tool>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            plugins()
                .into_iter()
                .flat_map(|(_, tools)| tools.iter().map(|&tool| (tool.spec.name, tool)))
                .collect()
        })
        .get(name)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_found_by_its_name_and_nothing_else_is() {
        for &spec in catalog().tools() {
            assert!(
                std::ptr::eq(tool(spec.name).unwrap(), spec),
                "{}",
                spec.name
            );
            for near in [
                format!("{}x", spec.name),
                spec.name[1..].to_string(),
                spec.name.to_lowercase(),
            ] {
                assert!(tool(&near).is_none(), "{near}");
            }
        }
        for name in ["", "A", "Nope", "QueryCalendarr", "日本"] {
            assert!(tool(name).is_none(), "{name}");
        }
        assert_eq!(catalog().tools().len(), 28);
        assert_eq!(catalog().groups().len(), 7);
    }
}
