"""The plain training step's Python fast paths (docs/performance.md, "The plain loop's host
work"): each skips checks or helper calls only where the arguments are the common ones, and the
other arguments still take the full path with its errors. Expected values follow PyTorch's
documented behaviour (F.cross_entropy: a target outside [0, C) that is not ignore_index is
refused on the CPU)."""
import sys

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import _losses

# The CPU's fast paths and checks: tensors made without a device start on the CPU here (on a GPU
# machine the default device is the GPU, whose targets these host-side checks do not read).
pytestmark = pytest.mark.usefixtures("on_the_cpu")


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
        with pytest.raises(IndexError, match=f"{shown} at position {n - 1} is out of range for 4 classes"):
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
        _ce(2, 3, [0, 1], label_smoothing="0.1")
    # a bool is a number to PyTorch's float arguments: label_smoothing=True is 1
    assert _ce(2, 3, [0, 1], label_smoothing=True).item() == pytest.approx(np.log(3.0), rel=1e-6)
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
    q = p.flatten(1)  # requires grad: still the tensor itself, as PyTorch's (no ViewBackward0 node)
    assert q is p and q.grad_fn is None
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


def _python_calls(fn):
    """(the Python function calls of fn(), fn's own included, as a profiler sees each; fn's result)."""
    calls = [0]

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        out = fn()
    finally:
        sys.setprofile(None)
    return calls[0], out


def test_a_plain_step_makes_few_python_calls():
    # The seed's loop on SimpleCNN, batch 1, on the CPU: the Python function calls of one repeated
    # step (the count is the same on every run: a profiler sees each call). 198 before the fast
    # paths, 78 with them (docs/performance.md); the bound leaves room for small changes.
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
    calls, _ = _python_calls(step)
    assert 50 <= calls <= 100, f"{calls} Python calls in a SimpleCNN step"


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


# ---- x[a:b]: a batch cut from a resident dataset (_indexing.leading_slice) ----
_SLICES = [slice(2, 7), slice(2, 7, 2), slice(-3, None), slice(None, -4), slice(5, 2), slice(8, 100),
           slice(-100, 3), slice(None, None, 3), slice(0, 10), slice(None), slice(0, 10, 1), slice(9, None, 4)]


@pytest.mark.parametrize("key", _SLICES, ids=str)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_leading_slice_matches_the_planned_key(key, requires_grad):
    # x[a:b] takes the fast path; x[(a:b,)] is planned (_plan, _basic_view): the two agree on the
    # values, the layout, the node and whether the tensor itself comes back.
    base = gg.tensor(np.arange(60, dtype=np.float32).reshape(10, 3, 2), requires_grad=requires_grad)
    for x in (base, base.permute(0, 2, 1)):  # a view laid out other than row-major too
        fast, planned = x[key], x[(key,)]
        assert (fast is x) == (planned is x)
        assert tuple(fast.shape) == tuple(planned.shape) and fast.stride() == planned.stride()
        assert fast.is_contiguous() == planned.is_contiguous()
        np.testing.assert_array_equal(fast.detach().numpy(), planned.detach().numpy())
        np.testing.assert_array_equal(fast.detach().numpy(), x.detach().numpy()[key])
        if requires_grad:
            assert (fast.grad_fn is None) == (planned.grad_fn is None)
            if fast is not x:
                # PyTorch's names: x[a:b] is SliceBackward0; x[(a:b,)] taking all of x is a new
                # view named AliasBackward0 (as x[...] and x[:, :]), else SliceBackward0
                whole = range(10)[key] == range(10)
                assert fast.grad_fn.name() == "SliceBackward0"
                assert planned.grad_fn.name() == ("AliasBackward0" if whole else "SliceBackward0")


