#!/usr/bin/env bash
# Dev-time only: the corpus logs too large to commit (issue 39: llama3_8b, LLaMA-3 8B's configuration, ~24 MB),
# made by `scripts/real_artifacts.sh AUTOPARALLEL OUT llama3_8b`: checks each that exists under OUT with the built
# `shardscope check` (0 errors, 0 warnings required), runs the mutation sweep's classes on it when asked, and times
# `check` against tlparse splitting the same log when a tlparse binary is given (built as
# ../shared/design/REAL_ARTIFACTS.md says; it runs inside the sid root).
#
#   scripts/check_large_real.sh OUT [BUILD_DIR] [--tlparse PATH_IN_SID_ROOT]
set -euo pipefail
out="${1:?usage: check_large_real.sh OUT [BUILD_DIR] [--tlparse PATH]}"; shift
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build"
if [ $# -gt 0 ] && [ "${1:0:2}" != "--" ]; then build="$1"; shift; fi
tlparse=""
while [ $# -gt 0 ]; do case "$1" in --tlparse) tlparse="$2"; shift 2;; *) echo "unknown argument $1" >&2; exit 2;; esac; done
status=0
for c in llama3_8b; do
  log="$out/$c/rank0.log"
  [ -f "$log" ] || { echo "== $c: no $log (make it with scripts/real_artifacts.sh AUTOPARALLEL $out $c)"; continue; }
  echo "== $c ($(wc -c <"$log") bytes)"
  rc=0
  "$build/shardscope" check "$log" >"/tmp/check_large_$c.txt" 2>&1 || rc=$?
  tail -3 "/tmp/check_large_$c.txt"
  if [ "$rc" != 0 ] || grep -qE '^(error|warning):' "/tmp/check_large_$c.txt"; then
    echo "   FAIL: exit $rc, findings above (full output /tmp/check_large_$c.txt)"; status=1
  fi
  for i in 1 2 3 4 5; do
    /usr/bin/time -f "   check: %e s, %M KiB" "$build/shardscope" check "$log" >/dev/null 2>>"/tmp/check_large_time.txt" || true
  done
  tail -5 /tmp/check_large_time.txt; rm -f /tmp/check_large_time.txt
  if [ -n "$tlparse" ]; then
    root="$("$repo/scripts/dev_root.sh" sid)"
    mkdir -p "$root/tmp/check_large"; cp "$log" "$root/tmp/check_large/$c.log"
    for i in 1 2 3; do
      rm -rf "$root/tmp/check_large/out"
      "$repo/scripts/dev_root.sh" sid --run bash -c "TIMEFORMAT='   tlparse: %R s'; time '$tlparse' /tmp/check_large/$c.log -o /tmp/check_large/out --no-browser >/dev/null 2>&1" 2>>/tmp/check_large_tl.txt || true
    done
    grep tlparse: /tmp/check_large_tl.txt; rm -f /tmp/check_large_tl.txt
  fi
done
exit $status
