"""The namespaces PyTorch scripts import around the model: glassgrad.device, glassgrad.accelerator,
glassgrad.backends (cudnn, mps, cuda, openmp) and glassgrad.nn.parallel, checked against PyTorch's
documented behaviour (and against torch itself where it is installed)."""
import pickle

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.backends.cudnn as cudnn
import glassgrad.nn as nn


# ---- glassgrad.device ------------------------------------------------------------------------
@pytest.mark.parametrize("args, text, kind, index", [
    (("cpu",), "cpu", "cpu", None),
    (("cuda",), "cuda", "cuda", None),
    (("cuda:1",), "cuda:1", "cuda", 1),
    (("cuda", 2), "cuda:2", "cuda", 2),
    ((0,), "cuda:0", "cuda", 0),
    (("cpu", 0), "cpu:0", "cpu", 0),
    (("mps",), "mps", "mps", None),
])
def test_device_has_torch_type_index_and_string(args, text, kind, index):
    d = gg.device(*args)
    assert (d.type, d.index, str(d)) == (kind, index, text)
    assert d == text and hash(d) == hash(text)
    assert isinstance(d, gg.device)


def test_device_repr_matches_torch(torch):
    for args in [("cpu",), ("cuda",), ("cuda", 1), ("cuda:3",)]:
        assert repr(gg.device(*args)) == repr(torch.device(*args))
        assert str(gg.device(*args)) == str(torch.device(*args))


def test_device_keyword_arguments_and_copy():
    d = gg.device(type="cuda", index=1)
    assert d == "cuda:1" and gg.device(d) == d and gg.device(d).index == 1
    assert pickle.loads(pickle.dumps(d)) == d and pickle.loads(pickle.dumps(d)).index == 1


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cuda:-1", "cuda:01", ""])
def test_device_refuses_bad_strings(bad):
    with pytest.raises(gg.DeviceError, match="device"):
        gg.device(bad)


def test_device_type_errors():
    with pytest.raises(TypeError):
        gg.device()
    with pytest.raises(TypeError):
        gg.device(1.5)


def test_tensor_device_is_a_device_object_equal_to_its_string():
    t = gg.tensor(np.ones(3, np.float32), device="cpu")
    assert isinstance(t.device, gg.device)
    assert t.device == "cpu" and t.device == gg.device("cpu")
    assert t.device.type == "cpu" and t.device.index is None


def test_device_object_is_accepted_wherever_a_device_string_is():
    d = gg.device("cpu")
    x = gg.tensor(np.arange(4.0, dtype=np.float32), device=d)
    assert x.to(d).device == "cpu" and x.to(gg.device("cpu")).numpy().tolist() == [0, 1, 2, 3]
    layer = nn.Linear(2, 2).to(d)
    assert all(p.device == "cpu" for p in layer.parameters())
    assert gg.zeros(2, device=d).device == "cpu"


def test_device_as_context_manager_sets_and_restores_the_default():
    before = gg.default_device()
    with gg.device("cpu"):
        assert gg.default_device() == "cpu"
        assert gg.tensor([1.0]).device == "cpu"
    assert gg.default_device() == before


def test_get_default_device_gives_a_device_and_set_default_device_none_resets(monkeypatch):
    # The names tutorial prints f"Using device = {torch.get_default_device()}" after set_default_device.
    before = gg.default_device()
    try:
        gg.set_default_device("cpu")
        d = gg.get_default_device()
        assert isinstance(d, gg.device) and d == gg.device("cpu") and repr(d) == "device(type='cpu')"
        import glassgrad.torch as torch_namespace
        assert f"{d}" == "cpu" and torch_namespace.get_default_device() == "cpu"
        monkeypatch.setenv("GLASSGRAD_DEVICE", "cpu")
        gg.set_default_device(None)  # back to the default: GLASSGRAD_DEVICE here
        assert gg.get_default_device() == "cpu" and gg.tensor([1.0]).device == "cpu"
    finally:
        gg.set_default_device(before)


