"""torch.cuda's device, device_of, StreamContext, is_initialized, the memory names
(set/get_per_process_memory_fraction, memory_stats_as_nested_dict, reset_accumulated_memory_stats,
max_memory_reserved, max_memory_cached, reset_max_memory_cached, memory_snapshot,
list_gpu_processes, ipc_collect), default_generators, torch.cuda.random, amp's
amp_definitely_not_available and the CUDA-graph names (docs/cuda.md, "torch.cuda names").
Without a GPU each answers as PyTorch does on a machine without one (the values PyTorch's
documentation gives before CUDA is initialized, or a RuntimeError); with one (marked cuda) they
act on the device."""
import importlib
import warnings

import pytest

import glassgrad as gg

c = gg.cuda
NO_GPU = not c.is_available()
without_gpu = pytest.mark.skipif(not NO_GPU, reason="checks the answers without a GPU")
needs_gpu = pytest.mark.skipif(NO_GPU, reason="needs a usable GPU")

RAISING_WITHOUT_GPU = {
    "set_per_process_memory_fraction": (0.5,), "get_per_process_memory_fraction": (),
    "reset_accumulated_memory_stats": (), "ipc_collect": (), "is_current_stream_capturing": (), "CUDAGraph": (),
    "make_graphed_callables": (gg.nn.Linear(2, 2), (gg.zeros(1, 2),)),
}


@without_gpu
@pytest.mark.parametrize("name", list(RAISING_WITHOUT_GPU))
def test_without_a_gpu_these_raise_a_runtime_error_with_the_reason(name):
    with pytest.raises(RuntimeError, match="cannot be used") as info:
        getattr(c, name)(*RAISING_WITHOUT_GPU[name])
    assert isinstance(info.value, gg.DeviceError)


@without_gpu
def test_without_a_gpu_the_queries_answer_as_before_cuda_is_initialized():
    assert c.is_initialized() is False
    assert c.memory_stats() == {} and c.memory_stats_as_nested_dict() == {}
    assert c.memory_allocated() == c.max_memory_allocated() == c.memory_reserved() == c.memory_cached() == 0
    assert c.max_memory_reserved() == 0
    assert c.empty_cache() is None
    assert c.memory_snapshot() == []
    assert c.default_generators == ()
    assert c.amp.common.amp_definitely_not_available() is True
    assert c.amp.amp_definitely_not_available() is True
    with pytest.warns(FutureWarning, match="max_memory_reserved"):
        assert c.max_memory_cached() == 0
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"), pytest.raises(RuntimeError):
        c.reset_max_memory_cached()


@without_gpu
def test_device_blocks_that_select_no_gpu_run_without_one():
    with c.device(-1) as entered:
        assert entered is None
    with c.device_of(gg.zeros(2)):
        pass
    with c.StreamContext(None), c.stream(None):
        pass
    assert c.device_of(gg.zeros(2)).idx == -1
    with pytest.raises(RuntimeError, match="cannot be used"):
        with c.device(0):
            pass
    assert c.current_device() == 0


def test_device_index_rules():
    assert c.device(None).idx is None and c.device("cuda").idx is None
    assert c.device(2).idx == 2 and c.device("cuda:3").idx == 3 and c.device(gg.device("cuda", 1)).idx == 1
    for other in ("cpu", gg.device("cpu"), "mps"):
        with pytest.raises(ValueError, match="Expected a cuda device, but got"):
            c.device(other)
    assert issubclass(c.device_of, c.device)


@pytest.mark.parametrize("call", ["synchronize", "device_info", "get_device_name", "get_device_capability"])
@pytest.mark.parametrize("other", ["cpu", gg.device("cpu")])
def test_a_device_argument_naming_no_gpu_is_a_value_error(call, other):
    # PyTorch's torch.cuda functions: ValueError("Expected a cuda device, but got: cpu"), GPU or not (d2l's
    # async-computation notebook passes try_gpu()'s CPU fallback to synchronize)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu") as raised:
        getattr(c, call)(other)
    assert isinstance(raised.value, gg.DeviceError)


def test_graph_pool_handles_are_distinct_ids_gpu_or_not():
    a, b = c.graph_pool_handle(), c.graph_pool_handle()
    assert a[0] == b[0] == 0 and b[1] == a[1] + 1


def test_list_gpu_processes_without_nvml_says_so():
    try:
        importlib.import_module("pynvml")
    except ModuleNotFoundError:
        assert c.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"
    else:
        pytest.skip("pynvml is installed")


