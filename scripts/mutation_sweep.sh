#!/usr/bin/env bash
# Every mutant of every committed corpus log (tests/core/applied_mutants.h: drop / regroup / redim /
# drop-all-reduce at every place each applies), checked as `shardscope check LOG` reads it; prints the per-class
# table (mutants, caught at the damaged node, error elsewhere only, missed). CI runs a sample of each class
# ("[mutants]"); this runs them all. Needs a build (scripts/test.sh or cmake --build build --target
# shardscope_core_tests).
#
#   scripts/mutation_sweep.sh [BUILD_DIR]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build}"
"$build/tests/shardscope_core_tests" "[.mutants-full]" 2>&1 | tail -n 40
