"""Tensor.cuda(device) and Module.cuda(device) take a CUDA device only: PyTorch checks the
argument before it needs CUDA (THPVariable_cuda: "Invalid device, must be cuda device"), so
`.cuda('cpu')` is a RuntimeError on any machine, with or without a GPU. PyTorch-VAE's HVAE,
MSSIMVAE and VampVAE call `.cuda(current_device)` with the input's device, which stops them on
the CPU under PyTorch; they stop here too. A Module without parameters or buffers moves nothing
and raises nothing (PyTorch's Module.cuda applies Tensor.cuda to each tensor it holds)."""
import pytest

import glassgrad as gg
import glassgrad.nn as nn


@pytest.mark.parametrize("device", ["cpu", "cpu:0", gg.device("cpu"), "meta"])
def test_tensor_cuda_of_another_device_type_is_refused(device):
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        gg.ones(2).cuda(device)


def test_module_cuda_of_the_cpu_is_refused_when_it_holds_tensors():
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        nn.Linear(2, 2).cuda("cpu")
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        nn.BatchNorm1d(3, affine=False).cuda(gg.device("cpu"))  # buffers only
    relu = nn.ReLU()
    assert relu.cuda("cpu") is relu


@pytest.mark.skipif(gg.cuda.is_available(), reason="checks the machine without a GPU")
@pytest.mark.parametrize("device", [None, 0, "cuda", "cuda:0", gg.device("cuda", 0)])
def test_a_cuda_device_without_a_gpu_is_the_device_error(device):
    with pytest.raises(gg.DeviceError, match="cannot be used"):
        gg.ones(2).cuda(device)
    with pytest.raises(gg.DeviceError, match="cannot be used"):
        nn.Linear(2, 2).cuda(device)
