//! Which arguments of tau2's tools are ids of records, and whether a value
//! names a record of the database (for lint's `unknown-id`).

use super::domain::Db;

/// What an argument (by the key it sits under: `item_ids`, or
/// `flight_number` inside `flights[0]`) names in `db`'s domain, when it
/// is an id.
pub fn kind_of(db: &Db, key: &str) -> Option<&'static str> {
    match (db, key) {
        (_, "user_id") => Some("user"),
        (Db::Retail(_), "order_id") => Some("order"),
        (Db::Retail(_), "product_id") => Some("product"),
        (Db::Retail(_), "item_id" | "item_ids" | "new_item_ids") => Some("item"),
        (Db::Retail(_), "payment_method_id") => Some("payment method"),
        (Db::Airline(_), "reservation_id") => Some("reservation"),
        (Db::Airline(_), "flight_number") => Some("flight"),
        (Db::Airline(_), "payment_id") => Some("payment method"),
        _ => None,
    }
}

/// Whether `value` names a record of `kind` in `db` (an item is a variant
/// of any product; a payment method is any user's).
pub fn names_record(db: &Db, kind: &str, value: &str) -> bool {
    match (db, kind) {
        (Db::Retail(r), "user") => r.users.contains_key(value),
        (Db::Airline(a), "user") => a.users.contains_key(value),
        (Db::Retail(r), "order") => r.orders.contains_key(value),
        (Db::Retail(r), "product") => r.products.contains_key(value),
        (Db::Retail(r), "item") => r.products.values().any(|p| p.variants.contains_key(value)),
        (Db::Retail(r), "payment method") => r
            .users
            .values()
            .any(|u| u.payment_methods.contains_key(value)),
        (Db::Airline(a), "reservation") => a.reservations.contains_key(value),
        (Db::Airline(a), "flight") => a.flights.contains_key(value),
        (Db::Airline(a), "payment method") => a
            .users
            .values()
            .any(|u| u.payment_methods.contains_key(value)),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_told_apart_by_domain_and_looked_up() {
        let text = r#"{"products": {"p1": {"name": "Lamp", "product_id": "p1", "variants": {"i1": {"item_id": "i1", "options": {}, "available": true, "price": 1.0}}}}, "users": {}, "orders": {}}"#;
        let db = Db::parse(std::path::Path::new("db.json"), text).unwrap();
        assert_eq!(kind_of(&db, "new_item_ids"), Some("item"));
        assert_eq!(kind_of(&db, "flight_number"), None);
        assert!(names_record(&db, "item", "i1"));
        assert!(!names_record(&db, "product", "p2"));
    }
}
