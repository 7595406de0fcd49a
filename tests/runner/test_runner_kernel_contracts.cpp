// The kernels the op campaign (fuzz/op_campaign.cpp) and the second red-team pass broke, each run through `shardscope
// run` with a plan built to crash the runner or to return heap contents as the loss: every one ends refused (exit 2)
// or failed at its node (exit 3) with a message naming the op and the argument, never a verdict and never a signal.
// And the writes LibTorch 1.13's schemas hide (core/ops/hidden_writes.h): the runner treats them as in-place.
// ATen first: its glog CHECK macro must not replace Catch's.
#include "runner/torch_internal.h"
#undef CHECK
#include <catch2/catch.hpp>

#include "core/ops/hidden_writes.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

struct Broken {
  const char* what;
  std::string text;
  int exitCode;
  std::string message;  // a line of the run's output: the op and the argument
};

}  // namespace

TEST_CASE("kernels the campaign broke get plans built to crash or leak: failed at the node naming the argument",
          "[runner][safety][hostile][campaign]") {
  TempDir dir("contract-test");
  const std::vector<Broken> plans = {
      {"repeat_interleave with output_size and a negative repeat (a heap write: realloc(): invalid pointer)",
       graph("primals_1: \"f32[4]\"",
             "        full: \"i64[2]\" = torch.ops.aten.full.default([2], -3, dtype = torch.int64)\n"
             "        ri: \"i64[4]\" = torch.ops.aten.repeat_interleave.Tensor(full, output_size = 4)\n"
             "        conv: \"f32[4]\" = torch.ops.aten._to_copy.default(ri, dtype = torch.float32)\n"
             "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(conv, primals_1)\n",
             "mul"),
       3, "aten::repeat_interleave: repeats holds -3; a repeat cannot be negative"},
      {"repeat_interleave with an output_size short of the repeats",
       graph("primals_1: \"f32[4]\"",
             "        full: \"i64[2]\" = torch.ops.aten.full.default([2], 1000, dtype = torch.int64)\n"
             "        ri: \"i64[4]\" = torch.ops.aten.repeat_interleave.Tensor(full, output_size = 4)\n"
             "        conv: \"f32[4]\" = torch.ops.aten._to_copy.default(ri, dtype = torch.float32)\n"
             "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(conv, primals_1)\n",
             "mul"),
       3, "aten::repeat_interleave: output_size is 4 but the repeats give 2000"},
      {"rrelu_with_noise with a short noise tensor (writes one noise value per element)",
       graph("primals_1: \"f32[64]\"",
             "        noise: \"f32[1]\" = torch.ops.aten.ones.default([1], dtype = torch.float32)\n"
             "        rr: \"f32[64]\" = torch.ops.aten.rrelu_with_noise.default(primals_1, noise, 0.1, 0.3, True)\n",
             "rr"),
       3, "aten::rrelu_with_noise: noise is [1] but self is [64]"},
      {"_embedding_bag with include_last_offset and an offset past the indices",
       graph("primals_1: \"f32[10, 4]\"",
             "        idx: \"i64[3]\" = torch.ops.aten.full.default([3], 1, dtype = torch.int64)\n"
             "        off: \"i64[2]\" = torch.ops.aten.arange.start_step(0, 200, 100, dtype = torch.int64)\n"
             "        eb = torch.ops.aten._embedding_bag.default(primals_1, idx, off, False, 0, False, None, True)\n"
             "        getitem: \"f32[1, 4]\" = eb[0]\n",
             "getitem"),
       3, "aten::_embedding_bag: offsets holds 100, outside indices [0, 3]"},
      {"native_batch_norm with short running stats",
       graph("primals_1: \"f32[4, 64]\"",
             "        rm: \"f32[2]\" = torch.ops.aten.zeros.default([2], dtype = torch.float32)\n"
             "        rv: \"f32[2]\" = torch.ops.aten.ones.default([2], dtype = torch.float32)\n"
             "        bn = torch.ops.aten.native_batch_norm.default(primals_1, None, None, rm, rv, False, 0.1, 1e-05)\n"
             "        getitem: \"f32[4, 64]\" = bn[0]\n",
             "getitem"),
       3, "aten::native_batch_norm: running_mean has 2 elements, one per channel needs 64"},
      {"linalg_ldl_solve with forged pivots",
       graph("primals_1: \"f32[3, 3]\", primals_2: \"f32[3, 1]\"",
             "        piv: \"i32[3]\" = torch.ops.aten.full.default([3], 100000, dtype = torch.int32)\n"
             "        sol: \"f32[3, 1]\" = torch.ops.aten.linalg_ldl_solve.default(primals_1, piv, primals_2)\n",
             "sol"),
       3, "aten::linalg_ldl_solve: pivots holds 100000 at 0: not a row in [1, 3]"},
      {"ctc_loss with targets past the classes",
       graph("primals_1: \"f32[5, 1, 4]\"",
             "        tg: \"i64[1, 3]\" = torch.ops.aten.full.default([1, 3], 100000, dtype = torch.int64)\n"
             "        ctc: \"f32[]\" = torch.ops.aten.ctc_loss.IntList(primals_1, tg, [5], [3])\n",
             "ctc"),
       3, "aten::ctc_loss: targets holds 100000, outside the classes [0, 4)"},
      {"ctc_loss with target lengths past the targets",
       graph("primals_1: \"f32[5, 1, 4]\"",
             "        tg: \"i64[1, 3]\" = torch.ops.aten.full.default([1, 3], 1, dtype = torch.int64)\n"
             "        ctc: \"f32[]\" = torch.ops.aten.ctc_loss.IntList(primals_1, tg, [5], [3000])\n",
             "ctc"),
       3, "aten::ctc_loss: target_lengths holds 3000, more than targets has (3)"},
      {"_fft_c2r with a last_dim_size past its input",
       graph("primals_1: \"f32[4, 2]\"",
             "        vc: \"c64[4]\" = torch.ops.aten.view_as_complex.default(primals_1)\n"
             "        fft: \"f32[100000]\" = torch.ops.aten._fft_c2r.default(vc, [0], 0, 100000)\n",
             "fft"),
       3, "aten::_fft_c2r: last_dim_size 100000 needs 50001 values along dim 0, which has 4"},
      {"_cdist_backward with a short grad and cdist",
       graph("primals_1: \"f32[4, 3]\", primals_2: \"f32[5, 3]\"",
             "        g: \"f32[1, 1]\" = torch.ops.aten.ones.default([1, 1], dtype = torch.float32)\n"
             "        cb: \"f32[4, 3]\" = torch.ops.aten._cdist_backward.default(g, primals_1, primals_2, 2.0, g)\n",
             "cb"),
       3, "aten::_cdist_backward: grad is [1, 1], not the distances' [4, 5]"},
      {"_pdist_backward with a short grad and pdist",
       graph("primals_1: \"f32[5, 3]\"",
             "        g: \"f32[1]\" = torch.ops.aten.ones.default([1], dtype = torch.float32)\n"
             "        pb: \"f32[5, 3]\" = torch.ops.aten._pdist_backward.default(g, primals_1, 2.0, g)\n",
             "pb"),
       3, "aten::_pdist_backward: grad is [1], not the 10 distances of self's rows"},
      {"grid_sampler_2d_backward with a short grad_output (heap read as the loss)",
       graph("primals_1: \"f32[1, 1, 4, 4]\", primals_2: \"f32[1, 8, 8, 2]\"",
             "        g: \"f32[1, 1, 1, 1]\" = torch.ops.aten.ones.default([1, 1, 1, 1], dtype = torch.float32)\n"
             "        gsb = torch.ops.aten.grid_sampler_2d_backward.default(g, primals_1, primals_2, 0, 0, False, "
             "[True, True])\n"
             "        getitem: \"f32[1, 8, 8, 2]\" = gsb[1]\n",
             "getitem"),
       3, "aten::grid_sampler_2d_backward: grad_output is [1, 1, 1, 1], not the forward's [1, 1, 8, 8]"},
      {"grid_sampler_3d_backward with a short grad_output (heap read as the loss)",
       graph("primals_1: \"f32[1, 1, 4, 4, 4]\", primals_2: \"f32[1, 4, 4, 4, 3]\"",
             "        g: \"f32[1, 1, 1, 1, 1]\" = torch.ops.aten.ones.default([1, 1, 1, 1, 1], dtype = torch.float32)\n"
             "        gsb = torch.ops.aten.grid_sampler_3d_backward.default(g, primals_1, primals_2, 0, 0, False, "
             "[True, True])\n"
             "        getitem: \"f32[1, 4, 4, 4, 3]\" = gsb[1]\n",
             "getitem"),
       3, "aten::grid_sampler_3d_backward: grad_output is [1, 1, 1, 1, 1], not the forward's [1, 1, 4, 4, 4]"},
      {"_masked_softmax_backward with a short output (heap read as the loss)",
       graph("primals_1: \"f32[64, 64]\"",
             "        out: \"f32[2]\" = torch.ops.aten.ones.default([2], dtype = torch.float32)\n"
             "        mask: \"b8[64, 64]\" = torch.ops.aten.zeros.default([64, 64], dtype = torch.bool)\n"
             "        msb: \"f32[64, 64]\" = torch.ops.aten._masked_softmax_backward.default(primals_1, out, mask, 1)\n",
             "msb"),
       3, "aten::_masked_softmax_backward: output is [2] but grad_output is [64, 64]"},
  };
  for (const Broken& b : plans) {
    INFO(b.what);
    const std::string file = dir.file("broken.py");
    writeBytes(file, b.text);
    CliResult run = runCli("run '" + file + "' --no-localise");
    INFO(run.output);
    CHECK(run.exitCode == b.exitCode);
    CHECK(contains(run.output, b.message));
    CHECK_FALSE(contains(run.output, "verdict: match"));
    CHECK_FALSE(contains(run.output, "verdict: mismatch"));
    CHECK_FALSE(contains(run.output, "signal"));
  }
}

