"""Differences from PyTorch the torch.* sweep (test_torch_sweep7_functions) left, mended: mv of a
0-d matrix is PyTorch's IndexError (it reads the matrix's first dim before checking shapes; other
wrong shapes stay RuntimeError); norm's and dist's p may be a 0-d tensor, as PyTorch's parser takes
one for a Number (a bool one as 0 or 1), and a tensor with dimensions or requiring grad is its
TypeError."""
import math
import warnings

import numpy as np
import pytest

import glassgrad as gg

REFUSED = [  # (call, PyTorch's exception type)
    (lambda m: m.mv(m.tensor(2.0), m.tensor(2.0)), IndexError),
    (lambda m: m.mv(m.tensor(2.0), m.ones(2)), IndexError),
    (lambda m: m.tensor(2.0).mv(m.ones(2)), IndexError),
    (lambda m: m.mv(m.ones(2, 2), m.tensor(2.0)), RuntimeError),
    (lambda m: m.mv(m.ones(2), m.tensor(2.0)), RuntimeError),
    (lambda m: m.mv(m.ones(2, 2, 2), m.ones(2)), RuntimeError),
    (lambda m: m.norm(m.tensor([3.0, 4.0]), p=m.tensor([2.0])), TypeError),
    (lambda m: m.norm(m.tensor([3.0, 4.0]), p=m.tensor([2.0, 1.0])), TypeError),
    (lambda m: m.norm(m.tensor([3.0, 4.0]), m.tensor(3.0, requires_grad=True)), TypeError),
    (lambda m: m.dist(m.tensor([3.0, 4.0]), m.zeros(2), m.tensor([1.0])), TypeError),
    (lambda m: m.hann_window(m.tensor(4.0)), TypeError),
    (lambda m: m.hann_window(m.tensor([4])), TypeError),
    (lambda m: m.trapezoid(m.tensor(1.0), m.tensor(1.0)), IndexError),
    (lambda m: m.trapz(m.tensor(1.0)), IndexError),
    (lambda m: m.cumulative_trapezoid(m.tensor(1.0), dx=2), IndexError),
    (lambda m: m.trapezoid(m.ones(2, 3), dim=2), IndexError),
    (lambda m: m.cumulative_trapezoid(m.ones(2, 3), dim=-3), IndexError),
    (lambda m: m.slice_scatter(m.tensor(1.0), m.tensor(1.0)), IndexError),
    (lambda m: m.slice_scatter(m.ones(2, 3), m.ones(2, 3), 2), IndexError),
    (lambda m: m.softmax(m.ones(2, 3, dtype=m.int64), 2), IndexError),
    (lambda m: m.log_softmax(m.ones(2, 3, dtype=m.int32), -3), IndexError),
    (lambda m: m.ones(2, 3, dtype=m.uint8).softmax(5), IndexError),
    (lambda m: m.softmax(m.tensor(1.0), 1), IndexError),
    (lambda m: m.ones(2, 3, dtype=m.int64).softmax(1), NotImplementedError),
    (lambda m: m.logcumsumexp(m.ones(2, 3, dtype=m.int64), 2), IndexError),
    (lambda m: m.logcumsumexp(m.ones(2, 3, dtype=m.int64), 1), NotImplementedError),
    (lambda m: m.median(m.ones(2, 3, dtype=m.bool), 2), IndexError),
    (lambda m: m.nanmedian(m.ones(2, 3, dtype=m.bool), -3), IndexError),
    (lambda m: m.median(m.ones(2, 3, dtype=m.bool), 1), NotImplementedError),
    (lambda m: m.norm_except_dim(m.tensor(2.0)), IndexError),
    (lambda m: m.norm_except_dim(m.tensor(2)), IndexError),
    (lambda m: m.rms_norm(m.tensor(2.0), ()), RuntimeError),
    (lambda m: m.nn.functional.rms_norm(m.ones(2, 3), []), RuntimeError),
    (lambda m: m.einsum(m.tensor(2.0)), ValueError),
    (lambda m: m.einsum([m.tensor(2.0)]), ValueError),
    (lambda m: m.linalg.vector_norm(m.tensor(2.0), 2, dim=1), IndexError),
    (lambda m: m.lu(m.ones(2, 3, dtype=m.int64)), NotImplementedError),
    (lambda m: m.lu(m.ones(2, 2, dtype=m.bool)), NotImplementedError),
    (lambda m: m.linalg.lu(m.ones(2, 3, dtype=m.int32)), NotImplementedError),
    (lambda m: m.linalg.lu_factor(m.ones(3, 3, dtype=m.uint8)), NotImplementedError),
    (lambda m: m.linalg.lu_factor_ex(m.ones(2, 2, 2, dtype=m.int64)), NotImplementedError),
]


