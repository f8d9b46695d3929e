"""Concat of reshaped pieces (concat_unmerged_pieces, docs/architecture.md "fusion"): pieces
merged by a copying Reshape and joined along the last axis (the q, k, v gradients of an attention
layer) are joined along a new axis from their own strides, and the result is reshaped as a view:
one copy of each element instead of two. Same numbers as the unfused plan, bitwise."""

import numpy as np

import glassgrad as gg
from glassgrad import _C

from fusion_checks import LAYERS, fused_gpt_backward_plan




def _heads_joined(fuse):
    _C.set_fusion(fuse)
    gg.clear_plan_cache()
    rng = np.random.default_rng(0)
    B, H, T, D = 2, 3, 5, 4
    xs = [gg.tensor(rng.standard_normal((B, H, T, D)).astype(np.float32)) for _ in range(3)]
    # [B, T, H, D] views of values the step computes (a leaf's view would be bound as it is),
    # merged by copying Reshapes
    merged = [(x * 2.0).transpose(1, 2).reshape(B, T, H * D) for x in xs]
    out = gg.cat(merged, dim=2)
    plan = _C.plan_for([out._h])
    want = np.concatenate([2 * x.numpy().transpose(0, 2, 1, 3).reshape(B, T, H * D) for x in xs], axis=2)
    return out.numpy(), want, plan


def test_concat_of_merged_heads_copies_each_element_once(fusion_state):
    got, want, plan = _heads_joined(True)
    np.testing.assert_array_equal(got, want)
    assert [s["op"] for s in plan.steps if s["op"] != "FusedElementwise" and s["op"] != "MulScalar"] == ["Concat"], \
        [s["op"] for s in plan.steps]
    plain, _, plain_plan = _heads_joined(False)
    np.testing.assert_array_equal(got, plain)
    assert [s["op"] for s in plain_plan.steps].count("Reshape") == 3


def test_concat_of_pieces_of_different_shapes_or_not_on_the_last_axis_is_kept(fusion_state):
    _C.set_fusion(True)
    gg.clear_plan_cache()
    rng = np.random.default_rng(1)
    a = gg.tensor(rng.standard_normal((2, 3, 4)).astype(np.float32))
    b = gg.tensor(rng.standard_normal((2, 2, 4)).astype(np.float32))
    mixed = gg.cat([a.transpose(1, 2).reshape(2, 12), b.transpose(1, 2).reshape(2, 8)], dim=1)
    first = gg.cat([a.transpose(1, 2).reshape(2, 12), a.reshape(2, 12)], dim=0)
    np.testing.assert_array_equal(mixed.numpy(), np.concatenate(
        [a.numpy().transpose(0, 2, 1).reshape(2, 12), b.numpy().transpose(0, 2, 1).reshape(2, 8)], axis=1))
    np.testing.assert_array_equal(first.numpy(), np.concatenate(
        [a.numpy().transpose(0, 2, 1).reshape(2, 12), a.numpy().reshape(2, 12)], axis=0))


def test_the_gpt_steps_qkv_gradients_are_joined_without_reshape_copies(fusion_state):
    # char_gpt's attention splits c_attn's output into q, k, v heads; their gradients used to be
    # copied by a Reshape each, then again by the Concat. Left: the forward's reassembly of the
    # heads (and at larger sizes its recomputation before c_proj's weight gradient).
    plan = fused_gpt_backward_plan()
    ops = [s["op"] for s in plan.steps]
    assert [s["role"] for s in plan.steps if s["op"] == "Reshape"] == ["forward"] * LAYERS, ops
    assert ops.count("Concat") == LAYERS, ops
    assert [s["attrs"].get("fused") for s in plan.steps if s["op"] == "Concat"] == ["Reshape+Concat"] * LAYERS
