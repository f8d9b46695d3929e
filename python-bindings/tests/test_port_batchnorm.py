"""BatchNorm1d / BatchNorm2d and F.batch_norm as PyTorch documents them: affine, track_running_stats,
momentum (None: cumulative average), num_batches_tracked, the functional's argument order and
in-place running-statistics update; state_dict in PyTorch's order."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F

AXES = {2: (0,), 3: (0, 2), 4: (0, 2, 3)}


def _x(shape, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 2 + offset).astype(np.float32)


def _normalize(x, mean, var, eps=1e-5):
    c = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(c)) / np.sqrt(var.reshape(c) + eps)


@pytest.mark.parametrize("cls,shape", [(gg.nn.BatchNorm1d, (8, 3)), (gg.nn.BatchNorm1d, (4, 3, 5)),
                                       (gg.nn.BatchNorm2d, (4, 3, 5, 6))])
def test_training_normalizes_with_batch_statistics_and_tracks_running_ones(cls, shape):
    bn = cls(3)
    rm, rv = np.zeros(3), np.ones(3)
    for step in range(3):
        x = _x(shape, step, offset=step)
        y = bn(gg.tensor(x)).detach().numpy()
        ax = AXES[len(shape)]
        mean, var = x.astype(np.float64).mean(ax), x.astype(np.float64).var(ax)
        np.testing.assert_allclose(y, _normalize(x, mean, var), rtol=1e-4, atol=1e-5)
        n = x.size // 3
        rm = 0.9 * rm + 0.1 * mean
        rv = 0.9 * rv + 0.1 * var * n / (n - 1)
    np.testing.assert_allclose(bn.running_mean.numpy(), rm, rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), rv, rtol=1e-5)
    assert bn.num_batches_tracked.dtype == "int64" and int(bn.num_batches_tracked.numpy()) == 3
    bn.eval()
    x = _x(shape, 9)
    np.testing.assert_allclose(bn(gg.tensor(x)).detach().numpy(), _normalize(x, rm, rv), rtol=1e-4, atol=1e-5)
    assert int(bn.num_batches_tracked.numpy()) == 3  # eval steps do not count


def test_momentum_none_is_the_cumulative_average_of_the_batch_statistics():
    bn = gg.nn.BatchNorm2d(2, momentum=None)
    means, vars_ = [], []
    gg.clear_plan_cache()
    gg.reset_cache_stats()
    for step in range(5):
        x = _x((3, 2, 4, 4), step, offset=3 * step)
        bn(gg.tensor(x)).detach().numpy()
        means.append(x.astype(np.float64).mean((0, 2, 3)))
        vars_.append(x.astype(np.float64).var((0, 2, 3), ddof=1))
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean(means, 0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), np.mean(vars_, 0), rtol=1e-5)
    assert gg.cache_stats()["compiles"] == 1  # the factor 1/n is data: one plan for every step


def test_affine_false_has_no_parameters_and_track_running_stats_false_no_buffers():
    bn = gg.nn.BatchNorm2d(4, affine=False)
    assert bn.weight is None and bn.bias is None and list(bn.parameters()) == []
    assert list(bn.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]
    bn = gg.nn.BatchNorm2d(4, track_running_stats=False)
    assert bn.running_mean is None and list(bn.state_dict()) == ["weight", "bias"]
    bn.eval()  # without running statistics, eval mode uses the batch's
    x = _x((2, 4, 3, 3))
    np.testing.assert_allclose(bn(gg.tensor(x)).detach().numpy(),
                               _normalize(x, x.astype(np.float64).mean((0, 2, 3)), x.astype(np.float64).var((0, 2, 3))),
                               rtol=1e-4, atol=1e-5)


def test_wrong_rank_and_channels_are_refused_with_the_fix():
    with pytest.raises(gg.ShapeError, match=r"(?s)BatchNorm2d.*expected \(N, C, H, W\) input, got 2D.*use BatchNorm1d"):
        gg.nn.BatchNorm2d(3)(gg.tensor(_x((4, 3))))
    with pytest.raises(gg.ShapeError, match=r"(?s)BatchNorm1d.*got 4D.*use BatchNorm2d"):
        gg.nn.BatchNorm1d(3)(gg.tensor(_x((4, 3, 2, 2))))
    with pytest.raises(gg.ShapeError, match=r"(?s)has 5 channels .* normalizes 3.*BatchNorm1d\(5\)"):
        gg.nn.BatchNorm1d(3)(gg.tensor(_x((4, 5))))
    with pytest.raises(gg.InvalidArgumentError, match="momentum must be in"):
        gg.nn.BatchNorm1d(3, momentum=2.0)


def test_functional_batch_norm_takes_pytorch_s_argument_order_and_updates_running_stats():
    x = _x((4, 3, 2, 2))
    rm = gg.tensor(np.zeros(3, np.float32))
    rv = gg.tensor(np.ones(3, np.float32))
    w = gg.tensor(np.array([1.0, 2.0, 3.0], np.float32))
    b = gg.tensor(np.array([0.0, 1.0, -1.0], np.float32))
    y = F.batch_norm(gg.tensor(x), rm, rv, w, b, True, 0.5, 1e-3)  # input, rm, rv, weight, bias, training, momentum, eps
    assert isinstance(y, gg.Tensor) and y.shape == x.shape
    x64 = x.astype(np.float64)
    mean, var = x64.mean((0, 2, 3)), x64.var((0, 2, 3))
    want = _normalize(x64, mean, var, 1e-3) * np.array([1, 2, 3]).reshape(1, 3, 1, 1) + np.array([0, 1, -1]).reshape(1, 3, 1, 1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rm.numpy(), 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * x64.var((0, 2, 3), ddof=1), rtol=1e-5)
    # Evaluation (training=False, the default): the running statistics normalize, nothing changes.
    before = rm.numpy().copy()
    y = F.batch_norm(gg.tensor(x), rm, rv)
    np.testing.assert_allclose(y.numpy(), _normalize(x64, rm.numpy(), rv.numpy()), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(rm.numpy(), before)
    with pytest.raises(gg.InvalidArgumentError, match="evaluation mode"):
        F.batch_norm(gg.tensor(x), None, None)


def test_batch_norm_gradients_match_finite_differences():
    gg.manual_seed(0)
    # gradcheck differentiates in float64 on the CPU: the layer and the cotangent live there too
    # (on a GPU machine the default device is the GPU)
    bn = gg.nn.BatchNorm1d(3).double().to("cpu")
    cot = np.random.default_rng(1).standard_normal((5, 3, 4))
    gg.debug.gradcheck(lambda t: (bn(t) * gg.tensor(cot, device="cpu")).sum(), [_x((5, 3, 4))])


def test_state_dict_is_ordered_module_by_module_like_pytorch():
    class Net(gg.Module):
        def __init__(self):
            super().__init__()
            self.conv = gg.Conv2D(1, 2, 3)
            self.bn = gg.nn.BatchNorm2d(2)
            self.head = gg.Sequential(gg.Linear(8, 4), gg.nn.BatchNorm1d(4), gg.Linear(4, 2))

    assert list(Net().state_dict()) == [
        "conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
        "bn.num_batches_tracked", "head.0.weight", "head.0.bias", "head.1.weight", "head.1.bias",
        "head.1.running_mean", "head.1.running_var", "head.1.num_batches_tracked", "head.2.weight", "head.2.bias"]


def test_a_checkpoint_without_num_batches_tracked_still_loads_strictly():
    bn = gg.BatchNorm2D(3)
    old = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    result = gg.BatchNorm2D(3).load_state_dict(old)
    assert result.missing_keys == [] and result.unexpected_keys == []


def test_non_persistent_buffers_stay_out_of_the_state_dict():
    class M(gg.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("kept", np.ones(2, np.float32))
            self.register_buffer("scratch", np.zeros(2, np.float32), persistent=False)

    m = M()
    assert list(m.state_dict()) == ["kept"] and [n for n, _ in m.named_buffers()] == ["kept", "scratch"]


def test_load_state_dict_non_strict_reports_missing_and_unexpected_keys():
    fc = gg.Linear(2, 2)
    res = fc.load_state_dict({"weight": np.zeros((2, 2)), "extra": np.zeros(1)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == ["extra"]
    np.testing.assert_array_equal(fc.weight.detach().numpy(), np.zeros((2, 2)))


@pytest.mark.parametrize("kw", [{}, {"momentum": None}, {"affine": False}, {"track_running_stats": False},
                                {"momentum": 0.3, "eps": 1e-3}])
@pytest.mark.parametrize("dim", [1, 2])
def test_batch_norm_matches_torch_over_several_steps_and_in_eval(torch, kw, dim):
    shape = (6, 3) if dim == 1 else (4, 3, 5, 5)
    t = getattr(torch.nn, f"BatchNorm{dim}d")(3, **kw).double()
    g = getattr(gg.nn, f"BatchNorm{dim}d")(3, **kw).double()
    if kw.get("affine", True):
        with torch.no_grad():
            t.weight.copy_(torch.tensor([0.5, 1.5, 2.0]))
            t.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
        g.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    for step in range(4):
        x = _x(shape, step, offset=step).astype(np.float64)
        np.testing.assert_allclose(g(gg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)
    for k, v in t.state_dict().items():
        np.testing.assert_allclose(g.state_dict()[k], v.numpy(), rtol=1e-12, err_msg=k)
    assert list(g.state_dict()) == list(t.state_dict())
    t.eval()
    g.eval()
    x = _x(shape, 7).astype(np.float64)
    np.testing.assert_allclose(g(gg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)


def test_functional_batch_norm_matches_torch(torch):
    x = _x((4, 3, 3, 3)).astype(np.float64)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_g, rv_g = gg.tensor(np.zeros(3)), gg.tensor(np.ones(3))
    w = np.array([1.0, 2.0, 0.5])
    yt = torch.nn.functional.batch_norm(torch.tensor(x), rm_t, rv_t, torch.tensor(w), None, True, 0.2, 1e-4)
    yg = F.batch_norm(gg.tensor(x), rm_g, rv_g, gg.tensor(w), None, True, 0.2, 1e-4)
    np.testing.assert_allclose(yg.numpy(), yt.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rm_g.numpy(), rm_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv_g.numpy(), rv_t.numpy(), rtol=1e-12)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_a_compiled_step_counts_batches_in_place_and_feeds_the_count_to_the_cumulative_average(device):
    """num_batches_tracked += 1 is one in-place op (AddScalarInPlace) in the step's plan: every
    replay counts, the buffer keeps its identity, and momentum=None reads the new count."""
    bn = gg.nn.BatchNorm2d(2, momentum=None).to(device)
    nbt = bn.num_batches_tracked
    opt = gg.SGD(bn.parameters(), lr=0.1)

    @gg.compile
    def step(xb):
        loss = (bn(xb) * bn(xb)).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    means = []
    for k in range(5):
        x = _x((3, 2, 4, 4), k, offset=2 * k)
        step(gg.tensor(x, device=device))
        means += [x.astype(np.float64).mean((0, 2, 3))] * 2  # two forwards per step
    assert bn.num_batches_tracked is nbt and int(nbt.numpy()) == 10
    assert step.replays >= 3
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean(means, 0), rtol=1e-5, atol=1e-6)
