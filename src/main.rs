//! The `extract-between` binary: see [`extract_between::cli`].
#![forbid(unsafe_code)]

#[cfg(feature = "server")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    extract_between::cli::main()
}
