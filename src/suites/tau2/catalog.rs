//! The tau2 family's catalog: the airline tools, then the retail ones,
//! each once by name (`calculate` and `transfer_to_human_agents` behave
//! alike in both domains and are listed with the tools both share).

use std::sync::LazyLock;

use crate::suite::catalog::default_matches;
use crate::suite::{Catalog, Group, ParamSpec, SessionEffect, ToolSpec};

use super::{airline, retail, ToolKind};

/// The group of the tools both domains have.
pub const SHARED: &str = "shared";

/// A tool's spec: tau2's tools take every argument as required, read no
/// session and are compared as the seam compares by default.
pub const fn spec(
    name: &'static str,
    group: &'static str,
    description: &'static str,
    parameters: &'static [ParamSpec],
    is_action: bool,
) -> ToolSpec {
    ToolSpec {
        name,
        group,
        description,
        parameters,
        returns: &[],
        is_action,
        requires_auth: false,
        session: SessionEffect::None,
        tells_today: false,
        database: None,
        matches: default_matches,
    }
}

/// Both domains' tools, each name once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: LazyLock<Catalog> = LazyLock::new(|| {
        let shared = |name: &str| {
            airline::TOOLS
                .iter()
                .any(|t| t.name == name && t.kind == ToolKind::Generic)
                && retail::TOOLS.iter().any(|t| t.name == name)
        };
        let mut tools: Vec<&'static ToolSpec> = Vec::new();
        let mut common: Vec<&'static ToolSpec> = Vec::new();
        for spec in airline::TOOLS.iter().map(|t| t.spec) {
            if shared(spec.name) {
                common.push(spec);
            } else {
                tools.push(spec);
            }
        }
        tools.extend(
            retail::TOOLS
                .iter()
                .map(|t| t.spec)
                .filter(|s| !shared(s.name)),
        );
        // Made once, for the life of the program, as every catalog is.
        tools.extend(common.into_iter().map(|s| {
            &*Box::leak(Box::new(ToolSpec {
                group: SHARED,
                ..*s
            }))
        }));
        Catalog::new(
            vec![
                Group {
                    name: "airline",
                    description: "tau2's airline domain: flights, users and reservations.",
                },
                Group {
                    name: "retail",
                    description: "tau2's retail domain: products, users and orders.",
                },
                Group {
                    name: SHARED,
                    description: "Tools both tau2 domains have, alike.",
                },
            ],
            tools,
        )
    });
    &CATALOG
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_of_both_domains_is_in_the_catalog_once_with_its_arguments() {
        let catalog = catalog();
        assert_eq!(catalog.tools().len(), 14 + 16 - 2);
        for tool in airline::TOOLS
            .iter()
            .map(|t| (t.name, t.spec))
            .chain(retail::TOOLS.iter().map(|t| (t.name, t.spec)))
        {
            let (name, spec) = tool;
            assert_eq!(name, spec.name);
            let listed = catalog.tool(name).expect(name);
            let args: Vec<&str> = listed.parameters.iter().map(|p| p.name).collect();
            let own: Vec<&str> = spec.parameters.iter().map(|p| p.name).collect();
            assert_eq!(args, own, "{name}");
        }
        assert_eq!(catalog.tools_of(SHARED).count(), 2);
    }
}
