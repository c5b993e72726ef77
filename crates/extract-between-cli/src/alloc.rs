//! The allocator's settings for the long-running service, made at run time so that every
//! build (a `cargo install` from the registry too, which reads no `.cargo/config.toml`) gets
//! them, and so that one-shot runs (a file, stdin, tool mode) start no allocator thread.
//!
//! The binary's global allocator is jemalloc (`main.rs`). For the service it returns freed
//! memory to the system from a background thread a second after it is freed, without the
//! lazy "muzzy" stage, so RSS falls back after a burst; purging at once instead cost a lot of
//! throughput on large requests (benches/README.md, "load").

use tikv_jemalloc_ctl::{Access, AsName, arenas, background_thread};

/// Milliseconds a freed dirty page waits before it is returned.
const DIRTY_DECAY_MS: isize = 1000;

/// Turns on jemalloc's background purging with the service's decay times, for the arenas
/// made later (`arenas.*`) and for each arena that exists already (`arena.<i>.*`; jemalloc
/// refuses the "every arena" index for these). Failures leave jemalloc's defaults, which
/// are correct, only slower to give memory back; they are logged.
///
/// ```
/// extract_between_cli::alloc::tune_for_service();
/// ```
pub fn tune_for_service() {
    let mut settings = vec![
        ("arenas.dirty_decay_ms".to_owned(), DIRTY_DECAY_MS),
        ("arenas.muzzy_decay_ms".to_owned(), 0),
    ];
    for arena in 0..arenas::narenas::read().unwrap_or(0) {
        let initialized = format!("arena.{arena}.initialized\0");
        let ready: Result<bool, _> = initialized.as_str().name().read();
        if ready.unwrap_or(false) {
            settings.push((format!("arena.{arena}.dirty_decay_ms"), DIRTY_DECAY_MS));
            settings.push((format!("arena.{arena}.muzzy_decay_ms"), 0));
        }
    }
    for (name, value) in settings {
        let key = format!("{name}\0");
        if let Err(e) = key.as_str().name().write(value) {
            tracing::warn!(setting = name, %e, "allocator setting refused");
        }
    }
    if let Err(e) = background_thread::write(true) {
        tracing::warn!(%e, "allocator background thread not started");
    }
}
