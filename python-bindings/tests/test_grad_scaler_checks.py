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


def _model_and_optimizer(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    return w, lib.optim.SGD([w], lr=0.1)


@pytest.mark.parametrize("call", ["unscale_", "step", "update"])
def test_unscale_step_and_update_before_any_scale_are_errors(call):
    # PyTorch makes the scale at the first scale(): before it these assert, naming the call
    w, opt = _model_and_optimizer(gg)
    scaler = GradScaler("cpu")
    (w * w).sum().backward()
    with pytest.raises(AssertionError, match=f"Attempted {call} but _scale is None"):
        getattr(scaler, call)(*([opt] if call != "update" else []))
    assert scaler.get_scale() == 2.0 ** 16 and w.tolist() == [1.0, 2.0]
    loaded = GradScaler("cpu")
    loaded.load_state_dict(scaler.state_dict())   # loading sets the values but makes no scale either
    with pytest.raises(AssertionError, match="Attempted update"):
        loaded.update()
    GradScaler("cpu", enabled=False).update()     # a disabled scaler checks nothing


def test_growth_tracker_counts_clean_steps_and_resets_on_growth_or_backoff():
    w, opt = _model_and_optimizer(gg)
    scaler = GradScaler("cpu", init_scale=4.0, growth_interval=3)
    seen = []
    for bad in [False, False, True, False, False, False]:
        opt.zero_grad()
        scaler.scale((w * w).sum() * (float("inf") if bad else 1.0)).backward()
        scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), scaler._get_growth_tracker()))
    assert seen == [(4.0, 1), (4.0, 2), (2.0, 0), (2.0, 1), (2.0, 2), (4.0, 0)]
    assert GradScaler("cpu", enabled=False)._get_growth_tracker() == 0


@pytest.mark.parametrize("call", ["unscale_", "step", "update"])
def test_calls_before_scale_match_pytorchs(call):
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, gg):
        w, opt = _model_and_optimizer(lib)
        scaler = lib.amp.GradScaler("cpu")
        (w * w).sum().backward()
        try:
            getattr(scaler, call)(*([opt] if call != "update" else []))
            seen.append(None)
        except AssertionError as e:
            seen.append(str(e).split(".")[0])
    assert seen[0] == seen[1]
