"""A sweep of the torch.* functions glassgrad has (their names in both namespaces) against
PyTorch: each is called over argument forms (one operand; two, the same, a Python int or float,
a 0-d tensor, a broadcast row; a dim as an int, -1 with keepdim=True, a tuple) and over operands
of float32, float64, float16, bfloat16, int64, int32, uint8 and bool, 0-d and empty. Where
PyTorch raises, glassgrad must raise an exception of PyTorch's kind (TypeError for an argument
form PyTorch's parser refuses: any error); where PyTorch returns, glassgrad must return the same
dtype, shape and values (rtol 1e-2: the float16/bfloat16 forms). KNOWN lists the functions
with differences left (their reasons in the comments); SKIP the random, stateful and
non-tensor functions. Torch-guarded: CI has no torch."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import glassgrad as gg  # noqa: E402

SKIP = {
    # random, stateful, or not functions of tensors
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "bernoulli",
    "multinomial", "poisson", "binomial", "empty", "empty_like", "empty_strided", "dropout", "alpha_dropout",
    "feature_alpha_dropout", "rrelu", "manual_seed", "seed", "initial_seed", "set_default_dtype", "set_printoptions",
    "load", "save", "compile", "set_grad_enabled", "use_deterministic_algorithms", "set_default_device",
    "set_num_threads", "set_num_interop_threads", "from_numpy", "frombuffer", "asarray", "as_tensor", "tensor",
    "set_rng_state", "get_rng_state", "is_tensor", "is_storage", "numel", "typename", "vmap", "cond", "while_loop",
    "export", "jit", "autocast", "no_grad", "enable_grad", "inference_mode", "device", "dtype", "Size", "Generator",
    "Tensor", "unique", "nonzero", "argwhere", "masked_select", "set_anomaly_enabled", "set_autocast_cache_enabled",
    "set_autocast_cpu_enabled", "set_autocast_enabled", "set_deterministic_debug_mode", "set_flush_denormal",
    "set_warn_always", "get_autocast_dtype", "is_autocast_enabled", "is_vulkan_available",
}
# Differences the sweep found and this round left: mostly argument forms PyTorch's parser refuses
# (a TypeError) that glassgrad takes (a positional number for a keyword-only or tensor argument, a
# tensor for a list), and a few error kinds or 0-d/empty edge values; each name here is a to-do.
KNOWN = {
    # glassgrad's top level differs on purpose (docs/porting.md "Deliberate differences"): flatten keeps
    # the batch axis, softmax and log_softmax default to dim=-1 (glassgrad.torch has PyTorch's forms)
    "flatten", "softmax", "log_softmax",
    # a positional number for x (PyTorch's keyword-only dx: its TypeError)
    "trapezoid", "trapz", "cumulative_trapezoid",
    # pow is an int in PyTorch's signature (a float is its TypeError)
    "norm_except_dim",
    # a floating one-element tensor as the split size, which Tensor.split takes (int() of it) and
    # PyTorch's native split_copy / unsafe_split refuse (their TypeError); they share split's parsing
    "split_copy", "unsafe_split",
    # argument forms PyTorch's parser refuses (its TypeError) that glassgrad takes: a tensor for a
    # list of tensors (cat, stack, hstack, ...), a float or tensor for an int (diagonal's offset,
    # diagflat's), an int for a tuple of ints (flip's and tile's dims, broadcast_to's size), an int
    # for a bool (lu's pivot, unique_consecutive's return_inverse), a tensor for nan_to_num's nan,
    # a tuple q or dim (quantile, float_power), view_copy without a size, result_type of one
    # operand, histogramdd without bins
    "broadcast_to", "cat", "column_stack", "concat", "concatenate", "diag", "diag_embed", "diagflat", "diagonal",
    "diagonal_copy", "dstack", "flip", "float_power", "histogramdd", "hsplit", "hstack", "lu", "nan_to_num",
    "nanquantile", "quantile", "result_type", "row_stack", "stack", "tile", "tril", "triu", "unique_consecutive",
    "view_copy", "vsplit", "vstack",
    # bfloat16: PyTorch rounds each step of its composite (log_sigmoid, (1 - t) * x, the difference)
    "binary_cross_entropy_with_logits",
    # integer inputs: PyTorch computes the loss in the integer dtype (uint8 wraps); glassgrad in float32
    "hinge_embedding_loss",
    # bin edges that do not increase: PyTorch documents increasing edges and counts others by its
    # binary search; glassgrad refuses them
    "histogram",
    # the signs of singular vectors are arbitrary (LAPACK's choice differs); svd_lowrank's and
    # pca_lowrank's random projections too
    "svd", "svd_lowrank", "pca_lowrank",
    # an out-of-range index of a not yet computed int32 index tensor is found by the kernel, whose
    # IndexError is not also PyTorch's RuntimeError (a computed one is an OutOfRangeError, both)
    "take_along_dim",
}

XS = [("float32", (2, 3)), ("float64", (2, 3)), ("float16", (2, 3)), ("bfloat16", (2, 3)), ("int64", (2, 3)),
      ("int32", (2, 3)), ("uint8", (2, 3)), ("bool", (2, 3)), ("float32", ()), ("float32", (0, 3)), ("int64", ())]


def _make(m, dtype, shape):
    rng = np.random.default_rng(0)
    if dtype == "bool":
        a = rng.integers(0, 2, shape).astype(bool)
    elif dtype in ("int64", "int32", "uint8"):
        a = rng.integers(0 if dtype == "uint8" else -3, 4, shape)
    else:
        a = rng.uniform(-2, 2, shape)
    return m.tensor(a).to(getattr(m, dtype))


def _forms(m):
    out = [(f"one {d}{list(s)}", d, s, lambda f, x: f(x)) for d, s in XS]
    for d, s in XS[:9]:
        out += [
            (f"same {d}{list(s)}", d, s, lambda f, x: f(x, x)),
            (f"int {d}{list(s)}", d, s, lambda f, x: f(x, 2)),
            (f"float {d}{list(s)}", d, s, lambda f, x: f(x, 1.5)),
            (f"0-d {d}{list(s)}", d, s, lambda f, x, m=m: f(x, m.tensor(2.0))),
            (f"row {d}{list(s)}", d, s, lambda f, x: f(x, x[0])),
            (f"dim {d}{list(s)}", d, s, lambda f, x: f(x, 1) if x.ndim else f(x, 0)),
            (f"dim -1 keepdim {d}{list(s)}", d, s, lambda f, x: f(x, -1, keepdim=True)),
            (f"dims {d}{list(s)}", d, s, lambda f, x: f(x, (0, 1)) if x.ndim == 2 else f(x, ())),
        ]
    return out


def _plain(r):
    if isinstance(r, (tuple, list)):
        return [_plain(v) for v in r]
    if hasattr(r, "dtype") and hasattr(r, "shape") and hasattr(r, "numpy"):
        values = r.detach()
        values = values.numpy() if str(values.dtype).endswith("bool") else values.double().numpy()
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), values)
    if type(r).__name__ == "dtype":  # torch.float32 and glassgrad.float32 compare by name
        return ("value", str(r).split(".")[-1])
    return ("value", r)


def _same(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        return a[1:3] == b[1:3] and np.allclose(a[3].astype(float), b[3].astype(float), rtol=1e-2, atol=1e-3,
                                                 equal_nan=True)
    try:
        return bool(a[1] == b[1])
    except Exception:  # values that do not compare (tensors in a tuple): shape and dtype above decide
        return True


def _call(f, make, form):
    try:
        return _plain(form(f, make()))
    except Exception as e:  # the kinds are compared
        return e


NAMES = sorted(n for n in dir(torch) if not n.startswith("_") and not n.endswith("_") and n in dir(gg)
               and callable(getattr(torch, n)) and not isinstance(getattr(torch, n), type) and not n[0].isupper()
               and n not in SKIP)


@pytest.mark.parametrize("name", NAMES)
def test_function_matches_torch(name):
    if name in KNOWN:
        pytest.skip(f"torch.{name}: differences listed in KNOWN")
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (label, d, s, tform), (_, _, _, gform) in zip(_forms(torch), _forms(gg)):
            want = _call(getattr(torch, name), lambda: _make(torch, d, s), tform)
            got = _call(getattr(gg, name), lambda: _make(gg, d, s), gform)
            if isinstance(want, Exception):
                if isinstance(want, TypeError) and isinstance(got, Exception):
                    continue
                if not isinstance(got, type(want)):
                    failures.append(f"{label}: PyTorch raises {type(want).__name__}, glassgrad "
                                    f"{type(got).__name__ if isinstance(got, Exception) else 'returns'}")
            elif isinstance(got, Exception):
                failures.append(f"{label}: PyTorch returns, glassgrad raises {type(got).__name__}: {got}")
            elif not _same(want, got):
                failures.append(f"{label}: results differ")
    assert not failures, f"torch.{name}:\n" + "\n".join(failures)