@pytest.mark.parametrize("call,kind", REFUSED)
def test_refused_with_pytorchs_kind(call, kind):
    with pytest.raises(kind):
        call(gg)


def test_mv_of_a_0d_matrix_is_not_a_shape_error_only():
    # a 0-d matrix is PyTorch's IndexError, not its RuntimeError: both kinds are not caught alike
    with pytest.raises(IndexError, match="no dimensions"):
        gg.mv(gg.tensor(1.0), gg.ones(3))


X = [3.0, 4.0]
P_CASES = [  # (p as a 0-d tensor, the norm of X): |3|^p + |4|^p to the 1/p
    (lambda: gg.tensor(2.0), 5.0),
    (lambda: gg.tensor(2), 5.0),
    (lambda: gg.tensor(1.0), 7.0),
    (lambda: gg.tensor(0.0), 2.0),  # the count of nonzeros
    (lambda: gg.tensor(3.0), (27.0 + 64.0) ** (1 / 3)),
    (lambda: gg.tensor(-1.0), 1 / (1 / 3 + 1 / 4)),
    (lambda: gg.tensor(math.inf), 4.0),
    (lambda: gg.tensor(-math.inf), 3.0),
    (lambda: gg.tensor(True), 7.0),  # a bool tensor is the Number 1
    (lambda: gg.tensor(2.0, dtype=gg.float16), 5.0),
]


@pytest.mark.parametrize("p,want", P_CASES)
def test_norm_with_a_0d_tensor_p(p, want):
    x = gg.tensor(X)
    np.testing.assert_allclose(gg.norm(x, p()).item(), want, rtol=1e-6)
    np.testing.assert_allclose(x.norm(p=p()).item(), want, rtol=1e-6)
    np.testing.assert_allclose(gg.dist(x, gg.zeros(2), p()).item(), want, rtol=1e-6)


def test_norm_with_a_0d_tensor_p_over_a_dim_keeps_the_gradient():
    x = gg.tensor([[3.0, 4.0], [6.0, 8.0]], dtype=gg.float64, requires_grad=True)
    y = gg.norm(x, gg.tensor(2.0), dim=1, keepdim=True)
    assert list(y.shape) == [2, 1]
    np.testing.assert_allclose(y.detach().numpy().ravel(), [5.0, 10.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x.detach().numpy() / np.array([[5.0], [10.0]]))


# PyTorch's documented windows (N = window_length, periodic: the N + 1 point window less its last)
WINDOWS = [
    (lambda m: m.hann_window(m.tensor(4)), [0.0, 0.5, 1.0, 0.5]),
    (lambda m: m.hann_window(m.tensor(3), False), [0.0, 1.0, 0.0]),
    (lambda m: m.bartlett_window(m.tensor(5), periodic=False), [0.0, 0.5, 1.0, 0.5, 0.0]),
    (lambda m: m.hamming_window(m.tensor(3), False), [0.08, 1.0, 0.08]),
    (lambda m: m.blackman_window(m.tensor(3), False), [0.0, 1.0, 0.0]),
    (lambda m: m.kaiser_window(m.tensor(1)), [1.0]),
    (lambda m: m.hann_window(m.tensor(0)), []),
]


@pytest.mark.parametrize("call,want", WINDOWS)
def test_windows_take_a_0d_integer_length(call, want):
    got = call(gg)
    assert got.dtype == gg.float32 and list(got.shape) == [len(want)]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-6)


