"""PyTorch's deprecation and misuse warnings, given by glassgrad with PyTorch's text and category,
each pointing at the line of the script that made the call (its stacklevel), whichever of
glassgrad's wrappers the call went through. PyTorch's once-per-process warnings (TORCH_WARN_ONCE)
are given once; the tests reset that record first."""
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad import _arranging, _shapes, _tensor

HERE = __file__.rstrip("c")
COPY = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")
ARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to "
          "a single numpy.ndarray with numpy.array() before converting to a tensor.")
REVERSE_T = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
             "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
             "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
RANGE = ("torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
         "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).")


@pytest.fixture(autouse=True)
def _fresh_once_warnings(monkeypatch):
    for module, name in ((_tensor, "_LIST_OF_ARRAYS_WARNED"), (_shapes, "_REVERSING_T_WARNED"),
                         (_shapes, "_ZERO_D_T_WARNED"), (_shapes, "_MESHGRID_WARNED"),
                         (_arranging, "_CHAIN_MATMUL_WARNED")):
        monkeypatch.setattr(module, name, [False])


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


def _messages(call):
    caught = _caught(call)
    assert all(w.filename == HERE for w in caught), [(w.filename, w.lineno, str(w.message)) for w in caught]
    return [str(w.message) for w in caught]


def test_list_of_ndarrays_warns_once_at_the_call():
    assert _messages(lambda: gg.tensor([np.ones(2), np.zeros(2)])) == [ARRAYS]
    assert _messages(lambda: gg.tensor([np.ones(2)])) == []  # once per process


@pytest.mark.parametrize("make", [lambda: gg.tensor((np.ones(2),)), lambda: gg.tensor([[np.ones(2)]]),
                                  lambda: gg.as_tensor([np.ones(2)]), lambda: gg.FloatTensor([np.ones(2)]),
                                  lambda: gg.ones(1).new_tensor([np.ones(2)])])
def test_every_constructor_of_a_list_of_ndarrays_warns(make):
    assert _messages(make) == [ARRAYS]


def test_no_list_of_ndarrays_warning_without_arrays_or_values():
    assert _messages(lambda: gg.tensor([np.ones(0)])) == []
    assert _messages(lambda: gg.tensor([np.float64(1.0), 2.0])) == []
    assert _messages(lambda: gg.tensor(np.ones((2, 2)))) == []


def test_copy_constructing_from_a_tensor_warns_each_call():
    t = gg.ones(2)
    assert _messages(lambda: (gg.tensor(t), gg.tensor(t, dtype=gg.int64))) == [COPY.format("torch.tensor")] * 2
    assert _messages(lambda: t.new_tensor(t)) == [COPY.format("tensor.new_tensor")]
    assert _messages(lambda: (gg.as_tensor(t), gg.Tensor(t), gg.asarray(t), gg.tensor([gg.ones(1)]))) == []


def test_legacy_loss_arguments_warn_at_the_script_line():
    x, y = gg.rand(3), gg.rand(3)
    text = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    assert _messages(lambda: gg.nn.MSELoss(size_average=False)) == [text.format("sum")]
    assert _messages(lambda: gg.nn.CrossEntropyLoss(reduce=False)) == [text.format("none")]
    assert _messages(lambda: gg.nn.NLLLoss(size_average=True)) == [text.format("mean")]
    assert _messages(lambda: F.mse_loss(x, y, size_average=False)) == [text.format("sum")]
    assert _messages(lambda: F.l1_loss(x, y, reduce=True)) == [text.format("mean")]


