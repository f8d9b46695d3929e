"""torch.xpu: Intel's GPU backend, which glassgrad does not have (scripts ask before choosing a
device, as pytorch/examples' do: `torch.xpu.is_available()`)."""


def is_available() -> bool:
    """False: glassgrad runs on CPUs and NVIDIA GPUs."""
    return False


def device_count() -> int:
    """0: no Intel GPU is usable through glassgrad."""
    return 0
