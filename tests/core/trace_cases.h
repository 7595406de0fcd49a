#pragma once
// Shared by the applied-graph tests (tests/core) and their CLI half (tests/cli): the trace fixtures' folder, the
// separate artifacts of the tlparse-style folder, and seed 1's expected error as `check` prints it.
#include <string>

namespace ss::test {

inline std::string trace(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/trace/" + name; }
inline const std::string kTl = "seed1_tlparse/-_0_0_0/";
inline const std::string kSeed1Error =
    "error: index_put (input 2) [transition-not-applied]: the planned RS(1) -> RS(0) (all_to_all on mesh dim 1 (dim1), "
    "48.0 KiB per rank) is not in the applied graph: on rank 0 (0, 0) index_put input 2 (values) receives local "
    "[16, 32, 1, 64] where RS(0) needs [4, 128, 1, 64]\n"
    "  fix: the apply pass must insert all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us on the edge sum_1 -> index_put "
    "(input 2)\n"
    "  note: applied graph: 'index_put' reads 'sum_1' with no collective between them\n"
    "  note: missing: mesh dim 1 (dim1): all_to_all S(1) -> S(0), 48.0 KiB, 9.3 us\n";

}  // namespace ss::test