def test_leading_slice_values_and_gradient():
    # PyTorch's documented basic slicing: a view of every step-th row in [start, stop); its
    # gradient lands on the rows it read.
    x = gg.tensor(np.arange(10, dtype=np.float32), requires_grad=True)
    assert x[2:7:2].tolist() == [2.0, 4.0, 6.0]
    assert x[-3:].tolist() == [7.0, 8.0, 9.0]
    assert tuple(x[5:2].shape) == (0,)
    assert x[8:100].tolist() == [8.0, 9.0]
    (x[1:9:3] * gg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0]
    rows = gg.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    cut = rows[1:3]
    assert cut.stride() == (3, 1) and cut.tolist() == [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    cut.fill_(0.0)  # a view: writes through
    assert rows[1].tolist() == [0.0, 0.0, 0.0]


def test_other_slices_are_planned(monkeypatch):
    # A negative step, a zero step, bounds that are not ints and a 0-d tensor take _plan, with its
    # errors and its results.
    from glassgrad import _indexing
    x = gg.tensor(np.arange(6, dtype=np.float32))
    assert x[::-2].tolist() == [5.0, 3.0, 1.0]
    assert x[np.int64(1):np.int64(3)].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor"):
        gg.tensor(1.0)[1:]
    planned = []
    real = _indexing._plan
    monkeypatch.setattr(_indexing, "_plan", lambda *a, **k: planned.append(a[1]) or real(*a, **k))
    x[1:4]
    x[1:4:2]
    assert planned == []
    x[::-1]
    x[1:3, None]
    assert planned == [slice(None, None, -1), (slice(1, 3), None)]


def test_leading_slice_against_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(24, dtype=np.float32).reshape(6, 4)
    for key in _SLICES:
        g = gg.tensor(a, requires_grad=True)[key]
        t = torch.tensor(a, requires_grad=True)[key]
        assert tuple(g.shape) == tuple(t.shape) and g.stride() == t.stride()
        np.testing.assert_array_equal(g.detach().numpy(), t.detach().numpy())


# ---- Module.__call__'s names (the module's "_call_names" entry, nn/module.py) ----
def test_layer_call_names_follow_path_and_class_changes():
    # The scope and layer name a call pushes are kept on the module with the class and path they
    # were made for: a layer moved to another path, or whose class changes, is named by its new
    # path and class in the engine's errors.
    seen = []

    class Probe(gg.nn.Module):
        def forward(self, x):
            seen.append((gg._trace.current_scope(), gg._trace._local.layers[-1]))
            return x

    probe = Probe()
    probe(1)
    model = gg.nn.Sequential(gg.nn.Identity(), probe)
    model(1)
    outer = gg.nn.Module()
    outer.inner = model
    model(1)

    class Renamed(Probe):
        pass

    probe.__class__ = Renamed
    model(1)
    assert seen == [("Probe", "Probe"), ("1", "Probe '1'"), ("inner.1", "Probe 'inner.1'"),
                    ("inner.1", "Renamed 'inner.1'")]
    lin = gg.nn.Sequential(gg.nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match="Linear '0'"):
        lin(gg.randn(4, 5))
    del lin[0].__dict__["_call_names"]  # made again on the next call
    with pytest.raises(RuntimeError, match="Linear '0'"):
        lin(gg.randn(4, 5))


def test_layer_call_names_are_made_once_per_path_and_class(monkeypatch):
    # A repeated call pushes the kept names; a new path or class makes them once more.
    from glassgrad.nn import module as _module
    made = []
    real = _module._call_names
    monkeypatch.setattr(_module, "_call_names", lambda m: made.append(type(m).__name__) or real(m))
    layers = [type(f"Layer{i}", (gg.nn.Identity,), {})() for i in range(3)]
    for _ in range(3):
        for layer in layers:
            layer(1)
    assert made == ["Layer0", "Layer1", "Layer2"]
    model = gg.nn.Sequential(*layers)  # new paths "0", "1", "2"
    model(1)
    model(1)
    assert made == ["Layer0", "Layer1", "Layer2", "Sequential", "Layer0", "Layer1", "Layer2"]
    assert [m.__dict__["_call_names"][2:] for m in layers] == [(str(i), f"Layer{i} '{i}'") for i in range(3)]


def test_module_without_init_still_names_the_missing_attribute():
    class NoInit(gg.nn.Module):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with pytest.raises(AttributeError, match="'NoInit' object has no attribute '_scope'"):
        NoInit()(1)


# ---- BatchNorm's training forward (_batchnorm.training_forward) ----
def test_batchnorm_running_stats_on_every_update_path():
    # Stored statistics with a float momentum take the one-node update; an int momentum, momentum
    # None (a tensor factor) and pending (computed) statistics take update_running_stats' other
    # paths: all give PyTorch's running_mean = (1 - m) * running_mean + m * mean.
    gg.manual_seed(0)
    x = gg.randn(4, 2, 3, 3)
    xn = x.numpy().astype(np.float64)
    mean, var = xn.mean((0, 2, 3)), xn.var((0, 2, 3)) * 36 / 35
    for momentum in (0.1, 1, None):
        bn = gg.nn.BatchNorm2d(2, momentum=momentum)
        bn(x)
        bn(x)
        m = 0.1 if momentum == 0.1 else 1.0  # None: 1/1, then 1/2 of the same batch -> the batch's
        expect_mean = (1 - m) * ((1 - m) * 0 + m * mean) + m * mean if momentum == 0.1 else mean
        expect_var = (1 - m) * ((1 - m) * 1 + m * var) + m * var if momentum == 0.1 else var
        np.testing.assert_allclose(bn.running_mean.numpy(), expect_mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bn.running_var.numpy(), expect_var, rtol=1e-5, atol=1e-6)
        assert bn.num_batches_tracked.item() == 2
    # statistics handed to F.batch_norm as pending tensors (not stored) are updated by composed ops
    rm, rv = gg.zeros(2) * 1.0, gg.ones(2) * 1.0
    gg.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.5)
    np.testing.assert_allclose(rm.numpy(), 0.5 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * var, rtol=1e-5, atol=1e-6)


