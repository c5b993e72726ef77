#!/usr/bin/env bash
# Whole-process benchmark of the CLI against the tools people would use instead, in one run:
#   extract-between -s '[' -e ']' FILE
#   grep -oP '(?<=\[).*?(?=\])' FILE
#   rg -o '\[(.*?)\]' -r '$1' FILE
# on generated 64 MiB files (dense: a match every ~80 bytes; none: no marker at all;
# unicode: Japanese text with 「…」 every ~150 bytes, same commands with those markers).
# Reports the median wall time of RUNS runs, throughput, peak RSS and our speed-up.
# Then a pipe, --json-lines, a tree of small files, and a 5-byte file (start-up alone).
# Usage: bash benches/cli.sh   (RUNS=7 SIZE_MIB=64 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
SIZE_MIB=${SIZE_MIB:-64}
if ! command -v rg >/dev/null; then
  echo "installing ripgrep from Debian's packages" >&2
  (apt-get install -y ripgrep || sudo apt-get install -y ripgrep) >/dev/null
fi
cargo build --release --quiet
BIN=$PWD/target/release/extract-between
WORK=$(mktemp -d /dev/shm/eb-bench.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 benches/corpus.py files "$WORK" "$SIZE_MIB"

# median wall seconds (from bash's microsecond clock) and max peak RSS (KiB, from
# /usr/bin/time) of RUNS runs of "$@" > $WORK/out
measure() {
  local times=() rss=0
  for _ in $(seq "$RUNS"); do
    local t0=$EPOCHREALTIME line
    line=$( { /usr/bin/time -f "%M" "$@" > "$WORK/out"; } 2>&1 | tail -1) || true
    local t1=$EPOCHREALTIME
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
    (( line > rss )) && rss=$line
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$med $rss"
}

printf '%-8s %-16s %10s %10s %12s %10s\n' corpus tool seconds GB/s peak_RSS_KiB speedup
for corpus in dense none unicode; do
  f=$WORK/$corpus.txt
  bytes=$(stat -c %s "$f")
  if [ "$corpus" = unicode ]; then s='「' e='」'; else s='[' e=']'; fi
  grep_re="(?<=\\$s).*?(?=\\$e)"; rg_re="\\$s(.*?)\\$e"
  if [ "$corpus" = unicode ]; then grep_re="(?<=$s).*?(?=$e)"; rg_re="$s(.*?)$e"; fi
# Same matches from all three (sanity check on the dense file).
  if [ "$corpus" != none ]; then
    a=$("$BIN" -s "$s" -e "$e" "$f" | md5sum); b=$(grep -oP "$grep_re" "$f" | md5sum); c=$(rg -o "$rg_re" -r '$1' "$f" | md5sum)
    [ "$a" = "$b" ] && [ "$a" = "$c" ] || { echo "outputs differ: $a $b $c" >&2; exit 1; }
  fi
  read -r ours ours_rss < <(measure "$BIN" -s "$s" -e "$e" "$f")
  read -r grep_t grep_rss < <(measure grep -oP "$grep_re" "$f")
  read -r rg_t rg_rss < <(measure rg -o "$rg_re" -r '$1' "$f")
  for row in "extract-between $ours $ours_rss" "grep-oP $grep_t $grep_rss" "rg-o $rg_t $rg_rss"; do
    set -- $row
    awk -v c="$corpus" -v t="$1" -v s="$2" -v r="$3" -v b="$bytes" -v o="$ours" \
      'BEGIN { printf "%-8s %-16s %10.4f %10.2f %12d %9.2fx\n", c, t, s, (s > 0 ? b / s / 1e9 : 0), r, (o > 0 ? s / o : 0) }'
  done
done
# Through a pipe too (what a shell user does): cat FILE | extract-between.
f=$WORK/dense.txt
read -r piped piped_rss < <(measure sh -c "cat '$f' | '$BIN' -s '[' -e ']'")
awk -v t="$piped" -v b="$(stat -c %s "$f")" 'BEGIN { printf "dense via pipe: %.4f s, %.2f GB/s\n", t, b / t / 1e9 }'
# JSON lines (a line per match with file name and byte and UTF-16 offsets, ~100 bytes for
# a 10-byte match): this measures formatting and writing as much as extraction.
for corpus in dense unicode; do
  f=$WORK/$corpus.txt
  if [ "$corpus" = unicode ]; then s='「' e='」'; else s='[' e=']'; fi
  read -r jl jl_rss < <(measure "$BIN" --json-lines -s "$s" -e "$e" "$f")
  awk -v c="$corpus" -v t="$jl" -v b="$(stat -c %s "$f")" -v r="$jl_rss" \
    'BEGIN { printf "%s --json-lines: %.4f s, %.2f GB/s, peak RSS %d KiB\n", c, t, b / t / 1e9, r }'
done
# A tree of TREE_FILES HTML files (~10 KB each, 100 directories), walked by each tool on
# every core: extract-between and rg walk it themselves, grep -r too.
TREE_FILES=${TREE_FILES:-20000}
python3 benches/corpus.py tree "$WORK/site" "$TREE_FILES"
tree_bytes=$(du -sb "$WORK/site" | cut -f1)
a=$("$BIN" -s '<title>' -e '</title>' "$WORK/site" | sort | md5sum)
b=$(rg -o '<title>(.*?)</title>' -r '$1' "$WORK/site" | sort | md5sum)
c=$(grep -r -oP '(?<=<title>).*?(?=</title>)' "$WORK/site" | sort | md5sum)
[ "$a" = "$b" ] && [ "$a" = "$c" ] || { echo "tree outputs differ: $a $b $c" >&2; exit 1; }
read -r ours ours_rss < <(measure "$BIN" -s '<title>' -e '</title>' "$WORK/site")
read -r rg_t rg_rss < <(measure rg -o '<title>(.*?)</title>' -r '$1' "$WORK/site")
read -r grep_t grep_rss < <(measure grep -r -oP '(?<=<title>).*?(?=</title>)' "$WORK/site")
for row in "extract-between $ours $ours_rss" "rg-o $rg_t $rg_rss" "grep-r-oP $grep_t $grep_rss"; do
  set -- $row
  awk -v t="$1" -v s="$2" -v r="$3" -v b="$tree_bytes" -v o="$ours" -v n="$TREE_FILES" \
    'BEGIN { printf "tree(%d) %-16s %10.4f %10.2f %12d %9.2fx\n", n, t, s, (s > 0 ? b / s / 1e9 : 0), r, (o > 0 ? s / o : 0) }'
done
# A 5-byte file: process start to exit, where start-up is all there is. hyperfine -N (no
# shell between) over many runs, the three tools in one run.
printf 'a[b]c' > "$WORK/tiny.txt"
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 50 --runs "${TINY_RUNS:-1000}" --export-json "$WORK/tiny.json" \
    "$BIN -s [ -e ] $WORK/tiny.txt" \
    "rg -o '\\[(.*?)\\]' -r '\$1' $WORK/tiny.txt" \
    "grep -oP '(?<=\\[).*?(?=\\])' $WORK/tiny.txt" >/dev/null 2>&1
  python3 - "$WORK/tiny.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
ours = runs[0]["median"]
for name, r in zip(["extract-between", "rg-o", "grep-oP"], runs):
    print(f"tiny     {name:<16} {r['median'] * 1e3:8.2f} ms (median)  {r['median'] / ours:5.2f}x")
PY
else
  echo "tiny: hyperfine not installed (apt-get install hyperfine)"
fi
