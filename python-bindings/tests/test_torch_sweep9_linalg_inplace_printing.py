"""A sweep against PyTorch of what earlier sweeps left out: torch.linalg argument forms (out=,
dtype=, batched and empty inputs, singular and non-square matrices and their error kinds, the
NumPy-compat rcond/tol overloads), torch.special functions on edge values and integer inputs,
Tensor in-place variants (add_(alpha=), clamp_ with tensor bounds, index_put_ accumulate,
masked_scatter_, scatter_reduce_ include_self, index_reduce_, ...) with PyTorch's in-place type
promotion ("result type can't be cast"), and printing (repr of tensors of every dtype, 0-d,
empty, requires_grad/grad_fn suffixes, under set_printoptions profiles and options). Each case
must give PyTorch's dtype, shape and values (rtol 1e-4), or raise an exception of PyTorch's
builtin kind; a repr must be PyTorch's with the module's name swapped. KNOWN lists the cases left,
with the reason. Torch-guarded: CI has no torch."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad as gg  # noqa: E402

A = [[4.0, 1.0], [2.0, 3.0]]
S = [[1.0, 2.0], [2.0, 4.0]]
B3 = np.arange(12.0).reshape(3, 2, 2) + np.eye(2)


def mk(m, a, dt="float32"):
    return m.tensor(np.asarray(a)).to(getattr(m, dt))


CASES = {
    # linalg
    "inv singular": lambda m: m.linalg.inv(mk(m, S)),
    "inv nonsquare": lambda m: m.linalg.inv(m.ones(2, 3)),
    "inv int": lambda m: m.linalg.inv(mk(m, A, "int64")),
    "inv empty": lambda m: m.linalg.inv(m.ones(0, 0)),
    "inv batch empty": lambda m: m.linalg.inv(m.ones(0, 2, 2)),
    "inv_ex singular": lambda m: m.linalg.inv_ex(mk(m, S)),
    "det batched": lambda m: m.linalg.det(mk(m, B3)),
    "det empty": lambda m: m.linalg.det(m.ones(0, 0)),
    "det nonsquare": lambda m: m.linalg.det(m.ones(2, 3)),
    "det 1d": lambda m: m.linalg.det(m.ones(3)),
    "slogdet singular": lambda m: m.linalg.slogdet(mk(m, S)),
    "slogdet empty": lambda m: m.linalg.slogdet(m.ones(0, 0)),
    "solve singular": lambda m: m.linalg.solve(mk(m, S), m.ones(2)),
    "solve vec batch": lambda m: m.linalg.solve(mk(m, B3), m.ones(2)),
    "solve left False": lambda m: m.linalg.solve(mk(m, A), m.ones(3, 2), left=False),
    "solve dtype mismatch": lambda m: m.linalg.solve(mk(m, A), m.ones(2, dtype=m.float64)),
    "solve_ex singular": lambda m: m.linalg.solve_ex(mk(m, S), m.ones(2)),
    "cholesky nonpd": lambda m: m.linalg.cholesky(mk(m, [[1.0, 2.0], [2.0, 1.0]])),
    "cholesky upper": lambda m: m.linalg.cholesky(mk(m, [[4.0, 2.0], [2.0, 3.0]]), upper=True),
    "cholesky_ex nonpd": lambda m: m.linalg.cholesky_ex(mk(m, [[1.0, 2.0], [2.0, 1.0]])),
    "norm out": lambda m: m.linalg.norm(mk(m, A), out=m.empty(())),
    "norm dtype": lambda m: m.linalg.norm(mk(m, A), dtype=m.float64),
    "norm int": lambda m: m.linalg.norm(mk(m, A, "int64")),
    "vector_norm int": lambda m: m.linalg.vector_norm(mk(m, A, "int64")),
    "vector_norm dtype int": lambda m: m.linalg.vector_norm(mk(m, A), dtype=m.int64),
    "vector_norm 0": lambda m: m.linalg.vector_norm(mk(m, A), 0),
    "vector_norm inf empty": lambda m: m.linalg.vector_norm(m.ones(0), float("inf")),
    "vector_norm empty 2": lambda m: m.linalg.vector_norm(m.ones(0, 3), dim=0),
    "matrix_norm -2": lambda m: m.linalg.matrix_norm(mk(m, A), -2),
    "matrix_norm 3": lambda m: m.linalg.matrix_norm(mk(m, A), 3),
    "matrix_rank": lambda m: m.linalg.matrix_rank(mk(m, S)),
    "matrix_rank tol": lambda m: m.linalg.matrix_rank(mk(m, A), tol=3.0),
    "matrix_rank atol rtol": lambda m: m.linalg.matrix_rank(mk(m, A), atol=1.0, rtol=0.5),
    "matrix_rank hermitian": lambda m: m.linalg.matrix_rank(mk(m, S), hermitian=True),
    "pinv": lambda m: m.linalg.pinv(mk(m, S)),
    "pinv rcond": lambda m: m.linalg.pinv(mk(m, A), rcond=0.5),
    "pinv atol": lambda m: m.linalg.pinv(mk(m, A), atol=2.5),
    "pinv empty": lambda m: m.linalg.pinv(m.ones(0, 3)),
    "eigh uplo": lambda m: m.linalg.eigvalsh(mk(m, [[2.0, 9.0], [1.0, 3.0]]), UPLO="U"),
    "eigh bad uplo": lambda m: m.linalg.eigvalsh(mk(m, A), UPLO="X"),
    "svdvals": lambda m: m.linalg.svdvals(mk(m, B3)),
    "svdvals empty": lambda m: m.linalg.svdvals(m.ones(0, 3)),
    "matrix_power neg": lambda m: m.linalg.matrix_power(mk(m, A), -2),
    "matrix_power neg singular": lambda m: m.linalg.matrix_power(mk(m, S), -1),
    "matrix_power 0": lambda m: m.linalg.matrix_power(mk(m, A, "int64"), 0),
    "matrix_power int": lambda m: m.linalg.matrix_power(mk(m, A, "int64"), 3),
    "matrix_exp": lambda m: m.linalg.matrix_exp(mk(m, A) / 4),
    "cross": lambda m: m.linalg.cross(m.tensor([1.0, 2, 3]), m.tensor([4.0, 5, 6])),
    "cross bad": lambda m: m.linalg.cross(m.ones(2), m.ones(2)),
    "cross int": lambda m: m.linalg.cross(m.tensor([1, 2, 3]), m.tensor([4, 5, 6])),
    "vecdot": lambda m: m.linalg.vecdot(mk(m, A), mk(m, S)),
    "vecdot int": lambda m: m.linalg.vecdot(mk(m, A, "int64"), mk(m, S, "int64")),
    "multi_dot": lambda m: m.linalg.multi_dot([m.ones(2), mk(m, A), m.ones(2)]),
    "multi_dot one": lambda m: m.linalg.multi_dot([mk(m, A)]),
    "diagonal": lambda m: m.linalg.diagonal(mk(m, B3)),
    "det int": lambda m: m.linalg.det(mk(m, A, "int64")),
    "qr r": lambda m: m.linalg.qr(mk(m, A), mode="r"),
    "qr bad": lambda m: m.linalg.qr(mk(m, A), mode="x"),
    "lstsq": lambda m: m.linalg.lstsq(mk(m, [[1.0, 0], [0, 1], [1, 1]]), m.ones(3, 1)).solution,
    "solve_triangular": lambda m: m.linalg.solve_triangular(mk(m, [[2.0, 1], [0, 3]]), m.ones(2, 1), upper=True),
    "solve_triangular noupper": lambda m: m.linalg.solve_triangular(mk(m, A), m.ones(2, 1)),
    "cond": lambda m: m.linalg.cond(mk(m, A)),
    "cond singular": lambda m: m.linalg.cond(mk(m, S)),
    "cond fro singular": lambda m: m.linalg.cond(mk(m, S), "fro"),
    "householder": lambda m: m.linalg.householder_product(mk(m, A), m.tensor([1.0, 0.5])),
    "tensorinv": lambda m: m.linalg.tensorinv(m.eye(4).reshape(4, 2, 2), ind=1),
    "vander": lambda m: m.linalg.vander(m.tensor([1.0, 2, 3])),
    "vander N": lambda m: m.linalg.vander(m.tensor([1, 2, 3]), N=2),
    # special
    "special.logit eps": lambda m: m.special.logit(m.tensor([0.0, 0.5, 1.0]), eps=0.1),
    "special.xlogy": lambda m: m.special.xlogy(m.tensor([0.0, 1, 2]), m.tensor([0.0, 2, float("nan")])),
    "special.xlogy scalar": lambda m: m.special.xlogy(2, m.tensor([1.0, 2])),
    "special.xlog1py": lambda m: m.special.xlog1py(m.tensor([0.0, 1]), m.tensor([-1.0, 1])),
    "special.zeta": lambda m: m.special.zeta(m.tensor([2.0, 1.0, 0.5]), 1.0),
    "special.zeta int": lambda m: m.special.zeta(m.tensor([2, 3]), m.tensor([1, 2])),
    "special.entr": lambda m: m.special.entr(m.tensor([-1.0, 0, 0.5])),
    "special.entr int": lambda m: m.special.entr(m.tensor([1, 2])),
    "special.sinc": lambda m: m.special.sinc(m.tensor([0.0, 0.5])),
    "special.sinc int": lambda m: m.special.sinc(m.tensor([0, 1])),
    "special.round decimals": lambda m: m.special.round(m.tensor([1.2345, 2.5]), decimals=2),
    "special.softmax dtype": lambda m: m.special.softmax(m.tensor([1, 2, 3]), 0, dtype=m.float64),
    "special.log_softmax": lambda m: m.special.log_softmax(m.tensor([1.0, 2, 3]), 0),
    "special.logsumexp int": lambda m: m.special.logsumexp(m.tensor([1, 2, 3]), 0),
    "special.polygamma": lambda m: m.special.polygamma(2, m.tensor([1.0, 2.5])),
    "special.multigammaln": lambda m: m.special.multigammaln(m.tensor([2.0, 3.0]), 2),
    "special.i0 int": lambda m: m.special.i0(m.tensor([0, 1])),
    "special.ndtri": lambda m: m.special.ndtri(m.tensor([0.0, 0.5, 1.0, 2.0])),
    "special.log_ndtr": lambda m: m.special.log_ndtr(m.tensor([-10.0, 0])),
    "special.erfcx": lambda m: m.special.erfcx(m.tensor([-1.0, 30])),
    "special.gammaln int": lambda m: m.special.gammaln(m.tensor([1, 5])),
    "special.expit out": lambda m: m.special.expit(m.tensor([0.0]), out=m.empty(1)),
    "special.expit out int": lambda m: m.special.expit(m.tensor([0.0]), out=m.empty(1, dtype=m.int64)),
    "special.bessel_j0": lambda m: m.special.bessel_j0(m.tensor([0.0, 1])),
    "special.gammainc": lambda m: m.special.gammainc(m.tensor([1.0, 2]), m.tensor([0.5, -1])),
    "special.chebyshev": lambda m: m.special.chebyshev_polynomial_t(m.tensor([0.5, 2.0]), 3),
    "special.hermite int n": lambda m: m.special.hermite_polynomial_h(m.tensor([0.5]), m.tensor([2])),
    "special.airy": lambda m: m.special.airy_ai(m.tensor([0.0, -1])),
    "special.spherical_j0": lambda m: m.special.spherical_bessel_j0(m.tensor([0.0, 1])),
    "special.scaled_modified_bessel_k0": lambda m: m.special.scaled_modified_bessel_k0(m.tensor([1.0])),
    "add_ alpha": lambda m: m.ones(3).add_(m.tensor([1.0, 2, 3]), alpha=2),
    "sub_ alpha": lambda m: m.ones(3).sub_(m.tensor([1.0, 2, 3]), alpha=0.5),
    "add_ alpha int float": lambda m: m.ones(3, dtype=m.int64).add_(m.tensor([1, 2, 3]), alpha=0.5),
    "add alpha bool": lambda m: m.ones(3, dtype=m.bool).add(m.ones(3, dtype=m.bool), alpha=2),
    "add_ int<-float": lambda m: m.ones(3, dtype=m.int64).add_(m.tensor([1.5, 2, 3])),
    "add_ int<-float scalar": lambda m: m.ones(3, dtype=m.int64).add_(1.5),
    "mul_ bool<-int": lambda m: m.ones(3, dtype=m.bool).mul_(2),
    "mul_ bool<-int tensor": lambda m: m.ones(3, dtype=m.bool).mul_(m.tensor([2, 1, 0])),
    "div_ int": lambda m: m.ones(3, dtype=m.int64).div_(2),
    "div_ int floor": lambda m: m.tensor([5, -5, 7]).div_(2, rounding_mode="floor"),
    "div_ int trunc": lambda m: m.tensor([5, -5, 7]).div_(2, rounding_mode="trunc"),
    "float16_ add float64 0d": lambda m: m.ones(3, dtype=m.float16).add_(m.tensor(1.5, dtype=m.float64)),
    "int32 add_ int64": lambda m: m.ones(3, dtype=m.int32).add_(m.tensor([1, 2, 3])),
    "uint8 add_ -1": lambda m: m.ones(3, dtype=m.uint8).add_(-1),
    "clamp_ min tensor": lambda m: m.tensor([1.0, 5, -2]).clamp_(min=m.tensor([0.0, 6, 0])),
    "clamp_ both tensor": lambda m: m.tensor([1.0, 5, -2]).clamp_(m.tensor(0.0), m.tensor([0.5, 6, 1])),
    "clamp_ int min float": lambda m: m.tensor([1, 5, -2]).clamp_(min=0.5),
    "clamp int min float": lambda m: m.tensor([1, 5, -2]).clamp(min=0.5),
    "clamp int min float tensor": lambda m: m.tensor([1, 5, -2]).clamp(min=m.tensor(0.5)),
    "clamp_ none": lambda m: m.tensor([1.0]).clamp_(),
    "clamp min>max": lambda m: m.tensor([1.0, 5, -2]).clamp(min=3, max=2),
    "clamp_min_": lambda m: m.tensor([1.0, 5, -2]).clamp_min_(0),
    "clip_ tensor": lambda m: m.tensor([1.0, 5, -2]).clip_(max=m.tensor([0.0, 1, 2])),
    "index_put_ acc": lambda m: m.zeros(3).index_put_((m.tensor([0, 0, 2]),), m.tensor([1.0, 2, 3]), accumulate=True),
    "index_put_ noacc": lambda m: m.zeros(3).index_put_((m.tensor([0, 2]),), m.tensor([1.0, 3])),
    "index_put_ bool": lambda m: m.zeros(3).index_put_((m.tensor([True, False, True]),), m.tensor(5.0)),
    "index_put_ 2d acc": lambda m: m.zeros(2, 2).index_put_((m.tensor([0, 0]), m.tensor([1, 1])), m.tensor(1.0), accumulate=True),
    "index_put_ dtype": lambda m: m.zeros(3).index_put_((m.tensor([0]),), m.tensor([1.0], dtype=m.float64)),
    "index_put_ int idx32": lambda m: m.zeros(3).index_put_((m.tensor([0, 1], dtype=m.int32),), m.tensor([1.0, 2])),
    "index_put_ oob": lambda m: m.zeros(3).index_put_((m.tensor([3]),), m.tensor([1.0])),
    "index_put": lambda m: m.zeros(3).index_put((m.tensor([1]),), m.tensor([1.0]), True),
    "masked_scatter_": lambda m: m.zeros(4).masked_scatter_(m.tensor([True, False, True, False]), m.tensor([1.0, 2, 3])),
    "masked_scatter_ bcast": lambda m: m.zeros(2, 2).masked_scatter_(m.tensor([True, False]), m.tensor([[1.0, 2], [3, 4]])),
    "masked_scatter_ short": lambda m: m.zeros(4).masked_scatter_(m.tensor([True, True, True, False]), m.tensor([1.0])),
    "masked_scatter_ uint8 mask": lambda m: m.zeros(2).masked_scatter_(m.tensor([1, 0], dtype=m.uint8), m.tensor([1.0])),
    "masked_scatter dtype": lambda m: m.zeros(2).masked_scatter(m.tensor([True, False]), m.tensor([1.0], dtype=m.float64)),
    "masked_fill_ tensor": lambda m: m.zeros(2).masked_fill_(m.tensor([True, False]), m.tensor(3.0)),
    "masked_fill_ 1d value": lambda m: m.zeros(2).masked_fill_(m.tensor([True, False]), m.tensor([3.0])),
    "masked_fill_ int<-float": lambda m: m.zeros(2, dtype=m.int64).masked_fill_(m.tensor([True, False]), 2.7),
    "scatter_reduce_ sum incl": lambda m: m.ones(3).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "sum"),
    "scatter_reduce_ sum excl": lambda m: m.ones(3).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "sum", include_self=False),
    "scatter_reduce_ mean incl": lambda m: m.ones(3).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "mean"),
    "scatter_reduce_ mean excl": lambda m: m.ones(3).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "mean", include_self=False),
    "scatter_reduce_ mean int": lambda m: m.ones(3, dtype=m.int64).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1, 2, 4]), "mean"),
    "scatter_reduce_ amax excl": lambda m: m.full((3,), 9.0).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "amax", include_self=False),
    "scatter_reduce_ amin incl": lambda m: m.zeros(3).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, -3]), "amin"),
    "scatter_reduce_ prod excl": lambda m: m.full((3,), 2.0).scatter_reduce_(0, m.tensor([0, 0, 2]), m.tensor([1.0, 2, 3]), "prod", include_self=False),
    "scatter_reduce bad": lambda m: m.ones(3).scatter_reduce(0, m.tensor([0]), m.tensor([1.0]), "max"),
    "scatter_reduce dtype": lambda m: m.ones(3).scatter_reduce(0, m.tensor([0]), m.tensor([1.0], dtype=m.float64), "sum"),
    "scatter_ reduce add": lambda m: m.ones(3).scatter_(0, m.tensor([0, 0]), m.tensor([1.0, 2]), reduce="add"),
    "scatter_ reduce multiply scalar": lambda m: m.full((3,), 2.0).scatter_(0, m.tensor([0, 0]), 3.0, reduce="multiply"),
    "scatter_add_": lambda m: m.ones(3).scatter_add_(0, m.tensor([0, 0]), m.tensor([1.0, 2])),
    "index_add_ alpha": lambda m: m.ones(3).index_add_(0, m.tensor([0, 0]), m.tensor([1.0, 2]), alpha=3),
    "index_reduce_ prod": lambda m: m.full((3,), 2.0).index_reduce_(0, m.tensor([0, 0]), m.tensor([3.0, 4]), "prod"),
    "index_reduce_ mean excl": lambda m: m.full((3,), 2.0).index_reduce_(0, m.tensor([0, 0]), m.tensor([3.0, 4]), "mean", include_self=False),
    "index_fill_ tensor": lambda m: m.zeros(3).index_fill_(0, m.tensor([0, 2]), m.tensor(4.0)),
    "index_copy_": lambda m: m.zeros(3).index_copy_(0, m.tensor([2, 0]), m.tensor([1.0, 2])),
    "lerp_ weight tensor": lambda m: m.zeros(2).lerp_(m.ones(2), m.tensor([0.25, 0.5])),
    "addcmul_ value": lambda m: m.ones(2).addcmul_(m.tensor([1.0, 2]), m.tensor([3.0, 4]), value=0.5),
    "addcdiv_ int": lambda m: m.ones(2, dtype=m.int64).addcdiv_(m.tensor([1, 2]), m.tensor([3, 4])),
    "pow_ int neg": lambda m: m.tensor([2, 3]).pow_(-1),
    "pow int neg": lambda m: m.tensor([2, 3]).pow(-1),
    "pow_ int<-float": lambda m: m.tensor([2, 3]).pow_(0.5),
    "floor_divide_": lambda m: m.tensor([5.0, -5]).floor_divide_(2),
    "remainder_ int": lambda m: m.tensor([5, -5]).remainder_(3),
    "fmod_ float": lambda m: m.tensor([5.0, -5]).fmod_(3),
    "sqrt_ int": lambda m: m.tensor([4, 9]).sqrt_(),
    "abs_ bool": lambda m: m.tensor([True]).abs_(),
    "neg_ bool": lambda m: m.tensor([True]).neg_(),
    "exp_ int": lambda m: m.tensor([1]).exp_(),
    "sigmoid_ int": lambda m: m.tensor([1]).sigmoid_(),
    "round_ decimals": lambda m: m.tensor([1.234, 5.678]).round_(decimals=1),
    "copy_ float->int": lambda m: m.zeros(2, dtype=m.int64).copy_(m.tensor([1.7, -1.7])),
    "fill_ tensor": lambda m: m.zeros(2).fill_(m.tensor(3.0)),
    "fill_ 1d tensor": lambda m: m.zeros(2).fill_(m.tensor([3.0])),
    "bitwise_and_ float": lambda m: m.tensor([1, 2]).bitwise_and_(m.tensor([1.0, 2])),
    "logical_and_": lambda m: m.tensor([1.0, 0]).logical_and_(m.tensor([1.0, 1])),
    "eq_": lambda m: m.tensor([1.0, 0]).eq_(m.tensor([1.0, 1])),
    "lt_ int": lambda m: m.tensor([1, 0]).lt_(0.5),
    "where out-of-place scalar": lambda m: m.where(m.tensor([True, False]), m.tensor([1, 2]), 2.5),
    "add_ broadcast self": lambda m: m.ones(3).add_(m.ones(2, 3)),
    "mul_ 0d self": lambda m: m.tensor(2.0).mul_(m.ones(3)),
    "true_divide_": lambda m: m.tensor([1.0, 2]).true_divide_(2),
    "xlogy_": lambda m: m.tensor([0.0, 2]).xlogy_(m.tensor([0.0, 2])),
    "hypot_": lambda m: m.tensor([3.0]).hypot_(m.tensor([4.0])),
    "copysign_ int": lambda m: m.tensor([1, 2]).copysign_(m.tensor([-1, 1])),
    "float_power_ float32": lambda m: m.tensor([2.0]).float_power_(2),
    "ldexp_": lambda m: m.tensor([1.0]).ldexp_(m.tensor([3])),
    "cumsum_ dtype": lambda m: m.tensor([1, 2]).cumsum_(0, dtype=m.float32),
    "renorm_": lambda m: m.tensor([[3.0, 4], [0.3, 0.4]]).renorm_(2, 0, 1.0),
    "baddbmm_": lambda m: m.ones(1, 2, 2).baddbmm_(m.ones(1, 2, 3), m.ones(1, 3, 2), beta=0.5, alpha=2),
    "addmm_ int beta float": lambda m: m.ones(2, 2, dtype=m.int64).addmm_(m.ones(2, 2, dtype=m.int64), m.ones(2, 2, dtype=m.int64), beta=0.5),
}

KNOWN = {
    # the values a singular matrix gives where PyTorch documents no result (LAPACK's inf/garbage)
    "inv_ex singular", "solve_ex singular",
    # sigma_max / sigma_min of a singular matrix: both huge, rounding-dependent
    "cond singular",
}


def _plain(r):
    if isinstance(r, (tuple, list)):
        return [_plain(v) for v in r]
    if hasattr(r, "dtype") and hasattr(r, "shape"):
        v = r.detach()
        v = v.numpy() if str(v.dtype).endswith("bool") else v.double().numpy()
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), v)
    return ("value", r)


def _same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        return a[1:3] == b[1:3] and np.allclose(a[3].astype(float), b[3].astype(float), rtol=1e-4, atol=1e-5,
                                                 equal_nan=True)
    return a[1] == b[1]


def _run(case, m):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _plain(case(m))
    except Exception as e:  # the kinds are compared
        return e


def _builtin_kind(error: Exception) -> type:
    """The nearest builtin class of PyTorch's exception (torch's _LinAlgError is a RuntimeError)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_torch(name):
    if name in KNOWN:
        pytest.skip(f"{name}: listed in KNOWN")
    want, got = _run(CASES[name], torch), _run(CASES[name], gg)
    if isinstance(want, Exception):
        assert isinstance(got, _builtin_kind(want)), f"PyTorch raises {type(want).__name__}: {want}; glassgrad {got!r}"
    else:
        assert not isinstance(got, Exception), f"PyTorch returns; glassgrad raises {got!r}"
        assert _same(want, got), f"PyTorch {want}\nglassgrad {got}"


