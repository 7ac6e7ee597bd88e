//! Calculator: evaluates an arithmetic expression over integers
//! (`+ - * /` and parentheses) and answers with a float.
//!
//! The reference evaluates with an evaluator of its own, and its results
//! are what recordings hold, so this one follows it step by step rather
//! than doing arithmetic properly:
//!
//! - spaces are removed; anything but digits, `+-*/()`, unbalanced
//!   parentheses, no operator, or one character more than operators is an
//!   `invalid formula`;
//! - the formula becomes a list of numbers (floats) and one-character
//!   texts; a parenthesised part is replaced by its value, from the first
//!   `(` to the first `)` (so nested parentheses fail with Python's
//!   `')' is not in list`);
//! - then the first `*` or `/` (whichever comes first) is applied to its
//!   neighbours, again and again, then likewise `+` and `-`, replacing the
//!   three items by the result with Python's slice assignment. An operator
//!   at the start takes the list's last item as its left operand
//!   (Python's `list[-1]`);
//! - texts take part in the arithmetic as Python strings do (`'+' + '+'`
//!   is `'++'`; `2.0 * '+'` is a `TypeError`), with Python's messages.
//!
//! An operator left at the start of the list that computes without error
//! makes the reference loop for ever (the list never shrinks, or grows
//! without end): it never answers. This simulator stops there and answers
//! with an exception of its own saying so (see [`NEVER_FINISHES`]).
//!
//! The result is a float (`6.0`). A result that is not finite, which JSON
//! cannot hold, is given as the text Python's `json.dumps` writes for it
//! (`Infinity`, `-Infinity`, `NaN`).

use serde_json::{Number, Value};

use super::super::catalog::{composed, spec};
use super::super::state::State;
use super::{input_of, result, Api, Reference};
use crate::sim::pyargs::{str_method, subscript, Args};

/// The exception for a formula the reference never finishes evaluating
/// (our wording: the reference gives no answer at all).
pub const NEVER_FINISHES: &str =
    "the reference's evaluator never finishes on this formula (an operator at its start loops for ever)";

pub static API: Api = Api {
    spec: spec(
        "Calculator",
        "Evaluates an arithmetic expression over integers.",
        &[composed("formula")],
        false,
    ),
    reference: Reference {
        description: "This API provides basic arithmetic operations: addition, subtraction, multiplication, and division.",
        input_parameters: &[(
            "formula",
            "str",
            "The formula that needs to be calculated. Only integers are supported. Valid operators are +, -, *, /, and (, ). For example, '(1 + 2) * 3'.",
        )],
        output_parameters: &[("result", "float", "The result of the formula.")],
    },
    call,
    correct,
    check_removes: &[],
};

fn call(_state: &mut State, args: Args<'_>) -> Value {
    let input = input_of(&args, &["formula"]);
    let outcome = calculate(args.value("formula")).map(|item| match item {
        Item::Number(x) => float(x),
        Item::Text(text) => Value::String(text),
    });
    result("Calculator", input, outcome)
}

/// A float as JSON; a value JSON cannot hold as `json.dumps` spells it.
fn float(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(number) => Value::Number(number),
        None if x.is_nan() => Value::String("NaN".into()),
        None if x > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}

/// An item of the reference's formula list: a float, or a text (an
/// operator or parenthesis, or what arithmetic on texts made of them).
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Number(f64),
    Text(String),
}

impl Item {
    fn is(&self, symbol: &str) -> bool {
        matches!(self, Item::Text(text) if text == symbol)
    }

    fn type_name(&self) -> &'static str {
        match self {
            Item::Number(_) => "float",
            Item::Text(_) => "str",
        }
    }
}

/// The reference's `calculate`.
fn calculate(formula: &Value) -> Result<Item, String> {
    let formula = str_method(formula, "replace")?.replace(' ', "");
    if !valid(&formula) {
        return Err("invalid formula".into());
    }
    evaluate(tokens(&formula))
}

/// The reference's `is_valid_formula`.
fn valid(formula: &str) -> bool {
    let count = |c: char| formula.chars().filter(|&x| x == c).count();
    let operators = count('+') + count('-') + count('*') + count('/');
    !formula.is_empty()
        && formula.chars().all(|c| "0123456789+-*/()".contains(c))
        && count('(') == count(')')
        && operators != 0
        && operators + 1 != formula.chars().count()
}

