"""maximum, minimum, fmax, fmin, max and min with bool tensors (alone, broadcast, against 0-d and
against integer and float tensors), the reductions of a bool tensor, clamp with bool tensor
bounds, and out= of these functions, against PyTorch: the same values and dtypes. Skipped
without torch."""
import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")

A = np.array([[True, False, True, False], [False, False, True, True]])
B = np.array([True, True, False, False])
OTHERS = {"bool": B, "bool 0-d": np.array(True), "int64": np.array([1, -2, 3, 0]),
          "float32": np.array([0.5, -1.0, 2.0, np.nan], np.float32), "float64 0-d": np.array(-0.5)}


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(ours.numpy()), theirs.numpy())


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "max", "min"])
@pytest.mark.parametrize("other", list(OTHERS))
def test_two_operand_extrema_of_bools_are_torch_s(name, other):
    for a, b in ((A, OTHERS[other]), (OTHERS[other], A)):
        _same(getattr(gt, name)(gt.tensor(a), gt.tensor(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    if name in ("maximum", "minimum", "max", "min"):  # the Tensor methods
        _same(getattr(gt.tensor(A), name)(gt.tensor(OTHERS[other])),
              getattr(torch.tensor(A), name)(torch.tensor(OTHERS[other])))


@pytest.mark.parametrize("call", [lambda m, x: m.max(x), lambda m, x: m.min(x), lambda m, x: m.amax(x, 1),
                                  lambda m, x: m.amin(x, 0), lambda m, x: m.max(x, 1)[0], lambda m, x: m.max(x, 1)[1],
                                  lambda m, x: m.min(x, 0, True)[0], lambda m, x: m.min(x, 0, True)[1],
                                  lambda m, x: m.aminmax(x)[1], lambda m, x: x.cummax(1)[0], lambda m, x: x.cummin(1)[1]])
def test_reductions_of_a_bool_tensor_are_torch_s(call):
    _same(call(gt, gt.tensor(A)), call(torch, torch.tensor(A)))


@pytest.mark.parametrize("bounds", [dict(min="B"), dict(max="B"), dict(min="B", max=None), dict(min="int64"),
                                    dict(max="float32")])
def test_clamp_of_bools_with_tensor_bounds_is_torch_s(bounds):
    def make(lib):
        return {k: (None if v is None else lib.tensor(B if v == "B" else OTHERS[v])) for k, v in bounds.items()}
    _same(gt.clamp(gt.tensor(A), **make(gt)), torch.clamp(torch.tensor(A), **make(torch)))
    _same(gt.tensor(A).clamp(**make(gt)), torch.tensor(A).clamp(**make(torch)))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "max", "min"])
@pytest.mark.parametrize("out_dtype", ["bool", "float32", "int64"])
def test_out_of_the_two_operand_extrema_is_torch_s(name, out_dtype):
    for a, b in ((A, B), (A.astype(np.float32), OTHERS["float32"])):
        theirs_out, ours_out = torch.empty(0, dtype=getattr(torch, out_dtype)), gt.empty(0, dtype=getattr(gt, out_dtype))
        try:
            want = getattr(torch, name)(torch.tensor(a), torch.tensor(b), out=theirs_out)
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match="can't be cast"):
                getattr(gt, name)(gt.tensor(a), gt.tensor(b), out=ours_out)
            assert "can't be cast" in str(e)
            continue
        got = getattr(gt, name)(gt.tensor(a), gt.tensor(b), out=ours_out)
        assert got is ours_out and want is theirs_out
        _same(got, want)


def test_out_of_max_and_min_over_a_dim_is_a_pair_as_torch_s():
    x = np.array([[1.0, 5.0, 5.0], [3.0, 2.0, 3.0]])
    for name in ("max", "min"):
        for kw in (dict(), dict(keepdim=True)):
            ours = (gt.empty(0), gt.empty(0, dtype=gt.int64))
            theirs = (torch.empty(0), torch.empty(0, dtype=torch.long))
            got = getattr(gt, name)(gt.tensor(x).float(), 1, out=ours, **kw)
            want = getattr(torch, name)(torch.tensor(x).float(), 1, out=theirs, **kw)
            assert got[0] is ours[0] and got[1] is ours[1] and got._fields == ("values", "indices")
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
        _same(getattr(gt, name)(gt.tensor(x), out=gt.empty(0, dtype=gt.float64)),
              getattr(torch, name)(torch.tensor(x), out=torch.empty(0, dtype=torch.float64)))
        with pytest.raises(TypeError, match="out must be a pair"):
            getattr(gt, name)(gt.tensor(x), 1, out=gt.empty(0))
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
            getattr(torch, name)(torch.tensor(x), 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
            getattr(gt, name)(gt.tensor(x), 1, out=(gt.empty(0), gt.empty(0, dtype=gt.int64)))


def test_a_nan_bound_gives_nan_as_torch_s_clamp():
    x = np.array([0.5, -1.0, 2.0, np.nan], np.float32)
    bound = np.array([np.nan, 0.0, np.nan, 1.0], np.float32)
    for kw in (dict(min=bound), dict(max=bound), dict(min=float("nan")), dict(max=float("nan")), dict(min=0, max=1)):
        for cast in (lambda t: t, lambda t: t.bool(), lambda t: t.long()):
            ours = {k: gt.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            try:
                want = torch.clamp(cast(torch.tensor(x)), **theirs)
            except (RuntimeError, NotImplementedError):  # no bool kernel for scalar bounds in PyTorch
                continue
            _same(gt.clamp(cast(gt.tensor(x)), **ours), want)
