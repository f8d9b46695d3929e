"""torch.nn.utils.parameters_to_vector / vector_to_parameters and get_total_norm /
clip_grads_with_norm_ (the two halves of clip_grad_norm_) against PyTorch and NumPy, with a
float64 finite-difference check of parameters_to_vector's gradient."""
import math

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.debug.gradcheck import gradcheck

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (2, 1, 3)]


def _params(lib, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s), dtype=lib.float64, requires_grad=True) for s in SHAPES]


def test_parameters_to_vector_matches_torch_and_numpy():
    ours, theirs = _params(gg), _params(torch)
    v = gg.nn.utils.parameters_to_vector(ours)
    np.testing.assert_array_equal(v.detach().numpy(), torch.nn.utils.parameters_to_vector(theirs).detach().numpy())
    np.testing.assert_array_equal(v.detach().numpy(), np.concatenate([p.detach().numpy().ravel() for p in ours]))
    weights = np.arange(v.numel(), dtype=np.float64)
    (v * gg.tensor(weights)).sum().backward()
    for p, w in zip(ours, np.split(weights, np.cumsum([math.prod(s) for s in SHAPES])[:-1])):
        np.testing.assert_array_equal(p.grad.numpy(), w.reshape(p.shape))


def test_parameters_to_vector_gradient_by_finite_differences():
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(s) for s in SHAPES]
    assert gradcheck(lambda *ps: gg.nn.utils.parameters_to_vector(list(ps)).sin(), inputs)


def test_vector_to_parameters_writes_in_place_as_torch():
    ours, theirs = _params(gg), _params(torch)
    model = gg.nn.Linear(4, 3).double()
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    vec = np.linspace(-1, 1, 15)
    gg.nn.utils.vector_to_parameters(gg.tensor(vec), model.parameters())
    np.testing.assert_array_equal(gg.nn.utils.parameters_to_vector(model.parameters()).detach().numpy(), vec)
    assert opt.param_groups[0]["params"][0] is model.weight  # identity kept: the optimizer still updates it
    n = sum(math.prod(s) for s in SHAPES)
    vec = np.arange(n, dtype=np.float64) / 7
    gg.nn.utils.vector_to_parameters(gg.tensor(vec), ours)
    with torch.no_grad():
        torch.nn.utils.vector_to_parameters(torch.tensor(vec), theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with pytest.raises(TypeError, match="expected glassgrad.Tensor"):
        gg.nn.utils.vector_to_parameters(vec, ours)
    with pytest.raises(ValueError, match=f"the parameters hold {n} elements"):
        gg.nn.utils.vector_to_parameters(gg.tensor(vec[:-1]), ours)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, 0.5, 0.0, math.inf])
def test_get_total_norm_and_clip_grads_with_norm_match_torch(norm_type):
    rng = np.random.default_rng(2)
    grads = [rng.standard_normal(s) * (rng.random(s) > 0.2) for s in SHAPES]
    ours, theirs = _params(gg), _params(torch)
    for p, q, g in zip(ours, theirs, grads):
        p.grad = gg.tensor(g)
        q.grad = torch.tensor(g)
    total = gg.nn.utils.get_total_norm([p.grad for p in ours], norm_type)
    want = torch.nn.utils.get_total_norm([q.grad for q in theirs], norm_type)
    if norm_type == 0:
        # PyTorch's documented rule: the norm of the per-tensor norms; for p = 0 the number of
        # tensors holding a nonzero element (3 here)
        assert want.item() == len(SHAPES)
    assert total.item() == pytest.approx(want.item(), rel=1e-12)
    flat = np.concatenate([g.ravel() for g in grads])
    numpy_norm = np.abs(flat).max() if math.isinf(norm_type) else (
        sum(np.count_nonzero(g) > 0 for g in grads) if norm_type == 0 else
        (np.abs(flat) ** norm_type).sum() ** (1 / norm_type))
    assert total.item() == pytest.approx(numpy_norm, rel=1e-12)
    max_norm = 0.3 * want.item()
    gg.nn.utils.clip_grads_with_norm_(ours, max_norm, total, foreach=True)
    torch.nn.utils.clip_grads_with_norm_(theirs, max_norm, want, foreach=False)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_get_total_norm_edges_follow_torch():
    assert gg.nn.utils.get_total_norm([]).item() == torch.nn.utils.get_total_norm([]).item() == 0.0
    bad = [gg.tensor([1.0, math.inf])]
    with pytest.raises(RuntimeError, match="non-finite"):
        gg.nn.utils.get_total_norm(bad, error_if_nonfinite=True)
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.get_total_norm([torch.tensor([1.0, math.inf])], error_if_nonfinite=True)
    assert math.isinf(gg.nn.utils.get_total_norm(bad).item())
    # a negative norm type is vector_norm's, as PyTorch's (54c26f4): of the per-tensor norms
    ours = gg.nn.utils.get_total_norm([gg.ones(2), gg.tensor([2.0, 4.0])], norm_type=-1).item()
    theirs = torch.nn.utils.get_total_norm([torch.ones(2), torch.tensor([2.0, 4.0])], norm_type=-1).item()
    assert ours == pytest.approx(theirs, rel=1e-6)
