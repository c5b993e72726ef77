#!/usr/bin/env bash
# The scanner's walks on every x86-64 kernel set, one build against another: a small
# harness is built against OLD (a git revision, default HEAD) and against the working tree,
# and run N times in turn (each run: every corpus of benches/support/corpus.rs, every walk
# and set, ROUNDS passes of 8 KiB chunks with UTF-16 offsets, their fastest kept); prints
# per walk the fastest time of each build and new/old. For changes to src/kernels/.
# Usage: bash benches/kernels-ab.sh [OLD]   (N=10 ROUNDS=15 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:-HEAD}
WORK=$(mktemp -d)
trap 'git worktree remove --force "$WORK/old" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git worktree add -q --detach "$WORK/old" "$OLD"
mkdir -p "$WORK/src"
cat > "$WORK/src/main.rs" <<EOF
#[path = "$PWD/crates/extract-between/benches/support/corpus.rs"]
#[allow(dead_code)]
mod corpus;
#[path = "$PWD/crates/extract-between/benches/support/spans.rs"]
mod spans;
EOF
cat >> "$WORK/src/main.rs" <<'EOF'
use extract_between::Markers;
use extract_between::testing::{Isa, Paths, scanner};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(15);
    let best = Paths::detect();
    let mut configs = vec![];
    for isa in Isa::available().into_iter().skip(1) {
        let name = isa.name();
        configs.push((format!("ascii/{name}"), Paths { isa, ascii: true, utf8: false, ..best }));
        // SSE2 has no UTF-8 kernels; AVX-512 BW's are AVX2's.
        if !["sse2", "avx512bw"].contains(&name) {
            configs.push((format!("utf8/{name}"), Paths { isa, ascii: false, utf8: true, ..best }));
        }
    }
    configs.push(("both/default".into(), best));
    for (name, (text, start, end)) in corpus::all() {
        let markers = Markers::new(start, end).unwrap();
        for (config, paths) in &configs {
            let fastest = (0..rounds)
                .map(|_| {
                    let t = Instant::now();
                    let text = black_box(text.as_bytes());
                    black_box(spans::collect(scanner(&markers, *paths), text, 8 << 10, true));
                    t.elapsed().as_secs_f64() * 1e3
                })
                .fold(f64::INFINITY, f64::min);
            println!("{name}\t{config}\t{fastest:.4}");
        }
    }
}
EOF
for side in old new; do
  tree=$PWD; [ "$side" = old ] && tree=$WORK/old
  mkdir -p "$WORK/$side-bench"
  cat > "$WORK/$side-bench/Cargo.toml" <<EOF
[package]
name = "kernels-ab-$side"
version = "0.0.0"
edition = "2024"
[[bin]]
name = "kernels-ab-$side"
path = "$WORK/src/main.rs"
[dependencies]
extract-between = { path = "$tree/crates/extract-between", features = ["testing"] }
criterion = "0.8.2"
serde_json = "1"
[workspace]
EOF
  (cd "$WORK/$side-bench" && CARGO_TARGET_DIR="$WORK/target-$side" cargo build --release -q)
done
for _ in $(seq "${N:-10}"); do
  "$WORK/target-old/release/kernels-ab-old" >> "$WORK/old.tsv"
  "$WORK/target-new/release/kernels-ab-new" >> "$WORK/new.tsv"
done
python3 - "$WORK/old.tsv" "$WORK/new.tsv" <<'EOF'
import sys
def fastest(path):
    out = {}
    for line in open(path):
        corpus, walk, ms = line.split("\t")
        out[(corpus, walk)] = min(out.get((corpus, walk), float("inf")), float(ms))
    return out
old, new = fastest(sys.argv[1]), fastest(sys.argv[2])
print(f"{'corpus':8} {'walk/set':20} {'old ms':>8} {'new ms':>8} {'new/old':>8}")
for key in old:
    print(f"{key[0]:8} {key[1]:20} {old[key]:8.3f} {new[key]:8.3f} {new[key] / old[key]:8.3f}")
EOF