def test_batchnorm_without_running_stats_and_in_eval():
    gg.manual_seed(0)
    x = gg.randn(3, 2, 2, 2)
    xn = x.numpy().astype(np.float64)
    ref = (xn - xn.mean((0, 2, 3))[None, :, None, None]) / np.sqrt(xn.var((0, 2, 3))[None, :, None, None] + 1e-5)
    free = gg.nn.BatchNorm2d(2, track_running_stats=False)
    np.testing.assert_allclose(free(x).detach().numpy(), ref, rtol=1e-4, atol=1e-5)
    free.eval()  # no running statistics: batch statistics in eval too (PyTorch's)
    np.testing.assert_allclose(free(x).detach().numpy(), ref, rtol=1e-4, atol=1e-5)
    bn = gg.nn.BatchNorm2d(2).eval()  # eval with fresh statistics: (x - 0) / sqrt(1 + eps)
    np.testing.assert_allclose(bn(x).detach().numpy(), xn / np.sqrt(1 + 1e-5), rtol=1e-5, atol=1e-6)
    assert bn.num_batches_tracked.item() == 0


def test_relu_by_dtype():
    # PyTorch's relu: a floating tensor through ReLU, an integer one stays integer, bool refused.
    f = gg.nn.functional.relu(gg.tensor([-1.5, 2.0], dtype=gg.float64))
    assert f.dtype == gg.float64 and f.tolist() == [0.0, 2.0]
    h = gg.nn.functional.relu(gg.tensor([-1.0, 3.0], dtype=gg.bfloat16))
    assert h.dtype == gg.bfloat16 and h.tolist() == [0.0, 3.0]
    i = gg.nn.functional.relu(gg.tensor([-3, 4], dtype=gg.int32))
    assert i.dtype == gg.int32 and i.tolist() == [0, 4]
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu") as refused:
        gg.nn.functional.relu(gg.tensor([True, False]))
    # the ReLU rule's refusal, which sends a non-floating input to this path, is not chained to it
    assert refused.value.__context__ is None and refused.value.__cause__ is None
    u = gg.nn.functional.relu(gg.tensor([0, 7], dtype=gg.uint8))
    assert u.dtype == gg.uint8 and u.tolist() == [0, 7]
    with pytest.raises(AttributeError, match="'list' object has no attribute '_h'"):
        gg.nn.functional.relu([1.0, -1.0])


def test_a_batch_slice_makes_few_python_calls():
    # train_mnist.py's `X_tensor[i:i + batch]`: 63 Python calls a slice when the key was planned,
    # 4 with the fast path (Tensor.__getitem__, _index, leading_slice, _op).
    data = gg.tensor(np.zeros((64, 1, 4, 4), np.float32))
    data[0:8]
    calls, batch = _python_calls(lambda: data[8:16])
    assert tuple(batch.shape) == (8, 1, 4, 4)
    assert calls <= 8, f"{calls} Python calls for a batch slice"



