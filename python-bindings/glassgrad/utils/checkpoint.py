"""torch.utils.checkpoint: checkpoint(function, *args) and checkpoint_sequential(functions,
segments, input), with PyTorch's arguments, warnings and errors.

What the call does here (docs/porting.md, "Activation checkpointing"): `function` runs once, in
the recorded graph, and its activations are the planner's to keep or recompute. The planner
already recomputes cheap activations before their backward readers in every training plan, and
under a memory limit (`glassgrad.set_memory_limit`) it checkpoints the whole step until the plan
fits (docs/architecture.md, remat.h); a region marked by this call is not treated differently.
So gradients are those of running `function` plainly, which is what PyTorch's recomputation
reproduces; and a dropout recomputed by the planner draws the same mask, because a mask element
depends on the op's seed input and its index alone (families/dropout.h): preserve_rng_state's
guarantee holds whatever it is set to.

PyTorch's reentrant variant (use_reentrant=True, still its default) is PyTorch's autograd Function,
CheckpointFunction: `function` runs under no_grad, and the node's backward runs it again with
gradients and calls backward() on its outputs (the random state as the forward's with
preserve_rng_state). So the outputs' grad_fn is CheckpointFunctionBackward of the input tensors,
they need a gradient only when an input tensor does (a module's parameters alone do not make them
differentiable: the warning "None of the inputs have requires_grad=True"), tensors nested in lists
or dicts of its result come back detached, keyword arguments are refused, the parameters inside
are no inputs of the graph (autograd.grad of them: not used in the graph), and autograd.grad or
backward(inputs=...) through the node is PyTorch's RuntimeError."""
from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Callable, ContextManager, Iterable, List, Tuple

from .._runtime import enable_grad, no_grad, records_grad
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.gradients import backward as autograd_backward, checkpoint_valid
from ..random import fork_rng, get_rng_state, set_rng_state

__all__ = ["CheckpointError", "CheckpointPolicy", "SelectiveCheckpointContext", "check_backward_validity", "checkpoint",
           "checkpoint_sequential", "create_selective_checkpoint_contexts", "detach_variable", "get_device_states",
           "noop_context_fn", "set_checkpoint_debug_enabled", "set_checkpoint_early_stop", "set_device_states"]

_EXPLICIT = ("the use_reentrant parameter should be passed explicitly. {when} use_reentrant=False is recommended, "
             "but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer "
             "to docs for more details on the differences between the two variants.")


class CheckpointError(RuntimeError):
    """PyTorch's error when a recomputation differs from the forward pass; never raised here (no
    region is run twice by Python)."""


class CheckpointPolicy(enum.Enum):
    """Selective checkpointing's answer per op (PyTorch's values); the planner decides here."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """What a selective-checkpointing policy function receives (is_recompute)."""

    def __init__(self, *, is_recompute: bool, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation: bool = False):
    """context_fn for checkpoint(..., use_reentrant=False, context_fn=...): accepted, with no
    effect: which activations are saved or recomputed is the planner's choice (module docstring)."""
    if not (callable(policy_fn_or_list) or isinstance(policy_fn_or_list, (list, tuple))):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.\n"
                        "  fix: create_selective_checkpoint_contexts(lambda ctx, op, *a, **k: CheckpointPolicy.PREFER_SAVE)")
    return noop_context_fn()


