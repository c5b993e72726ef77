//! The `extract-between` binary: see [`extract_between_cli::cli`].
#![forbid(unsafe_code)]

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    extract_between_cli::cli::main()
}
