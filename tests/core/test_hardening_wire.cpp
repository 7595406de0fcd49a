// Hardening (issue 43, "the runner's own code"): what a peer sends is data. The shape exchange's record
// (core/run/shape_record.h) used to be read as [ndim, sizes...] with ndim trusted: a peer sending 1000 made the
// runner read 1000 values from a 17-value buffer.
#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "core/run/shape_record.h"

using namespace ss;

TEST_CASE("shape records: written and read back; a lying record is refused with what it claimed", "[hardening][wire]") {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {0}, {4, 128, 1, 64}, std::vector<int64_t>(16, 3)}) {
    const std::vector<int64_t> rec = writeShapeRecord(shape);
    REQUIRE(rec.size() == 17);
    auto back = readShapeRecord(rec.data(), static_cast<int64_t>(rec.size()));
    REQUIRE(back.ok());
    CHECK(*back == shape);
  }
  std::vector<int64_t> rec = writeShapeRecord({4, 8});
  rec[0] = 1000;
  CHECK(readShapeRecord(rec.data(), 17).error().message == "a dim count of 1000 (at most 16)");
  rec[0] = -1;
  CHECK(readShapeRecord(rec.data(), 17).error().message == "a dim count of -1 (at most 16)");
  rec[0] = std::numeric_limits<int64_t>::min();
  CHECK_FALSE(readShapeRecord(rec.data(), 17).ok());
  rec[0] = 2;
  rec[2] = -8;
  CHECK(readShapeRecord(rec.data(), 17).error().message == "a negative size -8");
  CHECK(readShapeRecord(rec.data(), 5).error().message == "a record of 5 values (expected 17)");
}
