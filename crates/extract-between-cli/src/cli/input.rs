//! Opening an input of the streaming mode: a file, or standard input for `-`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// An input, its name for messages, its name's bytes for the output (a path need not be
/// UTF-8, and is printed as it is), and its size when known (for the progress bar).
pub(super) struct Input {
    pub(super) name: String,
    pub(super) bytes: Vec<u8>,
    pub(super) reader: Box<dyn Read>,
    pub(super) size: Option<u64>,
}

pub(super) fn open(path: &Path) -> io::Result<Input> {
    if path.as_os_str() == "-" {
        return Ok(Input {
            name: "-".into(),
            bytes: b"-".to_vec(),
            reader: Box::new(io::stdin().lock()),
            size: None,
        });
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(Input {
        name: path.display().to_string(),
        bytes: path_bytes(path),
        size: meta.is_file().then_some(meta.len()),
        reader: Box::new(file),
    })
}

/// A file the walker found: opened without a `stat` (it is a file, and its size is only
/// for the progress bar, which a parallel walk does not draw).
pub(super) fn open_walked(path: &Path) -> io::Result<Input> {
    Ok(Input {
        name: path.display().to_string(),
        bytes: path_bytes(path),
        size: None,
        reader: Box::new(File::open(path)?),
    })
}

/// A path's bytes as the system holds them (on Unix, any bytes but NUL).
fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}