/// Digits become floats; every other character is an item of its own.
fn tokens(formula: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut number = String::new();
    for c in formula.chars() {
        if c.is_ascii_digit() {
            number.push(c);
        } else {
            if !number.is_empty() {
                items.push(Item::Number(parse(&number)));
                number.clear();
            }
            items.push(Item::Text(c.to_string()));
        }
    }
    if !number.is_empty() {
        items.push(Item::Number(parse(&number)));
    }
    items
}

/// `float(digits)`: correctly rounded, and infinite past the largest float.
fn parse(digits: &str) -> f64 {
    digits.parse().unwrap_or(f64::INFINITY)
}

const OUT_OF_RANGE: &str = "list index out of range";

/// The reference's `calculate_formula`.
fn evaluate(mut formula: Vec<Item>) -> Result<Item, String> {
    while let Some(left) = formula.iter().position(|item| item.is("(")) {
        let right = formula
            .iter()
            .position(|item| item.is(")"))
            .ok_or("')' is not in list")?;
        let inner = if right > left + 1 {
            formula[left + 1..right].to_vec()
        } else {
            Vec::new()
        };
        let value = evaluate(inner)?;
        assign(&mut formula, left as isize, right as isize + 1, value);
    }
    for pair in [["*", "/"], ["+", "-"]] {
        loop {
            let first = |symbol: &str| formula.iter().position(|item| item.is(symbol));
            let index = match (first(pair[0]), first(pair[1])) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => break,
            };
            // Python evaluates `formula[index - 1]` (the last item when
            // index is 0), then `formula[index + 1]`.
            let left = if index == 0 {
                formula.last().cloned()
            } else {
                formula.get(index - 1).cloned()
            }
            .ok_or(OUT_OF_RANGE)?;
            let right = formula.get(index + 1).cloned().ok_or(OUT_OF_RANGE)?;
            let Item::Text(operator) = &formula[index] else {
                unreachable!("found as an operator")
            };
            let value = operate(left, operator, right)?;
            if index == 0 {
                // The operator stays first and the same operands come back
                // (or its own result does): the reference never finishes.
                return Err(NEVER_FINISHES.into());
            }
            assign(&mut formula, index as isize - 1, index as isize + 2, value);
        }
    }
    formula
        .into_iter()
        .next()
        .ok_or_else(|| OUT_OF_RANGE.into())
}

/// `formula[start:stop] = [value]` with Python's slice rules (negative
/// bounds count from the end; a stop before the start inserts).
fn assign(formula: &mut Vec<Item>, start: isize, stop: isize, value: Item) {
    let len = formula.len() as isize;
    let clamp = |i: isize| if i < 0 { (i + len).max(0) } else { i.min(len) };
    let start = clamp(start) as usize;
    let stop = (clamp(stop) as usize).max(start);
    formula.splice(start..stop, [value]);
}

