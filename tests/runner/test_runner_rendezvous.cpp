// The rendezvous in front of every collective: timeouts name the collective, failed members stop their groups
// only, cancel stops everyone.
#include <catch2/catch.hpp>

#include <thread>

#include "runner/rendezvous.h"

using namespace ss::runner;
using namespace std::chrono_literals;

TEST_CASE("a collective whose group never assembles times out with its name and the count", "[runner][rendezvous]") {
  Rendezvous rv;
  try {
    rv.arrive("md1[0,1]#0", {0, 1}, 100ms, "all_to_all on mesh dim 1 (node index_put input 2)");
    FAIL("no timeout");
  } catch (const CollectiveError& e) {
    CHECK(std::string(e.what()) ==
          "timed out after 0.1 s waiting for all_to_all on mesh dim 1 (node index_put input 2): 1 of 2 ranks arrived");
  }
}

TEST_CASE("all members arriving release each other", "[runner][rendezvous]") {
  Rendezvous rv;
  std::thread other([&] { rv.arrive("k#0", {0, 1}, 5000ms, "x"); });
  CHECK_NOTHROW(rv.arrive("k#0", {0, 1}, 5000ms, "x"));
  other.join();
}

TEST_CASE("a failed rank stops its groups only; abort stops every group", "[runner][rendezvous]") {
  Rendezvous rv;
  rv.fail(3);
  CHECK_THROWS_AS(rv.arrive("md0[2,3]#0", {2, 3}, 5000ms, "x"), RunStopped);
  std::thread other([&] { rv.arrive("md0[0,1]#0", {0, 1}, 5000ms, "x"); });
  CHECK_NOTHROW(rv.arrive("md0[0,1]#0", {0, 1}, 5000ms, "x"));  // ranks 0 and 1 are healthy
  other.join();
  rv.abort("cancelled");
  try {
    rv.arrive("md0[0,1]#1", {0, 1}, 5000ms, "x");
    FAIL("not stopped");
  } catch (const RunStopped& e) {
    CHECK(std::string(e.what()) == "stopped: cancelled");
  }
}
