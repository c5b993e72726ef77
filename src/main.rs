//! The `extract-between` binary: see [`extract_between::cli`].
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    extract_between::cli::main()
}
