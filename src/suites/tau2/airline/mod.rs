//! tau2's airline domain: flights, users and reservations, and its 14
//! tools (one file each under `tools/`).

pub mod model;

mod tools {
    pub mod book_reservation;
    pub mod calculate;
    pub mod cancel_reservation;
    pub mod get_flight_status;
    pub mod get_reservation_details;
    pub mod get_user_details;
    pub mod list_all_airports;
    pub mod search_direct_flight;
    pub mod search_onestop_flight;
    pub mod send_certificate;
    pub mod transfer_to_human_agents;
    pub mod update_reservation_baggages;
    pub mod update_reservation_flights;
    pub mod update_reservation_passengers;
}

use super::{Tool, ToolKind::*};
use model::FlightDb;

/// The airline tools, by name, as tau2's decorators mark them.
pub const TOOLS: &[Tool<FlightDb>] = &[
    Tool {
        name: "book_reservation",
        kind: Write,
        run: tools::book_reservation::run,
        spec: &tools::book_reservation::SPEC,
    },
    Tool {
        name: "calculate",
        kind: Generic,
        run: tools::calculate::run,
        spec: &tools::calculate::SPEC,
    },
    Tool {
        name: "cancel_reservation",
        kind: Write,
        run: tools::cancel_reservation::run,
        spec: &tools::cancel_reservation::SPEC,
    },
    Tool {
        name: "get_flight_status",
        kind: Read,
        run: tools::get_flight_status::run,
        spec: &tools::get_flight_status::SPEC,
    },
    Tool {
        name: "get_reservation_details",
        kind: Read,
        run: tools::get_reservation_details::run,
        spec: &tools::get_reservation_details::SPEC,
    },
    Tool {
        name: "get_user_details",
        kind: Read,
        run: tools::get_user_details::run,
        spec: &tools::get_user_details::SPEC,
    },
    Tool {
        name: "list_all_airports",
        kind: Read,
        run: tools::list_all_airports::run,
        spec: &tools::list_all_airports::SPEC,
    },
    Tool {
        name: "search_direct_flight",
        kind: Read,
        run: tools::search_direct_flight::run,
        spec: &tools::search_direct_flight::SPEC,
    },
    Tool {
        name: "search_onestop_flight",
        kind: Read,
        run: tools::search_onestop_flight::run,
        spec: &tools::search_onestop_flight::SPEC,
    },
    Tool {
        name: "send_certificate",
        kind: Write,
        run: tools::send_certificate::run,
        spec: &tools::send_certificate::SPEC,
    },
    Tool {
        name: "transfer_to_human_agents",
        kind: Generic,
        run: tools::transfer_to_human_agents::run,
        spec: &tools::transfer_to_human_agents::SPEC,
    },
    Tool {
        name: "update_reservation_baggages",
        kind: Write,
        run: tools::update_reservation_baggages::run,
        spec: &tools::update_reservation_baggages::SPEC,
    },
    Tool {
        name: "update_reservation_flights",
        kind: Write,
        run: tools::update_reservation_flights::run,
        spec: &tools::update_reservation_flights::SPEC,
    },
    Tool {
        name: "update_reservation_passengers",
        kind: Write,
        run: tools::update_reservation_passengers::run,
        spec: &tools::update_reservation_passengers::SPEC,
    },
];
