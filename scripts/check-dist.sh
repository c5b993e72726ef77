#!/usr/bin/env bash
# Checks what scripts/dist.sh built into dist/ (or $DIST_DIR) as a user meets it:
#
#   wheel   manylinux_2_17 or older by auditwheel, under 15 MB, the licenses in its
#           dist-info, the Spark jar with its classes and a library needing glibc 2.17 at
#           most; installed into a fresh venv whose PATH has no cargo or rustc, it
#           imports and answers (the package's whole suite runs against it in cargo test
#           when EXTRACT_BETWEEN_PYTHON_WHEEL names it, as .ci/run does)
#   sdist   builds into a wheel from its own contents alone, which installs and answers
#   deb     unpacked into a throwaway root (never the machine's /usr): the binary runs and
#           is static (no dependency, any Linux), the man page renders, the completions load, the licenses and third-party notices are
#           there, the maintainer has an address and changelog.Debian names this version
#   crates  each holds both licenses and its README; the CLI's README links only absolutely
#   npm     under 500 KB, only the package's files; installed with npm into an empty
#           folder on a PATH without cargo or rustc, it imports in Node and answers the card's
#           example, a stream and a type check of its .d.ts
#   archive its checksum matches; unpacked, the binary runs (static on Linux) and the man
#           page and completions are beside it
#
# `bash scripts/check-dist.sh` checks all six; `bash scripts/check-dist.sh deb archive` some
# (the release's arm64 job checks what it built).
set -euo pipefail
cd "$(dirname "$0")/.."