def test_unsupported_device_type_says_glassgrad_has_cpu_and_cuda():
    with pytest.raises(gg.DeviceError, match="'cpu' and 'cuda'"):
        gg.tensor([1.0], device=gg.device("mps"))


# ---- glassgrad.accelerator ---------------------------------------------------------------------
def test_accelerator_agrees_with_glassgrad_cuda():
    assert gg.accelerator.is_available() == gg.cuda.is_available()
    assert gg.accelerator.device_count() == (gg.cuda.device_count() if gg.cuda.is_available() else 0)
    current = gg.accelerator.current_accelerator()
    if gg.cuda.built_with_kernels() or gg.cuda.is_available():
        assert current == gg.device("cuda") and current.type == "cuda"
    else:
        assert current is None
    checked = gg.accelerator.current_accelerator(check_available=True)
    assert checked == (gg.device("cuda") if gg.cuda.is_available() else None)
    assert gg.accelerator.current_device_index() == 0


def test_the_mnist_example_device_choice_runs():
    use_accel = gg.accelerator.is_available()
    device = gg.accelerator.current_accelerator() if use_accel else gg.device("cpu")
    assert device.type in ("cpu", "cuda")


@pytest.mark.skipif(gg.cuda.is_available(), reason="checks the error without a GPU")
def test_accelerator_synchronize_without_gpu_says_why():
    with pytest.raises(gg.DeviceError, match="no usable GPU"):
        gg.accelerator.synchronize()


def test_accelerator_device_index_context_and_pytorch_spellings():
    start = gg.accelerator.current_device_index()
    with gg.accelerator.device_index(None):  # no-op, as PyTorch's
        assert gg.accelerator.current_device_index() == start
    with gg.accelerator.device_index(0):
        assert gg.accelerator.current_device_idx() == 0
    assert gg.accelerator.current_device_index() == start
    with pytest.raises(gg.DeviceError, match="out of range"):
        with gg.accelerator.device_index(7):
            pass
    assert gg.accelerator.set_device_idx is gg.accelerator.set_device_index
    if not gg.cuda.is_available():  # PyTorch's answers before CUDA is initialized
        assert gg.accelerator.memory_allocated() == gg.accelerator.memory_reserved() == 0
        assert gg.accelerator.memory_stats() == {} and gg.accelerator.empty_cache() is None


def test_accelerator_names_match_torch(torch):
    import inspect
    for name in ("device_index", "current_device_idx", "set_device_idx", "empty_cache", "memory_allocated",
                 "max_memory_allocated", "memory_reserved", "memory_stats", "get_memory_info"):
        ours, theirs = getattr(gg.accelerator, name), getattr(torch.accelerator, name)
        if not isinstance(theirs, type):
            assert list(inspect.signature(ours).parameters) == list(inspect.signature(theirs).parameters), name


@pytest.mark.cuda
def test_accelerator_on_a_gpu():
    assert gg.accelerator.is_available() and gg.accelerator.device_count() >= 1
    gg.accelerator.set_device_index(0)
    gg.accelerator.synchronize()
    gg.accelerator.synchronize("cuda:0")
    with pytest.raises(gg.DeviceError, match="out of range"):
        gg.accelerator.set_device_index(gg.accelerator.device_count())


# ---- glassgrad.backends ------------------------------------------------------------------------
def test_cudnn_benchmark_switches_the_conv_autotuner():
    before = gg.cuda.conv_autotune()
    try:
        cudnn.benchmark = False
        assert gg.cuda.conv_autotune() is False and cudnn.benchmark is False
        cudnn.benchmark = True
        assert gg.cuda.conv_autotune() is True and gg.backends.cudnn.benchmark is True
        gg.cuda.set_conv_autotune(False)
        assert cudnn.benchmark is False  # reads the setting itself
    finally:
        gg.cuda.set_conv_autotune(before)


