//! tau2's retail domain: products, users and orders, and its 16 tools
//! (one file each under `tools/`).

pub mod model;

mod tools {
    mod address_args;
    pub mod calculate;
    pub mod cancel_pending_order;
    pub mod exchange_delivered_order_items;
    pub mod find_user_id_by_email;
    pub mod find_user_id_by_name_zip;
    pub mod get_item_details;
    pub mod get_order_details;
    pub mod get_product_details;
    pub mod get_user_details;
    pub mod list_all_product_types;
    pub mod modify_pending_order_address;
    pub mod modify_pending_order_items;
    pub mod modify_pending_order_payment;
    pub mod modify_user_address;
    pub mod return_delivered_order_items;
    pub mod transfer_to_human_agents;
}

use super::{Tool, ToolKind::*};
use model::RetailDb;

/// The retail tools, by name, as tau2's decorators mark them.
pub const TOOLS: &[Tool<RetailDb>] = &[
    Tool {
        name: "calculate",
        kind: Generic,
        run: tools::calculate::run,
        spec: &tools::calculate::SPEC,
    },
    Tool {
        name: "cancel_pending_order",
        kind: Write,
        run: tools::cancel_pending_order::run,
        spec: &tools::cancel_pending_order::SPEC,
    },
    Tool {
        name: "exchange_delivered_order_items",
        kind: Write,
        run: tools::exchange_delivered_order_items::run,
        spec: &tools::exchange_delivered_order_items::SPEC,
    },
    Tool {
        name: "find_user_id_by_email",
        kind: Read,
        run: tools::find_user_id_by_email::run,
        spec: &tools::find_user_id_by_email::SPEC,
    },
    Tool {
        name: "find_user_id_by_name_zip",
        kind: Read,
        run: tools::find_user_id_by_name_zip::run,
        spec: &tools::find_user_id_by_name_zip::SPEC,
    },
    Tool {
        name: "get_item_details",
        kind: Read,
        run: tools::get_item_details::run,
        spec: &tools::get_item_details::SPEC,
    },
    Tool {
        name: "get_order_details",
        kind: Read,
        run: tools::get_order_details::run,
        spec: &tools::get_order_details::SPEC,
    },
    Tool {
        name: "get_product_details",
        kind: Read,
        run: tools::get_product_details::run,
        spec: &tools::get_product_details::SPEC,
    },
    Tool {
        name: "get_user_details",
        kind: Read,
        run: tools::get_user_details::run,
        spec: &tools::get_user_details::SPEC,
    },
    Tool {
        name: "list_all_product_types",
        kind: Read,
        run: tools::list_all_product_types::run,
        spec: &tools::list_all_product_types::SPEC,
    },
    Tool {
        name: "modify_pending_order_address",
        kind: Write,
        run: tools::modify_pending_order_address::run,
        spec: &tools::modify_pending_order_address::SPEC,
    },
    Tool {
        name: "modify_pending_order_items",
        kind: Write,
        run: tools::modify_pending_order_items::run,
        spec: &tools::modify_pending_order_items::SPEC,
    },
    Tool {
        name: "modify_pending_order_payment",
        kind: Write,
        run: tools::modify_pending_order_payment::run,
        spec: &tools::modify_pending_order_payment::SPEC,
    },
    Tool {
        name: "modify_user_address",
        kind: Write,
        run: tools::modify_user_address::run,
        spec: &tools::modify_user_address::SPEC,
    },
    Tool {
        name: "return_delivered_order_items",
        kind: Write,
        run: tools::return_delivered_order_items::run,
        spec: &tools::return_delivered_order_items::SPEC,
    },
    Tool {
        name: "transfer_to_human_agents",
        kind: Generic,
        run: tools::transfer_to_human_agents::run,
        spec: &tools::transfer_to_human_agents::SPEC,
    },
];
