"""Loss functions with torch.nn.functional's names, arguments, defaults and formulas:
cross_entropy, nll_loss, mse_loss, l1_loss, binary_cross_entropy_with_logits,
binary_cross_entropy.

reduction: "mean" (default), "sum" or "none" (the per-element losses). The legacy size_average
and reduce arguments are read as PyTorch reads them.

cross_entropy with class indices runs the CrossEntropy kernel (logsumexp per row, class weights,
ignore_index, label_smoothing; see autodiff-engine/src/ops/softmax.cpp), on (N, C) logits or on
(N, C, d1, ...) logits with the classes moved last. With class probabilities as targets, and for
the other losses, the loss is composed from elementwise ops and reductions.
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, Optional, cast

import numpy as np

from . import _C, _args, _autocast, _trace
from ._class_targets import check_class_targets
from ._dtypes import plain
from ._inplace import _type_name
from ._tensor import Tensor, _check_inference_inputs, _op, tensor
from ._tensor_arguments import refuse
from ._trace import current_scope
from ._torch_operands import node_attrs

_REDUCTIONS = ("mean", "sum", "none")
# PyTorch 0.4's name for "mean", still read (with a deprecation warning) by the losses whose reduction
# goes through torch.nn._reduction.get_enum; poisson_nll_loss, multilabel_soft_margin_loss and
# triplet_margin_with_distance_loss check their argument themselves and refuse it (strict=True here).
DEPRECATED_MEAN = "elementwise_mean"
# Targets up to this many are checked as a Python list (_check_class_indices), more with NumPy.
_SHORT = 512


def smoothing(value, where: str) -> float:
    """cross_entropy's label_smoothing: a number in [0, 1]; out of it, PyTorch's RuntimeError
    sentence first ('label_smoothing must be between 0.0 and 1.0. Got: 1.5'), glassgrad's cause and
    fix after it (the type is checked first: a str is a TypeError, as PyTorch's)."""
    v = _args.real(value, "label_smoothing", where)
    with _args.pytorch_says(f"label_smoothing must be between 0.0 and 1.0. Got: {value}"):
        return _args.real(v, "label_smoothing", where, minimum=0.0, maximum=1.0, fix="label_smoothing=0.1")


def _reduction(size_average: Optional[bool], reduce: Optional[bool], reduction: str, where: str,
               strict: bool = False, sentence: str = "is not a valid value for reduction") -> str:
    if size_average is not None or reduce is not None:  # PyTorch's legacy arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        resolved = "none" if not reduce else ("mean" if size_average else "sum")
        # PyTorch's deprecation warning, word for word (docs/porting.md, the loss rows).
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{resolved}' instead.",
                      stacklevel=_trace.user_stacklevel())
        return resolved
    if reduction == DEPRECATED_MEAN and not strict:
        # PyTorch's warning, word for word (torch/nn/_reduction.py)
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.", stacklevel=_trace.user_stacklevel())
        return "mean"
    if reduction not in _REDUCTIONS:  # PyTorch's sentence first, then glassgrad's cause and fix
        raise _C.InvalidArgumentError(f"{where}: {reduction} {sentence}\n  cause: reduction "
                                      f"must be 'mean', 'sum' or 'none', got {reduction!r}\n  fix: reduction='mean'")
    return reduction


