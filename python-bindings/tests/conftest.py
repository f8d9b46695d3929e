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
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
