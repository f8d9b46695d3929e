"""torch.autograd.gradcheck and gradgradcheck: the full Jacobian of func from backward() against
central finite differences, as PyTorch's slow mode computes them (docs/autograd.md, "Checking
gradients").

For each input that requires a gradient (floating point) and each floating output, the
analytical Jacobian is one backward pass per output element (a one-hot grad_outputs), and the
numerical one moves each input element by +-eps and runs func again. They match when
|analytical - numerical| <= atol + rtol * |numerical| everywhere. glassgrad.debug.gradcheck is
the quicker check of a scalar loss through one random projection; these two keep PyTorch's
signatures, so a script's `torch.autograd.gradcheck(f, (x,))` runs unchanged."""
from __future__ import annotations

import warnings
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from .._runtime import no_grad
from .._tensor import Tensor, tensor
from .._finite_differences import central_difference_rows
from ..debug import errors as _debug_errors
from .gradients import grad as _grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(_debug_errors.GradcheckError, RuntimeError):
    """torch.autograd.gradcheck.GradcheckError: a RuntimeError, and glassgrad.debug's GradcheckError."""

    __module__ = "glassgrad.autograd.gradcheck"


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable(x) -> bool:
    return isinstance(x, Tensor) and x.requires_grad and x.dtype.is_floating_point


