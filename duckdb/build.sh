#!/usr/bin/env bash
# Builds the DuckDB extension file target/duckdb/<platform>/extract_between.duckdb_extension:
# this crate's library with DuckDB's metadata footer appended (duckdb/scripts/footer.py),
# for the platform DuckDB names (linux_amd64, linux_arm64, osx_arm64, ...). One file loads
# into every DuckDB from 1.2.0 on: it asks for the stable C API of v1.2.0 only. On Linux a
# second file differs in the footer alone: DuckDB's Python wheels before 1.3 call their
# platform linux_amd64_gcc4 (linux_arm64_gcc4), and the library has no C++ in its ABI.
# Prints the files' paths, the main platform's first.
#
# Usage: bash duckdb/build.sh
#   TARGET    a Rust target triple (default: this machine's)
#   PROFILE   the cargo profile (default: dist, stripped)
#   ZIGBUILD=1  link with cargo-zigbuild against glibc 2.17's symbols (Linux targets), as
#             the manylinux2014 wheel is: the file then loads on any Linux DuckDB runs on
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-dist}"
target="${TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"

case "$target" in
  x86_64-unknown-linux-gnu) platform=linux_amd64 library=libextract_between_duckdb.so ;;
  aarch64-unknown-linux-gnu) platform=linux_arm64 library=libextract_between_duckdb.so ;;
  aarch64-apple-darwin) platform=osx_arm64 library=libextract_between_duckdb.dylib ;;
  x86_64-apple-darwin) platform=osx_amd64 library=libextract_between_duckdb.dylib ;;
  x86_64-pc-windows-msvc) platform=windows_amd64 library=extract_between_duckdb.dll ;;
  *)
    echo "duckdb/build.sh: no DuckDB platform name for $target" >&2
    exit 2
    ;;
esac

if [ -n "${ZIGBUILD:-}" ]; then
  cargo zigbuild --locked --profile "$profile" --target "$target.2.17" -p extract-between-duckdb
else
  cargo build --locked --profile "$profile" --target "$target" -p extract-between-duckdb
fi
platforms=("$platform")
case "$platform" in linux_*) platforms+=("${platform}_gcc4") ;; esac
for name in "${platforms[@]}"; do
  out="$target_dir/duckdb/$name"
  mkdir -p "$out"
  python3 duckdb/scripts/footer.py "$target_dir/$target/$profile/$library" \
    "$out/extract_between.duckdb_extension" --platform "$name" --version "v$version"
  echo "$out/extract_between.duckdb_extension"
done
