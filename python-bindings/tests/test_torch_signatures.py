"""Every layer, function, optimizer and learning-rate scheduler glassgrad names as PyTorch does
takes PyTorch's parameters: the same names in the same order, the same kinds (positional or
keyword-only) and the same defaults, read with inspect.signature from both libraries (torch 2.x).
glassgrad may add keyword-only parameters of its own after PyTorch's. Skipped without torch.

Also: every layer glassgrad.nn exposes under PyTorch's name prints as PyTorch's does (repr of each
layer row of argument_table.py)."""
import inspect

import pytest

import glassgrad as gg
from argument_table import LAYERS

torch = pytest.importorskip("torch")
import signature_survey  # noqa: E402
from torch_versions import skip_if_changed_in_2_14  # noqa: E402


def _pairs(gg_module, torch_module, want):
    out = []
    for name in sorted(dir(gg_module)):
        if name.startswith("_") or not hasattr(torch_module, name):
            continue
        ours, theirs = getattr(gg_module, name), getattr(torch_module, name)
        if want(ours) and callable(theirs):
            out.append((name, ours, theirs))
    return out


def _is_class(x):
    return inspect.isclass(x)


def _is_function(x):
    return inspect.isfunction(x)


_signature = signature_survey.signature
differences = signature_survey.differences  # the strict comparison of two Python signatures


def _cases():
    import glassgrad.nn.functional as GF
    import glassgrad.optim.lr_scheduler as GS
    import torch.nn.functional as TF
    import torch.optim.lr_scheduler as TS
    cases = []
    cases += [("nn." + n, o, t) for n, o, t in _pairs(gg.nn, torch.nn, _is_class)]
    cases += [("F." + n, o, t) for n, o, t in _pairs(GF, TF, _is_function)]
    cases += [("optim." + n, o, t) for n, o, t in _pairs(gg.optim, torch.optim, _is_class)]
    cases += [("lr_scheduler." + n, o, t) for n, o, t in _pairs(GS, TS, _is_class)]
    return cases


CASES = _cases()


def test_the_survey_sees_the_layers_optimizers_and_schedulers():
    names = {c[0] for c in CASES}
    assert {"nn.Conv2d", "nn.Linear", "nn.BatchNorm2d", "F.conv2d", "optim.SGD", "lr_scheduler.StepLR"} <= names


@pytest.mark.parametrize("name,ours,theirs", CASES, ids=[c[0] for c in CASES])
def test_signature_is_torchs(name, ours, theirs):
    if name == "optim.LBFGS":
        skip_if_changed_in_2_14(torch, "LBFGS's signature")
    problems = differences(ours, theirs)
    assert not problems, f"{name}{_signature(ours)} against torch's {_signature(theirs)}:\n  " + "\n  ".join(problems)


def test_seed_spellings_are_the_same_classes():
    assert gg.nn.Conv2D is gg.nn.Conv2d and gg.Conv2D is gg.nn.Conv2d
    assert gg.nn.BatchNorm2D is gg.nn.BatchNorm2d and gg.nn.BatchNorm1D is gg.nn.BatchNorm1d
    assert gg.nn.MaxPool2D is gg.nn.MaxPool2d and gg.nn.AvgPool2D is gg.nn.AvgPool2d
    assert gg.nn.AdaptiveAvgPool2D is gg.nn.AdaptiveAvgPool2d
    assert gg.nn.Conv2d.__name__ == "Conv2d"


def test_conv2d_positional_arguments_are_torchs():
    # the script: Conv2d(4, 4, 3, 1, 2, 2) is stride 1, padding 2, dilation 2
    layer = gg.nn.Conv2d(4, 4, 3, 1, 2, 2)
    assert (layer.stride, layer.padding, layer.dilation, layer.groups) == ((1, 1), (2, 2), (2, 2), 1)
    assert gg.nn.Conv2d(4, 4, 3, 1, 0, 1, 2, False).bias is None


def _torch_row(row):
    return row.torch_kwargs if row.torch_kwargs is not None else row.kwargs


@pytest.mark.parametrize("row", [r for r in LAYERS if r.torch is True], ids=lambda r: r.id)
def test_layer_prints_as_torchs(row):
    def build(nn, r, kwargs):  # rows among the arguments (a Transformer's layer) are built alike
        args = [build(nn, a, a.kwargs) if isinstance(a, type(r)) else a for a in r.args]
        return getattr(nn, r.name)(*args, **kwargs)
    ours = build(gg.nn, row, row.kwargs)
    theirs = build(torch.nn, row, _torch_row(row))
    assert repr(ours) == repr(theirs)


def test_model_prints_as_torchs():
    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(16 * 13 * 13, 10), nn.LogSoftmax(dim=1))
    assert repr(build(gg.nn)) == repr(build(torch.nn))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_layers_take_device_and_dtype(dtype):
    for layer in (gg.nn.Conv2d(2, 3, 3, device="cpu", dtype=dtype), gg.nn.Linear(2, 3, device="cpu", dtype=dtype),
                  gg.nn.BatchNorm2d(3, device="cpu", dtype=dtype), gg.nn.LayerNorm(4, device="cpu", dtype=dtype)):
        assert {p.dtype for p in layer.parameters()} == {dtype}
        assert {p.device for p in layer.parameters()} == {"cpu"}


def test_layer_refuses_an_integer_dtype():
    with pytest.raises(gg.DTypeError, match="not a floating type"):
        gg.nn.Linear(2, 3, dtype=gg.int64)