def test_trapezoid_and_slice_scatter_along_negative_dims():
    y = gg.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    np.testing.assert_allclose(gg.trapezoid(y, dim=-2).numpy(), [1.5, 2.5, 3.5])
    np.testing.assert_allclose(gg.cumulative_trapezoid(y, dim=-1).numpy(), [[0.5, 2.0], [3.5, 8.0]])
    got = gg.slice_scatter(y, gg.zeros(2, 1), -1, 1, 2)
    np.testing.assert_array_equal(got.numpy(), [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]])


def test_softmax_of_a_0d_tensor_along_0_and_minus_1():
    for d in (0, -1):
        assert gg.softmax(gg.tensor(3.0), d).item() == 1.0
        assert gg.tensor(3.0).log_softmax(d).item() == 0.0


def _cosine(a, b, dim):
    a, b = np.broadcast_arrays(a, b)
    return (a * b).sum(dim) / (np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim))


A = np.array([[0.5, -1.0, 2.0], [-1.5, 0.25, 1.0]])
COSINE = [  # (x2, dim): x2 broadcast against A
    (np.array(2.0), 1), (A[0], 1), (A[1], -1), (A[:, :1], 1), (np.ones((4, 1, 3)), 2), (A[:1], 0),
]


@pytest.mark.parametrize("other,dim", COSINE)
def test_cosine_similarity_broadcasts_before_the_norms(other, dim):
    got = gg.cosine_similarity(gg.tensor(A), gg.tensor(other), dim=dim)
    want = _cosine(A, other, dim)
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_cosine_similarity_gradient_through_the_broadcast():
    x = gg.tensor(A, requires_grad=True)
    row = A[1].copy()
    gg.cosine_similarity(x, gg.tensor(row)).sum().backward()
    h, numeric = 1e-6, np.zeros_like(A)
    for i in np.ndindex(A.shape):
        up, down = A.copy(), A.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (_cosine(up, row, 1).sum() - _cosine(down, row, 1).sum()) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), numeric, atol=1e-8)


@pytest.mark.parametrize("x1,x2,want", [
    ("float16", "float32", "float32"), ("float32", "float64", "float64"), ("bfloat16", "float32", "float32"),
    ("int64", "float32", "float32"), ("float16", "float16", "float16"),
])
def test_cosine_similarity_with_a_0d_x2_takes_the_promoted_dtype(x1, x2, want):
    got = gg.cosine_similarity(gg.tensor(A).to(getattr(gg, x1)), gg.tensor(2.0, dtype=getattr(gg, x2)))
    assert got.dtype == getattr(gg, want)
    np.testing.assert_allclose(got.float().numpy(), _cosine(A if x1 != "int64" else A.astype(np.int64), 2.0, 1),
                               rtol=1e-2)


def test_cosine_similarity_of_shapes_that_do_not_broadcast():
    with pytest.raises(RuntimeError):
        gg.cosine_similarity(gg.ones(2, 3), gg.ones(2, 4))


def test_permute_copy_of_a_0d_tensor_and_of_a_list():
    assert gg.permute_copy(gg.tensor(1.5), ()).item() == 1.5
    got = gg.permute_copy(gg.tensor(A), [1, 0])
    np.testing.assert_array_equal(got.numpy(), A.T)


LOGIT_X = [-0.5, 0.0, 0.25, 0.5, 0.9, 1.0, 1.5]
L1, L7 = math.log(1 / 9), math.log(0.7 / 0.3)  # logit(0.1), logit(0.7)
LOGIT = [  # (eps, PyTorch's logit of LOGIT_X)
    (None, [math.nan, -math.inf, math.log(1 / 3), 0.0, -L1, math.inf, math.nan]),
    (-1.0, [math.nan, -math.inf, math.log(1 / 3), 0.0, -L1, math.inf, math.nan]),  # eps < 0: no bounds
    (0.0, [-math.inf, -math.inf, math.log(1 / 3), 0.0, -L1, math.inf, math.inf]),
    (0.1, [L1, L1, math.log(1 / 3), 0.0, -L1, -L1, -L1]),
    (0.5, [0.0] * 7),
    (0.7, [L7] * 4 + [-L7] * 3),  # below 0.7 -> 0.7; from 0.7 up, above 0.3 -> 0.3
    (1.0, [math.inf] * 5 + [-math.inf] * 2),
    (2.0, [math.nan] * 7),  # bounded to 2: log(2 / -1)
]


