"""PyTorch submodules glassgrad leaves out (torch.fx, torch.distributed.rpc, fsdp, ...): a ported
`import torch.fx` names the module, why it is missing and the fix, as a ModuleNotFoundError (so
`except ImportError` fallbacks still run); the modules glassgrad has import as before."""
import importlib
import sys

import pytest

import glassgrad
import glassgrad.torch as gtorch
from glassgrad import _left_out_modules

# pytorch/examples' fx/ and distributed/ import these (ported to glassgrad.*)
IMPORTED = ["glassgrad.fx", "glassgrad.fx.node", "glassgrad.distributed.rpc", "glassgrad.distributed.autograd",
            "glassgrad.distributed.fsdp", "glassgrad.distributed.fsdp.wrap",
            "glassgrad.distributed.fsdp.fully_sharded_data_parallel", "glassgrad.distributed.tensor.parallel",
            "glassgrad.distributed._tensor.device_mesh", "glassgrad.distributed.device_mesh",
            "glassgrad.distributed.checkpoint.state_dict",
            # modules of PyTorch's that course scripts import now and then
            "glassgrad.fft", "glassgrad.masked", "glassgrad.nested", "glassgrad.export"]


@pytest.mark.parametrize("module", IMPORTED)
def test_a_left_out_module_names_why_and_the_fix(module):
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(module)
    top = _left_out_modules.left_out(module)
    assert top is not None and info.value.name == top
    text = str(info.value)
    assert text.startswith(f"No module named {top!r}: glassgrad leaves out torch{top[len('glassgrad'):]} ")
    assert "\n  fix: " in text and "docs/" in text


def test_the_torch_alias_refuses_alike_by_import_and_by_attribute():
    with pytest.raises(ModuleNotFoundError, match="glassgrad leaves out torch.fx"):
        importlib.import_module("glassgrad.torch.fx")
    with pytest.raises(AttributeError, match=r"no attribute 'fx': No module named 'glassgrad.fx'"):
        getattr(gtorch.fx, "symbolic_trace")
    with pytest.raises(AttributeError, match="glassgrad leaves out torch.fft .*no complex dtypes"):
        gtorch.fft.rfft
    with pytest.raises(AttributeError, match="glassgrad has none either"):
        getattr(gtorch, "not_a_torch_name")


def test_an_import_error_fallback_still_runs():
    try:
        from glassgrad.fx import symbolic_trace  # noqa: F401
        traced = True
    except ImportError:
        traced = False
    assert not traced


@pytest.mark.parametrize("module", ["glassgrad.distributed", "glassgrad.distributed.run", "glassgrad.jit",
                                    "glassgrad.onnx", "glassgrad.nn.functional"])
def test_modules_glassgrad_has_still_import(module):
    assert importlib.import_module(module) is sys.modules[module]


def test_other_missing_names_keep_pythons_message():
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module("glassgrad.fxx")
    assert str(info.value) == "No module named 'glassgrad.fxx'"


def test_the_finder_is_installed_once():
    _left_out_modules.install()
    assert sum(isinstance(f, _left_out_modules.LeftOutFinder) for f in sys.meta_path) == 1


def test_pytorch_has_the_modules_glassgrad_names():
    torch = pytest.importorskip("torch")
    assert torch.__version__ and glassgrad.__version__
    for name in _left_out_modules.LEFT_OUT:
        importlib.import_module("torch" + name[len("glassgrad"):])
