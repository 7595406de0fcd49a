// The applied graph checked against its plan (core/applied/): seed 1 from its TORCH_TRACE log, group mapping,
// node matching, unplanned collectives, local shapes, an applied graph alone, the export-only variants.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include "test_data.h"
#include "trace_cases.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"

using namespace ss;

using ss::test::kSeed1Error;
using ss::test::kTl;
using ss::test::trace;

namespace {


}  // namespace

TEST_CASE("seed 1's log: the planned all-to-all before index_put is not applied", "[applied][cli]") {
  auto r = test::runCli("check " + trace("seed1_missing.log"));
  CHECK(r.code == 1);
  CHECK(r.out.rfind("applied graph on rank 0 (0, 0): 26 of 26 plan nodes matched, 3 collectives, 3 of 4 planned "
                    "transitions found; group '1' -> mesh dim 0 (dim0) (size); group '2' -> mesh dim 1 (dim1) (size)\n", 0) == 0);
  CHECK(r.out.find(kSeed1Error) != std::string::npos);
  CHECK(r.out.find("1 error, 0 warnings, 4 infos") != std::string::npos);
  // With the collective present: clean.
  auto ok = test::runCli("check " + trace("seed1_applied.log"));
  CHECK(ok.code == 0);
  CHECK(ok.out.find("4 of 4 planned transitions found") != std::string::npos);
  CHECK(ok.out.find("0 errors, 0 warnings, 4 infos") != std::string::npos);
  // The same artifacts as separate files.
  auto sep = test::runCli("check " + trace(kTl + "autoparallel_joint_graph.txt") + " --solution " +
                          trace(kTl + "autoparallel_solution.json") + " --applied " + trace(kTl + "autoparallel_parallel_graph.txt"));
  CHECK(sep.code == 1);
  CHECK(sep.out.find(kSeed1Error) != std::string::npos);
  // The optimizer log with the applied graph: the mesh comes from the collectives.
  auto opt = test::runCli("check " + trace(kTl + "autoparallel_sharding_optimizer_log.txt") + " --applied " +
                          trace(kTl + "autoparallel_parallel_graph.txt"));
  CHECK(opt.code == 1);
  CHECK(opt.out.find("[transition-not-applied]") != std::string::npos);
}

TEST_CASE("an applied graph alone opens with its mesh inferred or given, collectives costed", "[applied][cli]") {
  auto r = test::runCli("check " + trace("seed1_applied_only.txt"));
  CHECK(r.code == 0);
  CHECK(r.out ==
        "applied graph alone: 35 nodes, mesh 2x4 (inferred from its collectives), 4 collectives\n"
        "  all_gather on mesh dim 0 (dim0): 1 x, 9.1 MiB per rank, 66.8 us\n"
        "  all_reduce on mesh dim 1 (dim1): 1 x, 124.9 MiB per rank, 891.1 us\n"
        "  all_to_all on mesh dim 1 (dim1): 2 x, 3.4 MiB per rank, 41.6 us\n"
        "0 errors, 0 warnings, 0 infos\n"
        "30 of 30 op nodes checked by a sharding rule\n");
  auto named = test::runCli("check " + trace("seed1_applied_only.txt") + " --mesh 2x4 --names dp,tp");
  CHECK(named.code == 0);
  CHECK(named.out.find("  all_to_all on mesh dim 1 (tp): 2 x") != std::string::npos);
  auto bad = test::runCli("check " + trace("seed1_applied_only.txt") + " --group x");
  CHECK(bad.code == 2);
  CHECK(bad.out == "shardscope check: --group expects NAME=MESHDIM (e.g. --group 1=0), got 'x'\n");
}

TEST_CASE("an export alone: index_put's inputs by schema (self, indices, values)", "[applied][rules][cli]") {
  // values RS(1) into self RS(0), no transition planned: an error at index_put naming both local shapes.
  auto bad = test::runCli("check " + trace("falcon_export_no_transition.autoparallel.json"));
  CHECK(bad.code == 1);
  CHECK(bad.out.find("error: index_put (input 2) [incompatible-inputs]: index_put cannot write values into self as they "
                     "arrive: values are RS(1) and self is RS(0); on rank 0 values have local shape [16, 32, 1, 64] but the "
                     "slots they fill in self have [4, 128, 1, 64], which cannot broadcast") != std::string::npos);
  // The transition planned: an info.
  auto planned = test::runCli("check " + test::ioData("falcon_mqa_joint.autoparallel.json"));
  CHECK(planned.code == 0);
  CHECK(planned.out.find("info: index_put (input 2) [redistribute-required]") != std::string::npos);
}
