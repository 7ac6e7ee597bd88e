use std::process::ExitCode;

fn main() -> ExitCode {
    talkforge::cli::main()
}
