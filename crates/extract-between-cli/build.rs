//! Embeds the playground in the binary: the page and its icon (`playground/`, this crate's
//! own, so a build from the published crate has them too) always, and the npm package's
//! modules when its WebAssembly half has been built beside it (`bash js/build.sh`; the
//! release build does it first). Without them the page computes through the service's own
//! execute URL: a fresh clone's `cargo build` needs no WebAssembly toolchain, and its
//! playground works.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let js = Path::new(&manifest).join("../../js");
    let page = Path::new(&manifest).join("playground");
    println!("cargo::rerun-if-changed={}", page.display());
    for watched in ["lib", "wasm"] {
        println!("cargo::rerun-if-changed={}", js.join(watched).display());
    }
    let mut files: Vec<(String, std::path::PathBuf)> = vec![
        (String::new(), page.join("index.html")),
        ("favicon.svg".to_string(), page.join("favicon.svg")),
    ];
    if js.join("wasm/extract_between_bg.wasm").is_file() {
        for name in ["wasm/extract_between.js", "wasm/extract_between_bg.wasm"] {
            files.push((name.to_string(), js.join(name)));
        }
        if let Ok(entries) = std::fs::read_dir(js.join("lib")) {
            let mut lib: Vec<_> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".js"))
                .collect();
            lib.sort();
            for name in lib {
                files.push((format!("lib/{name}"), js.join("lib").join(name)));
            }
        }
    }
    let mut code = String::from(
        "/// The playground's files: path under `/playground/`, and contents.\npub(super) static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &files {
        let path = path.canonicalize().expect("a file just listed");
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("playground.rs"), code).expect("OUT_DIR is writable");
}
