//! The retail database as tau2's pydantic models hold it: fields in the
//! models' order, the seven optional order fields present as null, prices,
//! amounts and balances as floats.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetailDb {
    pub products: IndexMap<String, Product>,
    pub users: IndexMap<String, User>,
    pub orders: IndexMap<String, Order>,
}

pub type Options = IndexMap<String, String>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub item_id: String,
    pub options: Options,
    pub available: bool,
    pub price: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product {
    pub name: String,
    pub product_id: String,
    pub variants: IndexMap<String, Variant>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserName {
    pub first_name: String,
    pub last_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub address1: String,
    pub address2: String,
    pub city: String,
    pub country: String,
    pub state: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source")]
pub enum PaymentMethod {
    #[serde(rename = "credit_card")]
    CreditCard {
        id: String,
        brand: String,
        last_four: String,
    },
    #[serde(rename = "gift_card")]
    GiftCard { id: String, balance: f64 },
    #[serde(rename = "paypal")]
    Paypal { id: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub user_id: String,
    pub name: UserName,
    pub address: Address,
    pub email: String,
    pub payment_methods: IndexMap<String, PaymentMethod>,
    pub orders: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fulfillment {
    pub tracking_id: Vec<String>,
    pub item_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderItem {
    pub name: String,
    pub product_id: String,
    pub item_id: String,
    pub price: f64,
    pub options: Options,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderPayment {
    pub transaction_type: String,
    pub amount: f64,
    pub payment_method_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub user_id: String,
    pub address: Address,
    pub items: Vec<OrderItem>,
    pub status: String,
    pub fulfillments: Vec<Fulfillment>,
    pub payment_history: Vec<OrderPayment>,
    #[serde(default)]
    pub cancel_reason: Option<String>,
    #[serde(default)]
    pub exchange_items: Option<Vec<String>>,
    #[serde(default)]
    pub exchange_new_items: Option<Vec<String>>,
    #[serde(default)]
    pub exchange_payment_method_id: Option<String>,
    #[serde(default)]
    pub exchange_price_difference: Option<f64>,
    #[serde(default)]
    pub return_items: Option<Vec<String>>,
    #[serde(default)]
    pub return_payment_method_id: Option<String>,
}

impl RetailDb {
    pub fn order(&self, id: &str) -> Result<&Order, String> {
        self.orders
            .get(id)
            .ok_or_else(|| "Order not found".to_string())
    }

    pub fn user(&self, id: &str) -> Result<&User, String> {
        self.users
            .get(id)
            .ok_or_else(|| "User not found".to_string())
    }

    pub fn product(&self, id: &str) -> Result<&Product, String> {
        self.products
            .get(id)
            .ok_or_else(|| "Product not found".to_string())
    }

    pub fn variant(&self, product_id: &str, item_id: &str) -> Result<&Variant, String> {
        self.product(product_id)?
            .variants
            .get(item_id)
            .ok_or_else(|| "Variant not found".to_string())
    }

    pub fn payment_method(&self, user_id: &str, id: &str) -> Result<&PaymentMethod, String> {
        self.user(user_id)?
            .payment_methods
            .get(id)
            .ok_or_else(|| "Payment method not found".to_string())
    }

    /// Add `delta` to a gift card's balance and round it to cents, as the
    /// tools that touch a balance do; other methods are left alone.
    pub fn add_to_gift_card(&mut self, user_id: &str, id: &str, delta: f64) {
        if let Some(PaymentMethod::GiftCard { balance, .. }) = self
            .users
            .get_mut(user_id)
            .and_then(|u| u.payment_methods.get_mut(id))
        {
            *balance = crate::suites::tau2::common::round2(*balance + delta);
        }
    }
}

/// The balance of a gift card, None for another method.
pub fn gift_card_balance(method: &PaymentMethod) -> Option<f64> {
    match method {
        PaymentMethod::GiftCard { balance, .. } => Some(*balance),
        _ => None,
    }
}

/// Whether each id of `wanted` occurs in the order at least as often as in
/// `wanted` (lists may repeat an item).
pub fn all_present(order: &Order, wanted: &[String]) -> Option<String> {
    wanted
        .iter()
        .find(|id| {
            wanted.iter().filter(|w| w == id).count()
                > order.items.iter().filter(|i| &i.item_id == *id).count()
        })
        .cloned()
}
