//! Lint rules.
