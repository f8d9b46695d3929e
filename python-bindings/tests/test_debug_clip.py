"""clip_grad_norm_: graph nodes that scale gradients by min(1, max_norm / (norm + 1e-6))."""
import numpy as np
import pytest

import glassgrad
from glassgrad import debug


def _params(rng, scale):
    a = glassgrad.nn.Parameter(rng.standard_normal((3, 4)).astype(np.float32), name="a")
    b = glassgrad.nn.Parameter(rng.standard_normal(5).astype(np.float32), name="b")
    ga = (scale * rng.standard_normal((3, 4))).astype(np.float32)
    gb = (scale * rng.standard_normal(5)).astype(np.float32)
    # loss = <a, ga> + <b, gb> has gradients exactly ga and gb
    loss = (a * glassgrad.tensor(ga)).sum() + (b * glassgrad.tensor(gb)).sum()
    loss.backward()
    return a, b, ga, gb


@pytest.mark.parametrize("scale,max_norm", [(10.0, 1.0), (0.01, 1.0), (3.0, 2.5)])
def test_clip_grad_norm_matches_the_formula(rng, scale, max_norm):
    a, b, ga, gb = _params(rng, scale)
    norm = glassgrad.clip_grad_norm_([a, b], max_norm=max_norm)
    ref = np.sqrt((ga.astype(np.float64) ** 2).sum() + (gb.astype(np.float64) ** 2).sum())
    coef = min(1.0, max_norm / (ref + 1e-6))
    assert norm.shape == () and norm.dtype == "float32"
    np.testing.assert_allclose(norm.item(), ref, rtol=1e-5)
    np.testing.assert_allclose(a.grad.numpy(), ga * coef, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), gb * coef, rtol=1e-5)
    clipped = np.sqrt((a.grad.numpy() ** 2).sum() + (b.grad.numpy() ** 2).sum())
    assert clipped <= max_norm * (1 + 1e-5) or coef == 1.0


def test_clip_grad_norm_records_nodes_and_runs_in_the_optimizer_step_plan(rng):
    a, b, _, _ = _params(rng, 10.0)
    opt = glassgrad.SGD([a, b], lr=0.1)
    before = glassgrad.cache_stats()["realizes"]
    norm = debug.clip_grad_norm_([a, b], 1.0)
    assert glassgrad.cache_stats()["realizes"] == before  # nothing ran: no host round trip
    assert not norm._h.realized and a.grad.name == "a.grad"
    opt.step()
    assert glassgrad.cache_stats()["realizes"] == before + 1  # clip + update: one plan
    ops = []
    for st in debug.last_plan().steps:  # fused elementwise steps list the ops they run
        for op in (st["attrs"]["fused"].split("+") if "fused" in st["attrs"] else [st["op"]]):
            ops.append((op, st["scope"], st["role"]))
    assert ("Sqrt", "clip_grad_norm_", "optimizer") in ops and ("Minimum", "clip_grad_norm_", "optimizer") in ops
    assert ("SGDUpdate", "optimizer", "optimizer") in ops
    assert norm._h.realized  # the returned norm was computed by that same plan


def test_clip_grad_norm_skips_parameters_without_gradients_and_accepts_a_module():
    model = glassgrad.Sequential(glassgrad.Linear(2, 2), glassgrad.Linear(2, 1))
    model[1](glassgrad.ones(1, 2)).sum().backward()  # only the second layer gets gradients
    norm = glassgrad.clip_grad_norm_(model, 1e-3)
    assert model[0].weight.grad is None
    g = np.concatenate([model[1].weight.grad.numpy().ravel(), model[1].bias.grad.numpy()])
    np.testing.assert_allclose(np.sqrt((g ** 2).sum()), 1e-3, rtol=1e-3)
    assert norm.item() > 1e-3


def test_clip_grad_norm_refuses_a_negative_max_norm_or_a_nan_norm_type(rng):
    a, b, _, _ = _params(rng, 1.0)
    with pytest.raises(glassgrad.InvalidArgumentError, match=r"max_norm must be >= 0, got -1\.0"):
        glassgrad.clip_grad_norm_([a, b], -1)
    with pytest.raises(glassgrad.InvalidArgumentError, match=r"norm_type must be a number, got nan"):
        glassgrad.clip_grad_norm_([a, b], 1.0, norm_type=float("nan"))


