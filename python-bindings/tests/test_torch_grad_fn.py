"""Tensor.grad_fn.next_functions as PyTorch's: the blitz neural networks tutorial walks
loss.grad_fn.next_functions[0][0].next_functions[0][0]. Each entry is (node, 0): the node that
made the input, AccumulateGrad (with .variable) for a leaf that requires grad, None for an input
that needs no gradient. Compared with torch where both record the same ops. Skipped when torch
is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def _walk(node, depth=0):
    """The tree below a node as nested (name, children), None for an input without gradient."""
    if node is None:
        return None
    name = type(node).__name__ if type(node).__name__ in ("AccumulateGrad", "_AccumulateGrad") else node.name()
    name = name.lstrip("_").split("::")[-1]
    return (name, [_walk(n) for n, _ in node.next_functions])


def _graph(fw):
    x = fw.tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = fw.tensor(np.array([3.0, 4.0]), requires_grad=True)
    c = fw.tensor(np.array([0.5, 0.5]))  # needs no gradient
    return x, w, ((x * w + c) * x.exp()).sum()


def test_next_functions_match_torch():
    assert _walk(_graph(gg)[2].grad_fn) == _walk(_graph(torch)[2].grad_fn)


def test_accumulate_grad_holds_the_leaf_and_ends_the_walk():
    x, w, y = _graph(gg)
    mul = y.grad_fn.next_functions[0][0]
    add = mul.next_functions[0][0]
    first = add.next_functions[0][0].next_functions[0][0]
    assert repr(first).startswith("<AccumulateGrad object at ")
    assert first.next_functions == ()
    assert first.variable.requires_grad and first.variable.tolist() == x.tolist()
    assert add.next_functions[1] == (None, 0)  # the constant


def test_the_blitz_tutorial_walk():
    net = gg.nn.Sequential(gg.nn.Linear(4, 3), gg.nn.ReLU(), gg.nn.Linear(3, 2))
    loss = gg.nn.MSELoss()(net(gg.ones(1, 4)), gg.zeros(1, 2))
    node = loss.grad_fn
    names = []
    for _ in range(2):
        node = node.next_functions[0][0]
        names.append(node.name())
    # the Linear's node, then its first operand, the bias's AccumulateGrad, as PyTorch prints them
    assert names == ["AddmmBackward0", "torch::autograd::AccumulateGrad"]
    assert gg.ones(2).grad_fn is None


def _mlp_loss(fw, target_grad=False):
    fw.manual_seed(0)
    net = fw.nn.Sequential(fw.nn.Linear(4, 3), fw.nn.ReLU(), fw.nn.Linear(3, 2))
    target = fw.tensor(np.array([[0.5, -1.0]]), dtype=fw.float32, requires_grad=target_grad)
    return fw.nn.MSELoss()(net(fw.ones(1, 4)), target)


@pytest.mark.parametrize("target_grad", [False, True])
def test_a_fused_loss_and_linear_list_pytorchs_operands(target_grad):
    """MseLossBackward0's inputs are (input, target) and AddmmBackward0's (bias, input,
    weight.t()), as PyTorch's nodes, though glassgrad composes both of several ops: the blitz
    tutorial prints loss -> AddmmBackward0 -> AccumulateGrad (the bias)."""
    walk = _walk(_mlp_loss(gg, target_grad).grad_fn)
    assert walk == _walk(_mlp_loss(torch, target_grad).grad_fn)
    assert walk[0] == "MseLossBackward0" and walk[1][0][0] == "AddmmBackward0"
    assert [c and c[0] for c in walk[1][0][1]] == ["AccumulateGrad", "ReluBackward0", "TBackward0"]
    assert type(_mlp_loss(gg).grad_fn.next_functions[0][0].next_functions[0][0]).__name__ == "AccumulateGrad"


def test_a_number_operand_is_listed_as_none_after_the_tensor():
    """The autograd tutorial (introyt): d = 2 * sin(a) + 1, walked from d down to a."""
    walks = []
    for fw in (gg, torch):
        a = fw.tensor(np.linspace(0.0, 6.0, 5), requires_grad=True)
        walks.append(_walk((2 * fw.sin(a) + 1).grad_fn))
    assert walks[0] == walks[1]


NODE_CASES = {
    "dot": lambda L, F, a, b, M: L.dot(a, b), "Tensor.dot": lambda L, F, a, b, M: a.dot(b),
    "vector @ vector": lambda L, F, a, b, M: a @ b, "mv": lambda L, F, a, b, M: L.mv(M, b),
    "matrix @ vector": lambda L, F, a, b, M: M @ b, "mm": lambda L, F, a, b, M: M @ M.t(),
    "relu": lambda L, F, a, b, M: F.relu(a), "gelu": lambda L, F, a, b, M: F.gelu(a),
    "silu": lambda L, F, a, b, M: F.silu(a), "leaky_relu": lambda L, F, a, b, M: F.leaky_relu(a),
    "elu": lambda L, F, a, b, M: F.elu(a), "hardtanh": lambda L, F, a, b, M: F.hardtanh(a),
    "relu6": lambda L, F, a, b, M: F.relu6(a), "double()": lambda L, F, a, b, M: a.float().double(),
    "cumsum": lambda L, F, a, b, M: a.cumsum(0), "dropout": lambda L, F, a, b, M: F.dropout(a, 0.5),
    "conv2d": lambda L, F, a, b, M: F.conv2d(M.reshape(1, 1, 3, 3), L.ones(1, 1, 2, 2, dtype=M.dtype)),
    "max_pool2d": lambda L, F, a, b, M: F.max_pool2d(M.reshape(1, 1, 3, 3), 2),
    "layer_norm": lambda L, F, a, b, M: F.layer_norm(M, (3,)),
    "batch_norm": lambda L, F, a, b, M: F.batch_norm(M, None, None, training=True),
    "x / 3": lambda L, F, a, b, M: a / 3, "x * 2": lambda L, F, a, b, M: a * 2,
}


@pytest.mark.parametrize("case", list(NODE_CASES))
def test_node_names_are_torchs(case):
    names = []
    for L in (gg, torch):
        a = L.tensor(np.array([1.0, -2.0, 0.5]), requires_grad=True)
        M = L.tensor(np.arange(9.0).reshape(3, 3) / 7, requires_grad=True)
        b = L.tensor(np.array([0.25, 1.5, -1.0]))
        names.append(NODE_CASES[case](L, L.nn.functional, a, b, M).grad_fn.name())
    assert names[0] == names[1]


def test_a_matrix_product_reshaped_by_the_user_is_a_view_not_a_dot_or_mv():
    for L in (gg, torch):
        a = L.tensor(np.array([[1.0, 2.0]]), requires_grad=True)
        assert (a @ a.t()).reshape(1).grad_fn.name() == "ViewBackward0"
        assert (a @ a.t()).reshape([]).grad_fn.name() == "ViewBackward0"
        assert (a.t() @ a).reshape(4).grad_fn.name() == "ViewBackward0"