def _reduce(loss: Tensor, reduction: str, weight: Optional[Tensor] = None, node: Optional[str] = None,
            operands: Optional[list] = None) -> Tensor:
    """Mean / sum / none of elementwise losses; with elementwise weights, mean = sum(w l) / sum(w).
    node: PyTorch's node for the loss (MseLossBackward0), the name Tensor.grad_fn gives a mean or
    sum of floating losses; operands: the paths from the reduction down to the loss's (input,
    target), which that node's next_functions lists as PyTorch's does (_GradFn._composite_inputs)."""
    if weight is not None:  # PyTorch weighs the elementwise losses itself: MulBackward0, SumBackward0, DivBackward0
        loss = loss * weight
        if reduction == "mean":
            return loss.sum() / weight.expand(*loss.shape).sum()
        node = None
    if reduction == "none":  # PyTorch's elementwise losses are that node too (a view carrying the name)
        if not (node and loss._h.requires_grad and loss.dtype.is_floating_point):
            return loss
        attrs: Dict[str, Any] = {"shape": list(loss._h.shape), "torch_node": node}
        if operands is not None and weight is None:
            attrs["torch_operands"] = operands
        return _op("Reshape", [loss], attrs)
    # (the Mean node refuses an empty loss; Tensor.mean gives PyTorch's NaN for it)
    if node and loss.dtype.is_floating_point and (reduction == "sum" or loss.numel()):
        attrs = {"dims": [], "keepdim": False, "torch_node": node}
        if operands is not None:
            attrs["torch_operands"] = operands
        return _op("Mean" if reduction == "mean" else "Sum", [loss], attrs)
    return loss.mean() if reduction == "mean" else loss.sum()


def elementwise_weight(weight, input: Tensor, where: str) -> Optional[Tensor]:
    """A regression loss's weight= (mse_loss, l1_loss, huber_loss): a tensor of the input's size, as
    PyTorch's ValueError 'Weights and input must have the same size.' requires; None stays None."""
    if weight is None:
        return None
    w = _tensor_like(weight, input)
    if tuple(w.shape) != tuple(input.shape):
        raise _C.ShapeError(f"Weights and input must have the same size.\n  {where}: weight {list(w.shape)}, input "
                            f"{list(input.shape)}\n  fix: one weight per element of the input, e.g. "
                            f"weight.expand_as(input)")
    return w


def _tensor_like(x, like: Tensor, dtype=None) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x, dtype=dtype or like.dtype, device=like.device)


def _labels(target, logits: Tensor, op: str) -> Tensor:
    """Class-index targets as a tensor on the logits' device. docs/debugging.md section 3: labels that are not
    int64 are refused, never converted, by the engine's one check (class_labels.h): the op's shape
    rule for tensors, called here for a NumPy array (whose dtype glassgrad may not hold). uint8
    labels are the exception PyTorch makes too (it takes Long or Byte targets): they convert
    exactly, so they become int64 here."""
    if isinstance(target, np.ndarray):
        if target.dtype == np.uint8:  # PyTorch takes Byte targets too; they convert exactly
            target = target.astype(np.int64)
        _C.check_class_labels(op, current_scope(), plain(target.dtype), list(target.shape), logits._h)
    if isinstance(target, Tensor):
        return target.astype("int64") if target._h.dtype == "uint8" else target
    return tensor(target, device=logits.device)


def _classes_last(input: Tensor, target: Tensor):
    """(N, C, d1, ...) scores and (N, d1, ...) targets as (M, C) rows and (M,) targets, M = N*d1*...;
    an unbatched (C,) input with a 0-d target as one row. Returns them and the shape of the
    per-element losses."""
    ndim = input.ndim  # (read once: each read of .ndim or .shape is a call)
    if ndim == 1:
        return input.reshape(1, -1), target.reshape(1), ()
    if ndim == 2:
        return input, target, (input._h.shape[0],)
    c = input.shape[1]
    dims = [0] + list(range(2, input.ndim)) + [1]
    rows = input.permute(dims).reshape(-1, c)
    if target.ndim == input.ndim - 1:
        target = target.reshape(-1)
    return rows, target, (input.shape[0],) + tuple(input.shape[2:])


def _probability_targets(input: Tensor, target) -> bool:
    if isinstance(target, Tensor):
        return target._h.dtype in ("float32", "float64") and tuple(target._h.shape) == tuple(input.shape)
    arr = np.asarray(target)
    return arr.dtype.kind == "f" and arr.shape == tuple(input.shape)


