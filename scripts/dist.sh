#!/usr/bin/env bash
# Builds what a release publishes into dist/ (or $DIST_DIR), on Linux x86-64:
#
#   wheel   the Python package: abi3 (CPython 3.10+), manylinux2014 (glibc 2.17), built with
#           maturin and zig, stripped, carrying the Spark jar (spark/build.sh: the native
#           SQL functions' classes and their library, linked against glibc 2.17 too) and the
#           DuckDB extension (duckdb/build.sh, glibc 2.17 too)
#   duckdb  the DuckDB extension file alone, as the release attaches it:
#           extract_between.<platform>.duckdb_extension
#   sdist   the Python package's source, which builds into the same package
#   crates  extract-between and extract-between-cli as .crate files
#   npm     the JavaScript package (js/, on WebAssembly) as npm pack's tarball,
#           extract-between-<version>.tgz
#   deb     the CLI as a Debian package: binary, man page, completions, licenses, README
#   archive the CLI for this machine's target as an archive (.tar.gz; .zip on Windows) with
#           the licenses, README, man page and completions, and its SHA-256 beside it
#           (on Linux the CLI is a static musl binary: TARGET is ARCH-unknown-linux-musl)
#
# `bash scripts/dist.sh` builds all seven; `bash scripts/dist.sh wheel deb` some. The release
# workflow (.github/workflows/release.yml) runs these same steps; scripts/check-dist.sh checks
# what they built as a user would meet it. Build tools (maturin, zig from PyPI's ziglang,
# cargo-deb from crates.io) are installed into target/ when missing. Each artifact carries
# THIRD-PARTY-NOTICES.txt (scripts/notices.sh, cargo-about): a dependency under a license
# outside its allow-list stops the build.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${DIST_DIR:-dist}"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(wheel duckdb sdist crates npm deb archive)
target_dir="$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
version="$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "extract-between-cli"))')"
mkdir -p "$out"
# cargo-zigbuild's own builds (the Spark library, the DuckDB extension) get a target folder of
# their own: its linker wrapper differs from the one maturin's embedded copy writes, and in a
# shared folder each build would find the other's crates stale and rebuild them, polars with
# them.
zig_target_dir="$target_dir/zigbuild"

# maturin and zig, in a venv of their own (the wheel's build needs no other Python package).
python_tools() {
  local tools="$target_dir/dist-tools"
  if ! "$tools/bin/python" -c 'import ziglang' 2>/dev/null || [ ! -x "$tools/bin/maturin" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q 'maturin>=1.14,<2' 'ziglang>=0.13'
  fi
  export PATH="$tools/bin:$PATH"
}

# cargo-zigbuild (from PyPI, into the tools venv), for the builds linked against an old glibc
# or musl: the Spark library, the DuckDB extension, the CLI.
zigbuild_tools() {
  python_tools
  command -v cargo-zigbuild >/dev/null 2>&1 || "$target_dir/dist-tools/bin/pip" install -q 'cargo-zigbuild>=0.24'
}

# The Spark jar, into the package's source before maturin packs it. Its classes compile
# against the Spark jars of pyspark (installed into the tools venv without its dependencies;
# the same wheel the tests install, from pip's cache); its library links with cargo-zigbuild.
spark_jar() {
  zigbuild_tools
  local tools="$target_dir/dist-tools"
  "$tools/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("pyspark") is None)' ||
    "$tools/bin/pip" install -q --no-deps 'pyspark>=4.1'
  local jar
  jar="$(PYTHON="$tools/bin/python" ZIGBUILD=1 CARGO_TARGET_DIR="$zig_target_dir" bash spark/build.sh | tail -n 1)"
  mkdir -p python/python/extract_between/jars
  cp "$jar" python/python/extract_between/jars/
}

# The DuckDB extension files for this machine's target (one per platform name DuckDB gives
# it), on Linux linked with cargo-zigbuild (glibc 2.17).
duckdb_extension() {
  local zig="" build_env=()
  if [ "$(uname -s)" = Linux ]; then
    zigbuild_tools
    zig=1
    build_env=(CARGO_TARGET_DIR="$zig_target_dir")
  fi
  extensions=()
  while IFS= read -r file; do
    extensions+=("$file")
  done < <(env "${build_env[@]}" ZIGBUILD="$zig" bash duckdb/build.sh | grep '\.duckdb_extension$')
}

duckdb() {
  duckdb_extension
  local file platform
  for file in "${extensions[@]}"; do
    platform="$(basename "$(dirname "$file")")"
    cp "$file" "$out/extract_between.$platform.duckdb_extension"
  done
}

wheel() {
  spark_jar
  duckdb_extension
  rm -rf python/python/extract_between/extensions
  local file platform
  for file in "${extensions[@]}"; do
    platform="$(basename "$(dirname "$file")")"
    mkdir -p "python/python/extract_between/extensions/$platform"
    cp "$file" "python/python/extract_between/extensions/$platform/"
  done
  rm -f "$out"/extract_between-*.whl
  # The notices of every crate linked into the wheel: the module, the Spark library, the
  # DuckDB extension.
  bash scripts/notices.sh python/python/extract_between/THIRD-PARTY-NOTICES.txt \
    python/Cargo.toml spark/Cargo.toml duckdb/Cargo.toml
  # Zig links against glibc 2.17's symbols, so the wheel runs on any manylinux2014 system.
  # The dist profile builds no debug info and strips symbols.
  maturin build --locked --profile dist --zig --compatibility manylinux2014 \
    -m python/Cargo.toml -o "$out"
}

sdist() {
  python_tools
  rm -f "$out"/extract_between-*.tar.gz
  maturin sdist -m python/Cargo.toml -o "$out"
}

crates() {
  cargo package --locked -p extract-between -p extract-between-cli --no-verify
  for crate in extract-between extract-between-cli; do
    cp "$target_dir/package/$crate-$version.crate" "$out/"
  done
}

# The npm package's WebAssembly half (js/build.sh), which the CLI's playground embeds too:
# built once per run (built again, its new files would make cargo rebuild the CLI).
js_build() {
  [ -n "${js_built:-}" ] || bash js/build.sh >/dev/null
  js_built=1
}

npm() {
  js_build
  local js_version
  js_version="$(node -p 'require("./js/package.json").version')"
  [ "$js_version" = "$version" ] || {
    echo "js/package.json says $js_version, the workspace $version" >&2
    exit 1
  }
  rm -f "$out"/extract-between-*.tgz
  bash scripts/notices.sh js/THIRD-PARTY-NOTICES.txt --target wasm32-unknown-unknown js/Cargo.toml
  local dest
  dest="$(cd "$out" && pwd)"
  (cd js && command npm pack --silent --pack-destination "$dest" >/dev/null)
  ls -l "$out/extract-between-$version.tgz"
}

# The CLI's target: on Linux a static musl binary of the machine's architecture (linked by
# cargo-zigbuild, jemalloc its allocator), which runs on any Linux, Alpine and glibc older
# than 2.17 included; benches/README.md measures it beside glibc builds. Elsewhere the host's.
cli_target() {
  host="$(rustc -vV | sed -n 's/^host: //p')"
  case "$host" in
    *-unknown-linux-gnu)
      zigbuild_tools
      host="${host%-gnu}-musl"
      rustup target list --installed | grep -qx "$host" || rustup target add "$host"
      build=(cargo zigbuild --target "$host")
      ;;
    *) build=(cargo build --target "$host") ;;
  esac
}

