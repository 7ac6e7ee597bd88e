//! `return_delivered_order_items` (write): a delivered order marked for
//! return, refunded to the original method or a gift card.

use super::super::model::{all_present, PaymentMethod, RetailDb};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id", "item_ids", "payment_method_id"])?;
    let id = args.str("order_id")?;
    let item_ids = args.strings("item_ids")?;
    let payment_method_id = args.str("payment_method_id")?;
    let order = db.order(id)?;
    if order.status != "delivered" {
        return Err("Non-delivered order cannot be returned".to_string());
    }
    db.user(&order.user_id)?;
    let method = db.payment_method(&order.user_id, payment_method_id)?;
    if !matches!(method, PaymentMethod::GiftCard { .. }) {
        let original = order
            .payment_history
            .first()
            .ok_or("list index out of range")?;
        if payment_method_id != original.payment_method_id {
            return Err("Payment method should be the original payment method".to_string());
        }
    }
    if all_present(order, &item_ids).is_some() {
        return Err("Some item not found".to_string());
    }
    let order = db.orders.get_mut(id).expect("the order was found");
    let mut sorted = item_ids;
    sorted.sort();
    order.status = "return requested".to_string();
    order.return_items = Some(sorted);
    order.return_payment_method_id = Some(payment_method_id.to_string());
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "return_delivered_order_items",
    "retail",
    "Returns delivered items of an order; the refund goes to the payment method.",
    &[
        ParamSpec::new("order_id", ParamType::String, "The order's id.", true),
        ParamSpec::new(
            "item_ids",
            ParamType::Array(&ParamType::String),
            "The items to return.",
            true,
        ),
        ParamSpec::new(
            "payment_method_id",
            ParamType::String,
            "The payment method refunded.",
            true,
        ),
    ],
    true,
);
