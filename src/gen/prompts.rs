//! Generation prompts: every K-subset of the plugins, and for each subset
//! one prompt per tool of the subset, rendered from the catalog through a
//! minijinja template.

use serde::Serialize;

use crate::llm::sha256_hex;
use crate::suite::{Catalog, Group, ToolSpec};
use crate::{Error, Result};

/// The template shipped with talkforge (prompts/scenarios.j2).
pub const DEFAULT_TEMPLATE: &str = include_str!("../../prompts/scenarios.j2");

/// What a prompt asks for besides its tools.
#[derive(Debug, Clone, Copy)]
pub struct Ask {
    pub scenarios: usize,
    pub min_calls: usize,
    pub min_tools: usize,
}

impl Default for Ask {
    fn default() -> Self {
        Ask {
            scenarios: 3,
            min_calls: 5,
            min_tools: 3,
        }
    }
}

/// One rendered prompt.
#[derive(Debug, Clone)]
pub struct Prompt {
    /// The catalog the prompt documents.
    pub catalog: &'static Catalog,
    /// `<PluginA>-<PluginB>-<PluginC>-<RequiredTool>`.
    pub name: String,
    pub plugins: Vec<Group>,
    pub required_tool: &'static str,
    pub text: String,
}

impl Prompt {
    pub fn sha256(&self) -> String {
        sha256_hex(self.text.as_bytes())
    }

    /// The tools the prompt documents.
    pub fn tools(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.plugins
            .iter()
            .flat_map(|p| self.catalog.tools_of(p.name))
    }
}

/// All K-subsets of `items` in lexicographic order of positions.
pub fn subsets<T: Copy>(items: &[T], k: usize) -> Vec<Vec<T>> {
    fn go<T: Copy>(items: &[T], k: usize, start: usize, cur: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            go(items, k, i + 1, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    if k <= items.len() {
        go(items, k, 0, &mut Vec::new(), &mut out);
    }
    out
}

#[derive(Serialize)]
struct ParamDoc {
    name: &'static str,
    r#type: &'static str,
    required: bool,
    description: &'static str,
}

#[derive(Serialize)]
struct FieldDoc {
    name: &'static str,
    r#type: &'static str,
    description: &'static str,
}

#[derive(Serialize)]
struct ToolDoc {
    name: &'static str,
    description: &'static str,
    parameters: Vec<ParamDoc>,
    returns: Vec<FieldDoc>,
}

#[derive(Serialize)]
struct PluginDoc {
    name: &'static str,
    description: &'static str,
    tools: Vec<ToolDoc>,
}

fn plugin_doc(catalog: &Catalog, plugin: Group) -> PluginDoc {
    PluginDoc {
        name: plugin.name,
        description: plugin.description,
        tools: catalog
            .tools_of(plugin.name)
            .map(|t| ToolDoc {
                name: t.name,
                description: t.description,
                parameters: t
                    .parameters
                    .iter()
                    .map(|p| ParamDoc {
                        name: p.name,
                        r#type: p.ty.json_name(),
                        required: p.required,
                        description: p.description,
                    })
                    .collect(),
                returns: t
                    .returns
                    .iter()
                    .map(|f| FieldDoc {
                        name: f.name,
                        r#type: f.ty,
                        description: f.description,
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Render every prompt for K-subsets of the catalog's plugins, subsets in
/// catalog order, tools in catalog order within a subset.
pub fn render_all(
    catalog: &'static Catalog,
    template: &str,
    template_name: &str,
    k: usize,
    ask: Ask,
) -> Result<Vec<Prompt>> {
    let plugins = catalog.groups();
    if k == 0 || k > plugins.len() {
        return Err(Error::Usage(format!(
            "--plugins-per-prompt must be between 1 and {}",
            plugins.len()
        )));
    }
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template(template_name, template)
        .map_err(|e| Error::input(template_name, e.to_string()))?;
    let tmpl = env.get_template(template_name).expect("just added");
    let mut prompts = Vec::new();
    for subset in subsets(plugins, k) {
        let docs: Vec<PluginDoc> = subset.iter().map(|&p| plugin_doc(catalog, p)).collect();
        let names: Vec<&str> = subset.iter().map(|p| p.name).collect();
        for tool in subset.iter().flat_map(|p| catalog.tools_of(p.name)) {
            let text = tmpl
                .render(minijinja::context! {
                    plugins => names,
                    tool_docs => docs,
                    required_tool => tool.name,
                    scenarios => ask.scenarios,
                    min_calls => ask.min_calls,
                    min_tools => ask.min_tools,
                })
                .map_err(|e| Error::input(template_name, e.to_string()))?;
            prompts.push(Prompt {
                catalog,
                name: format!("{}-{}", names.join("-"), tool.name),
                plugins: subset.clone(),
                required_tool: tool.name,
                text,
            });
        }
    }
    Ok(prompts)
}
