"""Layer sizes as PyTorch takes them: 0 builds the layer with an empty weight (Linear, the
convolutions, the norms, PReLU, Bilinear's in2/out, Embedding), and a negative size is refused
where PyTorch makes the weight, with its RuntimeError sentence ('Trying to create tensor with
negative dimension -1: [3, -1]') after the layer's call and glassgrad's cause and fix after it."""
import warnings

import pytest

import glassgrad as gg

nn = gg.nn

ZERO = [
    ("nn.Conv2d(0, 2, 3)", (2, 0, 3, 3)),
    ("nn.Conv2d(1, 0, 3)", (0, 1, 3, 3)),
    ("nn.Conv1d(0, 4, 3)", (4, 0, 3)),
    ("nn.Conv3d(2, 0, 1)", (0, 2, 1, 1, 1)),
    ("nn.ConvTranspose2d(1, 0, 3)", (1, 0, 3, 3)),
    ("nn.BatchNorm1d(0)", (0,)),
    ("nn.BatchNorm2d(0)", (0,)),
    ("nn.InstanceNorm1d(0, affine=True)", (0,)),
    ("nn.LayerNorm(0)", (0,)),
    ("nn.LayerNorm((3, 0))", (3, 0)),
    ("nn.GroupNorm(1, 0)", (0,)),
    ("nn.PReLU(0)", (0,)),
    ("nn.Bilinear(2, 0, 1)", (1, 2, 0)),
    ("nn.Bilinear(2, 3, 0)", (0, 2, 3)),
    ("nn.Linear(0, 3)", (3, 0)),
    ("nn.Embedding(0, 4)", (0, 4)),
]


@pytest.mark.parametrize("call, weight_shape", ZERO)
def test_zero_sizes_build_an_empty_weight(call, weight_shape):
    layer = eval(call, {"nn": nn})
    assert tuple(layer.weight.shape) == weight_shape


def test_zero_sized_layers_run_on_matching_input():
    assert tuple(nn.LayerNorm(0)(gg.ones(2, 0)).shape) == (2, 0)
    assert tuple(nn.Bilinear(2, 3, 0)(gg.ones(4, 2), gg.ones(4, 3)).shape) == (4, 0)
    conv = nn.Conv2d(0, 2, 3)
    assert conv.bias.tolist() == [0.0, 0.0]  # no fan-in: nothing to draw from (PyTorch leaves it unset)


NEGATIVE = [
    ("nn.Linear(-1, 3)", "Trying to create tensor with negative dimension -1: [3, -1]", "in_features=-1"),
    ("nn.Linear(3, -2)", "Trying to create tensor with negative dimension -2: [-2, 3]", "out_features=-2"),
    ("nn.Linear(-1, -2)", "Trying to create tensor with negative dimension -2: [-2, -1]", "in_features=-1"),
    ("nn.Embedding(-1, 4)", "Trying to create tensor with negative dimension -1: [-1, 4]", "num_embeddings=-1"),
    ("nn.EmbeddingBag(3, -1)", "Trying to create tensor with negative dimension -1: [3, -1]", "embedding_dim=-1"),
    ("nn.Conv2d(1, -1, 3)", "Trying to create tensor with negative dimension -1: [-1, 1, 3, 3]", "out_channels=-1"),
    ("nn.Conv1d(-2, 4, 3)", "Trying to create tensor with negative dimension -2: [4, -2, 3]", "in_channels=-2"),
    ("nn.Conv3d(2, -4, 3)", "Trying to create tensor with negative dimension -4: [-4, 2, 3, 3, 3]",
     "out_channels=-4"),
    ("nn.ConvTranspose2d(1, -1, 3)", "Trying to create tensor with negative dimension -1: [1, -1, 3, 3]",
     "out_channels=-1"),
    ("nn.BatchNorm1d(-1)", "Trying to create tensor with negative dimension -1: [-1]", "num_features=-1"),
    ("nn.InstanceNorm2d(-3, affine=True)", "Trying to create tensor with negative dimension -3: [-3]", "num_features=-3"),
    ("nn.LayerNorm(-1)", "Trying to create tensor with negative dimension -1: [-1]", "normalized_shape=-1"),
    ("nn.GroupNorm(1, -2)", "Trying to create tensor with negative dimension -2: [-2]", "num_channels=-2"),
    ("nn.PReLU(-1)", "Trying to create tensor with negative dimension -1: [-1]", "num_parameters=-1"),
    ("nn.Bilinear(2, 3, -1)", "Trying to create tensor with negative dimension -1: [-1, 2, 3]", "out_features=-1"),
    ("nn.Bilinear(2, -3, 1)", "Trying to create tensor with negative dimension -3: [1, 2, -3]", "in2_features=-3"),
]


@pytest.mark.parametrize("call, sentence, cause", NEGATIVE)
def test_negative_sizes_raise_pytorchs_sentence_first(call, sentence, cause):
    with pytest.raises(RuntimeError) as e:
        eval(call, {"nn": nn})
    first, rest = str(e.value).split("\n", 1)
    assert first.endswith(": " + sentence) and first.startswith(call.split(".", 1)[1].split("(")[0] + "(")
    assert cause in rest and "fix:" in rest


def test_instance_norm_without_tensors_takes_any_size():
    layer = nn.InstanceNorm2d(-3)  # no weight, no statistics: PyTorch never uses num_features then
    with pytest.warns(UserWarning, match="does not match num_features"):
        assert tuple(layer(gg.ones(1, 2, 3, 3)).shape) == (1, 2, 3, 3)


def test_float_sizes_are_still_type_errors():
    with pytest.raises(TypeError):
        nn.Linear(3.5, 2)
    with pytest.raises(TypeError):
        nn.Conv2d(1, 2.0, 3)


@pytest.mark.parametrize("call, sentence, cause", NEGATIVE)
def test_pytorch_says_the_same(call, sentence, cause):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=r"^" + sentence.replace("[", r"\[").replace("]", r"\]") + "$"):
        eval(call, {"nn": torch.nn})


@pytest.mark.parametrize("call, weight_shape", ZERO)
def test_pytorch_builds_the_same_zero_sized_layers(call, weight_shape):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch's 'Initializing zero-element tensors is a no-op'
        assert tuple(eval(call, {"nn": torch.nn}).weight.shape) == weight_shape