def _printed(m):
    return {
        "float": lambda: m.tensor([1.0, 2.5, -3.25]), "float 0d": lambda: m.tensor(3.5),
        "int 0d": lambda: m.tensor(3), "bool 0d": lambda: m.tensor(True), "int": lambda: m.tensor([1, -20, 300]),
        "int32": lambda: m.tensor([1, 2], dtype=m.int32), "uint8": lambda: m.tensor([1, 2], dtype=m.uint8),
        "bool": lambda: m.tensor([True, False]), "empty": lambda: m.tensor([]), "empty 2d": lambda: m.zeros(0, 3),
        "empty int": lambda: m.zeros(2, 0, dtype=m.int64), "float64": lambda: m.tensor([1.0, 2.0], dtype=m.float64),
        "float64 0d": lambda: m.tensor(1.5, dtype=m.float64), "float16": lambda: m.tensor([1.0, 2.5], dtype=m.float16),
        "bfloat16": lambda: m.tensor([1.0, 2.5], dtype=m.bfloat16), "sci": lambda: m.tensor([1e-5, 1.0, 1e5]),
        "sci big": lambda: m.tensor([1e10, 1.0]), "small": lambda: m.tensor([0.0001, 0.001]),
        "integral floats": lambda: m.tensor([1.0, 2.0, 300.0]), "integral big": lambda: m.tensor([1.0, 2.0, 3e8]),
        "nan inf": lambda: m.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
        "neg zero": lambda: m.tensor([-0.0, 1.0]), "2d": lambda: m.tensor([[1.0, 2.0], [3.0, 4.5]]),
        "3d": lambda: m.arange(8.0).reshape(2, 2, 2), "requires_grad": lambda: m.tensor([1.0, 2.0], requires_grad=True),
        "grad_fn": lambda: m.tensor([1.0, 2.0], requires_grad=True) * 2,
        "grad_fn sum": lambda: (m.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
        "grad_fn f64": lambda: m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True) + 1,
        "grad_fn f64 long": lambda: m.tensor([0.0, 1.5, 2.25, 4.125], dtype=m.float64, requires_grad=True) * 2,
        "big": lambda: m.arange(2000.0), "big 2d": lambda: m.arange(3000.0).reshape(1000, 3),
        "big int": lambda: m.arange(1001), "wide": lambda: m.arange(30.0).reshape(2, 15) / 7,
        "long float": lambda: m.tensor([123456.789, 0.5]), "precise": lambda: m.tensor([1 / 3, 2 / 3]),
        "large int": lambda: m.tensor([123456789012]), "mixed mag": lambda: m.tensor([0.001, 1000.0]),
        "view": lambda: m.arange(6.0).reshape(2, 3)[:, 1], "f16 sci": lambda: m.tensor([1e-4, 100.0], dtype=m.float16),
        "parameter": lambda: m.nn.Parameter(m.tensor([1.0, 2.0], dtype=m.float64)),
    }


PROFILES = [{}, {"precision": 2}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"}, {"profile": "full"},
            {"threshold": 5}, {"edgeitems": 1, "threshold": 5}, {"linewidth": 30}, {"linewidth": 50},
            {"precision": 6, "sci_mode": False}]


def _reprs(m, options):
    m.set_printoptions(**options)
    try:
        return {k: (repr(f()), str(f())) for k, f in _printed(m).items()}
    finally:
        m.set_printoptions(profile="default")


@pytest.mark.parametrize("options", PROFILES, ids=[str(p) for p in PROFILES])
def test_printing_matches_torch(options):
    theirs, ours = _reprs(torch, options), _reprs(gg, options)
    for k, (want_repr, want_str) in theirs.items():
        got_repr, got_str = ours[k]
        assert got_repr.replace("glassgrad.", "torch.") == want_repr, (k, want_repr, got_repr)
        assert got_str.replace("glassgrad.", "torch.") == want_str, (k, want_str, got_str)
