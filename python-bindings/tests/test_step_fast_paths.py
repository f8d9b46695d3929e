"""The plain training step's Python fast paths (docs/performance.md, "The plain loop's host
work"): each skips checks or helper calls only where the arguments are the common ones, and the
other arguments still take the full path with its errors. Expected values follow PyTorch's
documented behaviour (F.cross_entropy: a target outside [0, C) that is not ignore_index is
refused on the CPU)."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _losses


def _ce(n, classes, target, **kw):
    logits = gg.zeros(n, classes, requires_grad=True)
    return gg.cross_entropy(logits, gg.tensor(np.asarray(target, dtype=np.int64)), **kw)


@pytest.mark.parametrize("n", [3, _losses._SHORT + 5])  # a Python list's extremes, then NumPy's
def test_cross_entropy_target_range_both_sizes(n):
    ok = np.arange(n) % 4
    assert _ce(n, 4, ok).item() == pytest.approx(np.log(4.0), rel=1e-6)
    for bad, shown in ((4, "target 4"), (-1, "target -1")):
        t = ok.copy()
        t[n - 1] = bad
        with pytest.raises(IndexError, match=f"cross_entropy: {shown} at position {n - 1} is out of range for 4 "
                                             f"classes"):
            _ce(n, 4, t)


@pytest.mark.parametrize("n", [3, _losses._SHORT + 5])
def test_cross_entropy_ignore_index_outside_the_classes(n):
    # An ignored target outside [0, C) passes the check (the extremes alone would refuse it).
    t = np.arange(n) % 4
    t[0] = -100
    expected = np.log(4.0)  # every kept row is uniform; ignored rows are not counted by "mean"
    assert _ce(n, 4, t).item() == pytest.approx(expected, rel=1e-6)
    t[0] = 9
    assert _ce(n, 4, t, ignore_index=9).item() == pytest.approx(expected, rel=1e-6)
    t[1] = 7
    with pytest.raises(IndexError, match="target 7 at position 1 is out of range"):
        _ce(n, 4, t, ignore_index=9)


def test_cross_entropy_arguments_off_the_fast_path_are_still_checked():
    with pytest.raises(TypeError, match="label_smoothing must be a number"):
        _ce(2, 3, [0, 1], label_smoothing=True)
    with pytest.raises(ValueError, match="label_smoothing must be finite"):
        _ce(2, 3, [0, 1], label_smoothing=float("nan"))
    with pytest.raises(TypeError, match="ignore_index must be an int"):
        _ce(2, 3, [0, 1], ignore_index=True)
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none'"):
        _ce(2, 3, [0, 1], reduction="avg")
    # an int-like NumPy ignore_index and the legacy arguments take the full path and work
    assert _ce(2, 3, [0, 1], ignore_index=np.int64(1)).item() == pytest.approx(np.log(3.0), rel=1e-6)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert _ce(2, 3, [0, 1], size_average=False).item() == pytest.approx(2 * np.log(3.0), rel=1e-6)
    assert _ce(2, 3, [0, 1], label_smoothing=0.1).item() == pytest.approx(np.log(3.0), rel=1e-6)


def test_cross_entropy_empty_batch_is_nan():
    # PyTorch: the mean over no targets is 0 / 0
    assert np.isnan(_ce(0, 3, np.zeros(0)).item())


# ---- arguments remembered by identity (_args.remember): conv2d, max_pool2d ----
def _conv_out_shape(h, w, k, stride, padding, dilation=1):
    return ((h + 2 * padding - dilation * (k - 1) - 1) // stride + 1, (w + 2 * padding - dilation * (k - 1) - 1) // stride + 1)


def test_conv2d_layer_sees_a_reassigned_padding_and_stride():
    gg.manual_seed(0)
    conv = gg.nn.Conv2d(2, 3, 3)
    x = gg.randn(1, 2, 8, 8)
    assert tuple(conv(x).shape) == (1, 3) + _conv_out_shape(8, 8, 3, 1, 0)
    conv.padding = (2, 2)
    assert tuple(conv(x).shape) == (1, 3) + _conv_out_shape(8, 8, 3, 1, 2)
    conv.stride = (2, 2)
    assert tuple(conv(x).shape) == (1, 3) + _conv_out_shape(8, 8, 3, 2, 2)
    conv.padding = (1.5, 1)  # refused when the objects change, as on the first call
    with pytest.raises(TypeError, match="padding"):
        conv(x)


def test_conv2d_mutable_arguments_are_read_again():
    gg.manual_seed(0)
    x, w = gg.randn(1, 1, 9, 9), gg.randn(1, 1, 3, 3)
    stride = [1, 1]
    assert tuple(gg.nn.functional.conv2d(x, w, stride=stride).shape) == (1, 1, 7, 7)
    stride[0] = stride[1] = 2  # the same list object, other values
    assert tuple(gg.nn.functional.conv2d(x, w, stride=stride).shape) == (1, 1, 4, 4)
    with pytest.raises(TypeError, match="stride"):
        gg.nn.functional.conv2d(x, w, stride=True)  # equal to 1, and refused as a bool
    with pytest.raises(ValueError, match="stride"):
        gg.nn.functional.conv2d(x, w, stride=0)
    # 'same' depends on the input's size: another size, another padding
    assert tuple(gg.nn.functional.conv2d(x, w, padding="same").shape) == (1, 1, 9, 9)
    assert tuple(gg.nn.functional.conv2d(gg.randn(1, 1, 6, 5), w, padding="same").shape) == (1, 1, 6, 5)


def test_conv2d_values_after_the_first_call():
    # the remembered attrs give the same convolution as the first (checked) call
    gg.manual_seed(0)
    x, w, b = gg.randn(2, 3, 7, 7), gg.randn(4, 3, 3, 3), gg.randn(4)
    first = gg.nn.functional.conv2d(x, w, b, (2, 1), 1, 1, 1).numpy()
    again = gg.nn.functional.conv2d(x, w, b, (2, 1), 1, 1, 1).numpy()
    np.testing.assert_array_equal(first, again)
    xn, wn = x.numpy(), w.numpy()
    pad = np.pad(xn, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros(first.shape, np.float64)
    for i in range(first.shape[2]):
        for j in range(first.shape[3]):
            patch = pad[:, :, 2 * i:2 * i + 3, j:j + 3]
            ref[:, :, i, j] = np.einsum("nchw,kchw->nk", patch, wn) + b.numpy()
    np.testing.assert_allclose(again, ref, rtol=1e-4, atol=1e-5)


def test_max_pool2d_literal_arguments():
    x = gg.tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
    for _ in range(2):  # the second call finds the first's attrs
        y = gg.nn.functional.max_pool2d(x, 2)
        np.testing.assert_array_equal(y.numpy(), [[[[5, 7], [13, 15]], [[21, 23], [29, 31]]]])
    values, indices = gg.nn.functional.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(indices.numpy()[0, 0], [[5, 7], [13, 15]])
    with pytest.raises(TypeError, match="kernel_size"):
        gg.nn.functional.max_pool2d(x, 2.0)
    with pytest.raises(TypeError, match="ceil_mode"):
        gg.nn.functional.max_pool2d(x, 2, ceil_mode=1)
    assert tuple(gg.nn.functional.max_pool2d(x, 3, 1, 1, ceil_mode=True).shape) == (1, 2, 4, 4)
    assert tuple(gg.nn.functional.max_pool2d(x, 2, dilation=2).shape) == (1, 2, 1, 1)


def test_remembered_tables_stay_bounded():
    from glassgrad import _args
    x = gg.randn(1, 1, 4, 4)
    table = __import__("glassgrad._pooling", fromlist=["_MAX_POOL2D_ATTRS"])._MAX_POOL2D_ATTRS
    for k in range(_args._REMEMBERED_LIMIT + 20):
        gg.nn.functional.max_pool2d(x, 1, stride=k + 1)  # a new int object past the small ints
    assert 0 < len(table) <= _args._REMEMBERED_LIMIT
    kept = {}
    _args.remember(kept, ([1, 2], 3), "derived")  # a list may change: never kept
    _args.remember(kept, ((1, 2.5), 3), "derived")  # a float inside a tuple: not kept either
    assert kept == {}
    values = ((1, 2), 3, None, "x", True)
    _args.remember(kept, values, "derived")
    assert kept[tuple(map(id, values))] == (values, "derived")


# ---- Linear, flatten, BatchNorm ----
def test_linear_nodes_and_values():
    gg.manual_seed(0)
    lin = gg.nn.Linear(4, 3)
    for shape, node in (((2, 4), "AddmmBackward0"), ((2, 5, 4), "ViewBackward0"), ((4,), "ViewBackward0")):
        x = gg.randn(*shape)
        y = lin(x)
        assert y.grad_fn.name() == node
        ref = x.numpy() @ lin.weight.detach().numpy().T + lin.bias.detach().numpy()
        np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-5, atol=1e-6)
    assert gg.nn.functional.linear(gg.randn(2, 4), lin.weight).grad_fn.name() == "MmBackward0"
    xi = gg.tensor(np.arange(8).reshape(2, 4))
    wi = gg.tensor(np.ones((3, 4), np.int64))
    np.testing.assert_array_equal(gg.nn.functional.linear(xi, wi).numpy(), [[6] * 3, [22] * 3])


def test_flatten_returns_self_only_when_nothing_merges():
    x = gg.randn(2, 3)
    assert x.flatten(1) is x
    assert gg.flatten(x, 0, 0) is x
    y = x.flatten()
    assert tuple(y.shape) == (6,) and y is not x
    p = gg.randn(2, 3, requires_grad=True)
    q = p.flatten(1)  # requires grad: a new tensor (a view recorded for the gradient)
    assert q is not p and tuple(q.shape) == (2, 3)
    (q * 2).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.full((2, 3), 2.0))
    z = gg.randn(2, 3, 4, 5)
    assert tuple(z.flatten(1).shape) == (2, 60) and tuple(z.flatten(-3, -2).shape) == (2, 12, 5)
    assert tuple(z.flatten(np.int64(1), 2).shape) == (2, 12, 5)
    with pytest.raises(IndexError, match="flatten: dim 4 is out of range"):
        z.flatten(4)
    with pytest.raises(TypeError, match="flatten: dim must be an int"):
        z.flatten(1.0)
    with pytest.raises(RuntimeError, match="start_dim 2 comes after end_dim 1"):
        z.flatten(2, 1)


@pytest.mark.parametrize("affine", [True, False])
def test_batchnorm_training_forward_and_running_stats(affine):
    gg.manual_seed(0)
    bn = gg.nn.BatchNorm2d(3, affine=affine)
    x = gg.randn(4, 3, 2, 2)
    y = bn(x).detach().numpy()
    xn = x.numpy().astype(np.float64)
    mean, var = xn.mean((0, 2, 3)), xn.var((0, 2, 3))
    ref = (xn - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * var * 16 / 15, rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    with pytest.raises(RuntimeError, match="got 2D input"):
        bn(gg.randn(4, 3))
    with pytest.raises(TypeError, match="expects a glassgrad.Tensor"):
        bn(np.zeros((4, 3, 2, 2), np.float32))


# ---- backward, optimizer.step, tensor() ----
def _sgd_model():
    gg.manual_seed(0)
    w = gg.nn.Parameter(gg.tensor([1.0, 2.0]))
    return w, gg.optim.SGD([w], lr=0.5)


def _one_step(w, opt):
    (w * w).sum().backward()
    opt.step()
    opt.zero_grad()


def test_step_hooks_registered_after_hookless_steps_run():
    w, opt = _sgd_model()
    _one_step(w, opt)
    _one_step(w, opt)  # steps without hooks: the hook tables exist (as PyTorch's attributes)
    assert hasattr(opt, "_optimizer_step_pre_hooks") and hasattr(opt, "_optimizer_step_post_hooks")
    seen = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append("pre"))
    post = opt.register_step_post_hook(lambda o, args, kwargs: seen.append("post"))
    glob = gg.optim.optimizer.register_optimizer_step_pre_hook(lambda o, args, kwargs: seen.append("global"))
    try:
        _one_step(w, opt)
        assert seen == ["global", "pre", "post"]
    finally:
        glob.remove()
    pre.remove()
    post.remove()
    _one_step(w, opt)
    assert seen == ["global", "pre", "post"]
    # w <- w - 0.5 * 2w = 0 after the first step, and stays 0
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 0.0])


def test_capturable_on_cpu_is_refused_only_when_asked():
    p = gg.nn.Parameter(gg.tensor([1.0], device="cpu"))
    p.grad = gg.tensor([1.0], device="cpu")
    gg.optim.Adam([p], lr=0.1).step()  # capturable=False: steps
    q = gg.nn.Parameter(gg.tensor([1.0], device="cpu"))
    q.grad = gg.tensor([1.0], device="cpu")
    opt = gg.optim.Adam([{"params": [p]}, {"params": [q], "capturable": True}], lr=0.1)
    with pytest.raises(RuntimeError, match="If capturable=True, params and state_steps must be on supported devices"):
        opt.step()


def test_multi_grad_hook_after_a_failed_backward():
    # A backward that raises leaves no call open: the next one's callbacks still run at its end.
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    got = []
    gg.autograd.graph.register_multi_grad_hook([a], lambda grads: got.append(grads[0].numpy().tolist()))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (a * 3).backward()
    (a * 3).sum().backward()
    assert got == [[3.0, 3.0]]


def test_anomaly_mode_turned_on_by_a_hook_during_backward():
    a = gg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.register_hook(lambda g: gg.autograd.set_detect_anomaly(True) and None)
    try:
        b.sum().backward()  # the check after the backward reads the mode read before it
    finally:
        gg.autograd.set_detect_anomaly(False)
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0])


def test_tensor_from_numpy_names_dtypes_and_devices():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = gg.tensor(arr)
    assert t.dtype == gg.float32 and t.device == gg.device("cpu") and not t.requires_grad
    np.testing.assert_array_equal(t.numpy(), arr)
    arr[0, 0] = 100.0  # a copy, as torch.tensor
    assert t[0, 0].item() == 0.0
    d = gg.tensor(arr, dtype=gg.float64, device="cpu", requires_grad=True)
    assert d.dtype == gg.float64 and d.requires_grad
    assert gg.tensor(arr, dtype=gg.bfloat16).dtype == gg.bfloat16
    assert gg.tensor(np.array([1, 2]), name="labels").name == "labels"
    with pytest.raises(RuntimeError, match="unknown device 'tpu:0'|no tpu backend"):
        gg.tensor(arr, device="tpu:0")


def test_a_plain_step_makes_few_python_calls():
    # The seed's loop on SimpleCNN, batch 1, on the CPU: the Python function calls of one repeated
    # step (the count is the same on every run: a profiler sees each call). 198 before the fast
    # paths, 95 with them (docs/performance.md); the bound leaves room for small changes.
    import sys

    gg.manual_seed(0)
    model = gg.models.SimpleCNN(10).to("cpu")
    opt = gg.optim.SGD(model.parameters(), lr=0.01)
    xn = np.random.default_rng(0).random((1, 1, 28, 28), dtype=np.float32)
    yn = np.array([3])

    def step():
        x, y = gg.tensor(xn, device="cpu"), gg.tensor(yn, device="cpu")
        loss = gg.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    for _ in range(3):  # plans compiled, optimizer tables made
        step()
    calls = [0]

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        step()
    finally:
        sys.setprofile(None)
    assert 50 <= calls[0] <= 120, f"{calls[0]} Python calls in a SimpleCNN step"


@pytest.mark.parametrize("make", [lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9), lambda ps: gg.optim.Adam(ps)],
                         ids=["sgd-momentum", "adam"])
def test_state_is_copied_for_the_undo_only_when_python_records_updates(make, monkeypatch):
    # A group recorded whole by the runtime changes no state dict (the journal undoes its moves);
    # the first step, which makes the state row by row, copies it.
    copies = []
    real = gg.optim.Optimizer._keep_state

    def keep(self):
        copies.append(self._state_before is None)
        real(self)

    monkeypatch.setattr(gg.optim.Optimizer, "_keep_state", keep)
    w = gg.nn.Parameter(gg.tensor([1.0, -2.0]))
    opt = make([w])
    for _ in range(3):
        (w * w).sum().backward()
        opt.step()
        opt.zero_grad()
    assert copies == [True]  # the first step only
    assert opt._state_before is None  # nothing held between steps


def test_compile_still_sees_the_layers_it_calls():
    # Module.__call__ reads the thread's recording only while some glassgrad.compile records
    # (_trace.RECORDINGS, back to 0 after a compiled call, also one that raised); compiled results
    # still follow train/eval.
    from glassgrad import _trace
    gg.manual_seed(0)
    model = gg.nn.Sequential(gg.nn.Linear(3, 3), gg.nn.Dropout(0.5))
    run = gg.compile(lambda x: model(x) * 1.0)
    x = gg.ones(4, 3)
    for _ in range(4):  # recorded, then replayed
        run(x)
    assert _trace.RECORDINGS[0] == 0
    model.eval()  # the replay's guard sees the Dropout's flag: traced again, without dropout
    np.testing.assert_allclose(run(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(ZeroDivisionError):
        gg.compile(lambda x: model(x) * (1 / 0))(x)
    assert _trace.RECORDINGS[0] == 0