@pytest.mark.parametrize("eps,want", LOGIT)
def test_logit_bounds_as_pytorchs_kernel(eps, want):
    got = gg.logit(gg.tensor(LOGIT_X, dtype=gg.float64), eps)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(gg.tensor(LOGIT_X, dtype=gg.float64).logit(eps).numpy(), want, rtol=1e-12)


def test_logit_gradient_is_zero_outside_the_bounds():
    x = gg.tensor([0.2, 0.6, 0.95, 0.1], dtype=gg.float64, requires_grad=True)
    gg.logit(x, 0.1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / (0.2 * 0.8), 1 / (0.6 * 0.4), 0.0, 1 / (0.1 * 0.9)])
    x = gg.tensor([0.2, 0.6, 0.95], requires_grad=True)
    gg.logit(x, 0.7).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_logit_of_integers_with_eps():
    got = gg.logit(gg.tensor([0, 1, 2]), 1)
    assert got.dtype == gg.float32 and got.tolist() == [math.inf, -math.inf, -math.inf]


SCALAR_NORMS = [  # (call on the 0-d tensor -2.5, PyTorch's 0-d value)
    (lambda m, s: m.linalg.vector_norm(s, 2, dim=(-1,), keepdim=True), 2.5),
    (lambda m, s: m.linalg.vector_norm(s, 1, dim=0, keepdim=True), 2.5),
    (lambda m, s: m.linalg.vector_norm(s, 0, keepdim=True), 1.0),
    (lambda m, s: m.linalg.vector_norm(s, 3, keepdim=True), 2.5),
    (lambda m, s: m.linalg.vector_norm(s, math.inf, dim=-1, keepdim=True), 2.5),
    (lambda m, s: m.frobenius_norm(s, -1, keepdim=True), 2.5),
    (lambda m, s: m.frobenius_norm(s, (0,)), 2.5),
    (lambda m, s: m.norm_except_dim(s, 2, -1), 2.5),
]


@pytest.mark.parametrize("call,want", SCALAR_NORMS)
def test_norms_of_a_0d_tensor_are_0d(call, want):
    got = call(gg, gg.tensor(-2.5))
    assert got.ndim == 0 and got.item() == want


def test_vector_norm_of_a_0d_tensor_with_keepdim_has_the_sign_gradient():
    s = gg.tensor(-2.5, dtype=gg.float64, requires_grad=True)
    y = gg.linalg.vector_norm(s, 2, dim=0, keepdim=True)
    y.backward()
    assert y.ndim == 0 and s.grad.item() == -1.0


BLOCK_DIAG = [  # (the inputs' (dtype, shape), PyTorch's result dtype)
    ((("float16", (2, 3)), ("float32", ())), "float16"),
    ((("float16", (2, 3)), ("float64", ())), "float16"),
    ((("int64", (2,)), ("float32", ())), "float32"),
    ((("int64", (2,)), ("bool", ())), "int64"),
    ((("float16", (2, 3)), ("bfloat16", (1,))), "float32"),
    ((("int64", ()), ("float32", ())), "float32"),
    ((("uint8", ()), ("int64", ())), "int64"),
]


