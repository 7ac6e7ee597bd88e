//! `modify_pending_order_items` (write): items of a pending order swapped
//! for other variants of the same products, the difference paid or
//! refunded. As upstream, every swapped item takes the price and options
//! of the last new variant checked, and the difference is not rounded.

use super::super::model::{all_present, gift_card_balance, OrderPayment, RetailDb};
use crate::suite::{ParamSpec, ParamType, ToolSpec};
use crate::suites::tau2::catalog::spec;
use crate::suites::tau2::common::{Args, Output, Raised};

pub fn run(db: &mut RetailDb, args: &Args) -> Result<Output, Raised> {
    args.only(&["order_id", "item_ids", "new_item_ids", "payment_method_id"])?;
    let id = args.str("order_id")?;
    let item_ids = args.strings("item_ids")?;
    let new_item_ids = args.strings("new_item_ids")?;
    let payment_method_id = args.str("payment_method_id")?;
    let order = db.order(id)?;
    if order.status != "pending" {
        return Err("Non-pending order cannot be modified".to_string());
    }
    if let Some(missing) = all_present(order, &item_ids) {
        return Err(format!("{missing} not found"));
    }
    if item_ids.len() != new_item_ids.len() {
        return Err("The number of items to be exchanged should match".to_string());
    }
    let mut difference = 0.0;
    let mut last_variant = None;
    for (old, new) in item_ids.iter().zip(&new_item_ids) {
        if old == new {
            return Err("The new item id should be different from the old item id".to_string());
        }
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
        last_variant = Some(variant.clone());
    }
    let user_id = order.user_id.clone();
    let method = db.payment_method(&user_id, payment_method_id)?;
    if gift_card_balance(method).is_some_and(|b| b < difference) {
        return Err("Insufficient gift card balance to pay for the new item".to_string());
    }
    db.add_to_gift_card(&user_id, payment_method_id, -difference);
    let order = db.orders.get_mut(id).expect("the order was found");
    order.payment_history.push(OrderPayment {
        transaction_type: if difference > 0.0 {
            "payment"
        } else {
            "refund"
        }
        .to_string(),
        amount: difference.abs(),
        payment_method_id: payment_method_id.to_string(),
    });
    for (old, new) in item_ids.iter().zip(&new_item_ids) {
        let item = order
            .items
            .iter_mut()
            .find(|i| &i.item_id == old)
            .ok_or_else(|| format!("Item {old} not found"))?;
        let variant = last_variant
            .as_ref()
            .expect("a swapped item checked a variant");
        item.item_id = new.clone();
        item.price = variant.price;
        item.options = variant.options.clone();
    }
    order.status = "pending (item modified)".to_string();
    Ok(Output::model(order))
}

/// What the tool takes and does, for the catalog.
pub const SPEC: ToolSpec = spec("modify_pending_order_items", "retail", "Swaps items of a pending order for other variants of the same products; can be done once per order.", &[ParamSpec::new("order_id", ParamType::String, "The order's id.", true), ParamSpec::new("item_ids", ParamType::Array(&ParamType::String), "The items to modify.", true), ParamSpec::new("new_item_ids", ParamType::Array(&ParamType::String), "The items they become, in the same order.", true), ParamSpec::new("payment_method_id", ParamType::String, "The payment method for the difference.", true)], true);
