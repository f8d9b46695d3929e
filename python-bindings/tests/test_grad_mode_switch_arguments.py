"""The gradient-mode switches' arguments and methods as PyTorch's: set_grad_enabled takes a Python
bool only (its TypeError for an int, None, a NumPy bool, a tensor), the mode is left as it was when
refused; clone() and mode on the context managers (docs/autograd.md)."""
import numpy as np
import pytest

import glassgrad as gg


@pytest.mark.parametrize("value, name", [(1, "int"), (0, "int"), (None, "NoneType"), ("yes", "str"),
                                         (np.bool_(True), "numpy.bool"), (gg.tensor(True), "Tensor")])
def test_set_grad_enabled_refuses_what_is_not_a_bool(value, name):
    assert gg.is_grad_enabled()
    with pytest.raises(TypeError) as e:
        gg.set_grad_enabled(value)
    assert str(e.value).splitlines()[0] == f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {name}"
    assert gg.is_grad_enabled()


def test_set_grad_enabled_with_bools_as_function_and_context():
    gg.set_grad_enabled(False)
    try:
        assert not gg.is_grad_enabled()
    finally:
        gg.set_grad_enabled(True)
    with gg.set_grad_enabled(False):
        assert not gg.is_grad_enabled()
    assert gg.is_grad_enabled()


def test_clone_and_mode():
    assert type(gg.no_grad().clone()) is gg.no_grad
    assert type(gg.enable_grad().clone()) is gg.enable_grad
    switch = gg.set_grad_enabled(False)  # sets the mode at once, as PyTorch's
    try:
        copy = switch.clone()
        assert copy.mode is False and type(copy) is gg.set_grad_enabled
    finally:
        gg.set_grad_enabled(True)
    copy = gg.inference_mode(False).clone()
    assert type(copy) is gg.inference_mode and copy.mode is False
    with copy:
        assert not gg.is_inference_mode_enabled()
    with gg.inference_mode().clone():
        assert gg.is_inference_mode_enabled()


def test_keepdim_keeps_its_words():
    with pytest.raises(TypeError) as e:
        gg.ones(2).sum(0, 1)
    assert str(e.value).splitlines()[0] == "sum(): argument 'keepdim' (position 2) must be bool, not int"


def test_as_torch():
    torch = pytest.importorskip("torch")

    def outcome(lib):
        rows = []
        for value in (1, None, "yes", np.bool_(True)):
            try:
                lib.set_grad_enabled(value)
                rows.append("set")
            except TypeError as e:
                rows.append(str(e).splitlines()[0].replace("torch.", "").replace("glassgrad.", ""))
            lib.set_grad_enabled(True)
        rows.append((type(lib.no_grad().clone()).__name__, lib.inference_mode(False).clone().mode))
        return rows

    assert outcome(gg) == outcome(torch)
