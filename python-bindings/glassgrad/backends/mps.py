"""torch.backends.mps: Apple's Metal backend, which glassgrad does not have."""


def is_available() -> bool:
    """False: glassgrad runs on CPUs and NVIDIA GPUs."""
    return False


def is_built() -> bool:
    """False: glassgrad is never built with Metal."""
    return False
