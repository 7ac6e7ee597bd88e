//! Conversation simulation, matching and metrics.
