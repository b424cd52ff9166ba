#!/usr/bin/env bash
# Runs the whole suite on both legs, whatever the first one does, then says how each went.
#   leg 1, embedded:        SQLite files, limits in process memory (the defaults `make serve` uses)
#   leg 2, postgres-redis:  every test server on its own PostgreSQL database and Redis key prefix
# Arguments are passed to pytest. Exits non-zero when either leg failed.
set -uo pipefail
cd "$(dirname "$0")/.."
UV=.cache/uv-0.13.9/bin/uv

run_leg() {
  local name=$1 started=$SECONDS
  shift
  echo "== test leg: $name"
  "$@"
  local status=$?
  LEG_SUMMARY+=("$(printf '%-15s %s in %d s' "$name" "$([ $status -eq 0 ] && echo passed || echo "FAILED (exit $status)")" $((SECONDS - started)))")
  return $status
}

LEG_SUMMARY=()
failed=0
run_leg embedded "$UV" run pytest "$@" || failed=1
run_leg postgres-redis env GARAGE_TOOLS_TEST_STACK=postgres-redis "$UV" run pytest "$@" || failed=1
echo "== test legs"
printf '%s\n' "${LEG_SUMMARY[@]}"
exit $failed
