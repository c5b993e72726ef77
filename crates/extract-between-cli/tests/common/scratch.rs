//! Each test's own temporary folder: made at its first use, named for the test, and removed
//! when the test's thread ends, so no test sees another's files and none are left behind.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

/// The folder; removing it is its drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

thread_local! {
    static SCRATCH: OnceCell<Scratch> = const { OnceCell::new() };
}

/// The running test's folder (made on first use).
pub fn dir() -> PathBuf {
    SCRATCH.with(|cell| {
        cell.get_or_init(|| {
            let test = std::thread::current()
                .name()
                .unwrap_or("main")
                .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
            let dir = std::env::temp_dir().join(format!("eb-test-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        })
        .0
        .clone()
    })
}

/// `name` inside the running test's folder, its parents made.
pub fn path(name: impl AsRef<Path>) -> PathBuf {
    let path = dir().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    path
}
