//! `cancel_pending_order` (write): a pending order cancelled for one of
//! two reasons, every payment refunded (gift cards at once).

use super::super::model::{OrderPayment, RetailDb};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id", "reason"])?;
    let id = args.str("order_id")?;
    let reason = args.str("reason")?;
    let order = db.order(id)?;
    if order.status != "pending" {
        return Err("Non-pending order cannot be cancelled".to_string());
    }
    if !["no longer needed", "ordered by mistake"].contains(&reason) {
        return Err("Invalid reason".to_string());
    }
    let user_id = order.user_id.clone();
    let payments = order.payment_history.clone();
    let mut refunds = Vec::new();
    for payment in payments {
        db.user(&user_id)?;
        db.payment_method(&user_id, &payment.payment_method_id)?;
        db.add_to_gift_card(&user_id, &payment.payment_method_id, payment.amount);
        refunds.push(OrderPayment {
            transaction_type: "refund".to_string(),
            ..payment
        });
    }
    let order = db.orders.get_mut(id).expect("the order was found");
    order.status = "cancelled".to_string();
    order.cancel_reason = Some(reason.to_string());
    order.payment_history.extend(refunds);
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec(
    "cancel_pending_order",
    "retail",
    "Cancels a pending order and refunds it.",
    &[
        ParamSpec::new(
            "order_id",
            ParamType::String,
            "The order's id, with its '#', e.g. #W0000000.",
            true,
        ),
        ParamSpec {
            enum_values: &["no longer needed", "ordered by mistake"],
            ..ParamSpec::new("reason", ParamType::String, "Why it is cancelled.", true)
        },
    ],
    true,
);
