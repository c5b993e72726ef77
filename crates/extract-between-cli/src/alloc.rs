//! The allocator's settings for the long-running service, made at run time so that every
//! build (a `cargo install` from the registry too, which reads no `.cargo/config.toml`) gets
//! them, and so that one-shot runs (a file, stdin, tool mode) start no allocator thread.
//!
//! The binary's global allocator is jemalloc (`main.rs`). For the service it returns freed
//! memory to the system from a background thread a second after it is freed, without the
//! lazy "muzzy" stage, so RSS falls back after a burst; purging at once instead cost a lot of
//! throughput on large requests (benches/README.md, "load").

use tikv_jemalloc_ctl::{Access, AsName, background_thread};

/// Milliseconds a freed dirty page waits before it is returned.
const DIRTY_DECAY_MS: isize = 1000;

/// Turns on jemalloc's background purging with the service's decay times, for the arenas
/// that exist and for those made later. Failures leave jemalloc's defaults, which are
/// correct, only slower to give memory back; they are logged.
///
/// ```
/// extract_between_cli::alloc::tune_for_service();
/// ```
pub fn tune_for_service() {
    // `arena.4096` is jemalloc's "every arena" index (MALLCTL_ARENAS_ALL).
    let settings: [(&str, isize); 4] = [
        ("arenas.dirty_decay_ms\0", DIRTY_DECAY_MS),
        ("arenas.muzzy_decay_ms\0", 0),
        ("arena.4096.dirty_decay_ms\0", DIRTY_DECAY_MS),
        ("arena.4096.muzzy_decay_ms\0", 0),
    ];
    for (name, value) in settings {
        if let Err(e) = name.name().write(value) {
            tracing::warn!(setting = name.trim_end_matches('\0'), %e, "allocator setting refused");
        }
    }
    if let Err(e) = background_thread::write(true) {
        tracing::warn!(%e, "allocator background thread not started");
    }
}
