#!/usr/bin/env bash
# Runs every example of the standalone build at the tiny size given in examples/examples-tiny.txt
# (the sizes the in-tree checks use), each in a scratch folder, and reports each run's time.
# Usage: utils/run-examples-tiny.sh [BUILD_DIR]   (default: build; build it first)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fl-examples-tiny.XXXXXX")
status=0
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # the arguments are words
  if (cd "$work" && "$build/examples/$name" $args > "$work/$name.log" 2>&1); then
    result=ok
  else
    result="FAILED (log: $work/$name.log)"
    status=1
  fi
  printf '%-22s %6.1f s  %s\n' "$name" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" "$result"
done < "$here/examples/examples-tiny.txt"
exit $status
