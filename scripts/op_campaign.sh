#!/usr/bin/env bash
# The op campaign (fuzz/op_campaign.cpp), whole: every overload the runner's allow-list admits, driven through the
# runner's executor with CASES adversarial cases each under guard-page allocation (docs/runner.md, Safety).
#   scripts/op_campaign.sh [CASES] [SEED] [-- extra op_campaign flags, e.g. --ops native_batch_norm,ctc_loss]
# Builds build/runner/op_campaign, writes the per-overload log to build/op_campaign.log, exits 1 on any finding.
# A finding's case replays in one process (for valgrind's memcheck):
#   valgrind build/runner/op_campaign --repro aten.OP.OVERLOAD CASE --seed SEED
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$PWD")}
cases=${1:-200}
seed=${2:-1}
shift $(( $# < 2 ? $# : 2 ))
[[ ${1:-} == -- ]] && shift
cmake --build build -j2 --target op_campaign
exec build/runner/op_campaign --cases "$cases" --seed "$seed" --jobs "$(nproc)" --log build/op_campaign.log "$@"