def _floating_outputs(out) -> List[Tensor]:
    outs = _as_tuple(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: func must return a Tensor or a tuple of Tensors, got {type(o).__name__}")
    return [o for o in outs if o.dtype.is_floating_point]


def _host(t: Tensor) -> np.ndarray:
    return np.array(t.detach().numpy(force=True), dtype=np.float64)


def _numerical(func: Callable, inputs: tuple, wrt: List[int], eps: float,
               keep: Optional[List[int]] = None) -> List[List[np.ndarray]]:
    """jac[k][o]: [numel of input wrt[k], numel of output o] by central differences, func run on
    fresh tensors of the inputs' dtypes, devices and requires_grad (func may differentiate them
    itself, as gradgradcheck's does); `keep`: the indices of the floating outputs to use (all when
    None)."""
    arrays = [_host(a) if i in wrt else np.zeros(0) for i, a in enumerate(inputs)]
    sizes: List[int] = []

    def run(moved: List[np.ndarray]) -> np.ndarray:
        args = [tensor(moved[i], dtype=inputs[i].dtype, device=inputs[i].device, requires_grad=True) if i in wrt
                else a for i, a in enumerate(inputs)]
        floating = _floating_outputs(func(*args))
        outs = [_host(o).reshape(-1) for o in (floating if keep is None else [floating[j] for j in keep])]
        sizes[:] = [o.size for o in outs]
        return np.concatenate(outs) if outs else np.zeros(0)

    jac: List[List[np.ndarray]] = []
    for i in wrt:
        rows = central_difference_rows(run, arrays, i, eps)
        jac.append(np.split(rows, np.cumsum(sizes)[:-1], axis=1) if sizes else [])
    return jac


def _analytical(outputs: List[Tensor], inputs: tuple, wrt: List[int]) -> List[List[np.ndarray]]:
    """jac[k][o] from one backward pass per element of output o (a one-hot grad_outputs)."""
    jac = [[np.zeros((inputs[i].numel(), o.numel())) for o in outputs] for i in wrt]
    targets = [inputs[i] for i in wrt]
    for o_index, o in enumerate(outputs):
        if not o.requires_grad:
            continue  # it does not depend on any input: its Jacobian is zero
        for e in range(o.numel()):
            onehot = np.zeros(o.numel())
            onehot[e] = 1
            cot = tensor(onehot.reshape(tuple(o.shape)), dtype=o.dtype, device=o.device)
            grads = _grad(o, targets, grad_outputs=cot, retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    jac[k][o_index][:, e] = _host(g).reshape(-1)
    return jac


def _refuse(*rules: Tuple[bool, str]) -> None:
    """PyTorch's AssertionError for the first (refused, message) rule whose flags it refuses."""
    for refused, message in rules:
        if refused:
            raise AssertionError(message)


def _fail(message: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: Optional[bool] = None) -> bool:
    """torch.autograd.gradcheck: True when the gradients of func with respect to every input
    that requires a gradient match finite differences; otherwise raises GradcheckError (a
    RuntimeError) naming the output and input, or returns False with raise_exception=False.

    inputs: a Tensor or a tuple of arguments; the floating tensors among them with
    requires_grad=True are checked, the rest are passed as they are. Use float64 inputs: in
    float32, eps=1e-6 is below the rounding of the outputs (PyTorch warns the same way).
    nondet_tol, check_undefined_grad, check_grad_dtypes, fast_mode and masked are accepted and
    change nothing (glassgrad's gradients are deterministic and always defined);
    check_batched_grad, check_batched_forward_grad and check_forward_ad checks are not made."""
    _refuse((not (check_forward_ad or check_backward_ad),
             "Expected at least one of check_forward_ad or check_backward_ad to be True"),
            (check_batched_grad and not check_backward_ad,
             "Setting check_batched_grad=True requires check_backward_ad to be True"),
            (check_batched_forward_grad and not check_forward_ad,
             "Setting check_batched_forward_grad=True requires check_forward_ad to be True"))
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if _differentiable(x)]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.\n  fix: x = glassgrad.randn(3, dtype=glassgrad.float64, "
                         "requires_grad=True); gradcheck(func, (x,))")
    for i in wrt:
        if inputs[i].dtype.itemsize < 8:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    if not check_backward_ad:
        return True
    floating = _floating_outputs(func(*inputs))
    # as PyTorch's: only the outputs that require grad are checked; with none, func's numerical
    # derivatives must all be zero
    keep = [j for j, o in enumerate(floating) if o.requires_grad]
    if not keep:
        for per_input in _numerical(func, inputs, wrt, eps):
            if any(np.any(n != 0) for n in per_input):
                return _fail("Numerical gradient for function expected to be zero\n  gradcheck: no output of func "
                             "requires grad, yet its values change with an input", raise_exception)
        return True
    outputs = [floating[j] for j in keep]
    analytical = _analytical(outputs, inputs, wrt)
    numerical = _numerical(func, inputs, wrt, eps, keep)
    for k, i in enumerate(wrt):
        for o in range(len(outputs)):
            a, n = analytical[k][o], numerical[k][o]
            if a.shape != n.shape or not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{tensor(n)}\nanalytical:{tensor(a)}\n", raise_exception)
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Optional[Any] = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """torch.autograd.gradgradcheck: gradcheck of the gradient itself. The function checked maps
    (inputs, grad_outputs) to autograd.grad(func(inputs), inputs, grad_outputs, create_graph=True);
    grad_outputs default to random float64 tensors (fixed seed) shaped like func's floating
    outputs, each requiring a gradient."""
    _refuse((not (check_fwd_over_rev or check_rev_over_rev),
             "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"),
            (check_undefined_grad and not check_rev_over_rev,
             "Setting check_undefined_grad=True requires check_rev_over_rev to be True"),
            (check_batched_grad and not check_rev_over_rev,
             "Setting check_batched_grad=True requires check_rev_over_rev to be True"))
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if _differentiable(x)]
    if grad_outputs is None:
        with no_grad():
            outs = _floating_outputs(func(*inputs))
        rng = np.random.default_rng(0)
        grad_outputs = tuple(tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype, device=o.device,
                                    requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivatives(*args) -> Tuple[Tensor, ...]:
        xs, gos = args[:n], args[n:]
        outs = [o for o in _floating_outputs(func(*xs)) if o.requires_grad]
        grads = _grad(outs, [xs[i] for i in wrt], grad_outputs=list(gos[:len(outs)]), create_graph=True,
                      allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

