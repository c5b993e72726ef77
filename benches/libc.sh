#!/usr/bin/env bash
# Which Linux build of the CLI to ship: each CANDIDATE binary against BASE (the CLI linked
# against this machine's glibc), whole processes in farm-bench pairs (A B A B …, the ratio
# taken pair by pair), on the workloads where the C library and the allocator could show:
# a 64 MiB file (dense ASCII matches, Japanese text), JSON lines (formatting and writes), a
# tree of 20,000 files walked on every core (a buffer and a thread pool's allocations per
# file), and a 5-byte file (start-up alone). The service's side is benches/load.rs, run
# with EXTRACT_BETWEEN_BIN naming each binary.
#
#   bash benches/libc.sh BASE CANDIDATE...    (RUNS=9 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9}
base="$1"
shift
WORK=$(mktemp -d /dev/shm/eb-libc.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 benches/corpus.py files "$WORK" 64
python3 benches/corpus.py tree "$WORK/site" 20000
printf 'a[b]c' >"$WORK/tiny.txt"

# Every binary gives the same output first: a build that differs is not a candidate.
for bin in "$@"; do
  for args in "-s [ -e ] $WORK/dense.txt" "--json-lines -s 「 -e 」 $WORK/unicode.txt"; do
    # shellcheck disable=SC2086
    [ "$("$bin" $args | md5sum)" = "$("$base" $args | md5sum)" ] || {
      echo "$bin and $base differ on: $args" >&2
      exit 1
    }
  done
done

# One script per workload: `sh SCRIPT BIN` runs BIN on it, its output thrown away.
i=0
while IFS='|' read -r name args; do
  i=$((i + 1))
  printf '%s\n' "# $name" "exec \"\$1\" $args >/dev/null" >"$WORK/run-$i.sh"
done <<EOF2
dense 64 MiB|-s '[' -e ']' $WORK/dense.txt
unicode 64 MiB|-s '「' -e '」' $WORK/unicode.txt
json lines, dense|--json-lines -s '[' -e ']' $WORK/dense.txt
tree of 20000 files|-s '<title>' -e '</title>' $WORK/site
EOF2

for bin in "$@"; do
  echo "== $bin ($(file -b "$bin" | cut -d, -f1-2)) against $base"
  for script in "$WORK"/run-*.sh; do
    head -n 1 "$script"
    farm-bench -n "$RUNS" --timeout 900 --vs "sh $script $base" -- sh "$script" "$bin"
  done
  # Start-up alone, with no shell in between.
  echo "# 5-byte file"
  farm-bench -n 50 --warmup 5 --vs "$base -s [ -e ] $WORK/tiny.txt" -- "$bin" -s '[' -e ']' "$WORK/tiny.txt"
done
