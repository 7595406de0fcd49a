#pragma once
// A generator of LLaMA-like joint forward+backward graphs, placed on a 2-D (dp x tp) mesh: test data and
// benchmark input the project makes itself (no Python, no Torch).
//
// Contract: deterministic (same options -> identical Plan). The graph is what AOTAutograd's joint graph of a
// LLaMA-2-style decoder looks like after aten decomposition: primals (params f32, inputs, rope buffers) then
// tangents_1; forward (embedding, N x [RMSNorm, q/k/v/o projections, rotary, efficient attention, SwiGLU FFN],
// final norm, output projection, log_softmax + nll_loss) then backward; output (loss, grads..., None...).
// Node names follow FX (`mm`, `mm_1`, `sum_1`, `primals_1`), op targets as FX prints them, args executable.
// Every node has output metas (real sizes), a phase, a module path (`layers.3.attention.wq`) and output specs;
// specs follow DTensor rules for FSDP on mesh dim 0 and Megatron TP on mesh dim 1 (column-parallel wq/wk/wv/w1/w3
// and output, row-parallel wo/w2). Every edge whose consumer needs another spec carries an input spec and an
// explicit Redistribute (FSDP all-gathers, TP all-reduces, grad reduce-scatters), so the plan checks clean.
// About 285 nodes per layer with recomputation (215 without): 32 layers give about 9.2k nodes.
#include <cstdint>

#include "core/model/plan.h"

namespace ss::gen {

struct LlamaOptions {
  int layers = 32;
  int64_t batch = 8;
  int64_t seq = 2048;
  int64_t hidden = 4096;
  int64_t heads = 32;
  int64_t ffnHidden = 11008;
  int64_t vocab = 32000;
  int64_t dp = 2;  // mesh dim 0 ("dp"): FSDP / data parallel
  int64_t tp = 4;  // mesh dim 1 ("tp"): tensor parallel
  // Full activation checkpointing: each layer's forward is recomputed at the start of its backward (phase
  // backward, ac region = layer index); the forward layer nodes carry the same ac region.
  bool recompute = true;

  // The same structure at small sizes (seq 64, hidden 256, 8 heads, ffn 512, vocab 1000): tests and demos that
  // need the real op mix and redistributes but not the real tensor sizes.
  static LlamaOptions small(int layers, int64_t batch = 4) {
    LlamaOptions o;
    o.layers = layers;
    o.batch = batch;
    o.seq = 64;
    o.hidden = 256;
    o.heads = 8;
    o.ffnHidden = 512;
    o.vocab = 1000;
    return o;
  }
};

// Throws std::invalid_argument when sizes do not divide as the layout needs (heads % tp, hidden % heads, ...).
Plan makeLlamaPlan(const LlamaOptions& opts = {});

}  // namespace ss::gen
