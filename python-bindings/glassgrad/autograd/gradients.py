"""torch.autograd.grad and torch.autograd.backward on glassgrad's lazy graph: the engine builds
the gradient nodes of the requested inputs (core-runtime lazy::gradients) and nothing else
changes: grad() adds to no .grad. See docs/autograd.md."""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Optional, Sequence, Union

from .. import _backward_end, _grad_views, _no_grad_views, _post_accumulate_hooks, _saved_tensor_hooks, _trace
from .._factories import zeros_like
from .._runtime import set_grad_enabled
from .._tensor import Tensor, _wrap
from . import anomaly

_Tensors = Union[Tensor, Sequence[Tensor]]


def _as_tuple(x, what: str) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return ()
    try:
        items = tuple(x)
    except TypeError:
        raise TypeError(f"autograd: {what} must be a Tensor or a sequence of Tensors, got {type(x).__name__}") from None
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"autograd: {what}[{i}] is {type(t).__name__}, not a Tensor")
    return items


def _seed_value(g: Tensor, out: Tensor, create_graph: bool) -> Tensor:
    """grad_outputs enter the gradients as values, unless create_graph: then one that requires
    grad stays in the graph, so the gradients are differentiable in it too (PyTorch's rule)."""
    return g.to(out.dtype) if create_graph and g.requires_grad else g.detach().to(out.dtype)


def shape_mismatch(i: int, g: Tensor, out: Tensor) -> RuntimeError:
    """PyTorch's error for a gradient (grad_outputs[i], backward's gradient) whose shape is not its
    output's: it wants the same shape exactly, neither broadcast nor reshaped."""
    return RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] has a shape "
                        f"of {out.shape!r}.\n  fix: a gradient of the output's own shape (e.g. "
                        "torch.ones_like(output))")


def gradients_as_tuple(grads, n: int, call: str) -> tuple:
    """PyTorch's reading of the gradients given for n outputs (autograd.grad's grad_outputs,
    autograd.backward's grad_tensors, Tensor.backward's gradient): None is none for every output,
    a Tensor the one gradient, anything else is iterated, so a number is Python's TypeError
    ('float' object is not iterable) as PyTorch's tuple() of it; entries past the n outputs are
    dropped, as PyTorch's zip with the outputs drops them; each entry left is a Tensor or None."""
    if grads is None:
        return (None,) * n
    if isinstance(grads, Tensor):
        return (grads,)
    try:
        items = tuple(grads)
    except TypeError as e:
        raise TypeError(f"{e}\n  {call}: the gradient is a Tensor (or a sequence of Tensors, one per output), got "
                        f"{type(grads).__name__}\n  fix: torch.tensor({grads!r}) as the gradient, or scale the "
                        f"output: (loss * {grads!r}).backward()") from None
    for i, g in enumerate(items[:n]):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}\n  {call}: "
                            f"gradient {i} is a {type(g).__name__}\n  fix: torch.ones_like(output) * value, a "
                            "Tensor of the output's shape")
    return items[:n]


def one_gradient(gradient, call: str):
    """Tensor.backward's gradient as PyTorch reads it (gradients_as_tuple for one output):
    a Tensor, or None."""
    items = gradients_as_tuple(gradient, 1, call)
    if not items:
        raise RuntimeError(f"got 1 tensors and 0 gradients\n  {call}: an empty sequence as the gradient\n"
                           "  fix: backward() for a scalar output, or backward(gradient) with a Tensor")
    return items[0]


def _loss_and_seed(outputs: tuple, grad_outputs: tuple, call: str, create_graph: bool = False):
    """One scalar (or seeded) root standing for every output: sum_i <output_i, grad_output_i>,
    whose gradient is exactly grad_output_i at output_i."""
    if len(grad_outputs) != len(outputs):  # PyTorch's RuntimeError and words
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients\n  {call}: one gradient "
                           "per output\n  fix: one gradient (or None) per output")
    pairs = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn\n"
                               f"  {call}: output {i} {list(out.shape)} was not computed from a tensor with "
                               "requires_grad=True (or was computed under no_grad())\n"
                               "  fix: compute it from parameters, outside no_grad()")
        if g is None:
            if out.numel() != 1:
                raise RuntimeError(f"grad can be implicitly created only for scalar outputs\n  {call}: output {i} "
                                   f"has shape {list(out.shape)}\n  fix: pass grad_outputs (e.g. torch.ones_like(out))")
        elif tuple(g.shape) != tuple(out.shape):
            raise shape_mismatch(i, g, out)
        pairs.append((out, g))
    if len(pairs) == 1:
        out, g = pairs[0]
        return out, (None if g is None else _seed_value(g, out, create_graph))
    total = None
    for out, g in pairs:
        term = out.sum() if g is None else (out * _seed_value(g, out, create_graph)).sum()
        total = term if total is None else total + term.to(total.dtype)
    return total, None