dist="${DIST_DIR:-dist}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "check-dist: $*" >&2
  exit 1
}
# The one file of dist/ matching a pattern.
only() {
  local found=("$dist"/$1)
  [ ${#found[@]} -eq 1 ] && [ -f "${found[0]}" ] || fail "expected one $1 in $dist, found: ${found[*]}"
  echo "${found[0]}"
}
version="$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "extract-between-cli"))')"
target_dir="$(cargo metadata --locked --no-deps --format-version 1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(wheel sdist npm deb crates archive)
want() { [[ " ${steps[*]} " == *" $1 "* ]]; }

# A PATH without Rust: the system's folders, none holding cargo or rustc.
no_rust_path="/usr/local/bin:/usr/bin:/bin"
for tool in cargo rustc; do
  if PATH="$no_rust_path" command -v "$tool" >/dev/null 2>&1; then
    fail "$tool is in $no_rust_path: the wheel cannot be checked without Rust here"
  fi
done

# Fails unless $1 is a statically linked executable with no interpreter (what $2 names).
static_linux() {
  local headers
  headers="$(readelf -l -d "$1")"
  if grep -q 'INTERP' <<<"$headers" || grep -q '(NEEDED)' <<<"$headers"; then
    fail "$2 is not static: $(grep -E 'interpreter|NEEDED' <<<"$headers" | tr -s ' ' | tr '\n' ';')"
  fi
  echo "$2: a static executable"
}

# Installs a built package into a fresh venv on the Rust-less PATH, and asks it a question.
answers() {
  local package="$1" venv="$scratch/venv-$2"
  python3 -m venv "$venv"
  PATH="$venv/bin:$no_rust_path" "$venv/bin/pip" install -q "$package"
  PATH="$venv/bin:$no_rust_path" "$venv/bin/python" - "$version" <<'PY'
import shutil, sys
assert shutil.which("cargo") is None and shutil.which("rustc") is None
import extract_between as eb
assert eb.__version__ == sys.argv[1], eb.__version__
assert eb.extract("pre[one]mid[two]post", "[", "]").matches == ["one", "two"]
print("extract_between", eb.__version__, "from", eb.__file__)
PY
}

if want wheel; then
  wheel="$(only "extract_between-$version-cp310-abi3-*.whl")"
  echo "== wheel: $wheel"
  python3 -m venv "$scratch/audit"
  "$scratch/audit/bin/pip" install -q 'auditwheel>=6'
  policy="$("$scratch/audit/bin/auditwheel" show "$wheel" | tr -d '\n' |
    sed -n 's/.*consistent with the following platform tag: *"\([^"]*\)".*/\1/p')"
  echo "auditwheel: $policy"
  case "$policy" in
    manylinux_2_5_* | manylinux_2_12_* | manylinux_2_17_* | manylinux1_* | manylinux2010_* | manylinux2014_*) ;;
    *) fail "the wheel's policy is '$policy', not manylinux_2_17 or older" ;;
  esac
  size="$(stat -c %s "$wheel")"
  echo "size: $size bytes"
  [ "$size" -lt $((15 * 1024 * 1024)) ] || fail "the wheel is $size bytes, over 15 MB"
  # Listings go to files first: `grep -q` leaving a pipe early would fail it under pipefail.
  unzip -l "$wheel" >"$scratch/wheel-files"
  for license in LICENSE-MIT LICENSE-APACHE; do
    grep -q "extract_between-$version.dist-info/licenses/$license" "$scratch/wheel-files" ||
      fail "the wheel's dist-info holds no $license"
  done
  grep -q "extract_between/THIRD-PARTY-NOTICES.txt" "$scratch/wheel-files" ||
    fail "the wheel holds no THIRD-PARTY-NOTICES.txt"
  unzip -p "$wheel" extract_between/THIRD-PARTY-NOTICES.txt >"$scratch/wheel-notices"
  for crate in pyo3 jni libduckdb-sys memchr; do
    grep -q "^  $crate " "$scratch/wheel-notices" || fail "the wheel's notices do not list $crate"
  done
  # The Spark jar: the native functions' classes and their library, loadable on glibc 2.17.
  grep -q "extract_between/jars/extract-between-spark.jar" "$scratch/wheel-files" ||
    fail "the wheel holds no Spark jar"
  unzip -q -o "$wheel" 'extract_between/jars/*' -d "$scratch/wheel-jar"
  jar_file="$scratch/wheel-jar/extract_between/jars/extract-between-spark.jar"
  unzip -l "$jar_file" >"$scratch/jar-files"
  for entry in io/github/extractbetween/spark/ExtractBetweenExtensions.class \
    io/github/extractbetween/spark/native/linux-x86_64/libextract_between_spark.so; do
    grep -q "$entry" "$scratch/jar-files" || fail "the Spark jar holds no $entry"
  done
  unzip -q -o "$jar_file" 'io/github/extractbetween/spark/native/*' -d "$scratch/jar"
  newest_glibc="$(objdump -T "$scratch/jar/io/github/extractbetween/spark/native/linux-x86_64/libextract_between_spark.so" |
    grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)"
  echo "Spark jar: native library needs glibc $newest_glibc"
  [ "$(printf '%s\n2.17\n' "$newest_glibc" | sort -V | tail -n 1)" = 2.17 ] ||
    fail "the Spark jar's library needs glibc $newest_glibc, newer than 2.17"
  # The DuckDB extension, for both names DuckDB's Linux builds give the platform, loadable on
  # glibc 2.17, each ending in DuckDB's metadata footer (its magic field "4" is 22 bytes into
  # the footer's last field pack, written last field first).
  for platform in linux_amd64 linux_amd64_gcc4; do
    entry="extract_between/extensions/$platform/extract_between.duckdb_extension"
    grep -q "$entry" "$scratch/wheel-files" || fail "the wheel holds no DuckDB extension for $platform"
    unzip -q -o "$wheel" "$entry" -d "$scratch/wheel-duckdb"
    python3 - "$scratch/wheel-duckdb/$entry" "$platform" <<'PY' || fail "the $platform DuckDB extension's footer is not DuckDB's"
