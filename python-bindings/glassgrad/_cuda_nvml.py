"""torch.cuda's NVML queries: utilization, memory_usage, temperature, power_draw, clock_rate,
device_memory_used and list_gpu_processes, through the nvidia-ml-py package (pynvml), as
PyTorch's (docs/cuda.md, "torch.cuda names"). Without that package the queries raise PyTorch's
ModuleNotFoundError and list_gpu_processes returns its message; without a driver a RuntimeError."""
from __future__ import annotations

import os

from . import cuda as _cuda

_MISSING = "nvidia-ml-py does not seem to be installed or it can't be imported."


def _nvml_index(device) -> int:
    """The NVML index of a CUDA device index, through CUDA_VISIBLE_DEVICES's numeric list when set
    (NVML counts every GPU; CUDA only the visible ones)."""
    index = _cuda.current_device() if device is None else _cuda._index(device)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        entries = [v.strip() for v in visible.split(",") if v.strip()]
        if all(v.lstrip("-").isdigit() for v in entries):
            ordinals = [int(v) for v in entries]
            if index < 0 or index >= len(ordinals):
                raise RuntimeError(f"device {index} is not visible (CUDA_VISIBLE_DEVICES={ordinals})\n  fix: a device "
                                   f"index below {len(ordinals)}")
            return ordinals[index]
    return index


def _handle(device):
    try:
        import pynvml
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(_MISSING + "\n  fix: pip install nvidia-ml-py") from e
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?\n  fix: install the NVIDIA driver, or leave "
                           "the GPU queries out on a machine without one") from e
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(device))


def utilization(device=None) -> int:
    """Percent of the last sample period a kernel ran on the GPU (nvidia-smi's GPU-Util)."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(handle).gpu


def memory_usage(device=None) -> int:
    """Percent of the last sample period the GPU's memory was read or written."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(handle).memory


def temperature(device=None) -> int:
    """The GPU's temperature in degrees C."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetTemperature(handle, 0)


def power_draw(device=None) -> int:
    """The GPU's power draw in milliwatts."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetPowerUsage(handle)


def clock_rate(device=None) -> int:
    """The GPU's SM clock in MHz."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetClockInfo(handle, 1)


def device_memory_used(device=None) -> int:
    """Bytes of the GPU's memory in use by every process, as NVML counts them."""
    nvml, handle = _handle(device)
    return nvml.nvmlDeviceGetMemoryInfo(handle).used


def list_gpu_processes(device=None) -> str:
    """The processes using the GPU and their memory; without nvidia-ml-py PyTorch's message saying so."""
    try:
        nvml, handle = _handle(device)
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    index = _cuda.current_device() if device is None else _cuda._index(device)
    lines = [f"GPU:{index}"]
    processes = nvml.nvmlDeviceGetComputeRunningProcesses(handle)
    if not processes:
        lines.append("no processes are running")
    for p in processes:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)
