"""The CUDA backend: is a GPU usable, and if not, why; what the GPU is; memory and
synchronization.

    >>> import glassgrad
    >>> glassgrad.cuda.is_available()
    False
    >>> print(glassgrad.cuda.why_unavailable())       # doctest: +SKIP
    the NVIDIA driver library libcuda.so.1 could not be loaded (...); install the NVIDIA driver, or use the CPU

Nothing here touches the driver at import; the first call that needs it (is_available(),
a CUDA tensor, ...) loads libcuda.so.1 and initializes the device. glassgrad never links the
CUDA runtime: its kernels are compiled ahead of time into one fatbin inside the extension.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from . import _C

__all__ = [
    "is_available", "why_unavailable", "device_count", "device_info", "synchronize", "memory_stats",
    "memory_allocated", "max_memory_allocated", "memory_cached", "empty_cache", "mem_get_info",
    "built_with_kernels", "built_archs", "build_note", "kernel_names", "set_conv_algo", "conv_algo", "conv_algo_specs",
    "conv_choices",
    "clear_conv_choices", "set_conv_autotune", "conv_autotune", "set_launch_blocking",
    "set_device", "current_device", "get_device_name", "get_device_capability", "is_bf16_supported",
    "memory_reserved",
]


class NotCudaDeviceError(_C.DeviceError, ValueError):
    """A device argument of a glassgrad.cuda function that names no GPU ('cpu'): a ValueError, as
    PyTorch's torch.cuda functions raise for one (docs/cuda.md, "torch.cuda names")."""


def _index(device) -> int:
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    d = str(device).strip().lower()
    if d in ("cuda", "gpu"):
        return 0
    if d.startswith("cuda:") and d[5:].isdigit():
        return int(d[5:])
    raise NotCudaDeviceError(f"Expected a cuda device, but got: {device}\n"
                             "  fix: use 'cuda', 'cuda:<index>' or an index, or leave the call out on the CPU")


def is_available() -> bool:
    """True when glassgrad can run its kernels on cuda:0."""
    return bool(_C.cuda_is_available())


def why_unavailable() -> str:
    """'' when CUDA is usable; otherwise the precise reason: no kernels in this build (and then,
    when this machine has a GPU, which one and the command that rebuilds with kernels for it),
    no driver, driver error, no GPU, or no kernel image for this GPU's compute capability or
    for its driver's version (with the command that rebuilds with one)."""
    return _C.cuda_why_unavailable()


def device_count() -> int:
    """Number of CUDA GPUs the driver sees (0 without a driver)."""
    return int(_C.cuda_device_count())


def device_info(device=0) -> Dict[str, Any]:
    """What deviceQuery prints: name, compute capability, multiprocessors, limits per block,
    memory. Raises DeviceError (with the reason) when the device cannot be used."""
    return dict(_C.cuda_device_info(_index(device)))


def synchronize(device=0) -> None:
    """Waits until every kernel and copy queued on the device has finished."""
    _C.cuda_synchronize(_index(device))


def _dev(device) -> str:
    return f"cuda:{_index(device)}"


# num_allocs and num_frees of each device when reset_accumulated_memory_stats last ran
_COUNTED_BEFORE: Dict[int, Tuple[int, int]] = {}


def memory_stats(device=0) -> Dict[str, int]:
    """glassgrad's accounting for the device: current, peak, limit, num_allocs, num_frees (since
    reset_accumulated_memory_stats), and cached (bytes kept by the caching allocator for reuse,
    not counted in current). {} without a usable GPU, as PyTorch's before CUDA is initialized."""
    if not is_available():
        return {}
    stats = dict(_C.memory_stats(_dev(device)))
    allocs, frees = _COUNTED_BEFORE.get(_index(device), (0, 0))
    stats["num_allocs"] -= allocs
    stats["num_frees"] -= frees
    return stats


def memory_allocated(device=0) -> int:
    """Bytes of tensors on the device now (0 without a usable GPU, as PyTorch's)."""
    return int(memory_stats(device).get("current", 0))


def max_memory_allocated(device=0) -> int:
    """The peak of memory_allocated (0 without a usable GPU, as PyTorch's)."""
    return int(memory_stats(device).get("peak", 0))


def memory_cached(device=0) -> int:
    """Bytes the caching allocator keeps for reuse (0 without a usable GPU, as PyTorch's)."""
    return int(memory_stats(device).get("cached", 0))


def empty_cache(device=0) -> None:
    """Returns the blocks the caching allocator keeps (and the plan arenas) to the driver; nothing
    to do without a usable GPU (as PyTorch's, so scripts that call it on a CPU machine run)."""
    if is_available():
        _C.empty_cache(_dev(device))


def mem_get_info(device=0) -> Tuple[int, int]:
    """(free, total) bytes on the device, as the driver sees them (all processes)."""
    free, total = _C.cuda_mem_get_info(_index(device))
    return int(free), int(total)


def built_with_kernels() -> bool:
    """Whether this build of glassgrad embeds CUDA kernels."""
    return bool(_C.cuda_built_with_kernels())