import sys
data = open(sys.argv[1], "rb").read()
footer = data[-534:]
fields = [footer[22 + 32 * i : 22 + 32 * (i + 1)].rstrip(b"\0").decode() for i in range(8)][::-1]
assert footer[:20] == b"\x00\x93\x04\x10duckdb_signature", footer[:20]
assert fields[:5] == ["4", sys.argv[2], "v1.2.0", fields[3], "C_STRUCT"] and fields[3].startswith("v"), fields
PY
    newest_glibc="$(objdump -T "$scratch/wheel-duckdb/$entry" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)"
    [ "$(printf '%s\n2.17\n' "$newest_glibc" | sort -V | tail -n 1)" = 2.17 ] ||
      fail "the $platform DuckDB extension needs glibc $newest_glibc, newer than 2.17"
  done
  echo "DuckDB extension: footer checked, needs glibc $newest_glibc"
  answers "$wheel" wheel
fi

if want sdist; then
  sdist="$(only "extract_between-$version.tar.gz")"
  echo "== sdist: $sdist"
  # Built by pip through maturin's build backend, with the wheel's own settings and cargo's
  # target folder: the registry crates compiled for the wheel are reused (polars' take minutes),
  # while the package's own crates compile from the sdist's sources alone. Those are dated now:
  # the archive's fixed times would make cargo take the repository's build of them as fresh.
  tools="$target_dir/dist-tools"
  [ -x "$tools/bin/maturin" ] || fail "no maturin in $tools: run scripts/dist.sh wheel first"
  tar xzf "$sdist" -C "$scratch"
  unpacked_sdist="$scratch/extract_between-$version"
  find "$unpacked_sdist" -type f -exec touch {} +
  PATH="$tools/bin:$PATH" CARGO_TARGET_DIR="$target_dir" \
    MATURIN_PEP517_ARGS="--profile dist --zig --compatibility manylinux2014" \
    "$tools/bin/pip" wheel -v --no-build-isolation --no-deps "$unpacked_sdist" -w "$scratch/from-sdist" >"$scratch/sdist.log" 2>&1 ||
    { cat "$scratch/sdist.log"; fail "the sdist does not build"; }
  # What was compiled: the package's own crates, from the sdist's files.
  grep -q "Compiling extract-between-python v$version ($unpacked_sdist/python)" "$scratch/sdist.log" ||
    { cat "$scratch/sdist.log"; fail "the sdist's own sources were not compiled"; }
  answers "$(ls "$scratch"/from-sdist/extract_between-*.whl)" sdist
fi