/// The reference's `calculate_operation`, with Python's semantics for
/// floats and strings.
fn operate(a: Item, operator: &str, b: Item) -> Result<Item, String> {
    use Item::{Number, Text};
    let unsupported = |a: &Item, b: &Item| {
        format!(
            "unsupported operand type(s) for {operator}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )
    };
    match (operator, a, b) {
        ("+", Number(x), Number(y)) => Ok(Number(x + y)),
        ("+", Text(x), Text(y)) => Ok(Text(x + &y)),
        ("+", Text(_), Number(_)) => Err("can only concatenate str (not \"float\") to str".into()),
        ("-", Number(x), Number(y)) => Ok(Number(x - y)),
        ("*", Number(x), Number(y)) => Ok(Number(x * y)),
        ("*", Text(_), Text(_)) => Err("can't multiply sequence by non-int of type 'str'".into()),
        ("*", _, _) => Err("can't multiply sequence by non-int of type 'float'".into()),
        ("/", Number(_), Number(0.0)) => Err("float division by zero".into()),
        ("/", Number(x), Number(y)) => Ok(Number(x / y)),
        (_, a, b) => Err(unsupported(&a, &b)),
    }
}

/// Same formula once spaces are removed, same output and exception.
fn correct(response: &Value, groundtruth: &Value) -> bool {
    let formula = |result: &Value| -> Result<String, String> {
        let formula = subscript(subscript(result, "input")?, "formula")?;
        Ok(str_method(formula, "replace")?.replace(' ', ""))
    };
    match (formula(response), formula(groundtruth)) {
        (Ok(a), Ok(b)) => {
            a == b
                && response.get("output") == groundtruth.get("output")
                && response.get("exception") == groundtruth.get("exception")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, state};
    use super::*;
    use serde_json::json;

    fn run(formula: &str) -> Value {
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({ "formula": formula }));
        match &out["exception"] {
            Value::Null => out["output"].clone(),
            exception => json!({ "exception": exception }),
        }
    }

    #[test]
    fn evaluates_as_the_reference_does() {
        assert_eq!(run("(5*6)/(2+3)"), json!(6.0));
        assert_eq!(run("(23+7)*3-42/6"), json!(83.0));
        assert_eq!(run("25*3+7/3"), json!(77.33333333333333));
        assert_eq!(run(" 8 * 8 "), json!(64.0));
        assert!(run("8*8").as_f64().is_some_and(|x| x == 64.0));
        assert_eq!(run("8*8").to_string(), "64.0");
        // Left to right within a level: 10-2+3 is 11, 8/4*2 is 4.
        assert_eq!(run("10-2+3"), json!(11.0));
        assert_eq!(run("8/4*2"), json!(4.0));
        assert_eq!(run("1/3"), json!(0.3333333333333333));
        assert_eq!(run(&format!("{}*10", "9".repeat(400))), json!("Infinity"));
    }

    #[test]
    fn fails_with_the_references_messages() {
        let exception = |formula: &str| run(formula)["exception"].clone();
        assert_eq!(exception("2^3"), "invalid formula");
        assert_eq!(exception("12"), "invalid formula");
        assert_eq!(exception("1+"), "invalid formula");
        assert_eq!(exception("(1+2"), "invalid formula");
        assert_eq!(exception("5/0"), "float division by zero");
        assert_eq!(exception("((1+2))*3"), "')' is not in list");
        assert_eq!(exception("()+1"), "list index out of range");
        assert_eq!(exception(")1+1("), "list index out of range");
        assert_eq!(
            exception("12+*3"),
            "can't multiply sequence by non-int of type 'float'"
        );
        assert_eq!(
            exception("12*+3"),
            "can't multiply sequence by non-int of type 'float'"
        );
        assert_eq!(
            exception("12/-3"),
            "unsupported operand type(s) for /: 'float' and 'str'"
        );
        assert_eq!(exception("12+"), "list index out of range");
        assert_eq!(exception("123+"), "list index out of range");
        assert_eq!(
            run("5")["exception"],
            "invalid formula",
            "no operator at all"
        );
        let mut state = state(&[]);
        let out = call(&API, &mut state, json!({ "formula": 7 }));
        assert_eq!(out["exception"], "'int' object has no attribute 'replace'");
    }

    #[test]
    fn strings_take_part_in_the_arithmetic_as_in_python() {
        // "(+)" is ['(', '+', ')']: the inner ['+'] has no right operand.
        assert_eq!(run("(+)")["exception"], "list index out of range");
        // "(+-)1": inner ['+', '-'] starts with an operator.
        assert_eq!(run("(+-)+1")["exception"], NEVER_FINISHES);
    }

    #[test]
    fn a_leading_operator_never_finishes_unless_it_fails_first() {
        assert_eq!(run("-5+3")["exception"], NEVER_FINISHES);
        assert_eq!(run("*2+3")["exception"], NEVER_FINISHES);
        assert_eq!(run("/0+0")["exception"], "float division by zero");
        assert_eq!(run("-1*2")["exception"], NEVER_FINISHES);
    }

    #[test]
    fn slices_follow_python() {
        let mut items = vec![Item::Number(1.0), Item::Number(2.0), Item::Number(3.0)];
        assign(&mut items, -1, 2, Item::Number(9.0));
        assert_eq!(
            items,
            [
                Item::Number(1.0),
                Item::Number(2.0),
                Item::Number(9.0),
                Item::Number(3.0)
            ]
        );
        assign(&mut items, 0, 2, Item::Number(0.0));
        assert_eq!(
            items,
            [Item::Number(0.0), Item::Number(9.0), Item::Number(3.0)]
        );
    }

    #[test]
    fn the_check_ignores_spaces() {
        let gold = json!({"api_name": "Calculator", "input": {"formula": "(5+6)*3"}, "output": 33.0, "exception": null});
        let spaced = json!({"api_name": "Calculator", "input": {"formula": "(5 + 6) * 3"}, "output": 33.0, "exception": null});
        assert!(correct(&spaced, &gold));
        let other = json!({"api_name": "Calculator", "input": {"formula": "3*(5+6)"}, "output": 33.0, "exception": null});
        assert!(!correct(&other, &gold));
    }
}
