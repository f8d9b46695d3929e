"""Runtime switches: gradient mode, the plan cache's statistics, threads."""
from __future__ import annotations

import functools
import inspect
import threading

from . import _C
from ._args import python_bool


def run_within(fn, make_context):
    """fn as a decorator's result: each call runs inside a fresh make_context() block; for a
    generator function, each step of the generator does (PyTorch's _wrap_generator), so the mode
    holds inside it and not in the loop consuming it."""
    if inspect.isgeneratorfunction(fn):
        return _generator_within(fn, make_context)

    def wrapper(*a, **k):
        with make_context():
            return fn(*a, **k)
    try:
        functools.update_wrapper(wrapper, fn)
    except (AttributeError, TypeError):  # a callable object without a name
        wrapper.__name__ = getattr(fn, "__name__", "wrapped")
    return wrapper


def _generator_within(fn, make_context):
    @functools.wraps(fn)
    def steps(*a, **k):
        gen = fn(*a, **k)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException as exc:
                    with make_context():
                        response = gen.throw(exc)
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value
    return steps


class no_grad:
    """Within this block, recorded ops do not track gradients (evaluation, metrics).

    Gradient mode is per thread, as in PyTorch: no_grad() in one thread (an evaluation loop)
    leaves another thread's training step recording its gradients. Also a decorator."""

    _enabled = False

    def __new__(cls, *args, **kwargs):
        # @no_grad without parentheses, as PyTorch allows: the class called on the function.
        if cls in (no_grad, enable_grad) and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])
        return super().__new__(cls)

    def __init__(self):
        self._saved = threading.local()  # one instance may be entered by several threads at once

    def __enter__(self):
        stack = self._saved.__dict__.setdefault("stack", [])
        stack.append(is_grad_enabled())
        _set_grad_mode(self._enabled)

    def __exit__(self, *exc):
        _set_grad_mode(self._saved.stack.pop())

    def __call__(self, fn):
        return run_within(fn, type(self))

    def clone(self):
        """A new switch of the same kind (PyTorch's context managers' clone)."""
        return type(self)()


class enable_grad(no_grad):
    """Turns gradient tracking back on inside a no_grad() block (this thread only)."""

    _enabled = True


class set_grad_enabled(no_grad):
    """Gradient tracking on or off, as `mode` says (PyTorch's torch.set_grad_enabled): as a
    function call it sets the mode for this thread at once; as a context manager or decorator it
    restores the previous mode afterwards.

        with glassgrad.set_grad_enabled(phase == "train"):
            loss = criterion(model(x), y)"""

    def __init__(self, mode: bool):
        super().__init__()
        self._enabled = python_bool(mode, "enabled", "set_grad_enabled", "set_grad_enabled(bool(mode))", position=1)
        self._before = is_grad_enabled()
        _set_grad_mode(self._enabled)

    @property
    def mode(self) -> bool:
        """The mode it sets (PyTorch's set_grad_enabled.mode)."""
        return self._enabled

    def clone(self) -> "set_grad_enabled":
        """A copy, made as PyTorch's clone makes it: set_grad_enabled(self.mode), which sets the
        mode at once."""
        return type(self)(self._enabled)

    def __enter__(self):
        stack = self._saved.__dict__.setdefault("stack", [])
        stack.append(self._before)
        _set_grad_mode(self._enabled)

    def __call__(self, fn):
        mode = self._enabled
        _set_grad_mode(self._before)  # as a decorator, the call above changed nothing yet
        return run_within(fn, lambda: set_grad_enabled(mode))