def test_negative_and_minus_infinite_norm_types_as_pytorch():
    # PyTorch's vector_norm: -inf is the smallest |element|, a negative p is (sum |g|^p)^(1/p)
    ps = [glassgrad.nn.Parameter(np.ones(2, np.float32)) for _ in range(2)]
    ps[0].grad, ps[1].grad = glassgrad.tensor([3.0, -4.0]), glassgrad.tensor([0.5, 2.0])
    assert glassgrad.clip_grad_norm_(ps, 1.0, norm_type=-float("inf")).item() == pytest.approx(0.5)
    assert ps[0].grad.tolist() == [3.0, -4.0]  # 0.5 <= max_norm: nothing clipped
    want = (1 / 3 + 1 / 4 + 1 / 0.5 + 1 / 2) ** -1
    assert glassgrad.clip_grad_norm_(ps, 1.0, norm_type=-1).item() == pytest.approx(want, rel=1e-6)
    assert glassgrad.nn.utils.get_total_norm([glassgrad.tensor([0.0, 1.0])], norm_type=-1.0).item() == 0.0
    glassgrad.clip_grad_norm_(ps, 0.1, norm_type=-float("inf"))
    np.testing.assert_allclose(ps[1].grad.numpy(), [0.1, 0.4], rtol=1e-5)


def test_clip_grad_norm_without_gradients_is_a_zero_norm_as_in_pytorch():
    p = glassgrad.nn.Parameter(np.ones(3, np.float32))
    assert glassgrad.clip_grad_norm_([p], 1.0).item() == 0.0
    assert p.grad is None


@pytest.mark.parametrize("norm_type, want", [(1, 7.0), (float("inf"), 4.0), (3, 91.0 ** (1 / 3)), (0, 1.0)])
def test_clip_grad_norm_takes_any_norm_type(norm_type, want):
    p = glassgrad.nn.Parameter(np.zeros(3, np.float32))
    p.grad = glassgrad.tensor([3.0, -4.0, 0.0])
    norm = glassgrad.clip_grad_norm_([p], 1.0, norm_type=norm_type)
    assert norm.item() == pytest.approx(want)
    np.testing.assert_allclose(p.grad.numpy(), np.array([3.0, -4.0, 0.0]) * min(1.0, 1.0 / (want + 1e-6)), rtol=1e-6)


@pytest.mark.parametrize("norm_type", [0.5, 1, 2, 3, float("inf"), 0])
def test_clip_grad_norm_of_several_gradients_matches_numpy(rng, norm_type):
    grads = [rng.standard_normal(s) for s in ((3, 4), (5,), (2, 2, 2))]
    grads[1][2] = 0.0
    flat = np.concatenate([g.ravel() for g in grads])
    if np.isinf(norm_type):
        want = np.abs(flat).max()
    elif norm_type == 0:  # PyTorch's 0-norm of the per-tensor 0-norms: tensors holding a nonzero
        want = float(sum(np.count_nonzero(g) > 0 for g in grads))
    else:
        want = (np.abs(flat) ** norm_type).sum() ** (1.0 / norm_type)
    params = []
    for g in grads:
        p = glassgrad.nn.Parameter(np.zeros_like(g))
        p.grad = glassgrad.tensor(g)
        params.append(p)
    norm = glassgrad.clip_grad_norm_(params, 0.5, norm_type=norm_type)
    assert norm.item() == pytest.approx(want, rel=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * min(1.0, 0.5 / (want + 1e-6)), rtol=1e-12)


def test_clip_grad_norm_with_an_infinite_max_norm_measures_only():
    p = glassgrad.nn.Parameter(np.zeros(2, np.float32))
    p.grad = glassgrad.tensor([30.0, 40.0])
    assert glassgrad.clip_grad_norm_([p], float("inf")).item() == pytest.approx(50.0)
    np.testing.assert_array_equal(p.grad.numpy(), [30.0, 40.0])
    p.grad = glassgrad.tensor([np.nan, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        glassgrad.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("norm_type", [-float("inf"), -1.0, -0.5])
def test_negative_norm_types_against_torch(norm_type):
    torch = pytest.importorskip("torch")
    grads = [np.array([3.0, -4.0], np.float32), np.array([0.5, 2.0, 1.5], np.float32)]
    ours = [glassgrad.nn.Parameter(np.ones(len(g), np.float32)) for g in grads]
    theirs = [torch.nn.Parameter(torch.ones(len(g))) for g in grads]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = glassgrad.tensor(g), torch.tensor(g)
    got = glassgrad.clip_grad_norm_(ours, 0.2, norm_type=norm_type).item()
    want = torch.nn.utils.clip_grad_norm_(theirs, 0.2, norm_type=norm_type).item()
    assert got == pytest.approx(want, rel=1e-6)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5)
