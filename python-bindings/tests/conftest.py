import sys

import numpy as np
import pytest

import glassgrad


def _cuda_available():
    try:
        return glassgrad._C.cuda_is_available()
    except Exception:  # pragma: no cover
        return False


def pytest_collection_modifyitems(config, items):
    if _cuda_available():
        return
    reason = "no CUDA GPU visible: " + glassgrad._C.cuda_why_unavailable()
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        # The marker itself, not keywords: keywords also hold the names of parent folders
        # (a checkout in a folder named "cuda" would skip every test).
        if item.get_closest_marker("cuda") is not None:
            item.add_marker(skip)


def pytest_runtest_setup(item):
    # torch._dynamo's first use (torch.compile or torch.export in any earlier test of the process)
    # turns torch's default argument validation of distributions off for good; the comparisons
    # with torch.distributions expect its default, on.
    dist = sys.modules.get("torch.distributions")
    if dist is not None and not dist.Distribution._validate_args:
        dist.Distribution.set_default_validate_args(True)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def on_the_cpu():
    """Tensors made without a device start on the CPU (on a GPU machine the default device is the
    GPU: glassgrad.default_device)."""
    before = glassgrad.default_device()
    glassgrad.set_default_device("cpu")
    yield
    glassgrad.set_default_device(before)


@pytest.fixture
def fusion_state():
    """The fusion switch and the plan cache as they were, after a test that turns fusion on or off."""
    before = glassgrad._C.fusion_enabled()
    yield
    glassgrad._C.set_fusion(before)
    glassgrad.clear_plan_cache()


@pytest.fixture
def torch():
    """PyTorch, for side-by-side checks; the test is skipped where it is not installed (CI never
    needs it)."""
    return pytest.importorskip("torch")


def pytest_terminal_summary(terminalreporter):
    # What test_cuda_sass.py checked (kernels, architectures, largest registers / shared memory).
    sass = sys.modules.get("cuda_sass")
    if sass is not None and sass.REPORT:
        terminalreporter.write_sep("-", "CUDA kernels checked")
        for line in sass.REPORT:
            terminalreporter.write_line(line)
