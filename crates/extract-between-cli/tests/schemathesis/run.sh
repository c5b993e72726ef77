#!/usr/bin/env bash
# Runs schemathesis (`st`, 4.x) with every check against a fresh `extract-between serve`,
# once without and once with a bearer token, the two side by side (each prints when done).
# Usage: run.sh [path/to/extract-between]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "${1:-$here/../../../../target/debug/extract-between}")"
st="${ST:-st}"
max_time="${SCHEMATHESIS_SECONDS:-60}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# name, then serve's extra arguments; st's extra arguments come from the array `st_extra`.
run() {
  local name=$1
  shift
  "$bin" serve --listen 127.0.0.1:0 --drain-seconds 0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  for _ in $(seq 100); do grep -q listening "$work/$name.out" && break; sleep 0.1; done
  local url status=0
  url=$(sed -n 's/^listening on //p' "$work/$name.out")
  echo "== schemathesis ($name) against $url"
  (cd "$here" && "$st" run "$url/openapi.json" --checks all --max-time "$max_time" \
    --suppress-health-check too_slow "${st_extra[@]}") || status=$?
  kill "$pid"
  wait "$pid" || true
  return "$status"
}

st_extra=()
run open >"$work/open.log" 2>&1 &
open=$!
echo "st-token" >"$work/tokens"
st_extra=(-H "Authorization: Bearer st-token")
run tokens --auth-token-file "$work/tokens" >"$work/tokens.log" 2>&1 &
tokens=$!

failed=0
for name in open tokens; do
  wait "${!name}" || failed=1
  cat "$work/$name.log"
done
exit "$failed"
