#!/usr/bin/env bash
# Builds the npm package's WebAssembly half into js/wasm/: the crate for wasm32 with the
# simd128 instructions every current engine has (memchr's vector search uses them), and
# wasm-bindgen's ES module beside it (with its reset-state function: a trap restarts the
# module rather than poisoning it). Needs the wasm32-unknown-unknown target
# and wasm-bindgen-cli at the crate's exact version (installed here if missing).
# EXTRACT_BETWEEN_SIMD128=0 builds without simd128 (the portable kernels alone), to measure
# what the vector kernels bring (js/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' js/Cargo.toml)
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
  rustup target add wasm32-unknown-unknown
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
  # Not --locked: the CLI's lock names a webpki-roots version crates.io no longer has.
  cargo install -q wasm-bindgen-cli --version "$version"
fi
if [ "${EXTRACT_BETWEEN_SIMD128:-1}" = 0 ]; then
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=-simd128"
else
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128"
fi
CARGO_PROFILE_DIST_LTO=fat CARGO_PROFILE_DIST_CODEGEN_UNITS=1 CARGO_PROFILE_DIST_STRIP=debuginfo \
  cargo build --locked -q -p extract-between-js --lib --target wasm32-unknown-unknown --profile dist
# Cargo's target folder wherever it is (CARGO_TARGET_DIR, a config's build.target-dir).
target_dir="$(cargo metadata --locked --no-deps --format-version 1 |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')"
rm -rf js/wasm
wasm-bindgen --target web --no-typescript --experimental-reset-state-function --out-dir js/wasm --out-name extract_between \
  "$target_dir/wasm32-unknown-unknown/dist/extract_between_js.wasm"
ls -l js/wasm
