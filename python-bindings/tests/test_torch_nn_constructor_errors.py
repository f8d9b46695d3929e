"""Layer constructors with arguments PyTorch refuses: the same construction in glassgrad raises an
instance of PyTorch's exception class (ValueError, AssertionError, RuntimeError, TypeError), and
its message says how to fix it. (glassgrad checks some arguments PyTorch only meets in forward,
earlier; those are in test_invalid_arguments.py.)"""
from __future__ import annotations

import warnings

import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")

REFUSED = [
    "Conv2d(3, 4, 3, groups=2)", "Conv2d(4, 3, 3, groups=2)", "Conv2d(3, 4, 3, padding='full')",
    "Conv2d(3, 4, 3, padding_mode='bad')", "Conv1d(3, 4, 3, stride=2, padding='same')",
    "Conv3d(3, 4, 3, stride=(1, 2, 1), padding='same')", "ConvTranspose2d(3, 4, 3, padding_mode='reflect')",
    "Dropout(1.5)", "Dropout(-0.1)", "Dropout2d(2)",
    "Embedding(10, 3, padding_idx=10)", "Embedding(10, 3, padding_idx=-11)",
    "MultiheadAttention(5, 2)", "TransformerEncoderLayer(5, 2)", "TransformerDecoderLayer(4, 3)", "Transformer(5, 2)",
    "TransformerEncoderLayer(4, 2, activation='bad')", "GroupNorm(3, 4)", "LSTM(2, 3, dropout=1.5)",
    "LSTM(2, 3, num_layers=0)", "LSTM(2, 0)", "RNN(2, 3, nonlinearity='bad')", "GRU(2, 3, proj_size=1)",
    "LSTM(2, 3, proj_size=3)", "LSTM(2, 3, proj_size=-1)",
    "Hardtanh(2, 1)", "Hardtanh(1, 1)", "Hardtanh(0.5, 0.5)",
    "TripletMarginLoss(margin=-1)", "TripletMarginLoss(margin=0)", "MultiMarginLoss(p=3)",
    "AdaptiveLogSoftmaxWithLoss(8, 10, [])", "AdaptiveLogSoftmaxWithLoss(8, 10, [12])",
    "AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4])", "FractionalMaxPool2d(2)", "FractionalMaxPool2d(2, output_ratio=1.5)",
]


@pytest.mark.parametrize("text", REFUSED)
def test_a_refused_construction_raises_torchs_class_with_a_fix(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eval("torch.nn." + text, {"torch": torch})
        except Exception as e:
            theirs = e
        else:
            raise AssertionError(f"torch accepts {text}: not a refusal")
        with pytest.raises(type(theirs)) as ours:
            eval("gt.nn." + text, {"gt": gt})
    assert "fix:" in str(ours.value) or "Expected" in str(ours.value), str(ours.value)


ACCEPTED = ["Hardtanh(1, 2)", "Linear(3, 0)", "Linear(0, 3)", "Conv2d(3, 4, 3, stride=1, padding='same')",
            "TripletMarginLoss(margin=0.5)", "MultiMarginLoss(p=2)", "MultiheadAttention(6, 3)",
            "AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8])"]


@pytest.mark.parametrize("text", ACCEPTED)
def test_edge_constructions_torch_accepts_are_accepted(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(eval("gt.nn." + text, {"gt": gt})) == repr(eval("torch.nn." + text, {"torch": torch}))


def test_functional_hardtanh_allows_equal_bounds_as_torch():
    assert gt.nn.functional.hardtanh(gt.ones(2), 1.0, 1.0).tolist() == [1.0, 1.0]