def built_archs() -> str:
    """The GPU architectures the embedded kernels were compiled for, e.g. 'sm_75, ..., + PTX compute_75'."""
    return _C.cuda_built_archs()


def build_note() -> str:
    """Which CUDA kernels this build holds and why, in one sentence from its configuration, e.g.
    'no CUDA kernels: no GPU was visible when it was built (...)' or 'CUDA kernels for the visible
    GPU: NVIDIA H200 (9.0), driver CUDA 13.0' (docs/cuda.md, "Which kernels a build holds")."""
    return _C.cuda_build_note()


def kernel_names() -> List[str]:
    """Every CUDA function glassgrad's launchers may load from the embedded fatbin, sorted
    (e.g. 'gg_conv_fwd_direct_f32'); [] when the build has no CUDA kernels. The tests check the
    fatbin's machine code against this list."""
    return list(_C.cuda_kernel_names())


def set_conv_algo(algo: str) -> None:
    """The CUDA convolutions' algorithm: 'auto' (per shape: heuristics, or the plan-time
    autotuner that times the candidates once per shape and device), 'direct', 'igemm' (implicit
    GEMM), 'winograd2' or 'winograd4' (Winograd F(2x2, 3x3) / F(4x4, 3x3), for 3x3 stride-1
    float32 layers). A forced algorithm that does not apply to a shape falls back to 'igemm'.
    'igemm:<tile>' / 'winograd2:<tile>' / 'winograd4:<tile>' also force the product tile (e.g.
    'igemm:32x32k16', 'winograd4:64x64'; tests and benchmarks), where the direction has a kernel
    of it; 'direct:fewc' forces the few-channel input gradient (3x3 stride-1 layers with at most
    4 input channels; elsewhere 'direct'); an unknown tile is refused."""
    _C.cuda_set_conv_algo(algo)


def conv_algo() -> str:
    return _C.cuda_conv_algo()


def conv_algo_specs() -> List[str]:
    """Every spec set_conv_algo takes besides 'auto': each algorithm alone and with each of its
    product tiles ('igemm:64x128', 'winograd4:64x64', ...; benchmarks/conv_precision.py runs them all)."""
    return list(_C.cuda_conv_algo_specs())


def conv_choices() -> list:
    """One line per convolution shape planned so far: the algorithm and parameters chosen and how
    (timed candidates with their times, or the heuristic and why)."""
    return list(_C.cuda_conv_choices())


def clear_conv_choices() -> None:
    """Forgets the choices: the next plan of each shape chooses (and times) again."""
    _C.cuda_clear_conv_choices()


def set_conv_autotune(on: bool = True) -> None:
    """Whether plans time the convolution candidates once per shape and device (on by default;
    GLASSGRAD_CONV_AUTOTUNE=0 sets the default off). Off: the heuristics choose."""
    _C.cuda_set_conv_autotune(bool(on))


def conv_autotune() -> bool:
    return bool(_C.cuda_conv_autotune())


def set_launch_blocking(on: bool = True) -> None:
    """Synchronize after every kernel so a failing kernel is reported by its own launch (slow;
    for debugging). The environment variable GLASSGRAD_CUDA_LAUNCH_BLOCKING=1 does the same."""
    _C.cuda_set_launch_blocking(bool(on))


# ---- torch.cuda's current-device and capability names (docs/porting.md, "Devices") ----
# The current device is glassgrad.accelerator's: one state for both spellings.
def set_device(device) -> None:
    """Makes `device` (an index, 'cuda:<i>' or a device) the current GPU; a negative index
    changes nothing, as PyTorch's. A DeviceError when the index is out of range."""
    from . import accelerator
    if isinstance(device, int) and not isinstance(device, bool) and device < 0:
        return
    accelerator.set_device_index(device)


def current_device() -> int:
    """The index of the current GPU (0 unless set_device changed it)."""
    from . import accelerator
    return accelerator.current_device_index()


def get_device_name(device=None) -> str:
    """The GPU's name, as deviceQuery prints it (the current device when None). Raises
    DeviceError (a RuntimeError, as PyTorch raises without a GPU) when it cannot be used."""
    return str(device_info(current_device() if device is None else device)["name"])


