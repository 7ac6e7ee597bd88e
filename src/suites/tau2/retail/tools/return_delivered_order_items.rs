//! `return_delivered_order_items` (write): a delivered order marked for
//! return, refunded to the original method or a gift card.

use super::super::model::{all_present, PaymentMethod, RetailDb};
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
