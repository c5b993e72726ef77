//! The house as docs/ARCHITECTURE.md draws it: every source file of the workspace is named
//! there, so a file added without a line in the module map fails here. A file is named by
//! its file name (`lines.rs`) or, for a Rust module, its module name in backticks (`` `rows` ``);
//! a folder's `mod.rs` by the folder (`cli/`). The crates' `lib.rs` and `main.rs` are their
//! crate's row. Test suites outside Rust (`js/test/`, `python/tests/`) are described by
//! folder, and not checked file by file.

use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The folders whose source files the map must name, and the extensions that are source.
const FOLDERS: &[&str] = &[
    "crates/extract-between/src",
    "crates/extract-between/tests",
    "crates/extract-between/examples",
    "crates/extract-between/benches",
    "crates/extract-between-cli/src",
    "crates/extract-between-cli/tests",
    "crates/extract-between-cli/benches",
    "python/src",
    "python/python/extract_between",
    "spark/src",
    "spark/java",
    "duckdb/src",
    "js/src",
    "js/lib",
    "fuzz/fuzz_targets",
    "benches/rmcp-baseline/src",
];
const EXTENSIONS: &[&str] = &["rs", "py", "java", "js"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e))
        {
            out.push(path);
        }
    }
}

/// Whether `name` occurs in `doc` as a name (not inside a longer word or path segment).
fn named(doc: &str, name: &str) -> bool {
    doc.match_indices(name).any(|(at, _)| {
        let before = doc[..at].chars().next_back();
        let after = doc[at + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn every_source_file_is_in_the_architecture_map() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    for folder in FOLDERS {
        sources(&root().join(folder), &mut files);
    }
    files.push(root().join("crates/extract-between-cli/build.rs"));
    // Each file as its path's components from the workspace root.
    let paths: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            f.strip_prefix(root())
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    let mut missing = Vec::new();
    for p in &paths {
        let file = p.last().unwrap().as_str();
        if ["lib.rs", "main.rs", "__init__.py"].contains(&file) {
            continue;
        }
        let name = if file == "mod.rs" {
            format!("{}/", p[p.len() - 2])
        } else {
            file.to_owned()
        };
        let module = file
            .strip_suffix(".rs")
            .filter(|_| file != "mod.rs")
            .map(|m| format!("`{m}`"));
        if named(&doc, &name) || module.is_some_and(|m| doc.contains(&m)) {
            continue;
        }
        missing.push(p.join("/"));
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not name {} source file(s):\n{}",
        missing.len(),
        missing.join("\n")
    );
}