# The CLI built with the dist profile (its /playground page embedded), and what it
# generates for packagers beside it (made by the binary from the parser's own definitions,
# so they cannot drift from it).
cli() {
  [ -z "${cli_built:-}" ] || return 0
  cli_built=1
  js_build
  cli_target
  "${build[@]}" --locked --profile dist -p extract-between-cli
  bin="$target_dir/$host/dist/extract-between"
  [ -x "$bin" ] || bin="$bin.exe"
  assets="$target_dir/$host/dist/dist-assets"
  mkdir -p "$assets"
  "$bin" man | gzip -9n >"$assets/extract-between.1.gz"
  local sub
  for sub in tool card mcp serve completions man; do
    "$bin" man "$sub" | gzip -9n >"$assets/extract-between-$sub.1.gz"
  done
  "$bin" completions bash >"$assets/extract-between.bash"
  "$bin" completions zsh >"$assets/_extract-between"
  "$bin" completions fish >"$assets/extract-between.fish"
  "$bin" completions powershell >"$assets/_extract-between.ps1"
  bash scripts/notices.sh "$assets/THIRD-PARTY-NOTICES.txt" crates/extract-between-cli/Cargo.toml
}

deb() {
  if ! command -v cargo-deb >/dev/null 2>&1; then
    cargo install --locked cargo-deb
  fi
  cli
  rm -f "$out"/extract-between_*.deb
  cargo deb --locked -p extract-between-cli --profile dist --target "$host" --no-build -o "$out/"
}

archive() {
  cli
  local name stage
  name="extract-between-$version-$host"
  stage="$target_dir/$host/dist/$name"
  rm -rf "$stage"
  mkdir -p "$stage/complete"
  cp "$bin" LICENSE-MIT LICENSE-APACHE crates/extract-between-cli/README.md \
    "$assets/THIRD-PARTY-NOTICES.txt" "$stage/"
  cp "$assets"/extract-between*.1.gz "$stage/"
  cp "$assets"/extract-between.bash "$assets"/_extract-between "$assets"/extract-between.fish \
    "$assets"/_extract-between.ps1 "$stage/complete/"
  case "$host" in
    *windows*)
      (cd "$stage/.." && python3 -m zipfile -c "$name.zip" "$name/") && mv "$stage.zip" "$out/"
      file="$name.zip"
      ;;
    *)
      tar czf "$out/$name.tar.gz" -C "$stage/.." "$name"
      file="$name.tar.gz"
      ;;
  esac
  (cd "$out" && python3 -c 'import hashlib, sys; f = sys.argv[1]; print(hashlib.sha256(open(f, "rb").read()).hexdigest() + "  " + f)' "$file" >"$file.sha256")
}

for step in "${steps[@]}"; do
  case "$step" in
    wheel | duckdb | sdist | crates | npm | deb | archive)
      echo "== dist: $step"
      "$step"
      ;;
    *)
      echo "scripts/dist.sh: unknown step '$step' (wheel, duckdb, sdist, crates, npm, deb, archive)" >&2
      exit 2
      ;;
  esac
done
echo "== dist: $out"
ls -l "$out"