TEST_CASE("native_batch_norm(training=True) writes its running stats without a `!`: each run has its own copy",
          "[runner][safety][hostile][campaign]") {
  // The schema hides the write; core's table names it (arguments 3 and 4), so the executor counts the node as an
  // in-place writer, as it counts `add_`.
  const ops::HiddenWrite* bn = ops::hiddenWriteOf("aten::native_batch_norm");
  REQUIRE(bn);
  CHECK(std::vector<int>(bn->arguments.begin(), bn->arguments.end()) == std::vector<int>{3, 4});
  CHECK(ops::hiddenWriteOf("aten::native_layer_norm") == nullptr);

  TempDir dir("contract-test");
  // The loss reads the running mean after the update: a write that crossed from the reference into the ranks (or
  // between ranks) would change the sharded loss (before the table: batch 0 reference -0.2795, sharded -0.5180,
  // "verdict: mismatch").
  const std::string file = dir.file("bn_train.py");
  writeBytes(file, graph("primals_1: \"f32[8, 3]\", primals_2: \"f32[3]\", primals_3: \"f32[3]\"",
                         "        bn = torch.ops.aten.native_batch_norm.default(primals_1, None, None, primals_2, "
                         "primals_3, True, 0.5, 1e-05)\n"
                         "        getitem: \"f32[8, 3]\" = bn[0]\n"
                         "        sum_0: \"f32[]\" = torch.ops.aten.sum.default(getitem)\n"
                         "        sum_2: \"f32[]\" = torch.ops.aten.sum.default(primals_2)\n"
                         "        add: \"f32[]\" = torch.ops.aten.add.Tensor(sum_0, sum_2)\n",
                         "add"));
  const Plan plan = loadOrFail(file);
  const std::vector<bool> writers = runner::inPlaceWriters(plan);
  const int node = plan.graph.find("bn");
  REQUIRE(node >= 0);
  CHECK(writers[node]);
  CliResult run = runCli("run '" + file + "' --batches 2 --no-grad");
  INFO(run.output);
  CHECK(run.exitCode == 0);
  CHECK(contains(run.output, "verdict: match"));
}
