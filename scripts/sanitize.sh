#!/usr/bin/env bash
# Builds core + CLI + core and CLI tests with AddressSanitizer and UndefinedBehaviorSanitizer (-DSHARDSCOPE_SANITIZE=ON)
# into build-asan and runs them: the Catch2 core tests, the CLI tests (which run the CLI as a process) and the CLI on
# every sample and test-data file. Any sanitizer report fails the run (exit 1).
#   scripts/sanitize.sh            Env: BUILD_DIR (build-asan), JOBS (2), CXX (compiler, default c++)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
if [[ ! -f $BUILD/build.ninja ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDSCOPE_SANITIZE=ON \
    -DSHARDSCOPE_WITH_TORCH=OFF -DSHARDSCOPE_WITH_GUI=OFF >/dev/null
fi
ninja -C "$BUILD" -j "$JOBS" shardscope shardscope_core_tests shardscope_cli_tests

# A sanitizer finding exits 86, apart from the CLI's own codes 0-3.
export ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
failed=0
echo "== core tests under ASan+UBSan"
"$BUILD/tests/shardscope_core_tests" || failed=1
echo "== CLI tests (the binary run as a process) under ASan+UBSan"
"$BUILD/tests/shardscope_cli_tests" || failed=1

echo "== CLI on every sample and test file under ASan+UBSan"
while IFS= read -r f; do
  set +e
  "$BUILD/app/shardscope" check "$f" > /dev/null 2> "$BUILD/sanitize-last.err"
  rc=$?
  set -e
  if [[ $rc -gt 3 ]]; then
    echo "shardscope check $f: exit $rc" >&2
    head -20 "$BUILD/sanitize-last.err" >&2
    failed=1
  fi
done < <(find samples tests/data -type f \( -name '*.json' -o -name '*.py' -o -name '*.txt' \) 2>/dev/null | sort)
[[ $failed -eq 0 ]] && echo "sanitize: all clean"
exit $failed
