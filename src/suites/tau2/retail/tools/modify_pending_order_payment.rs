//! `modify_pending_order_payment` (write): a pending order's single
//! payment moved to another method (a payment and a refund row).

use super::super::model::{gift_card_balance, OrderPayment, RetailDb};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id", "payment_method_id"])?;
    let id = args.str("order_id")?;
    let payment_method_id = args.str("payment_method_id")?;
    let order = db.order(id)?;
    if !order.status.contains("pending") {
        return Err("Non-pending order cannot be modified".to_string());
    }
    let method = db.payment_method(&order.user_id, payment_method_id)?;
    let [first] = order.payment_history.as_slice() else {
        return Err("There should be exactly one payment for a pending order".to_string());
    };
    if first.transaction_type != "payment" {
        return Err("There should be exactly one payment for a pending order".to_string());
    }
    if first.payment_method_id == payment_method_id {
        return Err("The new payment method should be different from the current one".to_string());
    }
    let amount = first.amount;
    if gift_card_balance(method).is_some_and(|b| b < amount) {
        return Err("Insufficient gift card balance to pay for the order".to_string());
    }
    let old_method = first.payment_method_id.clone();
    let user_id = order.user_id.clone();
    db.add_to_gift_card(&user_id, payment_method_id, -amount);
    db.payment_method(&user_id, &old_method)?;
    db.add_to_gift_card(&user_id, &old_method, amount);
    let order = db.orders.get_mut(id).expect("the order was found");
    order.payment_history.push(OrderPayment {
        transaction_type: "payment".to_string(),
        amount,
        payment_method_id: payment_method_id.to_string(),
    });
    order.payment_history.push(OrderPayment {
        transaction_type: "refund".to_string(),
        amount,
        payment_method_id: old_method,
    });
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "modify_pending_order_payment",
    "retail",
    "Changes the payment method of a pending order.",
    &[
        ParamSpec::new("order_id", ParamType::String, "The order's id.", true),
        ParamSpec::new(
            "payment_method_id",
            ParamType::String,
            "The new payment method.",
            true,
        ),
    ],
    true,
);
