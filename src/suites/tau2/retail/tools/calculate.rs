//! `calculate` (generic): an arithmetic expression, rounded to cents.

use super::super::model::RetailDb;
use crate::suites::tau2::common::{calculate, Args, Output, Raised};

pub fn run(_db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["expression"])?;
    calculate(args.str("expression")?).map(Output::Text)
}
