// Dynamo's graphs call torch's Python API, not aten ops: `dynamo_output_graph` (what a torch.compile backend such
// as DeepSpeed's AutoSP receives) prints `torch._C._nn.linear(h, w, None)`,
// `torch.nn.functional.embedding(ids, w, None, None, 2.0, False, False)` and Tensor methods `x.view(2, s38, 4, 8)`,
// `x.transpose(1, 2)`. The FX reader reads each call this table knows as the aten op it runs, its arguments put in
// the aten schema's order, so the sharding rules, the shape rules and the runner see one vocabulary. A call the
// table does not know keeps its torch name (`torch.nn.functional.gelu`, `torch.Tensor.float`): the checker then
// says it is unchecked and the runner refuses it. Nothing is guessed: a known call whose arguments the aten op
// cannot express (embedding's max_norm renormalises the weight in place; cross_entropy's legacy size_average)
// keeps its torch name too.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/graph.h"

namespace ss::fx {

struct AtenCall {
  std::string op;  // "aten.linear.default"
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
};

using Kwargs = std::vector<std::pair<std::string, Arg>>;

// `torch.nn.functional.embedding(...)`, `torch._C._nn.linear(...)`: the callee as printed (without "torch.ops."),
// and its arguments as read. nullopt when the table has no such function or the arguments do not fit the aten op.
std::optional<AtenCall> atenForTorchFunction(std::string_view callee, const std::vector<Arg>& args, const Kwargs& kwargs);

// `x.view(2, s, 4, 8)`: the method's name, the receiver, and the arguments after it. nullopt as above.
std::optional<AtenCall> atenForTensorMethod(std::string_view method, const Arg& self, const std::vector<Arg>& args,
                                            const Kwargs& kwargs);

// The name a Tensor method the table does not know keeps: "torch.Tensor.<method>".
std::string tensorMethodName(std::string_view method);

}  // namespace ss::fx