# ---- BatchNorm's running statistics: their update's outputs recorded without wrappers ----
def _bn_step_stats(rng_seed=0):
    """(running_mean, running_var) after one training forward of BatchNorm2d(3) on a fixed batch,
    and the NumPy reference (momentum 0.1, unbiased variance, PyTorch's update)."""
    x = np.random.default_rng(rng_seed).standard_normal((4, 3, 2, 2)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(3)
    gg.realize(bn.running_mean, bn.running_var)
    bn(gg.tensor(x)).sum().backward()
    n = x.size // 3
    mean = x.mean(axis=(0, 2, 3))
    unbiased = x.var(axis=(0, 2, 3)) * n / (n - 1)
    return bn, (bn.running_mean.numpy(), bn.running_var.numpy()), (0.1 * mean, 0.9 + 0.1 * unbiased)


def _recorded_op_multi(monkeypatch):
    from glassgrad import _batchnorm, _tensor
    names = []
    real = _tensor._op_multi

    def counting(name, inputs, attrs=None):
        names.append(name)
        return real(name, inputs, attrs)

    monkeypatch.setattr(_tensor, "_op_multi", counting)
    monkeypatch.setattr(_batchnorm, "_op_multi", counting)
    return names


def test_running_stats_update_makes_no_tensors_for_its_outputs(monkeypatch):
    # (num_batches_tracked's AddScalarInPlace too, where momentum is a number)
    names = _recorded_op_multi(monkeypatch)
    bn, got, want = _bn_step_stats()
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    # the count's, the forward's and the update's nodes recorded by handle: no Tensor for the
    # batch's statistics, and the update's node recorded and its outputs taken in one call
    assert names == []
    assert int(bn.num_batches_tracked.item()) == 1


def test_running_stats_refused_update_moves_neither(monkeypatch):
    # BatchNormUpdateStats refuses running statistics of another size than the batch's: the
    # error names the layer, and neither running tensor moves (the forward's count does not either).
    bn = gg.nn.BatchNorm2d(3)
    bn.running_mean = gg.zeros(4)
    gg.realize(bn.running_mean, bn.running_var)
    mean_h, var_h = bn.running_mean._h, bn.running_var._h
    with pytest.raises(RuntimeError, match="running_mean"):
        bn(gg.randn(2, 3, 2, 2))
    assert bn.running_mean._h.identity == mean_h.identity and bn.running_var._h.identity == var_h.identity
    assert bn.running_mean.tolist() == [0.0] * 4 and bn.running_var.tolist() == [1.0] * 3
    assert int(bn.num_batches_tracked.item()) == 0


def test_training_forward_inside_inference_mode_makes_inference_output():
    # an input made outside, the layer called inside inference_mode(): PyTorch's output is an
    # inference tensor, and the running statistics are updated all the same
    x = np.random.default_rng(5).standard_normal((4, 3, 2, 2)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(3)
    gg.realize(bn.running_mean, bn.running_var)
    xt = gg.tensor(x)
    with gg.inference_mode():
        y = bn(xt)
    assert y.is_inference() and not xt.is_inference()
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked.item()) == 1


def test_running_stats_pending_take_the_composed_update():
    # statistics written in place since last stored (not realized) take update_running_stats'
    # composed path; the values are PyTorch's either way
    x = np.random.default_rng(4).standard_normal((4, 3, 2, 2)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(3)
    # A value tracking a gradient pending keeps the write recorded (not done on the host at once):
    # pending, an in-place op not computed yet
    tracked = gg.ones(3, requires_grad=True) * 2
    bn.running_mean.add_(1.0)
    assert not bn.running_mean._h.realized
    bn(gg.tensor(x))
    n = x.size // 3
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.9 * 1.0 + 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3)) * n / (n - 1), rtol=1e-5,
                               atol=1e-6)
    assert tracked.tolist() == [2.0, 2.0, 2.0]


def test_running_stats_under_saved_tensor_hooks_and_beside_inference_tensors(monkeypatch):
    # Those cases take _op_multi's path (its hooks and checks) and update the statistics alike;
    # the count is recorded once the forward is.
    names = _recorded_op_multi(monkeypatch)
    packed = []
    with gg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        _, got, want = _bn_step_stats(1)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert names == ["BatchNorm2DTrain", "BatchNormUpdateStats", "AddScalarInPlace"] and packed
    with gg.inference_mode():
        held = gg.ones(2)  # an inference tensor alive during the step
    names.clear()
    _, got, want = _bn_step_stats(2)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert names == ["BatchNorm2DTrain", "BatchNormUpdateStats", "AddScalarInPlace"] and held.is_inference()


def test_cumulative_average_still_reads_the_count():
    # momentum=None: the factor is 1 / num_batches_tracked after the increment (PyTorch's), so
    # after k forwards of the same batch the running mean is the batch mean.
    x = np.random.default_rng(3).standard_normal((4, 2, 3, 3)).astype(np.float32)
    bn = gg.nn.BatchNorm2d(2, momentum=None)
    for _ in range(3):
        bn(gg.tensor(x))
    assert int(bn.num_batches_tracked.item()) == 3
    np.testing.assert_allclose(bn.running_mean.numpy(), x.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-6)
