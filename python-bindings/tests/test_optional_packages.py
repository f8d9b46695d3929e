"""A module of glassgrad that needs an optional package raises, when the package is missing, what
the same torch module raises: ModuleNotFoundError naming the package (PyTorch's
torch.utils.tensorboard starts with a plain `import tensorboard`), so the scripts' fallbacks
(`except ModuleNotFoundError`, `e.name == "tensorboard"`) take the same branch."""
import importlib
import sys

import pytest


def _import_without(monkeypatch, module, package):
    """Imports `module` afresh while `package` cannot be imported (as when it is not installed)."""
    monkeypatch.setitem(sys.modules, package, None)
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    return importlib.import_module(module)


def test_tensorboard_writer_without_tensorboard_raises_module_not_found(monkeypatch):
    with pytest.raises(ModuleNotFoundError) as info:
        _import_without(monkeypatch, "glassgrad.utils.tensorboard", "tensorboard")
    assert info.value.name == "tensorboard"
    message = str(info.value)
    assert message.startswith("No module named 'tensorboard'") and "pip install tensorboard" in message


def test_tensorboard_fallback_idiom_takes_the_except_branch(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    for name in [m for m in sys.modules if m.startswith("glassgrad.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    try:
        from glassgrad.utils.tensorboard import SummaryWriter  # noqa: F401
        branch = "imported"
    except ModuleNotFoundError as e:
        branch = f"fallback:{e.name}"
    assert branch == "fallback:tensorboard"