def test_cuda_random_is_a_module_of_the_generator_functions():
    from glassgrad.cuda.amp.common import amp_definitely_not_available
    from glassgrad.cuda.random import manual_seed
    random = importlib.import_module("glassgrad.cuda.random")
    assert set(random.__all__) == {"get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
                                   "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed"}
    manual_seed(5)
    assert gg.initial_seed() == 5
    assert amp_definitely_not_available() is NO_GPU


def test_the_same_outcomes_as_torch_without_a_gpu():
    torch = pytest.importorskip("torch")
    if not NO_GPU or torch.cuda.is_available():
        pytest.skip("compares the answers of two libraries without a GPU")
    calls = ["is_initialized()", "memory_stats_as_nested_dict()", "max_memory_reserved()", "memory_snapshot()",
             "memory_allocated()", "memory_reserved()", "empty_cache()", "default_generators", "graph_pool_handle()[0]",
             "set_per_process_memory_fraction(0.5)", "get_per_process_memory_fraction()", "ipc_collect()",
             "reset_accumulated_memory_stats()", "is_current_stream_capturing()", "CUDAGraph()", "device('cpu')",
             "device(-1).__enter__()", "device_of(lib.zeros(1)).__enter__()", "StreamContext(None).__enter__()",
             "amp.common.amp_definitely_not_available()", "is_tf32_supported()", "get_allocator_backend()",
             "host_memory_stats()", "has_half"]
    for call in calls:
        outcomes = []
        for lib in (torch, gg):
            try:
                outcomes.append(("value", eval("lib.cuda." + call, {"lib": lib})))
            except (RuntimeError, ValueError, TypeError) as e:
                outcomes.append(("error", next(k for k in (ValueError, TypeError, RuntimeError) if isinstance(e, k))))
            if outcomes[-1][0] == "value" and isinstance(outcomes[-1][1], dict):
                outcomes[-1] = ("value", dict(outcomes[-1][1]))  # PyTorch's OrderedDict()
        assert outcomes[0] == outcomes[1], (call, outcomes)


@pytest.mark.cuda
@needs_gpu
def test_device_block_selects_and_restores_the_gpu():
    before = c.current_device()
    with c.device(0):
        assert c.current_device() == 0
    assert c.current_device() == before
    x = gg.zeros(2, device="cuda")
    with c.device_of(x):
        assert c.current_device() == x.get_device()
    s = c.Stream()
    with c.StreamContext(s):
        assert c.current_stream() is s
    assert c.is_initialized()


@pytest.mark.cuda
@needs_gpu
def test_memory_fraction_is_the_memory_limit():
    total = c.get_device_properties(0).total_memory
    try:
        c.set_per_process_memory_fraction(0.5)
        assert c.get_per_process_memory_fraction() == 0.5
        assert c.memory_stats()["limit"] == int(0.5 * total)
        with pytest.raises(ValueError, match="Allowed range"):
            c.set_per_process_memory_fraction(1.5)
        with pytest.raises(TypeError, match="must be `float`"):
            c.set_per_process_memory_fraction(1)
    finally:
        c.set_per_process_memory_fraction(1.0)
    assert c.get_per_process_memory_fraction() == 1.0


@pytest.mark.cuda
@needs_gpu
def test_accumulated_counts_restart_and_graph_names_on_a_gpu():
    gg.realize(gg.ones(1000, device="cuda"))
    c.reset_accumulated_memory_stats()
    assert c.memory_stats()["num_allocs"] == 0
    gg.realize(gg.ones(1000, device="cuda") * 2)
    assert c.memory_stats()["num_allocs"] >= 1
    assert c.max_memory_reserved() >= c.memory_reserved()
    assert len(c.memory_snapshot()) == c.device_count()
    assert len(c.default_generators) == c.device_count()
    assert c.is_current_stream_capturing() is False
    model = gg.nn.Linear(2, 2).cuda()
    assert c.make_graphed_callables(model, (gg.zeros(1, 2, device="cuda"),)) is model
    with pytest.raises(NotImplementedError, match="captures CUDA graphs itself"):
        c.CUDAGraph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert c.max_memory_cached() == c.max_memory_reserved()


NVML_QUERIES = ["utilization", "memory_usage", "temperature", "power_draw", "clock_rate", "device_memory_used"]


