// Shape inference on meta tensors (runner/infer_shapes.h): what core's plain rules leave unknown in a repro
// script, LibTorch's meta kernels size; what neither can is named with the reason.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "core/io/formats.h"
#include "runner/infer_shapes.h"

using namespace ss;

namespace {
std::string readData(const std::string& name) {
  std::ifstream f(std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/" + name);
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
const TensorMeta& out(const Plan& p, const std::string& name, int k = 0) {
  int i = p.graph.find(name);
  REQUIRE(i >= 0);
  return p.graph.nodes[i].outputs.at(k);
}
}  // namespace

TEST_CASE("meta tensors size the ops core's rules do not know", "[runner][io]") {
  FxReadReport rep;
  auto r = readFxText(readData("conv_block.repro.py"), &rep);
  REQUIRE(r.ok());
  Plan p = *r;
  CHECK(rep.uninferred == std::vector<std::string>{
                              "aten.avg_pool2d.default: 1 node (first avg_pool2d)",
                              "aten.convolution.default: 1 node (first convolution)",
                              "aten.max_pool2d_with_indices.default: 1 node (first max_pool2d_with_indices)",
                              "aten.relu.default: 1 node (first relu)",
                              "aten.sum.default: 1 node (first sum_1)",
                              "aten.topk.default: 1 node (first topk)",
                              "aten.upsample_nearest2d.default: 1 node (first upsample_nearest2d)",
                              "aten.view.default: 1 node (first view)",
                              "operator.getitem: 4 nodes (first getitem)"});
  runner::MetaInferReport m = runner::inferShapesOnMeta(p);
  CHECK(m.inferred == 10);
  CHECK(m.unresolved == std::vector<std::string>{
                            "aten.convolution.default: 2 nodes (first convolution: convolution_overrideable not implemented)"});
  CHECK(out(p, "avg_pool2d") == TensorMeta{{8, 3, 64, 64}, DType::F32, true});
  CHECK(out(p, "max_pool2d_with_indices", 1) == TensorMeta{{8, 3, 32, 32}, DType::I64, true});
  CHECK(out(p, "getitem_1") == TensorMeta{{8, 3, 32, 32}, DType::I64, true});
  CHECK(out(p, "view") == TensorMeta{{8, 12288}, DType::F32, true});
  CHECK(out(p, "getitem_3") == TensorMeta{{8, 5}, DType::I64, true});
  CHECK(out(p, "sum_1") == TensorMeta{{}, DType::F32, true});
  CHECK_FALSE(out(p, "relu").known);
}
