#!/usr/bin/env python3
"""Writes the AutoSP samples (the second bug of README.md, "The two bugs it was built for"): a small causal
attention model (embedding, q/k/v/o projections, Ulysses all-to-alls around scaled-dot-product attention, a
residual, an LM head, cross-entropy) on 2 ranks with sequence-parallel size 2.

- autosp_seq_first.plan.json: inputs [seq, batch] tagged with bare keys. AutoSP slices dimension 1 of a bare
  key's input, so the batch is sharded while the plan's specs shard the sequence: attention then runs over the
  wrong tokens and the loss differs from the single-device one, with no error.
- autosp_seq_first_fixed.plan.json: the same with tags (key, 0): the sequence is sharded, losses match.
- autosp_batch_first.plan.json: inputs [batch, seq] with bare keys (dimension 1 = the sequence): right either
  way (bare or (key, 1)).

No torch needed. Run from anywhere: python3 samples/gen/autosp.py
"""
from planlib import PlanBuilder, t

S, B, V, E, H, D = 16, 2, 32, 16, 4, 4  # sequence, batch, vocabulary, hidden = heads x head dim


def autosp_builder(name, description):
    return PlanBuilder(name, description, [2], ["sp"],
                       {"seed": 2, "loss": "loss", "batches": 3, "rtol": 1e-4, "sp_size": 2})


def model(b, seq_first, tag_dim):
    """Builds the graph. seq_first: inputs [S, B] (else [B, S]); tag_dim: None for bare keys, else the seq_dim."""
    sd = 0 if seq_first else 1                      # the sequence dim of [.., ..] inputs and activations
    tok = [S, B] if seq_first else [B, S]
    act = tok + [E]
    heads = tok + [H, D]
    seq = f"S({sd})"
    to_bhsd = [1, 2, 0, 3] if seq_first else [0, 2, 1, 3]   # -> [B, H, S, D]
    from_bhsd = [2, 0, 1, 3] if seq_first else [0, 2, 1, 3]  # [B, H, S, D] -> tok + [H, D]

    def tag(key):
        return key if tag_dim is None else {"key": key, "seq_dim": tag_dim}

    b.placeholder("input_ids", tok, seq, "input", "i64", tag("input_id"))
    b.placeholder("labels", tok, seq, "input", "i64", tag("label_id"))
    b.placeholder("wte", [V, E], "R", "param")
    for w in ("wq", "wk", "wv", "wo"):
        b.placeholder(w, [E, E], "R", "param")
    b.placeholder("lm_head", [V, E], "R", "param")

    b.call("embed", "aten.embedding.default", [t("wte"), t("input_ids")], [act], [seq], module="wte")
    for x in ("q", "k", "v"):
        b.call(f"{x}_proj", "aten.linear.default", [t("embed"), t(f"w{x}")], [act], [seq], module=f"attn.{x}_proj")
        b.call(f"{x}_heads", "aten.view.default", [t(f"{x}_proj"), heads], [heads], [seq])
        b.call(f"{x}_bhsd", "aten.permute.default", [t(f"{x}_heads"), to_bhsd], [[B, H, S, D]], ["S(2)"])
    # Ulysses: all-to-all from sequence-sharded to head-sharded before attention, and back after it.
    b.call("attn", "aten.scaled_dot_product_attention.default", [t("q_bhsd"), t("k_bhsd"), t("v_bhsd")],
           [[B, H, S, D]], ["S(1)"], input_specs=["S(1)", "S(1)", "S(1)"], kwargs={"is_causal": True},
           module="attn")
    for i in range(3):
        b.redistribute("attn", i, "S(2)", "S(1)")
    b.call("attn_tok", "aten.permute.default", [t("attn"), from_bhsd], [heads], [seq], input_specs=["S(2)"])
    b.redistribute("attn_tok", 0, "S(1)", "S(2)")
    b.call("attn_flat", "aten.reshape.default", [t("attn_tok"), act], [act], [seq])
    b.call("o_proj", "aten.linear.default", [t("attn_flat"), t("wo")], [act], [seq], module="attn.o_proj")
    b.call("resid", "aten.add.Tensor", [t("embed"), t("o_proj")], [act], [seq])
    b.call("logits", "aten.linear.default", [t("resid"), t("lm_head")], [tok + [V]], [seq], module="lm_head")
    # Flattening [S, B] keeps the sequence shards contiguous (Shard(0)); a batch-first model goes sequence-first
    # first, since flattening [B, S] would interleave them.
    logits, labels = "logits", "labels"
    if not seq_first:
        b.call("logits_sb", "aten.permute.default", [t("logits"), [1, 0, 2]], [[S, B, V]], ["S(0)"])
        b.call("labels_sb", "aten.permute.default", [t("labels"), [1, 0]], [[S, B]], ["S(0)"], dtype="i64")
        logits, labels = "logits_sb", "labels_sb"
    b.call("logits_flat", "aten.reshape.default", [t(logits), [S * B, V]], [[S * B, V]], ["S(0)"])
    b.call("labels_flat", "aten.reshape.default", [t(labels), [S * B]], [[S * B]], ["S(0)"], dtype="i64")
    b.call("logp", "aten._log_softmax.default", [t("logits_flat"), 1, False], [[S * B, V]], ["S(0)"])
    # Each rank's loss is the mean over its own tokens: the global loss is their average, P(avg).
    b.call("nll", "aten.nll_loss_forward.default", [t("logp"), t("labels_flat"), None, 1, -100], [[], []],
           ["P(avg)", "P(avg)"])
    b.call("loss", "operator.getitem", [t("nll"), 0], [[]], ["P(avg)"])


def main():
    common = (f"Causal attention LM (S={S}, B={B}, vocab {V}, hidden {E} = {H} heads x {D}) on 2 ranks, "
              "sequence-parallel size 2, Ulysses all-to-alls around attention. ")
    b = autosp_builder("autosp_seq_first",
                    common + "Sequence-first inputs [seq, batch] tagged with bare keys: AutoSP slices dimension 1, "
                    "the batch, while every spec shards the sequence. The loss differs from the single-device "
                    "loss with no error. Fix: tag the inputs (key, 0).")
    model(b, seq_first=True, tag_dim=None)
    b.write("autosp_seq_first.plan.json")

    b = autosp_builder("autosp_seq_first_fixed",
                    common + "Sequence-first inputs [seq, batch] tagged (key, 0): AutoSP slices the sequence, as "
                    "the specs assume; every batch matches the single-device loss within 1e-4.")
    model(b, seq_first=True, tag_dim=0)
    b.write("autosp_seq_first_fixed.plan.json")

    b = autosp_builder("autosp_batch_first",
                    common + "Batch-first inputs [batch, seq] with bare keys: dimension 1 is the sequence, so "
                    "AutoSP's default is right; tags (key, 1) give the same run.")
    model(b, seq_first=False, tag_dim=None)
    b.write("autosp_batch_first.plan.json")


if __name__ == "__main__":
    main()
