"""The CUDA device allocator (accounting, limit, caching) and device information. Runs on the
GPU machine: pytest -m cuda."""
import numpy as np
import pytest

import glassgrad
from glassgrad import _C

pytestmark = pytest.mark.cuda


@pytest.fixture
def clean_cuda():
    glassgrad.cuda.synchronize()
    _C.set_memory_limit("cuda:0", 0)
    yield
    _C.set_memory_limit("cuda:0", 0)
    glassgrad.cuda.empty_cache()


def test_device_info_reports_what_device_query_does():
    info = glassgrad.cuda.device_info(0)
    assert info["name"]
    major, minor = info["compute_capability"]
    assert major >= 5
    assert info["multiprocessors"] > 0
    assert info["max_threads_per_block"] >= 1024
    assert info["max_shared_memory_per_block"] >= 48 * 1024
    assert info["warp_size"] == 32
    assert info["max_grid"][0] >= 2**31 - 1 and info["max_grid"][1] >= 65535
    assert info["total_memory"] > 2**30
    assert "sm_" in info["kernel_image"] or "PTX" in info["kernel_image"]
    free, total = glassgrad.cuda.mem_get_info()
    assert 0 < free <= total


def test_a_missing_gpu_index_is_explained():
    n = glassgrad.cuda.device_count()
    with pytest.raises(glassgrad.DeviceError) as e:
        _C.Tensor.from_numpy(np.ones(2, np.float32), f"cuda:{n + 3}")
    assert "does not exist" in str(e.value) and "fix:" in str(e.value)


def test_cuda_allocator_accounts_for_every_byte(clean_cuda):
    before = glassgrad.cuda.memory_stats()
    t = _C.Tensor.empty([1000, 250], "float32", "cuda")
    after = glassgrad.cuda.memory_stats()
    assert after["current"] - before["current"] == 1000 * 250 * 4
    assert after["peak"] >= after["current"]
    assert after["num_allocs"] == before["num_allocs"] + 1
    del t
    freed = glassgrad.cuda.memory_stats()
    assert freed["current"] == before["current"]
    assert freed["num_frees"] == before["num_frees"] + 1


def test_cuda_allocator_reuses_freed_blocks_of_the_same_size_class(clean_cuda):
    glassgrad.cuda.empty_cache()
    assert glassgrad.cuda.memory_cached() == 0
    t = _C.Tensor.empty([3_000_000], "float32", "cuda")
    del t
    cached = glassgrad.cuda.memory_cached()
    assert cached >= 12_000_000  # the block waits for reuse instead of going back to the driver
    free_before, _ = glassgrad.cuda.mem_get_info()
    u = _C.Tensor.empty([2_990_000], "float32", "cuda")   # same size class
    assert glassgrad.cuda.memory_cached() == 0
    free_after, _ = glassgrad.cuda.mem_get_info()
    assert free_before - free_after < 12_000_000  # the cached block was reused, not a new one taken
    del u
    glassgrad.cuda.empty_cache()
    assert glassgrad.cuda.memory_cached() == 0


def test_cuda_memory_limit_raises_before_allocating(clean_cuda):
    current = glassgrad.cuda.memory_allocated()
    _C.set_memory_limit("cuda:0", current + 1_000_000)
    small = _C.Tensor.empty([1000], "float32", "cuda")
    with pytest.raises(glassgrad.OutOfMemoryError) as e:
        _C.Tensor.empty([1_000_000], "float32", "cuda", "big activations")
    msg = str(e.value)
    assert "memory limit exceeded on cuda:0" in msg and "'big activations'" in msg and "fix:" in msg
    assert isinstance(e.value, MemoryError)
    del small


def test_cuda_allocation_log_names_buffers(clean_cuda):
    _C.set_allocation_logging("cuda:0", True)
    try:
        _C.take_allocation_log("cuda:0")
        t = _C.Tensor.empty([10], "float64", "cuda", "weights")
        del t
        log = _C.take_allocation_log("cuda:0")
    finally:
        _C.set_allocation_logging("cuda:0", False)
    assert [(r["event"], r["bytes"], r["name"], r["device"]) for r in log] == [
        ("alloc", 80, "weights", "cuda:0"), ("free", 80, "weights", "cuda:0")]


def test_synchronize_and_launch_blocking_do_not_change_results(rng):
    x = rng.standard_normal((64, 64)).astype(np.float32)
    glassgrad.cuda.set_launch_blocking(True)
    try:
        (y,) = _C.run_op("MatMul", [_C.Tensor.from_numpy(x, "cuda"), _C.Tensor.from_numpy(x, "cuda")], {}, "")
        glassgrad.cuda.synchronize()
    finally:
        glassgrad.cuda.set_launch_blocking(False)
    np.testing.assert_allclose(y.numpy(), x @ x, rtol=1e-4, atol=1e-4)