class inference_mode(no_grad):
    """torch.inference_mode(mode=True): as no_grad() while mode is true (glassgrad keeps no
    version counters or view metadata that inference mode would skip, so no_grad() is already
    the cheaper mode); a context manager and a decorator, with or without parentheses. As in
    PyTorch, inference_mode(False) turns gradient tracking on and inference mode off inside it
    (nested in an inference_mode() block too), and tensors made in inference mode are inference
    tensors (Tensor.is_inference()), with PyTorch's rules outside it: an op autograd records may
    not save one for its gradient, an in-place update of one raises, a view of one is one."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode: bool = True):
        super().__init__()
        self._mode = bool(mode)
        self._enabled = not self._mode

    def __enter__(self):
        global _inference_blocks
        stack = self._saved.__dict__.setdefault("stack", [])
        stack.append((is_grad_enabled(), _inference.__dict__.get("on", False)))
        _inference.on = self._mode
        _inference_blocks += 1
        _set_grad_mode(self._enabled)

    def __exit__(self, *exc):
        global _inference_blocks
        grad, _inference.on = self._saved.stack.pop()
        _inference_blocks -= 1
        _set_grad_mode(grad)

    def __call__(self, fn):
        mode = self._mode
        return run_within(fn, lambda: inference_mode(mode))

    @property
    def mode(self) -> bool:
        """Whether it turns inference mode on (PyTorch's inference_mode.mode)."""
        return self._mode

    def clone(self) -> "inference_mode":
        return type(self)(self._mode)


_inference = threading.local()
# inference_mode blocks entered and not left, over all threads: while 0, no tensor being made is an
# inference tensor and making one costs no thread-local look-up (_tensor._wrap).
_inference_blocks = 0


def is_inference_mode_enabled() -> bool:
    """Whether this thread is inside inference_mode() (torch.is_inference_mode_enabled)."""
    return bool(_inference.__dict__.get("on", False))


def is_grad_enabled() -> bool:
    """This thread's gradient mode (torch.is_grad_enabled). Inside inference_mode() it is what
    enable_grad() or set_grad_enabled() last asked for, and, as in PyTorch, nothing is recorded
    even when it is True."""
    if _inference_blocks and _inference.__dict__.get("on", False):
        return bool(_inference.__dict__.get("grad", False))
    return _C.grad_enabled()


# records_grad(): whether ops run now on this thread are recorded for autograd: the gradient mode,
# and no inference_mode() block on (docs/autograd.md, the grad-mode switches). Library code asks
# this one; it is the runtime's flag itself (_set_grad_mode keeps it so), read with no Python frame.
records_grad = _C.grad_enabled


def _set_grad_mode(enabled: bool) -> None:
    """Sets this thread's gradient mode. Invariant: the runtime's flag (records_grad) is the mode
    outside inference mode and False inside it, where the mode itself is kept in _inference.grad,
    as PyTorch's enable_grad() inside inference_mode() records nothing."""
    if _inference_blocks and _inference.__dict__.get("on", False):
        _inference.grad = bool(enabled)
        _C.set_grad_enabled(False)
    else:
        _C.set_grad_enabled(bool(enabled))


def cache_stats() -> dict:
    """How often realizing found its plan in the cache ('hits') or compiled one ('compiles')."""
    return dict(_C.cache_stats())


def reset_cache_stats() -> None:
    """Sets the plan cache's hit and compile counts (cache_stats()) back to zero."""
    _C.reset_cache_stats()


def clear_plan_cache() -> None:
    """Drops every compiled plan (the next realize compiles again)."""
    _C.clear_plan_cache()


def realize(*tensors) -> None:
    """Computes the given tensors and everything else pending, in one plan."""
    _C.lazy_realize([t._h for t in tensors])


def get_num_threads() -> int:
    """The number of threads the CPU kernels use (torch.get_num_threads)."""
    return _C.get_num_threads()


def set_num_threads(n: int) -> None:
    """Sets the number of threads the CPU kernels use (torch.set_num_threads)."""
    _C.set_num_threads(int(n))


def set_fusion(on: bool) -> None:
    """Turns the fusion passes on (default) or off; the environment variable GLASSGRAD_FUSION=0
    turns them off for a whole run. Fused and unfused plans compute the same numbers."""
    _C.set_fusion(bool(on))


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """PyTorch's torch.use_deterministic_algorithms: with mode=True, the CUDA kernels that
    accumulate in any order with atomics (scatter_add, index_add, index_put with accumulate, the
    gradients of gather, index_select and indexing, the query gradient of float32
    scaled_dot_product_attention) add in a fixed order instead, giving the same bits every run
    (more slowly). Every glassgrad op has a deterministic form, so warn_only
    changes nothing. The CPU kernels are always deterministic."""
    _C.set_deterministic_algorithms(bool(mode))
    _deterministic_warn_only[0] = bool(mode) and bool(warn_only)


_deterministic_warn_only = [False]  # what use_deterministic_algorithms(..., warn_only=) last set


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """torch.is_deterministic_algorithms_warn_only_enabled: deterministic mode was set with warn_only=True."""
    return _deterministic_warn_only[0]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode) -> None:
    """torch.set_deterministic_debug_mode: 'default' (0) off, 'warn' (1) on with warn_only,
    'error' (2) on (use_deterministic_algorithms)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}\n  fix: set_deterministic_debug_mode('error')")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2) or isinstance(debug_mode, bool):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}\n"
                           f"  fix: 0 (default), 1 (warn) or 2 (error)")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """torch.get_deterministic_debug_mode: 0 off, 1 on with warn_only, 2 on."""
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if _deterministic_warn_only[0] else 2


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in effect."""
    return _C.deterministic_algorithms()


