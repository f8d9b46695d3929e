"""GradScaler's argument checks as PyTorch's torch.amp.GradScaler makes them: an AssertionError
for growth_factor <= 1 or backoff_factor >= 1, only for an enabled scaler (enabled=False takes
any factors), and the warning word for word when CUDA is absent (Pytorch-UNet's train.py builds
torch.cuda.amp.GradScaler(enabled=amp) on the CPU)."""
import warnings

import pytest

import glassgrad as gg
from glassgrad.amp import GradScaler


@pytest.mark.parametrize("kwargs, message", [({"growth_factor": 1.0}, "The growth factor must be > 1.0."),
                                             ({"growth_factor": 0.5}, "The growth factor must be > 1.0."),
                                             ({"backoff_factor": 1.0}, "The backoff factor must be < 1.0."),
                                             ({"backoff_factor": 2.0}, "The backoff factor must be < 1.0.")])
def test_an_enabled_scaler_refuses_factors_on_the_wrong_side_of_one(kwargs, message):
    with pytest.raises(AssertionError, match=message.replace(".", r"\.")):
        GradScaler("cpu", **kwargs)


@pytest.mark.parametrize("kwargs", [{"growth_factor": 0.5}, {"backoff_factor": 2.0}])
def test_a_disabled_scaler_takes_any_factors(kwargs):
    assert not GradScaler("cpu", enabled=False, **kwargs).is_enabled()


def test_a_backoff_factor_of_zero_or_below_is_taken_as_pytorch_takes_it():
    assert GradScaler("cpu", backoff_factor=0.0).is_enabled()


@pytest.mark.skipif(gg.cuda.is_available(), reason="the warning is for a machine without CUDA")
def test_the_no_cuda_warning_is_pytorchs_text():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not GradScaler("cuda").is_enabled()
    assert [str(w.message) for w in caught] == \
        ["torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."]


def test_the_checks_match_pytorchs():
    torch = pytest.importorskip("torch")
    for kwargs in ({"growth_factor": 1.0}, {"backoff_factor": 1.0}, {"backoff_factor": 0.0},
                   {"growth_factor": 0.5, "enabled": False}):
        outcomes = []
        for make in (torch.amp.GradScaler, GradScaler):
            try:
                outcomes.append(make("cpu", **kwargs).is_enabled())
            except AssertionError as e:
                outcomes.append(str(e).split("\n")[0])
        assert outcomes[0] == outcomes[1], kwargs