@pytest.mark.parametrize("inputs,want", BLOCK_DIAG)
def test_block_diag_takes_the_result_type(inputs, want):
    got = gg.block_diag(*[gg.full(shape, 2, dtype=getattr(gg, d)) for d, shape in inputs])
    assert got.dtype == getattr(gg, want)
    rows = [np.full(shape, 1.0 if d == "bool" else 2.0).reshape((1, 1) if not shape else (1, -1) if len(shape) == 1
                                                               else shape) for d, shape in inputs]
    want_values = np.zeros((sum(r.shape[0] for r in rows), sum(r.shape[1] for r in rows)))
    top = left = 0
    for r in rows:
        want_values[top:top + r.shape[0], left:left + r.shape[1]] = r
        top, left = top + r.shape[0], left + r.shape[1]
    np.testing.assert_array_equal(got.float().numpy(), want_values)


SPLITS = [  # (split_size as a tensor, dim, PyTorch's piece shapes of a [3, 2] tensor)
    (lambda m: m.tensor(2.0), 0, [(2, 2), (1, 2)]),
    (lambda m: m.tensor(1.5), 0, [(1, 2), (1, 2), (1, 2)]),
    (lambda m: m.tensor([2]), 0, [(2, 2), (1, 2)]),
    (lambda m: m.tensor(True), 0, [(1, 2), (1, 2), (1, 2)]),
    (lambda m: m.tensor(1.0), 1, [(3, 1), (3, 1)]),
]


@pytest.mark.parametrize("size,dim,want", SPLITS)
def test_split_by_a_one_element_tensor(size, dim, want):
    x = gg.arange(6.0).reshape(3, 2)
    for pieces in (gg.split(x, size(gg), dim), x.split(size(gg), dim)):
        assert [tuple(p.shape) for p in pieces] == want
        np.testing.assert_array_equal(gg.cat(pieces, dim).numpy(), x.numpy())


def test_split_by_a_tensor_below_one_is_refused():
    with pytest.raises(RuntimeError):
        gg.split(gg.ones(3, 2), gg.tensor(0.5))


@pytest.mark.parametrize("call,kind", REFUSED)
def test_kinds_match_torch(call, kind):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind):
        call(torch)


@pytest.mark.parametrize("p,want", P_CASES)
def test_tensor_p_values_match_torch(p, want):
    torch = pytest.importorskip("torch")
    tp = torch.from_numpy(np.asarray(p().numpy()))
    assert abs(torch.norm(torch.tensor(X), tp).item() - want) < 1e-5


@pytest.mark.parametrize("call,want", WINDOWS)
def test_windows_match_torch(call, want):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(call(torch).numpy(), call(gg).numpy(), atol=1e-6)



@pytest.mark.parametrize("other,dim", COSINE)
def test_cosine_similarity_matches_torch(other, dim):
    torch = pytest.importorskip("torch")
    want = torch.cosine_similarity(torch.tensor(A), torch.tensor(other), dim=dim).numpy()
    np.testing.assert_allclose(gg.cosine_similarity(gg.tensor(A), gg.tensor(other), dim=dim).numpy(), want,
                               rtol=1e-12)


@pytest.mark.parametrize("eps,want", LOGIT)
def test_logit_matches_torch(eps, want):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(torch.logit(torch.tensor(LOGIT_X, dtype=torch.float64), eps).numpy(), want,
                               rtol=1e-12)


@pytest.mark.parametrize("call,want", SCALAR_NORMS)
def test_0d_norms_match_torch(call, want):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.frobenius_norm's deprecation warning
        got = call(torch, torch.tensor(-2.5))
    assert got.ndim == 0 and got.item() == want


@pytest.mark.parametrize("inputs,want", BLOCK_DIAG)
def test_block_diag_dtype_matches_torch(inputs, want):
    torch = pytest.importorskip("torch")
    got = torch.block_diag(*[torch.full(shape, 2, dtype=getattr(torch, d)) for d, shape in inputs])
    assert got.dtype == getattr(torch, want)


@pytest.mark.parametrize("size,dim,want", SPLITS)
def test_split_by_a_tensor_matches_torch(size, dim, want):
    torch = pytest.importorskip("torch")
    assert [tuple(p.shape) for p in torch.split(torch.ones(3, 2), size(torch), dim)] == want
