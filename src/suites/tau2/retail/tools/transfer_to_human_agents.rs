//! `transfer_to_human_agents` (generic).

use super::super::model::RetailDb;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(_db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["summary"])?;
    args.str("summary")?;
    Ok(Output::Text("Transfer successful".to_string()))
}