def get_device_capability(device=None) -> Tuple[int, int]:
    """The GPU's compute capability (major, minor), the current device's when None; DeviceError
    as get_device_name."""
    major, minor = device_info(current_device() if device is None else device)["compute_capability"]
    return int(major), int(minor)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False without a usable GPU. With one: True when its compute capability is 8.0 or more
    (bfloat16 in hardware), or, with including_emulation (the default, as PyTorch's), on any
    GPU: bfloat16 is a storage type whose ops compute in float32 and round (docs/dtypes.md)."""
    if not is_available():
        return False
    if including_emulation:
        return True
    return tuple(device_info(current_device())["compute_capability"]) >= (8, 0)


def memory_reserved(device=None) -> int:
    """Bytes held from the driver by glassgrad on the device: allocated plus cached by the
    caching allocator (torch.cuda.memory_reserved); 0 without a usable GPU, as PyTorch's."""
    stats = memory_stats(current_device() if device is None else device)
    return int(stats.get("current", 0)) + int(stats.get("cached", 0))


def manual_seed(seed: int) -> None:
    """torch.cuda.manual_seed: glassgrad has one generator for every device (CUDA kernels draw
    from it too, docs/porting.md), so this seeds it, as glassgrad.manual_seed does. A script's
    usual `torch.manual_seed(s); torch.cuda.manual_seed(s)` then gives the same draws as the
    first call alone."""
    from ._random import manual_seed as seed_all_devices
    seed_all_devices(seed)


def manual_seed_all(seed: int) -> None:
    """torch.cuda.manual_seed_all: the same as manual_seed (one generator for every device)."""
    manual_seed(seed)


def seed() -> None:
    """torch.cuda.seed: reseeds glassgrad's one generator from the operating system."""
    from ._random import seed as reseed
    reseed()


def seed_all() -> None:
    """torch.cuda.seed_all: the same as seed."""
    seed()


def initial_seed() -> int:
    """torch.cuda.initial_seed: the seed of glassgrad's one generator."""
    from ._random import initial_seed as first
    return first()


# torch.cuda's other queries (get_device_properties, the peak resets, the generator state, ...).
from ._cuda_queries import (OutOfMemoryError, get_allocator_backend, get_arch_list,  # noqa: E402,F401
                            get_device_properties, get_gencode_flags, get_rng_state, get_rng_state_all,
                            host_memory_stats, init, is_tf32_supported, memory_summary, reset_max_memory_allocated,
                            reset_peak_memory_stats, set_rng_state, set_rng_state_all)

# float16 tensors compute on the GPU (docs/dtypes.md); glassgrad links no MAGMA
has_half, has_magma = True, False

# torch.cuda.Event and the stream names (one stream per device).
from ._cuda_streams import (Event, Stream, StreamContext, current_stream, default_stream, set_stream,  # noqa: E402,F401
                            stream)

# torch.cuda.device, device_of, is_initialized; the memory and CUDA-graph names beyond those above.
# (assigned, not imported: the functions above name their parameter `device`)
from . import _cuda_context  # noqa: E402

device, device_of, is_initialized = _cuda_context.device, _cuda_context.device_of, _cuda_context.is_initialized
from ._cuda_memory_names import (get_per_process_memory_fraction, ipc_collect,  # noqa: E402,F401
                                 max_memory_cached, max_memory_reserved, memory_snapshot, memory_stats_as_nested_dict,
                                 reset_accumulated_memory_stats, reset_max_memory_cached,
                                 set_per_process_memory_fraction)
from ._cuda_nvml import (clock_rate, device_memory_used, list_gpu_processes, memory_usage,  # noqa: E402,F401
                         power_draw, temperature, utilization)
from ._cuda_graph_names import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: E402,F401
                                make_graphed_callables)

# torch.cuda.FloatTensor and the other legacy typed constructors: CUDA tensors of that dtype
# (older scripts pick `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`).
from ._factories import CUDA_TYPED as _CUDA_TYPED  # noqa: E402  (after the functions above: no cycle)

FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, \
    BoolTensor = (_CUDA_TYPED[n] for n in ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
                                           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
                                           "BoolTensor"))

# torch.cuda.FloatStorage and the other legacy storage classes (TypedStorages of new CUDA tensors).
from ._cuda_storages import STORAGES as _STORAGES  # noqa: E402

FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage, ShortStorage, CharStorage, \
    ByteStorage, BoolStorage = (_STORAGES[n] for n in ("FloatStorage", "DoubleStorage", "HalfStorage",
                                                       "BFloat16Storage", "LongStorage", "IntStorage", "ShortStorage",
                                                       "CharStorage", "ByteStorage", "BoolStorage"))

# torch.cuda.amp (autocast, GradScaler with device 'cuda'): `from torch.cuda.amp import GradScaler`
# imports it by this name, so it is registered as a module too.
import sys as _sys  # noqa: E402

# A package without a folder: its submodules (amp, amp.common, nvtx, random) are the sys.modules
# entries below, so `import glassgrad.torch.cuda.amp` (the alias glassgrad.torch's finder answers)
# finds glassgrad.cuda a package, as `import torch.cuda.amp` finds torch.cuda.
__path__: list = []

from ._device_amp import make as _make_amp  # noqa: E402

amp = _make_amp("cuda")
_sys.modules[__name__ + ".amp"] = amp
_sys.modules[__name__ + ".amp.common"] = amp.common

# torch.cuda.nvtx: documented no-ops (glassgrad emits no NVTX ranges), importable by that name.
from . import _nvtx as nvtx  # noqa: E402

_sys.modules[__name__ + ".nvtx"] = nvtx

# torch.cuda.random: the generator functions by that module name.
from . import _cuda_random as random  # noqa: E402

_sys.modules[__name__ + ".random"] = random


def __getattr__(name: str):
    """torch.cuda.default_generators: one generator per GPU the driver sees (glassgrad's one
    generator each time), () without a usable GPU, as PyTorch's."""
    if name == "default_generators":
        from ._random import default_generator
        return (default_generator,) * device_count() if is_available() else ()
    raise AttributeError(f"module 'glassgrad.cuda' has no attribute '{name}'")