def grad(outputs: _Tensors, inputs: _Tensors, grad_outputs=None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Optional[bool] = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """torch.autograd.grad: the gradients of outputs (seeded by grad_outputs) with respect to
    inputs, as a tuple (a dict of the same keys for a dict of inputs, such as
    dict(model.named_parameters())); no tensor's .grad changes. An input the outputs do not depend on raises
    unless allow_unused (then its entry is None, or zeros with materialize_grads). With
    create_graph the gradients can be differentiated again (retain_graph then defaults to True)."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if type(inputs) is dict:  # as PyTorch's: the gradients come back as a dict of the same keys
        keys = tuple(inputs)
        result = grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph, True,
                      allow_unused, is_grads_batched, materialize_grads)
        # (the library's own callers pass sequences, and read tuples: the annotation says that case)
        return dict(zip(keys, result))  # type: ignore[return-value]
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. Other Mapping "
                        "types are not supported.\n  fix: grad(outputs, dict(inputs))")
    inputs = _edges_as_tensors(inputs)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    outs = _as_tuple(outputs, "outputs")
    ins = _as_tuple(inputs, "inputs")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads_out = gradients_as_tuple(grad_outputs, len(outs), "autograd.grad()")
    loss, seed = _loss_and_seed(outs, grads_out, "autograd.grad()", create_graph)
    with _backward_end.scope():  # register_multi_grad_hook's callbacks run as it ends
        grads = _input_gradients(loss, seed, ins, retain_graph, create_graph, "autograd.grad")
    result = []
    for i, (x, g) in enumerate(zip(ins, grads)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   f"graph. Set allow_unused=True if this is the desired behavior.\n  autograd.grad(): "
                                   f"inputs[{i}] {list(x.shape)} is not read by the outputs")
            # (differentiable zeros under create_graph, as PyTorch's)
            g = zeros_like(x).requires_grad_(create_graph) if materialize_grads else None
        result.append(g)
    return tuple(result)


def _edges_as_tensors(inputs):
    """inputs with each autograd.graph.GradientEdge replaced by the tensor it stands for."""
    from .graph import GradientEdge, edge_tensor
    if isinstance(inputs, GradientEdge):
        return edge_tensor(inputs)
    if isinstance(inputs, (list, tuple)) and any(isinstance(x, GradientEdge) for x in inputs):
        return tuple(edge_tensor(x) if isinstance(x, GradientEdge) else x for x in inputs)
    return inputs


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """grad(..., is_grads_batched=True): each grad_output has a leading batch dimension and the
    gradients are those of every batch entry, stacked (PyTorch computes them with vmap; here one
    reverse pass per entry, the graph kept until the last)."""
    from .._shapes import stack
    if grad_outputs is None:
        raise RuntimeError("autograd.grad(): is_grads_batched=True needs grad_outputs with a leading batch dimension"
                           "\n  fix: grad(outputs, inputs, grad_outputs=torch.eye(n), is_grads_batched=True)")
    seeds = gradients_as_tuple(grad_outputs, len(_as_tuple(outputs, "outputs")), "autograd.grad()")
    sizes = {g.shape[0] for g in seeds if g is not None and g.dim() > 0}
    if len(sizes) != 1 or any(g is not None and g.dim() == 0 for g in seeds):
        raise RuntimeError("autograd.grad(): with is_grads_batched=True every grad_output needs the same leading batch "
                           f"dimension, got shapes {[None if g is None else list(g.shape) for g in seeds]}\n"
                           "  fix: stack the grad_outputs of each batch entry along a new first dimension")
    n = sizes.pop()
    for i, (out, g) in enumerate(zip(_as_tuple(outputs, "outputs"), seeds)):
        if g is not None and tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {g.shape[1:]!r} and "
                f"output[{i}] has a shape of {out.shape!r}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.\n  fix: grad_outputs of shape (batch, *output.shape)")
    per_entry = []
    for b in range(n):
        keep = True if b < n - 1 else retain_graph
        per_entry.append(grad(outputs, inputs, tuple(None if g is None else g[b] for g in seeds), keep, create_graph,
                              allow_unused=bool(allow_unused) or materialize_grads))
    # an unused input's materialized gradient is zeros of its own shape, without the batch
    # dimension, as PyTorch's (it materializes after the vmap)
    ins = _as_tuple(inputs, "inputs")
    return tuple(stack(list(entries)) if entries[0] is not None else zeros_like(x) if materialize_grads else None
                 for x, entries in zip(ins, zip(*per_entry)))


def _require_grad(inputs: tuple, call: str, words: str) -> None:
    """Raises PyTorch's RuntimeError (its `words`) for the first input that does not require grad."""
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(f"{words}\n  {call}(): inputs[{i}] {list(x.shape)} has requires_grad=False\n"
                               "  fix: x.requires_grad_() before computing the outputs from it")


# > 0 while autograd.grad or backward(inputs=...) computes the gradients of chosen inputs: PyTorch's
# engine then runs a graph task that its reentrant checkpoint refuses (checkpoint_valid)
_SELECTING = [0]


def checkpoint_valid() -> bool:
    """PyTorch's torch.autograd._is_checkpoint_valid(): False inside the backward of autograd.grad
    or backward(inputs=...), whose gradients of chosen inputs a reentrant checkpoint cannot give."""
    return _SELECTING[0] == 0


def _input_gradients(loss: Tensor, seed: Optional[Tensor], inputs: tuple, retain_graph, create_graph: bool,
                     call: str) -> list:
    """The engine's gradients of loss for each input (None where loss does not read it), checked
    by anomaly detection; retain_graph defaults to create_graph, as PyTorch's."""
    _trace.note_differentiation()
    _require_grad(inputs, call, "One of the differentiated Tensors does not require grad")
    retain = bool(create_graph) if retain_graph is None else bool(retain_graph)
    if _saved_tensor_hooks.SAVED:
        _saved_tensor_hooks.unpack_reached(loss, retain)
    watching = anomaly.watch_nodes(loss.grad_fn)
    _backward_end.RETAINING.append(retain)
    _SELECTING[0] += 1
    try:
        handles = loss._h.gradients(None if seed is None else seed._h, [x._h for x in inputs], retain,
                                    bool(create_graph))
    finally:
        _SELECTING[0] -= 1
        _backward_end.RETAINING.pop()
        for handle in watching:
            handle.remove()
    # a view made under no_grad() stops the gradient (its node's is undefined): PyTorch's has no
    # gradient accumulator, so as an input it is unused (docs/inplace-and-views.md)
    grads = [None if h is None or _no_grad_views.is_own(x._h) else _wrap(h) for h, x in zip(handles, inputs)]
    anomaly.check_gradients((f"inputs[{i}]", g) for i, g in enumerate(grads))
    return grads


def backward(tensors: _Tensors, grad_tensors=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """torch.autograd.backward: adds the gradients of tensors (seeded by grad_tensors) to the
    .grad of the leaves they are computed from, or of `inputs` only when given (leaves or computed
    tensors, whose .grad is then set as a retained gradient's). With create_graph the .grad
    values can be differentiated again."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    inputs = _edges_as_tensors(inputs)
    outs = _as_tuple(tensors, "tensors")
    if not outs:
        raise RuntimeError("backward(): no tensors given\n  fix: autograd.backward(loss)")
    grads_out = gradients_as_tuple(grad_tensors, len(outs), "autograd.backward()")
    loss, seed = _loss_and_seed(outs, grads_out, "autograd.backward()", create_graph)
    loss.backward(seed, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


_CYCLE_WARNED = [False]


def warn_create_graph_cycle() -> None:
    """PyTorch's UserWarning, once per process as its engine gives it, for backward(create_graph=True)
    without inputs: each leaf's .grad then holds a graph that reaches the leaf."""
    if _CYCLE_WARNED[0]:
        return
    _CYCLE_WARNED[0] = True
    warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter and "
                  "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
                  "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your "
                  "parameters to None after use to break the cycle and avoid the leak.", UserWarning,
                  stacklevel=_trace.user_stacklevel())


def accumulate_into(loss: Tensor, seed: Optional[Tensor], inputs: tuple, retain_graph,
                    create_graph: bool = False) -> None:
    """backward(inputs=...) and backward(create_graph=True): the gradients of `inputs`, added to
    their .grad (differentiable ones with create_graph)."""
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    # PyTorch's backward retains each input's gradient, and so words the refusal as retain_grad's
    _require_grad(inputs, "backward", "can't retain_grad on Tensor that has requires_grad=False")
    grads = _input_gradients(loss, seed, inputs, retain_graph, create_graph, "backward")
    with set_grad_enabled(bool(create_graph)):
        for x, g in zip(inputs, grads):
            # a computed input that retains its gradient has it stored by the engine's walk already
            if g is not None and (x.is_leaf or not x._h.retains_grad):
                if x.is_leaf:  # its .grad object (_grad_objects.py; a linked view, _grad_views.py)
                    held = x.grad
                else:  # (x.grad would warn for a computed input, which PyTorch fills silently)
                    h = x._h.grad()
                    held = None if h is None else _wrap(h)
                if held is None:  # a leaf's with its strides, as PyTorch's layout contract
                    x.grad = _grad_views.in_leaf_layout(x, g) if x.is_leaf else g
                elif create_graph or not x.is_leaf:  # a new tensor, as PyTorch adds these out of place
                    x.grad = held + g
                else:  # in place: the object read before stays x.grad
                    held.add_(g)
            if x.is_leaf:  # its register_post_accumulate_grad_hook hooks, as backward()'s store runs them
                _post_accumulate_hooks.run(x)