@_autocast.op("cross_entropy")
def cross_entropy(input: Tensor, target, weight: Optional[Tensor] = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """PyTorch's F.cross_entropy: softmax over axis 1 (the classes) of (N, C), (N, C, d1, ...) or
    unbatched (C,) scores, then the negative log-likelihood of the targets: int64 class indices
    ((N), (N, d1, ...)), or class probabilities of the input's shape. Class weights, ignore_index
    (default -100: such targets add nothing and are not counted by "mean"), label_smoothing."""
    # The defaults (every step of a training loop) pass the checks as they are: a plain float
    # 0.0, an int and one of the reductions without the legacy arguments.
    if size_average is not None or reduce is not None or reduction not in _REDUCTIONS:
        reduction = _reduction(size_average, reduce, reduction, "cross_entropy")
    if type(label_smoothing) is not float or label_smoothing != 0.0:
        label_smoothing = smoothing(label_smoothing, "cross_entropy")
    if type(ignore_index) is not int:
        ignore_index = _args.integer(ignore_index, "ignore_index", "cross_entropy")
    # Each property of a handle is read once below (each read is a call into the runtime); a
    # tensor target is _probability_targets' and _labels' first case, written out.
    input_shape = input._h.shape
    if isinstance(target, Tensor):
        target_dtype = target._h.dtype
        if target_dtype in ("float32", "float64") and tuple(target._h.shape) == input_shape:
            return _soft_cross_entropy(input, target, weight, reduction, label_smoothing, ignore_index)
        labels = target.astype("int64") if target_dtype == "uint8" else target
    elif _probability_targets(input, target):
        return _soft_cross_entropy(input, _tensor_like(target, input), weight, reduction, label_smoothing,
                                   ignore_index)
    else:
        labels = _labels(target, input, "CrossEntropy")
    check_class_targets(input_shape, labels._h.shape, "cross_entropy")
    if len(input_shape) == 2:  # _classes_last's (N, C) case
        rows, shape = input, (input_shape[0],)
    else:
        rows, labels, shape = _classes_last(input, labels)
    if labels._h.device == "cpu":   # PyTorch's CPU kernel refuses a bad target at the call (CUDA's asserts later)
        _check_class_indices(labels, input_shape[1] if rows is input else rows._h.shape[1], ignore_index, "cross_entropy")
    attrs: Dict[str, Any] = {"reduction": reduction}
    if ignore_index != -100:
        attrs["ignore_index"] = ignore_index
    if label_smoothing != 0.0:
        attrs["label_smoothing"] = label_smoothing
    inputs = [rows, labels] + ([_tensor_like(weight, input)] if weight is not None else [])
    ndim = len(input_shape)
    named = input._h.requires_grad and _C.grad_enabled()
    if named:
        # PyTorch's graph: NllLossBackward0 of LogSoftmaxBackward0 of the input (AddBackward0 of
        # the smoothed term outermost with label_smoothing); NllLoss2DBackward0 for (N, C, d1, ...)
        if label_smoothing != 0.0:
            attrs["torch_node"] = "AddBackward0"  # of the two terms' MulBackward1 nodes, which are not recorded
        elif ndim <= 2:
            attrs["torch_node"] = "NllLossBackward0"
            attrs["torch_operands"] = [0] if ndim == 2 else [0, 0]  # the rows are input, or its reshape
            attrs["torch_inner"] = "LogSoftmaxBackward0"
        else:
            attrs["torch_node"] = nll_node(ndim)
    loss = _op("CrossEntropy", inputs, attrs)
    if reduction != "none" or tuple(loss.shape) == shape:
        return loss
    if named and label_smoothing == 0.0 and not nll_views_back(ndim):
        return _op("Reshape", [loss], {"shape": list(shape), "torch_node": attrs["torch_node"]})
    return loss.reshape(shape)


def nll_node(ndim: int) -> str:
    """PyTorch's node of nll_loss (and cross_entropy) of an input of ndim dims: the spatial kernel's
    NllLoss2DBackward0 for (N, C, d1, ...), which it views (N, C, d1, 1) or (N, C, d1, d2 * ...)."""
    return "NllLoss2DBackward0" if ndim >= 3 else "NllLossBackward0"


def nll_views_back(ndim: int) -> bool:
    """Whether PyTorch's reduction='none' loss of an ndim-dim input is a view of its 4-d kernel's
    (ViewBackward0): for (N, C, d1) and (N, C, d1, d2, d3, ...), not (N, C, d1, d2)."""
    return ndim == 3 or ndim >= 5


def _soft_cross_entropy(input: Tensor, target: Tensor, weight, reduction: str, smoothing: float,
                        ignore_index: int = -100) -> Tensor:
    """Class-probability targets: loss = -sum_c w_c p_c log softmax(x)_c, p = (1 - e) p + e / C;
    "mean" divides by the number of rows (N * d1 * ...). ignore_index other than the default is
    refused, as PyTorch refuses it (no class index to ignore)."""
    if ignore_index != -100:
        raise _C.InvalidArgumentError(
            f"ignore_index is not supported for floating point target\n  cross_entropy: target "
            f"{list(target.shape)} holds class probabilities, ignore_index={ignore_index}\n  fix: drop ignore_index, "
            f"or pass int64 class indices")
    c = input.shape[1] if input.ndim > 1 else input.shape[0]
    dim = 1 if input.ndim > 1 else 0
    logp = input.log_softmax(dim)
    if smoothing:
        target = target * (1 - smoothing) + smoothing / c
    prod = logp * target
    if weight is not None:
        wshape = [1] * input.ndim
        wshape[dim] = c
        prod = prod * _tensor_like(weight, input).reshape(wshape)
    if reduction == "none" or not input.requires_grad:
        return _reduce(-prod.sum(dim), reduction)
    # PyTorch's nodes (Tensor.grad_fn): the negated sum (NegBackward0), its mean a division by the
    # number of rows (DivBackward1, a Scalar divisor, which saves nothing)
    if reduction == "sum":
        return _op("Neg", [prod.sum()], {"torch_node": "NegBackward0"})
    rows = prod.numel() // c if c else 0
    if rows == 0:
        return _reduce(-prod.sum(dim), reduction)
    return _op("MulScalar", [-prod.sum()], {"value": 1.0 / rows, "scalar_arg": 1.0, "torch_node": "DivBackward1"})


def _check_class_indices(target: Tensor, classes: int, ignore_index: int, where: str) -> None:
    """Targets already computed (data, not a pending graph) are checked at once, naming the bad one
    after PyTorch's IndexError sentence ('Target 3 is out of bounds.')."""
    h = target._h
    if not h.realized:
        return
    t = h.data().numpy().reshape(-1)  # (a CPU tensor's values: numpy(force=True) without its checks)
    # Every target a class: the common case, told by the extremes alone (Python's min and max of
    # a short list cost less than NumPy's reductions); ignore_index is then never used.
    if not t.size:
        return
    if t.size <= _SHORT:
        values = t.tolist()
        low, high = min(values), max(values)
    else:
        low, high = np.minimum.reduce(t), np.maximum.reduce(t)
    if low >= 0 and high < classes:
        return
    bad = np.nonzero(((t < 0) | (t >= classes)) & (t != ignore_index))[0]
    if bad.size:
        raise _C.GlassgradIndexError(  # PyTorch's sentence first, then which target
            f"{where}: Target {int(t[bad[0]])} is out of bounds.\n"
            f"  cause: target {int(t[bad[0]])} at position {int(bad[0])} is out of range for {classes} classes\n"
            f"  targets must be in [0, {classes}) or equal ignore_index ({ignore_index}); {bad.size} of {t.size} are not\n"
            + (f"  fix: shift the targets to start at 0, or pass ignore_index={int(t[bad[0]])} if they mark padding"
               if t[bad[0]] < 0 else f"  fix: give the model {int(t.max()) + 1} outputs, or shift the targets to start at 0"))


@_autocast.op("nll_loss")
def nll_loss(input: Tensor, target, weight: Optional[Tensor] = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.nll_loss: loss_n = -w_y input[n, y] for log-probabilities input (N, C) or
    (N, C, d1, ...); rows with y == ignore_index add nothing; "mean" divides by sum_n w_y."""
    reduction = _reduction(size_average, reduce, reduction, "nll_loss")
    _saves_for_backward("nll_loss", input, target, weight)
    labels = _labels(target, input, "nll_loss")
    check_class_targets(tuple(input.shape), tuple(labels.shape), "nll_loss")
    rows, labels, shape = _classes_last(input, labels)
    _C.check_class_labels("nll_loss", current_scope(), labels._h, input._h)  # composed here: no shape rule sees them
    c = rows.shape[1]
    ignore_index = _args.integer(ignore_index, "ignore_index", "nll_loss")
    _check_class_indices(labels, c, ignore_index, "nll_loss")
    classes = tensor(np.arange(c, dtype=np.int64), device=input.device)
    picked = (labels.reshape(-1, 1) == classes).astype(input.dtype)   # one-hot rows
    picked = picked * (labels != ignore_index).astype(input.dtype).reshape(-1, 1)
    if weight is not None:
        picked = picked * _tensor_like(weight, input)
    loss = -(picked * rows).sum(1)
    node = nll_node(input.ndim)
    if reduction == "mean":
        # every target ignored: PyTorch's value is 0 / 0 = nan and its gradient 0, so the divisor
        # of the differentiated part is 1 there and the nan is added as a constant
        total = picked.sum()
        empty = (total == 0).astype(input.dtype)
        mean = loss.sum() / (total + empty)
        nan = (total * 0) / total
        return _op("Add", [mean, nan], {"torch_node": node, **node_attrs(node, [mean, nan], input)})
    if reduction == "sum":
        return _op("Sum", [loss], {"dims": [], "keepdim": False, **node_attrs(node, [loss], input)})
    if not loss._h.requires_grad or nll_views_back(input.ndim):
        return loss.reshape(shape)
    return _op("Reshape", [loss], {"shape": list(shape), **node_attrs(node, [loss], input)})


def _saves_for_backward(where_: str, input: Tensor, *others) -> None:
    """PyTorch's node for this loss (MseLossBackward0, NllLossBackward0, ...) saves the input, the
    target and the weights: an inference tensor among them is refused while autograd records the
    loss, as for any op that saves it (_check_inference_inputs). glassgrad composes the loss from
    ops of which some save neither (input - target), so the loss checks them itself."""
    _check_inference_inputs(where_, [input] + [t for t in others if isinstance(t, Tensor)])


def _broadcast_warning(input: Tensor, target: Tensor, where_: str) -> None:
    """PyTorch's warning when a regression loss broadcasts a target of another shape (a [N] target
    against [N, 1] outputs makes an [N, N] loss: the classic shape bug of a regression script)."""
    if tuple(target.shape) != tuple(input.shape):
        # PyTorch's text, word for word (filters and pytest.warns match it); where_ is the loss
        warnings.warn(f"Using a target size ({target.size()!r}) that is different to the input size "
                      f"({input.size()!r}). This will likely lead to incorrect results due to broadcasting. "
                      f"Please ensure they have the same size.", stacklevel=_trace.user_stacklevel())


@_autocast.op("mse_loss")
def mse_loss(input: Tensor, target, size_average=None, reduce=None, reduction: str = "mean",
             weight: Optional[Tensor] = None) -> Tensor:
    """PyTorch's F.mse_loss: (input - target)^2, broadcast; with weight, "mean" = sum(w l) / sum(w)."""
    reduction = _reduction(size_average, reduce, reduction, "mse_loss")
    t = _tensor_like(target, input)
    if not t.is_floating_point():  # PyTorch's kernel runs in the promoted dtype: integers only are refused
        _args.floating_input(input, "mse_cpu")
    _saves_for_backward("mse_loss", input, t)
    if isinstance(target, Tensor):
        _broadcast_warning(input, t, "mse_loss")
    d = input - t
    # MseLossBackward0's inputs are (input, target): the Sub's under the Mul (d * d) under the reduction
    return _reduce(d * d, reduction, elementwise_weight(weight, input, "mse_loss"), "MseLossBackward0",
                   operands=[0, 0, 0, -1, 0, 0, 1])


@_autocast.op("l1_loss")
def l1_loss(input: Tensor, target, size_average=None, reduce=None, reduction: str = "mean",
            weight: Optional[Tensor] = None) -> Tensor:
    """PyTorch's F.l1_loss: |input - target|, broadcast; with weight, "mean" = sum(w l) / sum(w)."""
    reduction = _reduction(size_average, reduce, reduction, "l1_loss")
    t = _tensor_like(target, input)
    if isinstance(target, Tensor):
        _broadcast_warning(input, t, "l1_loss")
    return _reduce((input - t).abs(), reduction, elementwise_weight(weight, input, "l1_loss"))


@_autocast.op("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input: Tensor, target, weight: Optional[Tensor] = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    """PyTorch's F.binary_cross_entropy_with_logits, in its stable form:
        loss = (1 - t) x + (1 + (pos_weight - 1) t) (log(1 + exp(-|x|)) + max(-x, 0))
    (= -[pos_weight t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]), times weight."""
    reduction = _reduction(size_average, reduce, reduction, "binary_cross_entropy_with_logits")
    t = _tensor_like(target, input)
    if tuple(t.shape) != tuple(input.shape):
        raise _C.ShapeError(f"binary_cross_entropy_with_logits: target size {list(t.shape)} must be the same as "
                            f"input size {list(input.shape)}\n  fix: one target per logit, e.g. y.reshape(x.shape)")
    # weight and pos_weight are tensors or None, as PyTorch's argument parser takes them: a number
    # or an array is its TypeError (docs/porting.md, "Tensor arguments")
    for position, name, value in ((3, "weight", weight), (4, "pos_weight", pos_weight)):
        if value is not None and not isinstance(value, Tensor):
            refuse("binary_cross_entropy_with_logits", name, position, value)
    _saves_for_backward("binary_cross_entropy_with_logits", input, t, weight, pos_weight)
    # log(1 + exp(-x)) = log(1 + exp(-|x|)) + max(-x, 0), with max(-x, 0) written (|x| - x) / 2 so the
    # gradient at x = 0 is sigmoid(0) - 1 = -1/2, PyTorch's (a clamp's there is -1: logsigmoid's rule)
    softplus_neg = ((-input.abs()).exp() + 1.0).log() + (input.abs() - input) * 0.5
    log_weight = 1.0 if pos_weight is None else (_tensor_like(pos_weight, input) - 1.0) * t + 1.0
    loss = (1.0 - t) * input + log_weight * softplus_neg
    if weight is not None:
        loss = loss * _tensor_like(weight, input)
    return _reduce(loss, reduction, node="BinaryCrossEntropyWithLogitsBackward0")


# PyTorch's floor on x (1 - x) in binary_cross_entropy's input gradient: 1e-12 as a float32
# constant (9.99999996e-13), also in float64.
_BCE_EPSILON = float(np.float32(1e-12))


def _check_probabilities(values_of: Tensor, what: str, fix: str) -> None:
    """PyTorch's CPU check of binary_cross_entropy's input and target: every element in [0, 1]
    (NaN fails). Computed (unrealized) tensors are not read."""
    if not (values_of._h.realized and values_of.device.type == "cpu"):
        return
    values = values_of.numpy(force=True)
    if values.size and not ((values >= 0) & (values <= 1)).all():
        raise _C.InvalidArgumentError(
            f"binary_cross_entropy: all elements of {what} should be between 0 and 1 ({what} "
            f"{list(values_of.shape)} holds values from {float(np.nanmin(values)):g} to "
            f"{float(np.nanmax(values)):g})\n  fix: {fix}")


@_autocast.op("binary_cross_entropy")
def binary_cross_entropy(input: Tensor, target, weight: Optional[Tensor] = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """PyTorch's F.binary_cross_entropy on probabilities: -(t log(x) + (1 - t) log(1 - x)), each log
    clamped at -100 (as PyTorch does, so x = 0 or 1 gives a finite loss), times weight. The input's
    gradient is PyTorch's, (x - t) / max(x (1 - x), 1e-12): finite where x is exactly 0 or 1, and so
    is its second derivative (PyTorch's double backward). The
    target's is log(1 - x) - log(x) with both logs clamped at -100 (PyTorch leaves them unclamped,
    which differs only at x = 0 or 1, where PyTorch's is infinite)."""
    reduction = _reduction(size_average, reduce, reduction, "binary_cross_entropy")
    if isinstance(target, Tensor) and plain(target.dtype) != plain(input.dtype):   # PyTorch's kernel: no promotion
        raise _C.DTypeError(
            f"Found dtype {_type_name(target.dtype)} but expected {_type_name(input.dtype)}\n  binary_cross_entropy: "
            f"target {plain(target.dtype)} {list(target.shape)}, input {plain(input.dtype)} {list(input.shape)}\n"
            f"  fix: target.to(input.dtype)")
    t = _tensor_like(target, input)
    if tuple(t.shape) != tuple(input.shape):
        raise _C.ShapeError(f"Using a target size ({t.size()!r}) that is different to the input size "
                            f"({input.size()!r}) is deprecated. Please ensure they have the same size.\n  "
                            f"binary_cross_entropy: one target per probability\n  fix: y.reshape(x.shape)")
    _check_probabilities(input, "input", "pass probabilities, logits.sigmoid(), or "
                         "binary_cross_entropy_with_logits(logits, target)")
    _check_probabilities(t, "target", "targets are probabilities in [0, 1], e.g. class labels as 0.0 / 1.0")
    _saves_for_backward("binary_cross_entropy", input, t, weight)
    # The value from the detached probabilities; the input's gradient is PyTorch's
    # (x - t) / max(x (1 - x), 1e-12), added by a term that is exactly 0 in value ((x - x) * g).
    # Differentiating the clamped logs instead gives 0 * inf = NaN where a sigmoid saturates to
    # exactly 0 or 1, which a GAN's discriminator does within a few hundred steps.
    x = input.detach()
    log_x = x.log().clamp(min=-100.0)
    log_1mx = (-x).log1p().clamp(min=-100.0)  # log1p, as PyTorch: exact for x below float epsilon
    loss = -(t * log_x + (1.0 - t) * log_1mx)
    if input.requires_grad:
        # Second derivatives (a gradient penalty, a Hessian) need the terms to carry on: the second
        # term's first derivative is 0 in value and its second PyTorch's binary_cross_entropy_double_backward,
        # (x^2 - 2 x t + t) / ((x + eps)^2 (1 - x + eps)^2) (docs/autograd.md, "Second-order rules").
        xa, ta = cast(Any, x), cast(Any, t)  # Tensor's operators are bound at import
        grad = (xa - ta) / (xa * (1.0 - xa)).clamp(min=_BCE_EPSILON)
        curve = (xa * xa - 2.0 * xa * ta + ta) / ((xa + _BCE_EPSILON) ** 2 * (1.0 - xa + _BCE_EPSILON) ** 2)
        step = cast(Any, input) - xa
        loss = loss + step * grad + 0.5 * step * step * curve
    if weight is not None:
        loss = loss * _tensor_like(weight, input)
    return _reduce(loss, reduction, node="BinaryCrossEntropyBackward0")
