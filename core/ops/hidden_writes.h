#pragma once
// Writes a LibTorch 1.13 schema does not declare: ops whose kernels update an argument in place although the
// argument carries no `!` (`Tensor(a!)`). The one table of them, with the argument indices (schema order).
//
// Contract: the runner treats an argument listed here exactly as one its schema marks written
// (runner/op_contracts.h writtenArguments): a plan holding such an op runs with its own copy of the placeholders
// for the reference and for each rank, and replica deduplication is off, so that no write crosses between the
// reference and the ranks. An entry is listed whatever its other arguments (native_batch_norm writes its running
// stats only when training=True and they are given): treating an argument as written when it is not costs a copy,
// the other way round a wrong verdict. How the entries were found: the op campaign (fuzz/op_campaign.cpp) compares
// every input before and after each call; docs/runner.md (Safety) has its log.
#include <span>
#include <string_view>

namespace ss::ops {

struct HiddenWrite {
  std::string_view op;         // the schema's name without namespace ("native_batch_norm"); every overload
  std::span<const int> arguments;  // schema indices of the written arguments
  std::string_view what;       // what the kernel writes there, for people
};

// Every listed op, sorted by name.
std::span<const HiddenWrite> hiddenWrites();
// The entry for an aten op's schema name ("aten::native_batch_norm" or "native_batch_norm"); nullptr when none.
const HiddenWrite* hiddenWriteOf(std::string_view schemaName);

}  // namespace ss::ops
