use std::process::ExitCode;

// mimalloc's per-thread heaps suit the many small allocations of parsing
// JSON on several threads; transparent huge pages are off because they
// inflate resident memory.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    talkforge::cli::main()
}
