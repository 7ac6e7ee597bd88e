use std::process::ExitCode;

// Parsing thousands of JSON documents on several threads is allocation-bound;
// mimalloc's per-thread heaps roughly halve the time glibc's malloc takes.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    talkforge::cli::main()
}