def test_cudnn_deterministic_is_a_runtime_setting():
    assert cudnn.deterministic is False
    try:
        cudnn.deterministic = True
        assert gg._C.cuda_deterministic() is True and cudnn.deterministic is True
    finally:
        cudnn.deterministic = False
    assert gg._C.cuda_deterministic() is False


def test_cudnn_flags_context_restores_previous_values():
    before = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    with cudnn.flags(enabled=False, benchmark=True, deterministic=True, allow_tf32=False):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (False, True, True, False)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == before


def test_cudnn_enabled_is_kept_and_has_torch_defaults(torch):
    assert cudnn.enabled is True and cudnn.allow_tf32 is True
    assert cudnn.enabled == torch.backends.cudnn.enabled
    assert cudnn.is_available() is False and cudnn.version() is None
    cudnn.enabled = False
    try:
        assert cudnn.enabled is False
        x = gg.tensor(np.ones((1, 1, 4, 4), np.float32), device="cpu")
        w = gg.tensor(np.ones((1, 1, 3, 3), np.float32), device="cpu")
        assert gg.conv2d(x, w).numpy().ravel().tolist() == [9.0] * 4  # convolutions still run
    finally:
        cudnn.enabled = True


def test_backends_module_attributes():
    assert gg.backends.mps.is_available() is False and gg.backends.mps.is_built() is False
    assert gg.backends.cuda.is_built() == gg.cuda.built_with_kernels()
    assert gg.backends.cuda.matmul.allow_tf32 is False
    assert isinstance(gg.backends.openmp.is_available(), bool)
    with pytest.raises(AttributeError):
        cudnn.no_such_switch


# ---- glassgrad.nn.parallel ---------------------------------------------------------------------
def test_data_parallel_is_a_pass_through_with_module_prefixed_state_dict():
    gg.manual_seed(0)
    inner = nn.Linear(3, 2).to("cpu")
    x = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device="cpu")
    expected = inner(x).detach().cpu().numpy()
    dp = nn.DataParallel(inner)
    assert dp.module is inner
    # With a GPU, PyTorch's DataParallel moves the module to device_ids[0] and the inputs with it.
    want = "cuda:0" if gg.cuda.is_available() else "cpu"
    assert str(inner.weight.device) == want
    out = dp(x)
    assert str(out.device) == want
    np.testing.assert_allclose(out.to("cpu").detach().cpu().numpy(), expected, rtol=1e-6)
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert [id(p) for p in dp.parameters()] == [id(p) for p in inner.parameters()]


def test_data_parallel_function_and_import_paths():
    import glassgrad.nn.parallel as parallel
    from glassgrad.distributed import DistributedDataParallel
    assert parallel.DistributedDataParallel is DistributedDataParallel
    assert nn.parallel.DataParallel is nn.DataParallel
    layer = nn.Linear(2, 2).to("cpu")
    x = gg.tensor(np.ones((1, 2), np.float32), device="cpu")
    np.testing.assert_array_equal(parallel.data_parallel(layer, x, range(1)).detach().numpy(), layer(x).detach().numpy())
    np.testing.assert_array_equal(parallel.data_parallel(layer, (x,)).detach().numpy(), layer(x).detach().numpy())


@pytest.mark.cuda
def test_data_parallel_on_several_gpus_points_to_distributed_data_parallel():
    layer = nn.Linear(2, 2).to("cuda")
    with pytest.raises(gg.UnsupportedError, match="DistributedDataParallel"):
        nn.DataParallel(layer, device_ids=[0, 1])
    moved = nn.DataParallel(nn.Linear(2, 2).to("cpu"), device_ids=[0])
    assert str(moved.module.weight.device) == "cuda:0"
    moved.module.to("cpu")
    with pytest.raises(gg.DeviceError, match="model = model.to"):
        moved(gg.ones(1, 2))
    assert nn.DataParallel(layer, device_ids=[0]).device_ids == [0]