if want npm; then
  npm_tarball="$(only "extract-between-$version.tgz")"
  echo "== npm: $npm_tarball"
  size=$(stat -c %s "$npm_tarball")
  echo "size: $size bytes"
  [ "$size" -lt 500000 ] || fail "the npm tarball is $size bytes, over 500 KB"
  # js/README.md's figures, held to the files built (within 5 %).
  wasm_size=$(tar -xzOf "$npm_tarball" package/wasm/extract_between_bg.wasm | wc -c)
  figures=$(sed -n 's/.*The WebAssembly module is \([0-9]*\) KB and the npm tarball \([0-9]*\) KB.*/\1 \2/p' js/README.md)
  [ -n "$figures" ] || fail "js/README.md no longer says the module's and the tarball's sizes"
  read -r said_wasm said_tarball <<<"$figures"
  for pair in "module $said_wasm $wasm_size" "tarball $said_tarball $size"; do
    read -r what said bytes <<<"$pair"
    [ $((said * 1000 * 100 / bytes)) -ge 95 ] && [ $((said * 1000 * 100 / bytes)) -le 105 ] ||
      fail "js/README.md says the $what is $said KB; it is $bytes bytes"
  done
  unexpected=$(tar -tzf "$npm_tarball" | grep -v -E '^package/(package\.json|README\.md|LICENSE-(MIT|APACHE)|THIRD-PARTY-NOTICES\.txt|lib/[a-z]+\.js|lib/index\.d\.ts|wasm/(extract_between\.js|extract_between_bg\.wasm))$' || true)
  tar -xzf "$npm_tarball" -C "$scratch" package/THIRD-PARTY-NOTICES.txt ||
    fail "the npm tarball holds no THIRD-PARTY-NOTICES.txt"
  grep -q "^  wasm-bindgen " "$scratch/package/THIRD-PARTY-NOTICES.txt" ||
    fail "the npm package's notices do not list wasm-bindgen"
  [ -z "$unexpected" ] || fail "the npm tarball holds files it should not: $unexpected"
  node_dir="$(dirname "$(command -v node)")"
  mkdir -p "$scratch/npm-user"
  (
    cd "$scratch/npm-user"
    PATH="$node_dir:$no_rust_path" command npm init -y >/dev/null
    PATH="$node_dir:$no_rust_path" command npm install --no-audit --no-fund -q "$OLDPWD/$npm_tarball" >/dev/null
    PATH="$node_dir:$no_rust_path" node --input-type=module -e '
      import assert from "node:assert/strict";
      import { extract, extractStream, UnclosedStartMarker } from "extract-between";
      assert.deepEqual(extract("pre[one]mid[two]post", "[", "]"), { matches: ["one", "two"], truncated: false });
      assert.throws(() => extract("a [b", "[", "]"), UnclosedStartMarker);
      const got = [];
      for await (const m of new Response("<b>1</b><b>2</b>").body.pipeThrough(extractStream("<b>", "</b>"))) got.push(m.text);
      assert.deepEqual(got, ["1", "2"]);
      console.log("npm package: imports and answers in Node", process.version);
    '
    # CommonJS, as a project `npm init -y` made is.
    PATH="$node_dir:$no_rust_path" node -e '
      const assert = require("node:assert/strict");
      const { findAll } = require("extract-between");
      assert.deepEqual(findAll("<b>1</b><b>2</b>", "<b>", "</b>"), ["1", "2"]);
      console.log("npm package: require()s and answers in Node", process.version);
    '
    # Its types, as a TypeScript user's editor reads them.
    PATH="$node_dir:$no_rust_path" command npm install --no-audit --no-fund -q typescript@5.9.3 >/dev/null
    printf '%s\n' 'import { extract, type Match } from "extract-between";' \
      'const out: string[] = extract("[a]", "[", "]", { maxMatches: 1 }).matches;' \
      'const m: Match | undefined = undefined;' 'export { out, m };' >check.mts
    PATH="$node_dir:$no_rust_path" node node_modules/typescript/bin/tsc --strict --noEmit \
      --module nodenext --moduleResolution nodenext --target es2022 --lib es2022,dom check.mts
    echo "npm package: its types check under tsc --strict"
  )
fi