def test_build_queries_and_constants():
    assert c.get_allocator_backend() == "native"
    assert c.has_half is True and c.has_magma is False
    assert c.is_tf32_supported() is (not NO_GPU and c.get_device_capability() >= (8, 0))
    if NO_GPU:
        assert c.host_memory_stats() == {}


def test_gencode_flags_are_torchs_format(monkeypatch):
    from glassgrad import _cuda_queries
    monkeypatch.setattr(_cuda_queries, "get_arch_list", lambda: ["sm_80", "compute_90"])
    assert c.get_gencode_flags() == "-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=compute_90"
    monkeypatch.setattr(_cuda_queries, "get_arch_list", lambda: [])
    assert c.get_gencode_flags() == ""


class _FakeNvml:
    """The parts of pynvml the queries read, with fixed answers."""

    class NVMLError_DriverNotLoaded(Exception):
        pass

    def __init__(self):
        self.handles = []

    def nvmlInit(self):
        pass

    def nvmlDeviceGetHandleByIndex(self, i):
        self.handles.append(i)
        return i

    def nvmlDeviceGetUtilizationRates(self, h):
        return type("U", (), {"gpu": 37, "memory": 12})()

    def nvmlDeviceGetTemperature(self, h, sensor):
        return 61

    def nvmlDeviceGetPowerUsage(self, h):
        return 123000

    def nvmlDeviceGetClockInfo(self, h, kind):
        return 1980 if kind == 1 else 0

    def nvmlDeviceGetMemoryInfo(self, h):
        return type("M", (), {"used": 2 ** 30})()

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        return [type("P", (), {"pid": 42, "usedGpuMemory": 3 * 2 ** 20})()]


def test_nvml_queries_read_pynvml(monkeypatch):
    import sys
    fake = _FakeNvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    got = [getattr(c, name)(0) for name in NVML_QUERIES]
    assert got == [37, 12, 61, 123000, 1980, 2 ** 30]
    assert c.utilization(1) == 37 and fake.handles[-1] == 1 and fake.handles[0] == 3  # CUDA index -> NVML index
    assert c.list_gpu_processes(0) == "GPU:0\nprocess         42 uses        3.000 MB GPU memory"
    with pytest.raises(RuntimeError, match="not visible"):
        c.temperature(2)


def test_nvml_queries_without_pynvml(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ModuleNotFoundError
    for name in NVML_QUERIES:
        with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py does not seem to be installed"):
            getattr(c, name)()
    assert c.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"


STORAGE_DTYPES = {"FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
                  "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
                  "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool"}


def test_legacy_storage_classes_exist_with_their_dtypes():
    for name, dtype in STORAGE_DTYPES.items():
        cls = getattr(c, name)
        assert cls.dtype == getattr(gg, dtype), name
        assert not isinstance(gg.zeros(2, dtype=getattr(gg, dtype), device="cpu").storage(), cls)  # a CPU tensor's storage
        assert not isinstance(3, cls)


@without_gpu
def test_without_a_gpu_making_a_cuda_storage_raises():
    with pytest.raises(RuntimeError, match="cannot be used"):
        c.FloatStorage(3)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.cuda.FloatStorage(3)


@pytest.mark.cuda
@needs_gpu
def test_cuda_storages_on_a_gpu():
    s = c.FloatStorage(3)
    assert s.size() == 3 and s.tolist() == [0.0, 0.0, 0.0] and s.device.type == "cuda"
    assert c.LongStorage([1, 2]).tolist() == [1, 2]
    assert isinstance(gg.zeros(2, device="cuda").storage(), c.FloatStorage)
    assert not isinstance(gg.zeros(2, device="cuda").storage(), c.DoubleStorage)


def test_cuda_submodules_import_through_the_torch_alias():
    # `from torch.cuda.amp import GradScaler` ported as glassgrad.torch: glassgrad.cuda (and its amp)
    # are packages without folders, so their registered submodules import by the longer name
    amp = importlib.import_module("glassgrad.torch.cuda.amp")
    assert amp is c.amp and hasattr(amp, "GradScaler") and hasattr(amp, "autocast")
    assert importlib.import_module("glassgrad.torch.cuda.amp.common") is c.amp.common
    assert importlib.import_module("glassgrad.torch.cuda.random") is c.random
    assert importlib.import_module("glassgrad.torch.cuda.nvtx") is c.nvtx
    assert importlib.import_module("glassgrad.torch.cpu.amp") is gg.cpu.amp
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("glassgrad.cuda.no_such_module")
