"""PyTorch's deprecated overloads that pass the coefficients first and by position:
torch.addmm(beta, M, alpha, mat1, mat2), torch.addmm(beta, M, mat1, mat2), M.addmm(beta, alpha, mat1, mat2),
M.addmm(beta, mat1, mat2) (and addmv, addr, baddbmm, addbmm and the in-place methods), and
x.add(alpha, other) / x.sub(alpha, other) with a number as other: PyTorch computes them, with its
UserWarning "This overload of addmm is deprecated". The expected values are beta * input + alpha * product,
written out with NumPy."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

M = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
V = np.array([1.0, -1.0], np.float32)
B = np.stack([M, M.T])


def _t(a):
    return gg.tensor(a)


CASES = [
    ("addmm", lambda: _t(M).addmm(2, _t(M), _t(M)), 2 * M + M @ M),
    ("addmm", lambda: _t(M).addmm(2, 3, _t(M), _t(M)), 2 * M + 3 * (M @ M)),
    ("addmm_", lambda: _t(M).addmm_(2, 3, _t(M), _t(M)), 2 * M + 3 * (M @ M)),
    ("addmm", lambda: gg.addmm(2, _t(M), 3, _t(M), _t(M)), 2 * M + 3 * (M @ M)),
    ("addmm", lambda: gg.addmm(2, _t(M), _t(M), _t(M)), 2 * M + M @ M),
    ("addmm", lambda: gg.addmm(gg.tensor(2.0), _t(M), _t(M), _t(M)), 2 * M + M @ M),
    ("addmv", lambda: _t(V).addmv(2, _t(M), _t(V)), 2 * V + M @ V),
    ("addmv", lambda: gg.addmv(2, _t(V), 3, _t(M), _t(V)), 2 * V + 3 * (M @ V)),
    ("addmv_", lambda: _t(V).addmv_(2, 3, _t(M), _t(V)), 2 * V + 3 * (M @ V)),
    ("addr", lambda: _t(M).addr(2, 3, _t(V), _t(V)), 2 * M + 3 * np.outer(V, V)),
    ("addr_", lambda: _t(M).addr_(2, _t(V), _t(V)), 2 * M + np.outer(V, V)),
    ("baddbmm", lambda: _t(B).baddbmm(2, _t(B), _t(B)), 2 * B + B @ B),
    ("baddbmm", lambda: gg.baddbmm(2, _t(B), 3, _t(B), _t(B)), 2 * B + 3 * (B @ B)),
    ("addbmm", lambda: _t(M).addbmm(2, 3, _t(B), _t(B)), 2 * M + 3 * (B @ B).sum(0)),
    ("addbmm_", lambda: _t(M).addbmm_(2, _t(B), _t(B)), 2 * M + (B @ B).sum(0)),
    ("add", lambda: _t(V).add(2, 1.5), V + 3.0),
    ("sub", lambda: _t(V).sub(2, 1.5), V - 3.0),
    ("add", lambda: gg.add(_t(V), 1, 1.5), V + 1.5),
]


@pytest.mark.parametrize("name,call,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_deprecated_overload_computes_with_torch_s_warning(name, call, expected):
    with pytest.warns(UserWarning, match=rf"^This overload of {name} is deprecated:\n\t{name}\(Number ") as record:
        out = call()
    assert record[0].filename == __file__  # it points at the caller's line
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_the_documented_signatures_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = gg.addmm(_t(M), _t(M), _t(M), beta=2, alpha=3)
        np.testing.assert_allclose(out.numpy(), 2 * M + 3 * (M @ M), rtol=1e-6)
        np.testing.assert_allclose(_t(M).addmm(_t(M), _t(M), beta=2).numpy(), 2 * M + M @ M, rtol=1e-6)


@pytest.mark.parametrize("call", [lambda: _t(M).addmm(2, _t(M), _t(M), alpha=3),  # keywords close the overload
                                  lambda: gg.addmm(_t(M), 2, _t(M), _t(M)),
                                  lambda: _t(V).add(_t(V), 2)])
def test_other_mixes_stay_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_against_torch():
    torch = pytest.importorskip("torch")
    m = torch.tensor(M)
    with warnings.catch_warnings():  # PyTorch warns once a process: another test may have seen it first
        warnings.simplefilter("ignore")
        want = torch.addmm(2, m, 3, m, m).numpy()
    g = gg.tensor(M)
    with pytest.warns(UserWarning, match="This overload of addmm is deprecated"):
        got = gg.addmm(2, g, 3, g, g).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
