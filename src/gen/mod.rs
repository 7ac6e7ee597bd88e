//! Scenario generation.
