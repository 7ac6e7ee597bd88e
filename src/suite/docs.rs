//! The catalog as documents: a serialisable view (the `tools --format json`
//! output, described by schemas/catalog.schema.json), Markdown for people,
//! and OpenAI function-calling tool schemas for models.

use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::catalog::{Catalog, FieldSpec, ParamSpec, ParamType, ToolSpec, ValueFormat};

/// The whole catalog.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CatalogDoc {
    pub plugins: Vec<PluginDoc>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PluginDoc {
    pub name: String,
    pub description: String,
    pub tools: Vec<ToolDoc>,
}

/// One tool, as the simulator, linter and evaluator see it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolDoc {
    pub name: String,
    pub plugin: String,
    pub description: String,
    pub parameters: Vec<ParamDoc>,
    pub returns: Vec<FieldDoc>,
    /// Changes the world (an action) rather than only reading it (a query).
    pub is_action: bool,
    /// Needs a logged-in user; the session token is injected, not asked for.
    pub requires_auth: bool,
    /// The database file (stem) the tool reads or writes.
    pub database: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ParamDoc {
    pub name: String,
    /// JSON type: string, integer, number, boolean, array, object.
    #[serde(rename = "type")]
    pub ty: String,
    /// For arrays: the items' JSON type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
    pub description: String,
    pub required: bool,
    #[serde(rename = "enum", default, skip_serializing_if = "Vec::is_empty")]
    pub enum_values: Vec<String>,
    /// timestamp (%Y-%m-%d %H:%M:%S), date, time, email, phone, id, or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Text the assistant composes; not expected verbatim in the dialogue.
    pub free_text: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FieldDoc {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldDoc>,
}

pub fn catalog_doc(catalog: &Catalog) -> CatalogDoc {
    CatalogDoc {
        plugins: catalog
            .groups()
            .iter()
            .map(|group| PluginDoc {
                name: group.name.to_string(),
                description: group.description.to_string(),
                tools: catalog.tools_of(group.name).map(tool_doc).collect(),
            })
            .collect(),
    }
}

pub fn tool_doc(spec: &ToolSpec) -> ToolDoc {
    ToolDoc {
        name: spec.name.to_string(),
        plugin: spec.group.to_string(),
        description: spec.description.to_string(),
        parameters: spec.parameters.iter().map(param_doc).collect(),
        returns: spec.returns.iter().map(field_doc).collect(),
        is_action: spec.is_action,
        requires_auth: spec.requires_auth,
        database: spec.database.map(str::to_string),
    }
}

fn param_doc(p: &ParamSpec) -> ParamDoc {
    ParamDoc {
        name: p.name.to_string(),
        ty: p.ty.json_name().to_string(),
        items: match p.ty {
            ParamType::Array(items) => Some(items.json_name().to_string()),
            _ => None,
        },
        description: p.description.to_string(),
        required: p.required,
        enum_values: p.enum_values.iter().map(|v| v.to_string()).collect(),
        format: format_name(p.format).map(str::to_string),
        free_text: p.free_text,
    }
}

fn field_doc(f: &FieldSpec) -> FieldDoc {
    FieldDoc {
        name: f.name.to_string(),
        ty: f.ty.to_string(),
        description: f.description.to_string(),
        fields: f.fields.iter().map(field_doc).collect(),
    }
}

fn format_name(format: ValueFormat) -> Option<&'static str> {
    match format {
        ValueFormat::Any => None,
        ValueFormat::Timestamp => Some("timestamp"),
        ValueFormat::Date => Some("date"),
        ValueFormat::Time => Some("time"),
        ValueFormat::Email => Some("email"),
        ValueFormat::Phone => Some("phone"),
        ValueFormat::Id => Some("id"),
        ValueFormat::MonthDay => Some("month-day"),
        ValueFormat::Token => Some("token"),
    }
}

/// Chat-completions `tools` entries for every tool, with full docs.
pub fn openai_tools(catalog: &Catalog) -> Vec<Value> {
    catalog
        .tools()
        .iter()
        .map(|spec| openai_tool(spec, true))
        .collect()
}

/// A tool's documentation in the chat-completions `tools` format.
pub fn openai_tool(spec: &ToolSpec, docs: bool) -> Value {
    let describe = |text: &str| {
        if docs {
            text.to_string()
        } else {
            String::new()
        }
    };
    let mut properties = Map::new();
    for p in spec.parameters {
        properties.insert(p.name.to_string(), parameter_doc(p, docs));
    }
    let required: Vec<&str> = spec
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name)
        .collect();
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": describe(spec.description),
            "parameters": {"type": "object", "properties": properties, "required": required},
        }
    })
}

