"""torch.cuda's queries beyond cuda.py's: get_device_properties, the peak-memory resets,
memory_summary, the generator-state calls, init and get_arch_list, and OutOfMemoryError by its
torch.cuda name. Each raises DeviceError (a RuntimeError, as PyTorch's do) naming why when no
GPU is usable, except where PyTorch answers without one (get_arch_list, get_rng_state_all)."""
from __future__ import annotations

import re
from typing import List

from . import _C
from . import cuda as _cuda

OutOfMemoryError = _C.OutOfMemoryError


def _usable(device) -> int:
    index = _cuda.current_device() if device is None else _cuda._index(device)
    _cuda.device_info(index)  # a DeviceError with the reason when it cannot be used
    return index


class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties returns, with PyTorch's attribute names."""

    def __init__(self, info: dict):
        self.name: str = str(info["name"])
        self.major, self.minor = (int(v) for v in info["compute_capability"])
        self.total_memory: int = int(info["total_memory"])
        self.multi_processor_count: int = int(info["multiprocessors"])
        self.max_threads_per_multi_processor: int = int(info["max_threads_per_multiprocessor"])
        self.max_threads_per_block: int = int(info["max_threads_per_block"])
        self.warp_size: int = int(info["warp_size"])
        self.L2_cache_size: int = int(info["l2_cache_bytes"])
        self.shared_memory_per_block: int = int(info["max_shared_memory_per_block"])
        self.shared_memory_per_multiprocessor: int = int(info["max_shared_memory_per_multiprocessor"])
        self.regs_per_block: int = int(info["max_registers_per_block"])
        self.clock_rate: int = int(info["clock_khz"])
        self.memory_clock_rate: int = int(info["memory_clock_khz"])
        self.memory_bus_width: int = int(info["memory_bus_width_bits"])

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, multi_processor_count={self.multi_processor_count}, "
                f"L2_cache_size={self.L2_cache_size // 2**20}MB)")


def get_device_properties(device=None) -> _CudaDeviceProperties:
    """The GPU's properties (torch.cuda.get_device_properties): name, major, minor, total_memory,
    multi_processor_count, warp_size, L2_cache_size, ...; the current device's when None."""
    return _CudaDeviceProperties(_cuda.device_info(_usable(device)))


def reset_peak_memory_stats(device=None) -> None:
    """Makes the peak of memory_stats (max_memory_allocated) the bytes allocated now."""
    _C.reset_peak(f"cuda:{_usable(device)}")


def reset_max_memory_allocated(device=None) -> None:
    """torch.cuda.reset_max_memory_allocated: reset_peak_memory_stats, as in PyTorch."""
    reset_peak_memory_stats(device)


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A printable table of glassgrad's accounting for the device (memory_stats): in use now, its
    peak, kept by the caching allocator, the limit, allocations and frees. Its rows are
    glassgrad's, not PyTorch's allocator's."""
    index = _usable(device)
    s = _cuda.memory_stats(index)

    def mib(n: int) -> str:
        return f"{n / 2**20:12.1f} MiB"
    rows = [("allocated now", mib(s["current"])), ("allocated, peak", mib(s["peak"])),
            ("cached for reuse", mib(s["cached"])),
            ("memory limit", mib(s["limit"]) if s.get("limit") else "        none"),
            ("allocations", f"{s['num_allocs']:16d}"), ("frees", f"{s['num_frees']:16d}")]
    width = 44
    lines = ["=" * width, f" glassgrad memory summary, cuda:{index}", "-" * width]
    lines += [f" {name:<24}{value:>18}" for name, value in rows]
    lines.append("=" * width)
    return "\n".join(lines) + "\n"


def get_rng_state(device="cuda"):
    """torch.cuda.get_rng_state: glassgrad has one generator for every device (cuda.manual_seed),
    so this is glassgrad.get_rng_state() once a GPU is usable."""
    from ._random import get_rng_state as one_state
    _usable(device if device != "cuda" else None)
    return one_state()


def set_rng_state(new_state, device="cuda") -> None:
    """torch.cuda.set_rng_state: restores what get_rng_state returned (the one generator)."""
    from ._random import set_rng_state as restore
    _usable(device if device != "cuda" else None)
    restore(new_state)


def get_rng_state_all() -> list:
    """One state per GPU the driver sees ([] without one), as PyTorch's; with one generator they
    are all the same state."""
    return [get_rng_state(i) for i in range(_cuda.device_count())]


def set_rng_state_all(new_states) -> None:
    """Restores the states get_rng_state_all returned (one generator: the first one given)."""
    states = list(new_states)
    if states:
        set_rng_state(states[0])


def init() -> None:
    """torch.cuda.init: initializes the driver now; a DeviceError with the reason when no GPU is
    usable."""
    _usable(None)


def get_arch_list() -> List[str]:
    """The architectures this build embeds kernels for ('sm_90', ..., 'compute_90' for PTX), GPU
    or not, as PyTorch's; [] for a build without CUDA kernels."""
    return re.findall(r"(?:sm|compute)_\d+[a-z]?", _cuda.built_archs())


def get_gencode_flags() -> str:
    """The nvcc -gencode flags of get_arch_list's architectures, as PyTorch's ('' without kernels)."""
    pairs = [arch.split("_", 1) for arch in get_arch_list()]
    return " ".join(f"-gencode compute=compute_{arch},code={kind}_{arch}" for kind, arch in pairs)


def is_tf32_supported() -> bool:
    """PyTorch's rule: TF32 where the GPU has bfloat16 in hardware (compute capability 8.0 or
    more); False without a usable GPU."""
    return _cuda.is_bf16_supported(including_emulation=False)


def get_allocator_backend() -> str:
    """'native': glassgrad's own caching allocator (PyTorch's name for its own)."""
    return "native"


def host_memory_stats() -> dict:
    """The pinned (page-locked) host allocator's accounting: blocks, bytes_in_use, bytes_cached,
    allocations (glassgrad's keys); {} where no pinned memory can be had (no GPU), as PyTorch's."""
    return dict(_C.pinned_memory_stats()) if _C.pinned_memory_available() else {}
