use std::process::ExitCode;

// mimalloc (see `talkforge::allocator` for why, and how it is called).
#[global_allocator]
static ALLOCATOR: talkforge::allocator::MiMalloc = talkforge::allocator::MiMalloc;

fn main() -> ExitCode {
    talkforge::cli::main()
}
