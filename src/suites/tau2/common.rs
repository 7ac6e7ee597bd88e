//! What both tau2 domains share: reading a call's arguments, the string an
//! agent is handed for a result, Python's `round(x, 2)`, and the state hash
//! tau2 computes (`get_db_hash`).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::formats::write::to_python_json_line;

/// A tool's result before it is handed to the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A plain string, handed over as it is.
    Text(String),
    /// A model (or a list of them), dumped and written by `json.dumps`.
    Json(Value),
}

impl Output {
    /// A pydantic-like model as tau2 dumps it (fields in declaration order).
    pub fn model<T: Serialize>(value: &T) -> Output {
        Output::Json(serde_json::to_value(value).expect("models serialise"))
    }

    /// The exact string the agent receives (`json.dumps` with its default
    /// separators for models; strings unchanged).
    pub fn agent_text(&self) -> String {
        match self {
            Output::Text(text) => text.clone(),
            Output::Json(value) => to_python_json_line(value),
        }
    }
}

/// What a tool raised: its text, as Python's `str()` of the exception.
pub type Raised = String;

/// The arguments of one call.
pub struct Args<'a> {
    pub tool: &'a str,
    pub map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn get(&self, name: &str) -> Result<&'a Value, Raised> {
        self.map.get(name).ok_or_else(|| {
            format!(
                "{}() missing 1 required positional argument: '{name}'",
                self.tool
            )
        })
    }

    /// A string argument (pydantic-free: tau2 passes arguments straight to
    /// the method, so anything else is refused here as a type error).
    pub fn str(&self, name: &str) -> Result<&'a str, Raised> {
        self.get(name)?
            .as_str()
            .ok_or_else(|| format!("argument '{name}' of {} must be a string", self.tool))
    }

    pub fn int(&self, name: &str) -> Result<i64, Raised> {
        let value = self.get(name)?;
        value
            .as_i64()
            .or_else(|| {
                value
                    .as_f64()
                    .filter(|f| f.fract() == 0.0)
                    .map(|f| f as i64)
            })
            .ok_or_else(|| format!("argument '{name}' of {} must be an integer", self.tool))
    }

    pub fn strings(&self, name: &str) -> Result<Vec<String>, Raised> {
        self.get(name)?
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .ok_or_else(|| {
                format!(
                    "argument '{name}' of {} must be a list of strings",
                    self.tool
                )
            })
    }

    /// A list of objects read into `T` (tau2 builds its models from dicts).
    pub fn models<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Vec<T>, Raised> {
        let value = self.get(name)?;
        let items = value
            .as_array()
            .ok_or_else(|| format!("argument '{name}' of {} must be a list", self.tool))?;
        items
            .iter()
            .map(|item| {
                serde_json::from_value(item.clone())
                    .map_err(|e| format!("argument '{name}' of {}: {e}", self.tool))
            })
            .collect()
    }

    /// Refuse arguments the tool does not take, as Python does.
    pub fn only(&self, names: &[&str]) -> Result<(), Raised> {
        match self.map.keys().find(|k| !names.contains(&k.as_str())) {
            Some(extra) => Err(format!(
                "{}() got an unexpected keyword argument '{extra}'",
                self.tool
            )),
            None => Ok(()),
        }
    }
}

/// Python's `round(x, 2)`: the nearest value with two decimals, read back
/// as a float (Rust's fixed-precision formatting rounds the exact binary
/// value, as Python does).
pub fn round2(x: f64) -> f64 {
    format!("{x:.2}")
        .parse()
        .expect("a formatted float reads back")
}

/// Python's `str()` of a float.
pub fn float_text(x: f64) -> String {
    crate::formats::write::python_float(x)
}

/// tau2's `get_db_hash`: the hex SHA-256 of `json.dumps(model_dump(),
/// sort_keys=True)` with Python's separators, escaping and float text.
pub fn db_hash<T: Serialize>(db: &T) -> String {
    let value = serde_json::to_value(db).expect("models serialise");
    let mut text = Vec::with_capacity(1 << 20);
    write_sorted(&value, &mut text);
    crate::llm::cache::sha256_hex(&text)
}

/// `value` as `json.dumps(value, sort_keys=True)` writes it.
pub(super) fn write_sorted(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(to_python_json_line(key).as_bytes());
                out.extend_from_slice(b": ");
                write_sorted(&map[key], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                write_sorted(item, out);
            }
            out.push(b']');
        }
        scalar => out.extend_from_slice(to_python_json_line(scalar).as_bytes()),
    }
}

/// The generic `calculate` tool of both domains: an arithmetic expression
/// of digits, `+ - * / ( ) .` and spaces, evaluated as Python evaluates
/// it, rounded to two decimals and written as Python writes a float.
pub fn calculate(expression: &str) -> Result<String, Raised> {
    if !expression.chars().all(|c| "0123456789+-*/(). ".contains(c)) {
        return Err("Invalid characters in expression".to_string());
    }
    let tokens: Vec<char> = expression.chars().filter(|c| *c != ' ').collect();
    let mut parser = Calc { tokens, at: 0 };
    let value = parser.sum()?;
    if parser.at != parser.tokens.len() {
        return Err("invalid syntax".to_string());
    }
    Ok(float_text(round2(value)))
}

/// A recursive-descent reader of `calculate`'s expressions.
struct Calc {
    tokens: Vec<char>,
    at: usize,
}

impl Calc {
    fn peek(&self) -> Option<char> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Result<f64, Raised> {
        let mut value = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<f64, Raised> {
        let mut value = self.unary()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            let rhs = self.unary()?;
            if op == '*' {
                value *= rhs;
            } else if rhs == 0.0 {
                return Err("division by zero".to_string());
            } else {
                value /= rhs;
            }
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<f64, Raised> {
        match self.peek() {
            Some('-') => {
                self.at += 1;
                Ok(-self.unary()?)
            }
            Some('+') => {
                self.at += 1;
                self.unary()
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<f64, Raised> {
        if self.peek() == Some('(') {
            self.at += 1;
            let value = self.sum()?;
            if self.peek() != Some(')') {
                return Err("invalid syntax".to_string());
            }
            self.at += 1;
            return Ok(value);
        }
        let start = self.at;
        while matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '.') {
            self.at += 1;
        }
        let text: String = self.tokens[start..self.at].iter().collect();
        text.parse().map_err(|_| "invalid syntax".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_sorts_keys_at_every_level_and_writes_python_floats() {
        let value = serde_json::json!({"b": [1.0, {"z": null, "a": 1e-5}], "a": "é"});
        let mut text = Vec::new();
        write_sorted(&value, &mut text);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            r#"{"a": "\u00e9", "b": [1.0, {"a": 1e-05, "z": null}]}"#
        );
        assert_eq!(
            db_hash(&serde_json::json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn calculate_rounds_to_two_decimals_as_python() {
        assert_eq!(calculate("2 * (3 + 4.5)").unwrap(), "15.0");
        assert_eq!(calculate("10 / 3").unwrap(), "3.33");
        assert_eq!(calculate("-1.005 + 0").unwrap(), "-1.0");
        assert_eq!(calculate("1/0").unwrap_err(), "division by zero");
        assert!(calculate("x").is_err());
    }
}