def detach_variable(inputs: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """The tuple with each tensor detached, keeping its requires_grad (PyTorch's helper)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}\n"
                           f"  fix: detach_variable((x,))")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.detach()
            d.requires_grad_(x.requires_grad)
            out.append(d)
        else:
            out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warns, as PyTorch does, when no input tensor requires grad."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def get_device_states(*args) -> Tuple[List[int], List[Any]]:
    """PyTorch saves each GPU's random state for the recomputation; nothing to save here (a
    dropout's mask depends on its seed input alone): ([], [])."""
    return [], []


def set_device_states(devices, states, *, device_type=None) -> None:
    """The counterpart of get_device_states: nothing to restore."""


def noop_context_fn() -> Tuple[ContextManager, ContextManager]:
    """The default context_fn: no context around the forward run or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """PyTorch stops a recomputation once it has the tensors it needs; there is no recomputation
    by a second Python run here, so the switch changes nothing."""
    yield


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """PyTorch's debug traces of a recomputation; none here (the planner's recomputation is in the
    printed plan: steps with role Recompute)."""
    yield


def _detached(obj):
    """obj with every tensor detached (lists, tuples and dicts walked): what PyTorch's reentrant
    variant returns for tensors its autograd Function does not see as outputs."""
    if isinstance(obj, Tensor):
        return obj.detach()
    if isinstance(obj, (list, tuple)):
        items = [_detached(o) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return type(obj)((k, _detached(v)) for k, v in obj.items())
    return obj


_SAVED = object()  # CheckpointFunction's mark of an argument kept by save_for_backward


def _fresh_leaf(t: Tensor) -> Tensor:
    """t's value as a leaf of its own (requiring grad as t does): the recomputation's input."""
    return t.detach().requires_grad_(t.requires_grad)


class CheckpointFunction(Function):
    """PyTorch's reentrant checkpoint (torch.utils.checkpoint.CheckpointFunction): forward runs
    run_function under no_grad, keeping its inputs; backward runs it again with gradients, from
    the forward's random state where preserve_rng_state, and hands the incoming gradients to
    backward() of its outputs that require one: the input tensors get theirs from their .grad,
    the parameters inside accumulate theirs as that backward's leaves."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.plain = [_SAVED if isinstance(a, Tensor) else a for a in args]  # the tensors are saved
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument."
                               "\n  fix: checkpoint(fn, *args, use_reentrant=False)")
        saved = iter(ctx.saved_tensors)
        inputs = [_fresh_leaf(next(saved)) if a is _SAVED else a for a in ctx.plain]
        with contextlib.ExitStack() as stack:
            if ctx.rng_state is not None:
                stack.enter_context(fork_rng())
                set_rng_state(ctx.rng_state)
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary\n"
                               "  fix: call the function without checkpoint()")
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


def _reentrant_outputs(out):
    if isinstance(out, Tensor):
        return out
    if isinstance(out, tuple) and not hasattr(out, "_fields"):
        return tuple(o if isinstance(o, Tensor) else _detached(o) for o in out)
    return _detached(out)


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None, preserve_rng_state: bool = True,
               context_fn: Callable[[], Tuple[ContextManager, ContextManager]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True,
               respect_saved_tensors_hooks: bool | None = None, **kwargs: Any):
    """torch.utils.checkpoint.checkpoint: function(*args, **kwargs), its activations left to the
    planner (the module docstring says what that means). use_reentrant must be given (PyTorch
    warns without it and takes True); preserve_rng_state, early_stop and determinism_check are
    accepted; context_fn's first context is entered around the run (use_reentrant=False only)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _EXPLICIT.format(
            when="Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception."),
            stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}\n"
                         f"  fix: determinism_check='default'")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug or respect_saved_tensors_hooks is not None:
            raise ValueError("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported when "
                             "use_reentrant=False.\n  fix: checkpoint(fn, *args, use_reentrant=False, context_fn=...)")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs)
                             + "\n  fix: pass them by position, or use use_reentrant=False")
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            check_backward_validity(args)
            with no_grad():
                return function(*args)
        if not records_grad():
            return function(*args)
        return _reentrant_outputs(CheckpointFunction.apply(function, preserve_rng_state, *args))
    forward_context, _ = context_fn()
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions: Iterable[Callable], segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any):
    """torch.utils.checkpoint.checkpoint_sequential: the functions (a list, or an nn.Sequential's
    children) applied in order, in `segments` groups of len(functions) // segments; every group
    but the last through checkpoint(). Only preserve_rng_state is accepted among the keywords."""
    from ..nn import Sequential
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _EXPLICIT.format(
            when="In version 2.9 we will raise an exception if use_reentrant is not passed."), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs)
                         + "\n  fix: checkpoint_sequential takes use_reentrant and preserve_rng_state only")
    layers = list(functions.children()) if isinstance(functions, Sequential) else list(functions)

    def run(start: int, end: int) -> Callable:
        def forward(x):
            for j in range(start, end + 1):
                x = layers[j](x)
            return x
        return forward

    size = len(layers) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):  # range's own error for size 0, as in PyTorch
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(layers) - 1)(input)