if want deb; then
  deb="$(only "extract-between_${version}-1_*.deb")"
  echo "== deb: $deb"
  dpkg-deb -c "$deb" | awk '{print $NF}' >"$scratch/deb-files"
  for path in ./usr/bin/extract-between ./usr/share/man/man1/extract-between.1.gz \
    ./usr/share/bash-completion/completions/extract-between \
    ./usr/share/zsh/vendor-completions/_extract-between \
    ./usr/share/fish/vendor_completions.d/extract-between.fish \
    ./usr/share/doc/extract-between/LICENSE-MIT ./usr/share/doc/extract-between/LICENSE-APACHE \
    ./usr/share/doc/extract-between/copyright ./usr/share/doc/extract-between/README.md \
    ./usr/share/doc/extract-between/THIRD-PARTY-NOTICES.txt \
    ./usr/share/doc/extract-between/changelog.Debian.gz; do
    grep -qx "$path" "$scratch/deb-files" || fail "the .deb does not hold $path"
  done
  # Debian's policy: a maintainer with an address, a changelog of this version.
  [[ "$(dpkg-deb -f "$deb" Maintainer)" == *"<"*"@"*">" ]] || fail "the .deb's Maintainer has no address"
  root="$scratch/root"
  dpkg-deb -x "$deb" "$root"
  [[ "$("$root/usr/bin/extract-between" --version)" == *"$version"* ]] || fail "--version does not say $version"
  # A static binary: it runs on any Linux (no glibc floor, Alpine too) and depends on nothing.
  static_linux "$root/usr/bin/extract-between" "the .deb's binary"
  [ -z "$(dpkg-deb -f "$deb" Depends)" ] || fail "the .deb depends on: $(dpkg-deb -f "$deb" Depends)"
  zcat "$root/usr/share/doc/extract-between/changelog.Debian.gz" | head -n 1 | grep -q "^extract-between ($version-1) " ||
    fail "changelog.Debian does not begin with version $version-1"
  # The notices name the crates linked in (encoding_rs carries a BSD-3-Clause part).
  grep -q "encoding_rs" "$root/usr/share/doc/extract-between/THIRD-PARTY-NOTICES.txt" ||
    fail "the .deb's notices do not list encoding_rs"
  [ "$(printf 'pre[one]mid[two]post' | "$root/usr/bin/extract-between" -s '[' -e ']')" = "$(printf 'one\ntwo')" ] ||
    fail "the packaged binary does not extract"
  MANPAGER=cat MANWIDTH=80 man -l "$root/usr/share/man/man1/extract-between.1.gz" >"$scratch/man.txt" 2>/dev/null
  grep -q -- '--max-matches' "$scratch/man.txt" || fail "the man page does not render with man -l"
  # A page per subcommand: serve's names each option's variable.
  MANPAGER=cat MANWIDTH=80 man -l "$root/usr/share/man/man1/extract-between-serve.1.gz" >"$scratch/man-serve.txt" 2>/dev/null
  grep -q 'EXTRACT_BETWEEN_LISTEN' "$scratch/man-serve.txt" || fail "the .deb has no extract-between-serve(1) naming the variables"
  bash -c "source '$root/usr/share/bash-completion/completions/extract-between' && complete -p extract-between" >/dev/null ||
    fail "the bash completion does not load"
  if command -v zsh >/dev/null 2>&1; then zsh -n "$root/usr/share/zsh/vendor-completions/_extract-between"; fi
  if command -v fish >/dev/null 2>&1; then fish -n "$root/usr/share/fish/vendor_completions.d/extract-between.fish"; fi
fi

if want crates; then
  echo "== crates"
  for crate in extract-between extract-between-cli; do
    file="$dist/$crate-$version.crate"
    [ -f "$file" ] || fail "no $file"
    tar tzf "$file" >"$scratch/crate-files"
    for member in LICENSE-MIT LICENSE-APACHE README.md; do
      grep -qx "$crate-$version/$member" "$scratch/crate-files" || fail "$file holds no $member"
    done
  done
  # crates.io shows the README away from the repository: a relative link would lead nowhere.
  tar xzf "$dist/extract-between-cli-$version.crate" -C "$scratch" "extract-between-cli-$version/README.md"
  python3 - "$scratch/extract-between-cli-$version/README.md" <<'PY'
import re, sys
text = re.sub(r"```.*?```", "", open(sys.argv[1], encoding="utf-8").read(), flags=re.S)
relative = [t for t in re.findall(r"\]\(([^)\s]+)", text) if not re.match(r"^(https?:|#)", t)]
if relative:
    sys.exit(f"check-dist: the CLI crate's README links relatively: {relative}")
PY
fi

if want archive; then
  host="$(rustc -vV | sed -n 's/^host: //p')"
  host="${host/%-linux-gnu/-linux-musl}"
  archive="$(only "extract-between-$version-$host.tar.gz")"
  echo "== archive: $archive"
  (cd "$dist" && sha256sum -c "$(basename "$archive").sha256")
  tar xzf "$archive" -C "$scratch"
  unpacked="$scratch/extract-between-$version-$host"
  [[ "$("$unpacked/extract-between" --version)" == *"$version"* ]] || fail "the archive's binary does not run"
  [[ "$host" != *-linux-* ]] || static_linux "$unpacked/extract-between" "the archive's binary"
  for member in LICENSE-MIT LICENSE-APACHE README.md THIRD-PARTY-NOTICES.txt extract-between.1.gz complete/extract-between.bash \
    complete/_extract-between complete/extract-between.fish complete/_extract-between.ps1; do
    [ -f "$unpacked/$member" ] || fail "the archive holds no $member"
  done
fi

echo "== dist: checked: ${steps[*]}"
