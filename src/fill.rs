//! See the module docs of the command.
