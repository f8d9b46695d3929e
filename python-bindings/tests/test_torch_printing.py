"""Tensors print as PyTorch's do: the same text for floats (fixed, integer-valued, scientific),
integers and bools, 0-d to 4-d, NaN and infinities, long tensors summarized and long rows
wrapped, empty tensors, dtype suffixes, under set_printoptions. Compared with torch's repr of
the same values. Skipped when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")


def ours(a) -> str:
    """glassgrad's repr, its dtypes named as torch's (glassgrad.float64 prints as torch.float64)."""
    return repr(gg.tensor(a)).replace("glassgrad.", "torch.")

rng = np.random.default_rng(0)
CASES = {
    "normal matrix": rng.standard_normal((3, 4)).astype(np.float32),
    "tutorial scores": np.array([[-3.556, -0.0233, 1.5], [1.0, 2.0, 3.25]], np.float32),
    "integer-valued floats": np.array([1.0, -2.0, 30.0], np.float32),
    "wide integer-valued": np.array([1.0, 20000.0], np.float32),
    "tiny": np.array([1e-5, 1.0], np.float32),
    "huge": np.array([1.5, 3e9], np.float32),
    "nan and inf": np.array([np.nan, np.inf, -np.inf, 1.25], np.float32),
    "only nan": np.array([np.nan, 0.0], np.float32),
    "zeros": np.zeros((2, 2), np.float32),
    "scalar": np.array(3.5, np.float32),
    "integer scalar": np.array(7, np.int64),
    "float64": rng.standard_normal(5),
    "int64": np.array([[1, -20, 300], [4, 5, 6]], np.int64),
    "int32": np.array([1, 2], np.int32),
    "uint8": np.array([0, 255], np.uint8),
    "bool": np.array([True, False, True]),
    "3-d": rng.standard_normal((2, 3, 4)).astype(np.float32),
    "4-d": rng.standard_normal((2, 2, 2, 3)).astype(np.float32),
    "long row": rng.standard_normal(30).astype(np.float32),
    "long int row": np.arange(40, dtype=np.int64) * 1000,
    "summarized vector": rng.standard_normal(2000).astype(np.float32),
    "summarized matrix": rng.standard_normal((50, 40)).astype(np.float32),
    "summarized 3-d": np.arange(3000, dtype=np.float32).reshape(10, 15, 20) / 7,
    "empty": np.zeros(0, np.float32),
    "empty matrix": np.zeros((0, 3), np.float32),
    "empty int64": np.zeros(0, np.int64),
    "float16": np.array([0.5, 1.25, 3.0], np.float16),
}


@pytest.mark.parametrize("name", list(CASES))
def test_repr_matches_torch(name):
    a = CASES[name]
    assert ours(a) == repr(torch.tensor(a))


@pytest.mark.parametrize("options", [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False, precision=3),
                                     dict(threshold=10, edgeitems=2), dict(linewidth=40), dict(profile="short"),
                                     dict(profile="full"), dict(threshold=5, edgeitems=0)])
def test_repr_matches_torch_under_printoptions(options):
    try:
        gg.set_printoptions(**options)
        torch.set_printoptions(**options)
        for name in ("normal matrix", "tiny", "integer-valued floats", "long row", "int64", "summarized matrix"):
            a = CASES[name]
            assert ours(a) == repr(torch.tensor(a)), name
    finally:
        gg.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_the_default_dtype_decides_which_float_dtype_is_named():
    try:
        gg.set_default_dtype(gg.float64)
        torch.set_default_dtype(torch.float64)
        for a in (CASES["float64"], CASES["normal matrix"], CASES["empty"], np.zeros(0, np.float64)):
            assert ours(a) == repr(torch.tensor(a))
    finally:
        gg.set_default_dtype(gg.float32)
        torch.set_default_dtype(torch.float32)


def _set_first(t):
    t = t * 1
    t[0] = 5.0
    return t


def test_a_computed_tensor_names_its_op_and_a_leaf_says_requires_grad():
    a = np.array([1.0, 2.5], np.float32)
    x, y = gg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for f in (lambda t: t, lambda t: t * 2, lambda t: (t * 2).sum(), lambda t: t.exp(), lambda t: t.detach(), _set_first,
              lambda t: t.clone(), lambda t: t.reshape(1, 2).expand(2, 2).t().contiguous()):
        assert repr(f(x)) == repr(f(y))


def test_a_suffix_past_the_line_width_starts_a_new_line():
    for fw in (gg, torch):
        fw.manual_seed(0)
    a = np.linspace(0.0, 2 * np.pi, 25, dtype=np.float32)
    x, y = gg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    assert repr(x) == repr(y)
    assert repr(x * 2) == repr(y * 2)
    b = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    assert ours(b) == repr(torch.tensor(b))  # a short one keeps its suffix on the last line


@pytest.mark.parametrize("value", [9, 2.5, True, -0.125])
@pytest.mark.parametrize("spec", ["", ">4", ".3f", "^9"])
def test_a_0d_tensor_formats_its_number_as_torch(value, spec):
    # f"Label: {labels[0]}" (the data tutorial) prints "Label: 9"; a 0-d tensor formats its item.
    if spec == ".3f" and isinstance(value, bool):
        spec = ""
    assert format(gg.tensor(value), spec) == format(torch.tensor(value), spec)
    assert f"{gg.tensor(value) * 1}" == f"{torch.tensor(value) * 1}"


def test_format_of_other_tensors_is_their_repr_or_torchs_refusal():
    for a in (np.array([1.0, 2.0], np.float32), np.zeros((2, 2), np.float64), np.array(1.5, np.float32)):
        p, q = gg.nn.Parameter(gg.tensor(a)), torch.nn.Parameter(torch.tensor(a))
        assert f"{p}" == f"{q}".replace("torch.", "glassgrad.")
        if a.ndim:
            assert f"{gg.tensor(a)}" == repr(gg.tensor(a))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(torch.tensor([1.0, 2.0]), ".2f")
    with pytest.raises(TypeError, match=r"unsupported format string passed to Tensor.__format__ .*\[2\].*\n  fix"):
        format(gg.tensor([1.0, 2.0]), ".2f")