def backward_in_micro_batches(loss_fn, *tensors, micro_batches: int):
    """Gradient accumulation: the gradient of loss_fn over the whole batch, computed in
    `micro_batches` pieces so that only one piece's activations are in memory at a time.

    Every tensor is split along dim 0; for each piece, loss_fn(*piece) (a mean over the piece)
    is scaled by the piece's share of the batch, backward() is called and the step realized,
    freeing the piece's activations. Gradients accumulate (+=) as usual, so afterwards
    optimizer.step() applies the full-batch gradient. Returns the full-batch loss.

        loss = glassgrad.backward_in_micro_batches(
            lambda x, y: glassgrad.cross_entropy(model(x), y), x_batch, y_batch, micro_batches=4)
        optimizer.step(); optimizer.zero_grad()

    For models without batch norm the result equals the full-batch gradient. Batch norm sees each
    piece as its own batch (statistics of the piece; running statistics updated once per
    piece), as it would in PyTorch with the same loop.
    """
    from ._tensor import Tensor
    k = int(micro_batches)
    if k < 1:
        raise _C.InvalidArgumentError(f"micro_batches must be >= 1, got {micro_batches}")
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise _C.InvalidArgumentError("backward_in_micro_batches needs the batch as glassgrad tensors")
    n = tensors[0].shape[0]
    for t in tensors:
        if t.shape[0] != n:
            raise _C.ShapeError(f"backward_in_micro_batches: every tensor must have the same batch size along "
                                f"dim 0, got {[t.shape[0] for t in tensors]}")
    if k > n:
        raise _C.InvalidArgumentError(f"micro_batches={k} is more than the batch size {n}\n  fix: micro_batches <= {n}")
    bounds = [n * i // k for i in range(k + 1)]
    total = 0.0
    for start, stop in zip(bounds[:-1], bounds[1:]):
        loss = loss_fn(*[t[start:stop] for t in tensors])
        if loss.numel() != 1:
            raise _C.InvalidArgumentError("backward_in_micro_batches: loss_fn must return a scalar (a mean) loss")
        share = loss * ((stop - start) / n)
        share.backward()
        total += share.item()  # realizes: the piece's gradients are added, its activations freed
    from ._tensor import tensor
    return tensor(total, dtype=tensors[0].dtype if tensors[0].dtype in ("float32", "float64") else "float32")


_matmul_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """torch.set_float32_matmul_precision('highest' | 'high' | 'medium'): recorded and reported by
    get_float32_matmul_precision. glassgrad's float32 matmuls and convolutions always run in
    float32 FMA (it targets GPUs without tensor cores and has no TF32 path), so the results are
    'highest' whatever is set (docs/numerics.md)."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"set_float32_matmul_precision: invalid precision {precision!r}\n"
                           "  fix: 'highest', 'high' or 'medium'")
    _matmul_precision = precision


def get_float32_matmul_precision() -> str:
    """What set_float32_matmul_precision last set ('highest' by default)."""
    return _matmul_precision


# torch.set_warn_always: PyTorch's once-per-process warnings (TORCH_WARN_ONCE) are given every
# time while it is on; glassgrad's own once-only warnings ask warn_once() (Tensor.storage()'s
# deprecation, float() of a tensor that requires grad).
_warn_always = [False]


def set_warn_always(b: bool, /) -> None:
    """torch.set_warn_always(b): True makes the warnings given once per process warn every time."""
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """torch.is_warn_always_enabled: what set_warn_always last set (False by default)."""
    return _warn_always[0]


def warn_once(given: list) -> bool:
    """Whether a once-per-process warning is due: `given` is its one-element flag, set here."""
    due = _warn_always[0] or not given[0]
    given[0] = True
    return due


# torch.get/set_num_interop_threads: PyTorch's pool for running independent ops side by side.
# glassgrad runs a step's ops one after another (its kernels use the intra-op threads of
# set_num_threads), so the number is recorded and reported, and PyTorch's rules for setting it kept.
_interop_threads = [0]


def get_num_interop_threads() -> int:
    """torch.get_num_interop_threads: the number set, else the intra-op thread count (PyTorch's
    default is the number of cores)."""
    return _interop_threads[0] or get_num_threads()


def set_num_interop_threads(num: int) -> None:
    """torch.set_num_interop_threads(num): num >= 1, settable once, as PyTorch's (a second call
    raises RuntimeError)."""
    from . import _args
    n = _args.integer(num, "num", "set_num_interop_threads")
    if n < 1:
        raise RuntimeError(f"Expected positive number of threads, got {n}\n  set_num_interop_threads: the number of "
                           f"threads for running ops side by side\n  fix: set_num_interop_threads(1)")
    if _interop_threads[0]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called\n  fix: call it once, at the start of the script")
    _interop_threads[0] = n


def set_flush_denormal(mode: bool) -> bool:
    """torch.set_flush_denormal(mode): False, PyTorch's answer where flushing denormals is not
    supported: glassgrad never changes the CPU's floating-point mode (its kernels are built without
    fast-math and keep IEEE denormals), so mode changes nothing."""
    bool(mode)
    return False