fn parameter_doc(p: &ParamSpec, docs: bool) -> Value {
    let mut doc = type_doc(p.ty);
    doc.insert(
        "description".into(),
        json!(if docs { p.description } else { "" }),
    );
    if !p.enum_values.is_empty() {
        doc.insert("enum".into(), json!(p.enum_values));
    }
    Value::Object(doc)
}

fn type_doc(ty: ParamType) -> Map<String, Value> {
    let mut doc = Map::new();
    doc.insert("type".into(), json!(ty.json_name()));
    if let ParamType::Array(items) = ty {
        doc.insert("items".into(), Value::Object(type_doc(*items)));
    }
    doc
}

/// The catalog as a Markdown reference. `injected` is the argument the
/// suite's world puts in for tools that need a login (ToolTalk's session
/// token), if it has one.
pub fn markdown(catalog: &Catalog, injected: Option<&str>) -> String {
    let doc = catalog_doc(catalog);
    let tools: usize = doc.plugins.iter().map(|p| p.tools.len()).sum();
    let groups = match doc.plugins.len() {
        1 => "1 group".to_string(),
        n => format!("{n} plugins"),
    };
    let login = match injected {
        Some(name) => format!(
            "Tools that need a login get the {} from the world, not from the model.",
            name.replace('_', " ")
        ),
        None => "Tools that need a login take the user's credential as an argument.".to_string(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "# Tool catalog\n");
    let _ = writeln!(
        out,
        "{tools} tools in {groups}. Actions change the world; queries only read it. {login}\n"
    );
    for plugin in &doc.plugins {
        let _ = writeln!(out, "## {}\n\n{}\n", plugin.name, plugin.description);
        for tool in &plugin.tools {
            let kind = if tool.is_action { "action" } else { "query" };
            let login = if tool.requires_auth {
                ", needs a login"
            } else {
                ""
            };
            let database = tool
                .database
                .as_deref()
                .map(|d| format!(", database `{d}`"))
                .unwrap_or_default();
            let _ = writeln!(out, "### {}\n", tool.name);
            let _ = writeln!(out, "{} ({kind}{login}{database})\n", tool.description);
            if tool.parameters.is_empty() {
                let _ = writeln!(out, "No parameters.\n");
            } else {
                let _ = writeln!(out, "| parameter | type | required | description |");
                let _ = writeln!(out, "|---|---|---|---|");
                for p in &tool.parameters {
                    let ty = match &p.items {
                        Some(items) => format!("array of {items}"),
                        None => p.ty.clone(),
                    };
                    let mut description = cell(&p.description);
                    if !p.enum_values.is_empty() {
                        let _ = write!(description, " One of: `{}`.", p.enum_values.join("`, `"));
                    }
                    if let Some(format) = &p.format {
                        let _ = write!(description, " Format: {format}.");
                    }
                    let required = if p.required { "yes" } else { "no" };
                    // A parameter without a description starts with its notes.
                    let description = description.trim_start();
                    let _ = writeln!(out, "| `{}` | {ty} | {required} | {description} |", p.name);
                }
                out.push('\n');
            }
            if !tool.returns.is_empty() {
                let _ = writeln!(out, "Returns:\n");
                for field in &tool.returns {
                    write_field(&mut out, field, 0);
                }
                out.push('\n');
            }
        }
    }
    out
}

fn write_field(out: &mut String, field: &FieldDoc, depth: usize) {
    let _ = writeln!(
        out,
        "{}- `{}` ({}): {}",
        "  ".repeat(depth),
        field.name,
        field.ty,
        field.description
    );
    for inner in &field.fields {
        write_field(out, inner, depth + 1);
    }
}

/// Text safe inside a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ToolTalk's catalog, from the default registry.
    fn catalog() -> &'static crate::suite::Catalog {
        crate::suites::registry()
            .by_name("tooltalk")
            .expect("registered")
            .catalog()
    }

    #[test]
    fn every_tool_is_documented_once() {
        let doc = catalog_doc(catalog());
        let names: Vec<&str> = doc
            .plugins
            .iter()
            .flat_map(|p| p.tools.iter().map(|t| t.name.as_str()))
            .collect();
        assert_eq!(names.len(), 28);
        let md = markdown(catalog(), Some("session_token"));
        for name in names {
            assert_eq!(md.matches(&format!("### {name}\n")).count(), 1, "{name}");
        }
        assert_eq!(openai_tools(catalog()).len(), 28);
    }
}
