//! `calculate` (generic): an arithmetic expression, rounded to cents.

use super::super::model::FlightDb;
use crate::suites::tau2::common::{calculate, Args, Output, Raised};

pub fn run(_db: &mut FlightDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["expression"])?;
    calculate(args.str("expression")?).map(Output::Text)
}
