#pragma once
// What an op's kernel assumes and LibTorch does not check, checked before the runner dispatches it; and which
// arguments an op writes, read from its schema. Included by runner/*.cpp only (c10 types).
//
// Contract:
// - writtenArguments: the schema's arguments annotated as written (`Tensor(a!) self`, `Tensor(a!) out`), whatever
//   the op's name says (`mul.out(w, 2, out=w)` writes w as surely as `mul_`), and the arguments core's table of
//   writes the schema hides names (core/ops/hidden_writes.h: native_batch_norm's running stats).
// - checkOpContract throws std::runtime_error (one line naming the op and the argument) when `stack` (the boxed
//   arguments, schema order, defaults filled) breaks an assumption a CPU kernel of LibTorch trusts without a check,
//   so that a plan's forged values end as an error at its node (exit 3) instead of reads or writes outside the
//   tensors:
//   * index values that address an input: max_pool2d/3d_with_indices_backward and adaptive_max_pool2d/3d_backward
//     (`indices` within the input's pooled plane), searchsorted (`sorter` within the sorted dim),
//     embedding_dense_backward / embedding_backward (`indices` within num_weights);
//   * sizes that the kernel reads through: native_layer_norm_backward (mean and rstd hold one value per row,
//     weight and bias one per normalised element), native_batch_norm_backward (per-channel tensors of C),
//     native_group_norm_backward (N * C * HxW is the input, mean and rstd N * group);
//   * the masked unchecked index ops (_unsafe_masked_index, _unsafe_masked_index_put_accumulate, a newer
//     LibTorch's): every index where the mask holds inside its dim of self;
//   * views over storage: _reshape_alias, as_strided, as_strided_copy and as_strided_scatter stay inside their
//     input's storage (LibTorch 1.13's _reshape_alias checks nothing);
//   * what the op campaign (fuzz/op_campaign.cpp) broke: repeat_interleave's output_size, rrelu_with_noise's noise,
//     the embedding bags' offsets and indices, batch norm's per-channel tensors, linalg_ldl_solve's pivots,
//     ctc_loss's lengths and targets, the FFTs' dims and sizes, the cdist / pdist / grid-sampler / masked-softmax /
//     (log-)softmax / adaptive-pool backwards' gradient shapes, binary_cross_entropy's target and weight,
//     _local_scalar_dense's one element, resize growth past the storage (docs/runner.md lists each);
//   * for every op: enum arguments given as integers name a value of their enum, a reduction is 0-2, no
//     pin_memory=True, a written tensor does not overlap itself, an out= argument shares no memory with the op's
//     other tensors.
// - clearUninitialised, called on the stack right after the kernel: the ops that hand out memory they never wrote
//   (empty, empty_like, new_empty, empty_strided, new_empty_strided) return zeros, so no heap contents of the runner
//   become a value (the op campaign found each: its two runs with different fresh memory differed).
// - Ops whose kernels trust more than that are not on the allow-list (core/ops/op_safety.cpp says which and why).
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

namespace ss::runner {

std::vector<bool> writtenArguments(const c10::FunctionSchema& schema);
bool writesAnArgument(const c10::FunctionSchema& schema);

void checkOpContract(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& stack);
void clearUninitialised(const c10::FunctionSchema& schema, std::vector<c10::IValue>& stack);

// For the op campaign's baseline only (`op_campaign --no-contracts`, in its own process): checkOpContract checks
// nothing from now on, so that the campaign shows what the contracts stop. Nothing else calls it.
void disableOpContractsForBaseline();

}  // namespace ss::runner
