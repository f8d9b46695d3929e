"""Details of nn layers found by comparing each layer with PyTorch's documented behaviour:
dir() of list-like containers hides the positional names, F.threshold / nn.Threshold keep an
integer input's dtype (PyTorch casts threshold and value to it, truncating), and
MultiheadAttention warns when key_padding_mask and attn_mask have different dtypes,
PairwiseDistance takes p=inf and -inf, and padding='same' with a stride is refused (Conv2d when
built, F.conv1d/conv2d when called), LPPool refuses norm_type 0, max_unpool's invalid index is a
RuntimeError (as PyTorch's), a ModuleList subclass (ParametrizationList) prints its own name, and
MultiheadAttention's checks that PyTorch makes with asserts raise AssertionErrors too. The expected
values are PyTorch's (2.11-2.14) outputs, written out; the last tests compare with torch where it is
installed."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

nn = gg.nn


@pytest.mark.parametrize("build", [
    lambda: nn.Sequential(nn.ReLU(), nn.Tanh()),
    lambda: nn.ModuleList([nn.ReLU(), nn.Tanh()]),
    lambda: nn.ParameterList([nn.Parameter(gg.zeros(2)), nn.Parameter(gg.ones(1))]),
])
def test_dir_of_list_containers_has_no_positions(build):
    c = build()
    names = dir(c)
    assert not [n for n in names if n.isdigit()]
    assert "append" in names and "__len__" in names
    assert c[0] is not None  # still reached by indexing


def test_dir_of_dict_containers_and_plain_modules_keeps_names():
    d = nn.ModuleDict({"0": nn.ReLU(), "head": nn.Tanh()})
    assert "0" in dir(d) and "head" in dir(d)
    m = nn.Module()
    m.add_module("7", nn.ReLU())
    assert "7" in dir(m)


def test_threshold_keeps_integer_dtype_and_truncates_scalars():
    x = gg.arange(-3, 4)
    y = nn.functional.threshold(x, 1, 5)
    assert y.dtype == gg.int64
    assert y.tolist() == [5, 5, 5, 5, 5, 2, 3]
    # threshold -0.5 becomes 0 for an integer input, so 0 is replaced; value 9.7 becomes 9
    assert nn.functional.threshold(x, -0.5, 9.7).tolist() == [9, 9, 9, 9, 1, 2, 3]
    assert nn.Threshold(1, 5.5)(x).tolist() == [5, 5, 5, 5, 5, 2, 3]
    u = nn.functional.threshold(x.to(gg.uint8), 1, 7)
    assert u.dtype == gg.uint8 and u.tolist() == [253, 254, 255, 7, 7, 2, 3]


def test_threshold_inplace_on_integers():
    x = gg.arange(-2, 3)
    nn.functional.threshold_(x, 0, 4)
    assert x.dtype == gg.int64 and x.tolist() == [4, 4, 4, 1, 2]


def test_threshold_on_floats_unchanged():
    x = gg.tensor([-1.0, 0.5, 1.0, 2.0])
    assert nn.functional.threshold(x, 1.0, 5.5).tolist() == [5.5, 5.5, 5.5, 2.0]


def _mha_inputs():
    rng = np.random.default_rng(0)
    q = gg.tensor(rng.standard_normal((4, 2, 8)).astype(np.float32))
    kpm = gg.tensor([[False, False, False, True], [False, False, True, True]])
    return q, kpm


def test_mha_mismatched_mask_dtypes_warn():
    gg.manual_seed(0)
    m = nn.MultiheadAttention(8, 2)
    q, kpm = _mha_inputs()
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask is deprecated"):
        out, w = m(q, q, q, key_padding_mask=kpm, attn_mask=gg.zeros(4, 4))
    assert tuple(out.shape) == (4, 2, 8) and tuple(w.shape) == (2, 4, 4)


def test_mha_same_mask_dtypes_do_not_warn():
    m = nn.MultiheadAttention(8, 2)
    q, kpm = _mha_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(q, q, q, key_padding_mask=kpm, attn_mask=gg.zeros(4, 4, dtype=gg.bool))
        m(q, q, q, key_padding_mask=kpm)
        m(q, q, q, attn_mask=gg.zeros(4, 4))


def test_compare_with_torch():
    torch = pytest.importorskip("torch")
    assert [n for n in dir(torch.nn.Sequential(torch.nn.ReLU())) if n.isdigit()] == []
    x = torch.arange(-3, 4)
    for th, v in [(1, 5), (-0.5, 9.7), (2.5, -1)]:
        ours = nn.functional.threshold(gg.arange(-3, 4), th, v)
        theirs = torch.nn.functional.threshold(x, th, v)
        assert ours.tolist() == theirs.tolist() and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    tm = torch.nn.MultiheadAttention(8, 2)
    tq = torch.randn(4, 2, 8)
    kpm = torch.tensor([[False, False, False, True], [False, False, True, True]])
    with pytest.warns(UserWarning, match="mismatched key_padding_mask"):
        tm(tq, tq, tq, key_padding_mask=kpm, attn_mask=torch.zeros(4, 4))


def test_pairwise_distance_layer_takes_infinite_norms():
    x1 = gg.tensor([[1.0, -3.0, 2.0], [0.0, 0.5, 0.0]])
    x2 = gg.tensor([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    d = nn.PairwiseDistance(p=float("inf"), eps=0.0)(x1, x2)
    assert d.tolist() == [3.0, 1.0]  # the largest |difference| per row
    d = nn.PairwiseDistance(p=-float("inf"), eps=0.0)(x1, x2)
    assert d.tolist() == [1.0, 0.0]  # the smallest
    assert nn.PairwiseDistance(p=float("inf")).norm == float("inf")


@pytest.mark.parametrize("stride", [2, (1, 2), [2, 1]])
def test_conv2d_same_padding_with_stride_is_refused(stride):
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(2, 4, 3, padding="same", stride=stride)
    x, w = gg.ones(1, 2, 6, 6), gg.ones(4, 2, 3, 3)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        nn.functional.conv2d(x, w, stride=stride, padding="same")
    assert tuple(nn.Conv2d(2, 4, 3, padding="same", stride=1)(x).shape) == (1, 4, 6, 6)


def test_conv1d_same_padding_with_stride_is_refused():
    with pytest.raises(RuntimeError, match="not supported for strided convolutions"):
        nn.functional.conv1d(gg.ones(1, 2, 8), gg.ones(4, 2, 3), stride=2, padding="same")
    assert tuple(nn.functional.conv1d(gg.ones(1, 2, 8), gg.ones(4, 2, 3), padding="same").shape) == (1, 4, 8)


def test_pairwise_inf_and_strided_same_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    for p in (float("inf"), -float("inf")):
        ours = nn.PairwiseDistance(p=p)(gg.tensor(a), gg.tensor(b)).numpy()
        theirs = torch.nn.PairwiseDistance(p=p)(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    with pytest.raises(ValueError):
        torch.nn.Conv2d(2, 4, 3, padding="same", stride=(1, 2))
    with pytest.raises(RuntimeError):
        torch.nn.functional.conv2d(torch.ones(1, 2, 6, 6), torch.ones(4, 2, 3, 3), stride=2, padding="same")


@pytest.mark.parametrize("cls", ["LPPool1d", "LPPool2d", "LPPool3d"])
def test_lp_pool_refuses_norm_type_zero(cls):
    with pytest.raises(ValueError, match="norm_type must be a non-zero value, but got 0"):
        getattr(nn, cls)(0, 2)
    assert repr(getattr(nn, cls)(2, 3)).startswith(f"{cls}(norm_type=2, kernel_size=3")


def test_max_unpool_invalid_index_is_a_runtime_error():
    x = gg.tensor(np.arange(81, dtype=np.float32).reshape(1, 1, 9, 9))
    values, indices = nn.MaxPool2d(2, return_indices=True)(x)  # 4x4 from 9x9: index 70 is outside 8x8
    with pytest.raises(RuntimeError, match="invalid max index 70"):
        nn.MaxUnpool2d(2)(values, indices)
    with pytest.raises(IndexError):  # still glassgrad's index error too
        nn.MaxUnpool2d(2)(values, indices)
    assert tuple(nn.MaxUnpool2d(2)(values, indices, output_size=[9, 9]).shape) == (1, 1, 9, 9)


def test_module_list_subclass_prints_its_own_name():
    class Blocks(nn.ModuleList):
        pass
    assert repr(Blocks()) == "Blocks()"
    assert repr(Blocks([nn.ReLU(), nn.ReLU()])) == "Blocks(\n  (0-1): 2 x ReLU()\n)"
    m = nn.Linear(3, 3)

    class Sym(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)
    nn.utils.parametrize.register_parametrization(m, "weight", Sym())
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n  (parametrizations): "
                       "ModuleDict(\n    (weight): ParametrizationList(\n      (0): Sym()\n    )\n  )\n)")


def _mha_call(m, q, k, v, **kw):
    return m(gg.tensor(q), gg.tensor(k), gg.tensor(v), **kw)


@pytest.mark.parametrize("case", ["key rank", "embedding size", "kpm shape", "int attn_mask", "int kpm"])
def test_mha_checks_pytorch_asserts_are_assertion_errors(case):
    m = nn.MultiheadAttention(8, 2)
    q = np.zeros((4, 2, 8), np.float32)
    kw = {}
    k = v = q
    if case == "key rank":
        k = v = np.zeros((4, 8), np.float32)
    elif case == "embedding size":
        q = k = v = np.zeros((4, 2, 6), np.float32)
    elif case == "kpm shape":
        kw["key_padding_mask"] = gg.zeros(3, 4, dtype=gg.bool)
    elif case == "int attn_mask":
        kw["attn_mask"] = gg.zeros(4, 4, dtype=gg.int64)
    else:
        kw["key_padding_mask"] = gg.zeros(2, 4, dtype=gg.int64)
    with pytest.raises(AssertionError):
        _mha_call(m, q, k, v, **kw)
    with pytest.raises(gg.GlassgradError):  # still glassgrad's own error, with its fix
        _mha_call(m, q, k, v, **kw)


def test_mha_asserts_against_torch():
    torch = pytest.importorskip("torch")
    tm = torch.nn.MultiheadAttention(8, 2)
    q = torch.zeros(4, 2, 8)
    with pytest.raises(AssertionError):
        tm(q, q[:, 0], q[:, 0])
    with pytest.raises(AssertionError):
        tm(q, q, q, attn_mask=torch.zeros(4, 4, dtype=torch.int64))
    with pytest.raises(AssertionError):
        tm(q, q, q, key_padding_mask=torch.zeros(3, 4, dtype=torch.bool))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_layers_refuse_an_empty_sequence(cls, batch_first):
    m = getattr(nn, cls)(3, 4, batch_first=batch_first)
    empty = gg.zeros(2, 0, 3) if batch_first else gg.zeros(0, 2, 3)
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
        m(empty)
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        m(gg.zeros(0, 3))  # unbatched
    no_batch = gg.zeros(0, 5, 3) if batch_first else gg.zeros(5, 0, 3)
    assert tuple(m(no_batch)[0].shape) == ((0, 5, 4) if batch_first else (5, 0, 4))  # an empty batch is fine


def test_embedding_table_shape_checks_are_assertion_errors():
    for cls in (nn.Embedding, nn.EmbeddingBag):
        with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
            cls.from_pretrained(gg.zeros(3))
    with pytest.raises(AssertionError, match="Shape of weight does not match num_embeddings and embedding_dim"):
        nn.Embedding(3, 2, _weight=gg.zeros(2, 2))
    with pytest.raises(gg.ShapeError):  # glassgrad's class as well
        nn.Embedding.from_pretrained(gg.zeros(3, 2, 2))


def test_parameter_list_refuses_a_tensor_as_its_list():
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"):
        nn.ParameterList(gg.zeros(2, 3))
    p = nn.ParameterList()
    with pytest.raises(TypeError, match="should be called with an iterable"):
        p.extend(gg.zeros(2))
    with pytest.raises(TypeError, match="should be called with an iterable"):
        p.extend(3)
    p.extend((gg.zeros(2), gg.ones(1)))  # a tuple, list or generator of tensors is a list
    p.extend(t for t in [gg.zeros(4)])
    assert [tuple(x.shape) for x in p] == [(2,), (1,), (4,)]
