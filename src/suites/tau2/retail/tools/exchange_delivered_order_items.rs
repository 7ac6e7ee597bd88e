//! `exchange_delivered_order_items` (write): a delivered order marked for
//! exchange, with the price difference rounded to cents.

use super::super::model::{all_present, gift_card_balance, RetailDb};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{round2, Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id", "item_ids", "new_item_ids", "payment_method_id"])?;
    let id = args.str("order_id")?;
    let item_ids = args.strings("item_ids")?;
    let new_item_ids = args.strings("new_item_ids")?;
    let payment_method_id = args.str("payment_method_id")?;
    let order = db.order(id)?;
    if order.status != "delivered" {
        return Err("Non-delivered order cannot be exchanged".to_string());
    }
    if let Some(missing) = all_present(order, &item_ids) {
        return Err(format!("Number of {missing} not found."));
    }
    if item_ids.len() != new_item_ids.len() {
        return Err("The number of items to be exchanged should match.".to_string());
    }
    let mut difference = 0.0;
    for (old, new) in item_ids.iter().zip(&new_item_ids) {
        let item = order
            .items
            .iter()
            .find(|i| &i.item_id == old)
            .ok_or_else(|| format!("Item {old} not found"))?;
        let variant = db.variant(&item.product_id, new)?;
        if !variant.available {
            return Err(format!("New item {new} not found or available"));
        }
        difference += variant.price - item.price;
    }
    let difference = round2(difference);
    let method = db.payment_method(&order.user_id, payment_method_id)?;
    if gift_card_balance(method).is_some_and(|b| b < difference) {
        return Err("Insufficient gift card balance to pay for the price difference".to_string());
    }
    let order = db.orders.get_mut(id).expect("the order was found");
    let mut sorted_old = item_ids;
    sorted_old.sort();
    let mut sorted_new = new_item_ids;
    sorted_new.sort();
    order.status = "exchange requested".to_string();
    order.exchange_items = Some(sorted_old);
    order.exchange_new_items = Some(sorted_new);
    order.exchange_payment_method_id = Some(payment_method_id.to_string());
    order.exchange_price_difference = Some(difference);
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("exchange_delivered_order_items", "retail", "Exchanges delivered items for other variants of the same products; the price difference is paid or refunded with the payment method.", &[ParamSpec::new("order_id", ParamType::String, "The order's id.", true), ParamSpec::new("item_ids", ParamType::Array(&ParamType::String), "The items to exchange.", true), ParamSpec::new("new_item_ids", ParamType::Array(&ParamType::String), "The items they are exchanged for, in the same order.", true), ParamSpec::new("payment_method_id", ParamType::String, "The payment method for the difference.", true)], true);
