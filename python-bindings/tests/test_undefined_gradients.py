"""Undefined gradients (docs/architecture.md, "Undefined gradients"): where PyTorch's gradient is
None rather than zeros (a custom Function's backward returning None, vector_norm at ord 0), a
leaf reached only that way keeps .grad None and autograd.grad's entry is None. The expected
values are PyTorch's (test_torch_undefined_gradients.py compares with torch itself)."""
import glassgrad as gg
from undefined_gradients_script import custom_function_record, hook_record, materialize_record, norm_record

ONES3, TWOS3, ZEROS3 = [1.0] * 3, [2.0] * 3, [0.0] * 3


def test_custom_function_returning_none_leaves_grad_undefined():
    assert custom_function_record(gg) == {
        "none_for_b": (TWOS3, None),
        "all_none": (None, ONES3),
        "other_path": [3.0] * 3,
        "through_computed": None,
        "existing_grad": [5.0] * 3,
        "retained_output": (None, TWOS3),
        "grad_allow_unused": [None],
        "grad_materialized": [ZEROS3],
        "grad_unused_raises": True,
    }


def test_zero_order_norms_leave_grad_undefined_but_distances_give_zeros():
    zeros = [ZEROS3, ZEROS3]
    assert norm_record(gg) == {
        "norm0": None, "norm0_dim": None, "torch_norm0": None, "vector_norm0": None, "linalg_norm0": None,
        "dist0": None, "pairwise_distance0": None,
        "cdist0": zeros, "pdist0": zeros,
        "norm0_plus_sum": [ONES3, ONES3],
        "retained_before_norm0": (None, None),
        "pdist_nodes": ["PdistBackward0"] * 4,
        "grad_norm0": [None],
    }


def test_set_materialize_grads():
    assert materialize_record(gg) == {"seen": [([1.0, 1.0], [0.0, 0.0]), [2.0, 2.0], ([1.0, 1.0], None), [2.0, 2.0]]}


def test_undefined_gradient_in_a_repeated_step():
    # the same trace twice (a reused backward template): still no gradient, no zeros stored
    x = gg.tensor([1.0, 0.0, 2.0], requires_grad=True)
    for _ in range(2):
        (x.norm(0) + (x * 0).sum().detach()).backward()
        assert x.grad is None


def test_backward_inputs_and_create_graph():
    x = gg.tensor([1.0, 0.0, 2.0], requires_grad=True)
    (x.norm(0) * 3).backward(inputs=[x])
    assert x.grad is None
    w = gg.tensor([1.0, 2.0], requires_grad=True)
    (g,) = gg.autograd.grad((w * w).sum() + w.norm(0), w, create_graph=True)
    assert g.tolist() == [2.0, 4.0]
    (h,) = gg.autograd.grad(g.sum(), w)
    assert h.tolist() == [2.0, 2.0]


def test_hooks_of_a_tensor_whose_gradient_is_undefined_get_none():
    none_x = [("x", None), ("x again", None), ("a", None)]
    assert hook_record(gg) == {
        "through_computed": (none_x, None),
        "other_path": ([("x", ONES3)], ONES3),
        "post_accumulate": [("a", None), ("post", None)],
        "grad": ([None], [("a", None)]),
        "replaced_none": "can't replace a None gradient with a non-None value",
        "function_given_zeros": ([("Fives.backward", ZEROS3)], [5.0] * 3),
        "no_grad_view": ([], None),
        "node_hooks": [("prehook", (None,)), ("hook", (None, None), (None,))],
        "node_hook_replaced_none": ["can't replace a None gradient with a non-None value"] * 2,
    }