def test_broadcast_target_warning_has_pytorchs_text():
    messages = _messages(lambda: F.mse_loss(gg.rand(3), gg.rand(3, 1)))
    assert len(messages) == 1
    assert messages[0].startswith("Using a target size (") and messages[0].endswith(
        ". This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.")
    assert "Size([3, 1])) that is different to the input size (" in messages[0]
    for loss in (F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        assert len(_messages(lambda: loss(gg.rand(3), gg.rand(3, 1)))) == 1


def test_binary_cross_entropy_size_mismatch_is_pytorchs_value_error():
    with pytest.raises(ValueError, match=r"Using a target size \(.*Size\(\[3, 1\]\)\) that is different to the "
                                         r"input size \(.*Size\(\[3\]\)\) is deprecated"):
        F.binary_cross_entropy(gg.rand(3), gg.rand(3, 1))


def test_functional_warnings_point_at_the_script():
    x = gg.rand(1, 2, 4, 4)
    assert len(_messages(lambda: F.kl_div(gg.rand(3), gg.rand(3)))) == 1
    assert len(_messages(lambda: gg.nn.KLDivLoss()(gg.rand(3), gg.rand(3)))) == 1
    assert len(_messages(lambda: F.grid_sample(x, gg.zeros(1, 2, 2, 2)))) == 1
    assert len(_messages(lambda: F.upsample(x, scale_factor=2))) == 1
    assert len(_messages(lambda: F.dropout2d(gg.rand(3, 4)))) == 1


def test_range_warns_every_call():
    assert _messages(lambda: (gg.range(0, 3), gg.range(0, 3))) == [RANGE, RANGE]


def test_chain_matmul_and_meshgrid_warn_once():
    a = gg.ones(2, 2)
    text = ("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
            "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
            "parameters.")
    assert _messages(lambda: (gg.chain_matmul(a, a), gg.chain_matmul(a, a))) == [text]
    text = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
    assert _messages(lambda: (gg.meshgrid(a[0], a[1]), gg.meshgrid(a[0], a[1]))) == [text]
    assert _messages(lambda: gg.meshgrid(a[0], a[1], indexing="ij")) == []


def test_reversing_T_warns_once_and_not_for_matrices():
    assert _messages(lambda: gg.ones(2, 3).T) == []
    assert _messages(lambda: (gg.ones(2, 3, 4).T, gg.ones(3).T)) == [REVERSE_T]
    assert _messages(lambda: (gg.ones(()).T, gg.ones(()).T)) == [
        "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."]
    assert gg.ones(2, 3, 4).T.shape == (4, 3, 2)


def test_linear_with_a_vector_weight_gives_no_T_warning():
    assert _messages(lambda: F.linear(gg.ones(3), gg.ones(3))) == []


def test_rnn_dropout_with_one_layer_warns_at_the_script():
    assert len(_messages(lambda: gg.nn.LSTM(2, 3, num_layers=1, dropout=0.5))) == 1


NESTED = "enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer."


@pytest.mark.parametrize("kwargs, why", [
    ({}, "self_attn.batch_first was not True(use batch_first for better inference performance)"),
    ({"batch_first": True, "norm_first": True}, "norm_first was True"),
    ({"batch_first": True, "bias": False}, "self_attn was passed bias=False"),
    ({"batch_first": True, "activation": gg.tanh}, "activation_relu_or_gelu was not True"),
    ({"batch_first": True, "nhead": 1}, "self_attn.num_heads is odd"),
])
def test_transformer_encoder_says_why_it_uses_no_nested_tensors(kwargs, why):
    layer = gg.nn.TransformerEncoderLayer(**{"d_model": 4, "nhead": 2, **kwargs})
    caught = _caught(lambda: gg.nn.TransformerEncoder(layer, 2))
    assert [str(w.message) for w in caught] == [NESTED + why]
    assert caught[0].filename == HERE
    assert gg.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).use_nested_tensor is False


def test_transformer_encoder_fast_path_layer_gives_no_warning():
    for act, code in (("relu", 1), ("gelu", 2), (gg.nn.GELU(), 2)):
        layer = gg.nn.TransformerEncoderLayer(4, 2, batch_first=True, activation=act)
        assert layer.activation_relu_or_gelu == code
        encoder = None

        def build():
            nonlocal encoder
            encoder = gg.nn.TransformerEncoder(layer, 2)
        assert _messages(build) == []
        assert encoder.use_nested_tensor is True


CASES = {
    "list of arrays": lambda T: T.tensor([np.ones(2)]),
    "tensor of tensor": lambda T: T.tensor(T.ones(2)),
    "new_tensor of tensor": lambda T: T.ones(2).new_tensor(T.ones(2)),
    "mse broadcast": lambda T: T.nn.functional.mse_loss(T.ones(3), T.ones(3, 1)),
    "range": lambda T: T.range(0, 2),
    "T of 3-d": lambda T: T.ones(2, 3, 4).T,
    "T of 0-d": lambda T: T.ones(()).T,
    "chain_matmul": lambda T: T.chain_matmul(T.ones(2, 2), T.ones(2, 2)),
    "meshgrid": lambda T: T.meshgrid(T.ones(2), T.ones(3)),
    "legacy loss": lambda T: T.nn.MSELoss(size_average=False),
    "encoder": lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(4, 2), 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_warnings_as_pytorch(case):
    torch = pytest.importorskip("torch")
    torch.set_warn_always(True)  # PyTorch's once-per-process warnings, every time
    try:
        expected = [(w.category, str(w.message).split(" (Triggered internally")[0].replace("torch.Size", "Size"))
                    for w in _caught(lambda: CASES[case](torch))]
    finally:
        torch.set_warn_always(False)
    got = [(w.category, str(w.message).replace("glassgrad.Size", "Size")) for w in _caught(lambda: CASES[case](gg))]
    assert got == expected
