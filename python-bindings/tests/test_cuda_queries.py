"""torch.cuda's queries in glassgrad.cuda (_cuda_queries.py): without a GPU each names why (a
RuntimeError, as PyTorch's); with one (marked cuda: the GPU run) the properties are the device's."""
import pytest

import glassgrad as gg

NO_GPU = not gg.cuda.is_available()
needs_gpu = pytest.mark.skipif(NO_GPU, reason="needs a usable GPU")

QUERIES = ["get_device_properties", "reset_peak_memory_stats", "reset_max_memory_allocated", "memory_summary",
           "get_rng_state", "init"]


@pytest.mark.skipif(not NO_GPU, reason="checks the answers without a GPU")
@pytest.mark.parametrize("name", QUERIES)
def test_without_a_gpu_each_query_raises_a_device_error_with_the_reason(name):
    with pytest.raises(RuntimeError, match="cannot be used") as info:
        getattr(gg.cuda, name)()
    assert isinstance(info.value, gg.DeviceError)


@pytest.mark.skipif(not NO_GPU, reason="checks the answers without a GPU")
def test_without_a_gpu_the_state_list_is_empty_and_the_arch_list_is_the_builds():
    assert gg.cuda.get_rng_state_all() == [] or gg.cuda.device_count() > 0
    archs = gg.cuda.get_arch_list()
    assert all(a.startswith(("sm_", "compute_")) for a in archs)
    assert (archs == []) == (gg.cuda.built_archs() == "")


def test_out_of_memory_error_is_glassgrads_by_torch_cudas_name():
    assert gg.cuda.OutOfMemoryError is gg.OutOfMemoryError
    assert issubclass(gg.cuda.OutOfMemoryError, RuntimeError)


@pytest.mark.cuda
@needs_gpu
def test_device_properties_are_the_devices():
    p = gg.cuda.get_device_properties(0)
    info = gg.cuda.device_info(0)
    assert p.name == info["name"] == gg.cuda.get_device_name(0)
    assert (p.major, p.minor) == gg.cuda.get_device_capability(0)
    assert p.multi_processor_count == info["multiprocessors"] > 0
    assert p.total_memory == info["total_memory"] >= gg.cuda.mem_get_info(0)[0]
    assert p.warp_size == 32
    assert "_CudaDeviceProperties(name=" in repr(p)
    assert f"sm_{p.major}{p.minor}" in gg.cuda.get_arch_list() or any(
        a.startswith("compute_") for a in gg.cuda.get_arch_list())


@pytest.mark.cuda
@needs_gpu
def test_the_peak_resets_to_what_is_allocated_now():
    big = gg.ones(1 << 20, device="cuda")
    gg.realize(big)
    del big
    before = gg.cuda.max_memory_allocated()
    gg.cuda.reset_peak_memory_stats()
    assert gg.cuda.max_memory_allocated() == gg.cuda.memory_allocated() <= before
    text = gg.cuda.memory_summary()
    assert "allocated, peak" in text and "cuda:0" in text


@pytest.mark.cuda
@needs_gpu
def test_the_generator_state_round_trips_through_torch_cudas_calls():
    gg.cuda.init()
    state = gg.cuda.get_rng_state()
    a = gg.rand(5, device="cuda").cpu().numpy()
    gg.cuda.set_rng_state(state)
    b = gg.rand(5, device="cuda").cpu().numpy()
    assert (a == b).all()
    states = gg.cuda.get_rng_state_all()
    assert len(states) == gg.cuda.device_count()
    gg.cuda.set_rng_state_all(states)
