"""glassgrad.Tensor: a lazily computed value with a static shape.

Operations record nodes of a static graph; nothing runs until a result is needed
(.item(), .numpy(), printing, optimizer.step()). Then the pending graph is compiled once into a
plan (cached by its structure, shapes and dtypes) and executed.
"""
from __future__ import annotations

import copy
import functools
import math
import numbers
import operator
import sys
import warnings
import weakref
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from . import _C, _args, _autocast, _backward_end, _device, _dtypes, _layouts, _post_accumulate_hooks, _runtime
from . import _elementwise_layout, _grad_views, _node_inputs, _output_numbers, _saved_attributes, _saved_tensor_hooks, _shared_memory, _torch_operands
from . import _grad_objects, _no_grad_views, _numpy_arrays, _numpy_strides, _python_ints, _tensor_data, _view_base, _view_hooks, _vmap_calls
from . import _memory_formats as _mf
from ._dtypes import DTYPES
from ._inplace import in_place, in_place_view
from ._size import Size
from . import _printing
from . import _trace
from ._trace import _PACKAGE_DIR, record

float32, float64, int64, uint8, bool_ = (DTYPES[n] for n in ("float32", "float64", "int64", "uint8", "bool"))
# The NumPy type holding each dtype's values on the way in: NumPy has no bfloat16, so bfloat16 data
# comes as float32 and is rounded by the Cast op (raw_from_numpy).
_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "uint8": np.uint8, "bool": np.bool_,
       "int8": np.int8, "int16": np.int16, "int32": np.int32, "float16": np.float16, "bfloat16": np.float32}


# bfloat16 elements as checkpoints store them: their 16 bits (a float32's high half), in a NumPy
# dtype of their own so that no uint16 array is ever taken for bfloat16.
BFLOAT16_BITS: np.dtype = np.dtype([("bfloat16", "<u2")])


def stored_array(t: "Tensor") -> np.ndarray:
    """t's elements as NumPy holds them for saving: bfloat16 as BFLOAT16_BITS, else t.numpy()."""
    if t.dtype != "bfloat16":
        return t.numpy(force=True)
    return (t.float().numpy(force=True).view(np.uint32) >> 16).astype("<u2").view(BFLOAT16_BITS)


def host_values(t: "Tensor") -> np.ndarray:
    """t's values as a NumPy array for the functions computed on the host (nonzero, unique,
    histc, searching): bfloat16 read as float32, which holds each of its values exactly (NumPy has
    no bfloat16; torch's versions of these take bfloat16)."""
    return (t.float() if t.dtype == "bfloat16" else t).numpy(force=True)


def raw_from_numpy(arr: np.ndarray, device, name: str, dtype=None) -> "_C.Tensor":
    """A runtime tensor of arr's values in dtype (default: arr's own), on device: the NumPy array
    converted by NumPy, except into bfloat16, which the Cast op rounds (to nearest even)."""
    if dtype is None or _dtypes.plain(dtype) != "bfloat16":
        if dtype is not None:
            arr = np.asarray(arr).astype(_NP[_dtypes.plain(dtype)], copy=False)
        return _C.Tensor.from_numpy(arr, device, name)
    wide = _C.lazy_leaf(_C.Tensor.from_numpy(np.asarray(arr).astype(np.float32, copy=False), device, name),
                        "constant", False, "")
    return record("Cast", [wide], {"dtype": "bfloat16"})[0].data()


def _dtype_name(dtype) -> Optional[str]:
    """The runtime's name of a dtype given in any spelling glassgrad or PyTorch uses (None: none
    given); DTypeError for a type glassgrad does not hold."""
    if dtype is None:
        return None
    return _dtypes.plain(_dtypes.to_dtype(dtype))


# DistributedDataParallel wrappers whose forward ran since the last backward (distributed/ddp.py):
# the next backward() averages their parameters' gradients across the ranks.
_pending_gradient_sync: list = []


# PyTorch's node for a matmul of two matrices is Mm; of batches (computed through bmm or a
# reshaped mm) the view it returns, UnsafeView.
_MATMUL_NODES: Dict[Tuple[int, ...], str] = {(2, 2): "Mm"}

# glassgrad ops that are one PyTorch op under another name: the name of PyTorch's backward node.
_TORCH_NODES: Dict[str, str] = {
    "ReLU": "Relu", "GELU": "Gelu", "SiLU": "Silu", "LeakyReLU": "LeakyRelu", "ELU": "Elu",
    "HardtanhMax": "Hardtanh", "Cast": "ToCopy", "CumSum": "Cumsum", "Conv2D": "Convolution",
    "Conv2DBackwardInput": "Convolution",  # conv_transpose2d's op (_conv_transpose.py)
    "MaxPool2D": "MaxPool2DWithIndices", "LayerNorm": "NativeLayerNorm", "BatchNorm2DTrain": "NativeBatchNorm",
    "Dropout": "Mul",  # F.dropout's mask multiplies the input (MulBackward0)
    "Concat": "Cat", "CumProd": "Cumprod", "Log1p": "Log1P", "CrossEntropy": "NllLoss",
    "RDiv": "Mul",  # 2 / x (RDivScalar): PyTorch multiplies x's reciprocal by 2
    "GELUTanh": "Gelu", "BatchNorm2DInference": "NativeBatchNorm",
    "AlphaDropout": "Add",  # PyTorch's alpha_dropout ends with the affine shift (AddBackward0)
}


def _selects_below(h) -> Tuple[str, list]:
    """x[i, j] recorded by the runtime's select of positions (_indexing.int_view): a Slice per
    position, then the Reshape named SelectBackward0. PyTorch's graph is a Select per position:
    the Selects below the outermost, and the entry of the tensor indexed."""
    below = h.producer_inputs[0]
    count = 0
    while below.op == "Slice" and below.producer_inputs:
        below = below.producer_inputs[0]
        count += 1
    if count == 0:
        return "", _entries([h.producer_inputs[0]])
    return " ".join(["SelectBackward0"] * (count - 1)), _entries([below])


def _entries(handles: list) -> list:
    """next_functions' (node, 0) for each value: its op's node, AccumulateGrad for a leaf that
    requires grad, None for one that needs none."""
    out: list = []
    for h in handles:
        if h is None or not h.requires_grad:
            out.append((None, 0))
        elif h.is_leaf:
            out.append((_AccumulateGrad(h), 0))
        else:
            out.append((_grad_fn(h.op or "Alias", h), 0))
    return out


def _reshape_attrs(h, shape: Sequence[int]) -> dict:
    """The Reshape op's attributes for reshape(shape) of the value h pins: where no view of h has
    that shape and h requires grad, PyTorch's graph copies and views the copy, UnsafeViewBackward0
    of CloneBackward0 (Tensor.grad_fn, next_functions)."""
    if not h.requires_grad or not _C.grad_enabled():
        return {"shape": shape}
    n = math.prod(h.shape)
    resolved = shape
    if -1 in shape:  # (not from flatten, which computes every size: no generator frames on its path)
        known = math.prod([s for s in shape if s != -1])
        resolved = [n // known if s == -1 and known else s for s in shape]
    if math.prod(resolved) != n or h.reshape_is_view(resolved):
        return {"shape": shape}
    return {"shape": shape, "torch_node": "UnsafeViewBackward0", "torch_inner": "CloneBackward0"}


def _vector_product_node(h) -> Optional[str]:
    """PyTorch's node for torch.dot / torch.mv (and matmul of a vector with a vector or a matrix
    with a vector): DotBackward0 or MvBackward0, and for matmul of a vector with a matrix the
    squeeze of its [1, n] x [n, m] product, SqueezeBackward4. glassgrad computes them as a MatMul
    of [1, n] x [n, 1], [m, n] x [n, 1] or [1, n] x [n, m] whose result matmul reshapes to [],
    [m] or [m] (_shapes.matmul)."""
    (p,) = h.producer_inputs
    if p.op != "MatMul" or len(p.shape) != 2:
        return None
    a, b = p.producer_inputs
    if p.shape[1] != 1:
        vector_matrix = len(h.shape) == 1 and p.shape[0] == 1 and len(b.shape) == 2 and _from_vector(a)
        return "SqueezeBackward4" if vector_matrix else None
    if not _from_vector(b):
        return None
    if not h.shape:
        return "DotBackward0" if p.shape[0] == 1 and _from_vector(a) else None
    return "MvBackward0" if len(h.shape) == 1 and len(a.shape) == 2 else None


def _vector_product_operands(h) -> list:
    """The operands of the torch.dot / torch.mv _vector_product_node names: the matrix, or the
    vector a row was made of, and the vector the column was made of."""
    a, b = h.producer_inputs[0].producer_inputs
    return [a if len(h.shape) == 1 or not a.producer_inputs else a.producer_inputs[0],
            b.producer_inputs[0] if b.producer_inputs else b]


def _from_vector(h) -> bool:
    """Whether the MatMul operand h can be a 1-d tensor matmul made a row or a column of: a reshape
    of a 1-d value, or a value with no recorded producer (a view of a tensor that needs no grad)."""
    if h.op == "":
        return True
    return h.op == "Reshape" and len(h.producer_inputs[0].shape) == 1


class _GradFn:
    """Tensor.grad_fn of a computed tensor: which op made it, named as PyTorch names its backward
    nodes. glassgrad's gradients are graph nodes built at backward() (docs/autograd.md), so this
    is a view of the recorded forward op: next_functions walks the ops that made its inputs
    (AccumulateGrad for a leaf that requires grad, None for an input that needs no gradient);
    register_prehook and register_hook are PyTorch's Node hooks (_node_hooks.py)."""

    __slots__ = ("_op", "_h", "_below")

    def __init__(self, op: str, handle=None):
        self._op = op
        self._h = handle
        self._below: Optional[tuple] = None  # a node the fused op stands for: its next_functions

    def name(self) -> str:
        # A function that records PyTorch's op as a glassgrad op of another meaning (x / 2 as a
        # MulScalar, t() as a Permute) names PyTorch's node in the op's attribute torch_node.
        node = self._h.producer_attr("torch_node") if self._h is not None else None
        if self._h is None and self._op.endswith(_BACKWARD_SUFFIXES):  # a node named outright (torch_inner)
            return self._op
        if node:
            return f"torch::autograd::{node}" if node in _NAMESPACED_NODES else node
        # PyTorch's node names: a write through a view is CopySlices, a copy is Clone, an op with
        # a scalar operand is the op's own node (MulScalar: MulBackward0), as pytorch_op_name
        # (core-runtime/src/lazy/alias.cpp) names them in errors
        op = self._op
        if op == "SliceScatter":
            return "torch::autograd::CopySlices"
        if op == "Contiguous":  # clone() and contiguous() of a strided view: PyTorch's clone node
            op = "Clone"
        if op.endswith("Scalar") and len(op) > len("Scalar"):
            op = op[:-len("Scalar")]
        elif op == "Reshape":  # view, reshape and flatten of a contiguous tensor: PyTorch's view node
            product = _vector_product_node(self._h) if self._h is not None else None
            if product is not None:
                return product
            op = "View"
        elif op == "MatMul" and self._h is not None:
            op = _MATMUL_NODES.get(tuple(len(h.shape) for h in self._h.producer_inputs), "UnsafeView")
        elif op in ("Sum", "Mean") and self._h is not None and self._h.producer_attr("dims"):
            return f"{op}Backward1"  # PyTorch's overload with dim
        return f"{_TORCH_NODES.get(op, op)}Backward0"

    @property
    def next_functions(self) -> tuple:
        """((node, 0), ...) for each input of the op: the node that made it, AccumulateGrad for a
        leaf that requires grad, None for one that needs no gradient (PyTorch's layout)."""
        if self._below is not None:
            return self._below
        if self._h is None:
            return ()
        node_name, listed = self.name(), self._h.producer_attr("torch_operands")
        if node_name in ("DotBackward0", "MvBackward0") and self._op == "Reshape":
            return tuple(_entries(_vector_product_operands(self._h)))
        if listed:
            out = _entries(self._composite_inputs())
        elif self._op == "SliceScatter" and node_name == "torch::autograd::CopySlices":
            return self._copy_slices()
        else:
            out = _entries(_node_inputs.listed(self._op, node_name, self._h.producer_inputs))
        if self._op in _NUMBER_LISTED and node_name not in _NUMBER_NOT_LISTED and not listed:
            out.append((None, 0))  # PyTorch's node lists the number too (a wrapped 0-d tensor), after the tensor
        inner = self._h.producer_attr("torch_inner")
        if not inner and self._op == "Reshape" and node_name == "SelectBackward0" and not listed:
            inner, out = _selects_below(self._h)
        if inner and out and out[0][0] is not None:
            # an op that is several PyTorch nodes (cross_entropy: NllLoss of LogSoftmax; x[1:, 0]:
            # Select of Slice): the inner ones (outermost first) stand between it and its first operand
            for name in reversed(inner.split()):
                node = _grad_fn(name, None)
                node._below = (out[0],)
                out[0] = (node, 0)
        return tuple(out)

    @property
    def metadata(self) -> dict:
        """The node's own dict for the user's entries (PyTorch's Node.metadata): the same dict on
        every access of this node (_node_metadata)."""
        from . import _node_metadata
        return _node_metadata.of(self._h) if self._h is not None else {}

    def register_prehook(self, hook):
        """hook(grad_outputs) -> None or new grad_outputs, run when the gradient reaching this node
        is complete (PyTorch's Node.register_prehook; _node_hooks.py)."""
        from . import _node_hooks
        return _node_hooks.register_prehook(self, hook)

    def register_hook(self, hook):
        """hook(grad_inputs, grad_outputs) -> None or new grad_inputs, run once this node's input
        gradients are computed (PyTorch's Node.register_hook; _node_hooks.py)."""
        from . import _node_hooks
        return _node_hooks.register_hook(self, hook)

    def _copy_slices(self) -> tuple:
        """CopySlices' next_functions (a write through a view of base: SliceScatter(base, value)),
        as PyTorch's: base's node, then the entries after the first of the node that computed the
        written value from the view (y[:2].mul_(w): base's, w's), or the value's own where it is no
        function of the view (y[:2] = v: base's, v's)."""
        base, value = self._h.producer_inputs[:2]
        if value.requires_grad and not value.is_leaf:
            written = _grad_fn(value.op or "Alias", value).next_functions
            first = getattr(written[0][0], "_h", None) if written else None
            if first is not None and _node_inputs.views(first, base.identity):
                return tuple(_entries([base]) + list(written[1:]))
        return tuple(_entries([base, value]))

    def __getattr__(self, name: str):
        # grad_fn._saved_self, _saved_result, ...: what PyTorch's node saved (_saved_attributes);
        # grad_fn._raw_saved_self, ...: its SavedTensor objects (_raw_saved)
        raw = name.startswith("_raw_saved_")
        if (raw or name.startswith("_saved_")) and self._h is not None:
            node_name, attr = self.name(), name[len("_raw_saved_" if raw else "_saved_"):]
            if attr in (_saved_attributes.tensor_names if raw else _saved_attributes.names)(node_name):
                if not raw and self._h.producer_freed and attr in _saved_attributes.tensor_names(node_name):
                    raise _freed_saved_tensor(self, name)
                from . import _raw_saved
                hooked = None if raw else _raw_saved.unpacked(self, attr)
                if hooked is not None:
                    return hooked[0]
                listed = self._h.producer_attr("torch_operands")
                operands = (self._composite_inputs() if listed
                            else _node_inputs.listed(self._op, node_name, self._h.producer_inputs))
                if raw:
                    return _raw_saved.saved_tensor(self, attr, lambda: _saved_attributes.value(
                        self, node_name, attr, operands, _saved_tensor))
                return _saved_attributes.value(self, node_name, attr, operands, _saved_tensor)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        node_name = self.name() if self._h is not None else ""
        own = ([f"_saved_{n}" for n in _saved_attributes.names(node_name)]
               + [f"_raw_saved_{n}" for n in _saved_attributes.tensor_names(node_name)]) if node_name else []
        return sorted(set(super().__dir__()) | set(own))

    def _composite_inputs(self) -> list:
        """The op's inputs; for a composite that names PyTorch's fused node (a loss, F.linear's
        addmm), its attribute torch_operands gives that node's operands in PyTorch's order
        (_torch_operands: paths of input indices down from this op; None for an operand PyTorch's
        node lists as (None, 0))."""
        flat = self._h.producer_attr("torch_operands")
        if not flat:
            return self._h.producer_inputs
        found = _torch_operands.resolve(self._h, flat)
        return self._h.producer_inputs if found is None else found

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


# Nodes PyTorch writes in C++ by hand (not generated from derivatives.yaml): name() gives their
# namespace, the class name and reprs do not (type(a.grad_fn).__name__ == 'CopyBackwards').
_NAMESPACED_NODES = {"CopySlices", "CopyBackwards"}
_BACKWARD_SUFFIXES = ("Backward0", "Backward1", "Backward2")

# The ops of a tensor and a number whose PyTorch node lists the number as (None, 0): add, sub,
# mul and div take it as a wrapped tensor; pow's and reciprocal's nodes take only the tensor.
_NUMBER_LISTED = frozenset({"AddScalar", "MulScalar", "RDivScalar"})
_NUMBER_NOT_LISTED = frozenset({"ReciprocalBackward0"})


_NODE_CLASSES: Dict[str, type] = {}


# PyTorch's sentence for saved tensors read after a backward() without retain_graph freed them
# (grad_fn._saved_<name>, a custom Function's ctx.saved_tensors)
FREED_SAVED_TENSORS = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.")


def _freed_saved_tensor(node: _GradFn, name: str) -> Exception:
    """PyTorch's RuntimeError for a saved tensor read after a backward() without retain_graph freed
    it (its other saved attributes, numbers and sizes, stay readable, as PyTorch's)."""
    return _C.TensorStateError(
        f"{FREED_SAVED_TENSORS}\n  {node.name()}.{name}: a backward() without retain_graph=True has run this node\n"
        "  fix: loss.backward(retain_graph=True) (or autograd.grad(..., retain_graph=True)) to read it after")


def _saved_tensor(handle) -> "Tensor":
    """A value a node saved, as the tensor object the script holds (x is y.grad_fn._saved_self),
    or a new tensor of it."""
    found = _holder(handle)
    return _wrap(handle) if found is None else found


def _grad_fn(op: str, handle):
    """A _GradFn whose class has the node's name, as type(t.grad_fn).__name__ is in PyTorch
    ('AddBackward0'): one subclass of _GradFn per name, made on first use. A custom
    autograd.Function's output (its Where, autograd/function.py) has the Function's ctx."""
    if op == "Where" and handle is not None:
        from .autograd.function import node_of
        ctx = node_of(handle)
        if ctx is not None:
            return ctx
    node = _GradFn(op, handle)
    name = node.name().rpartition("::")[2]
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = _NODE_CLASSES[name] = type(name, (_GradFn,), {"__slots__": (), "__module__": __name__})
    node.__class__ = cls
    return node


class _AccumulateGrad:
    """The node that accumulates a leaf's gradient into .grad (PyTorch's AccumulateGrad):
    .variable is the leaf. type(node).__name__ is PyTorch's name (scripts print it)."""

    __slots__ = ("_leaf", "_variable")

    def __init__(self, leaf):
        self._leaf = leaf  # the leaf's runtime handle
        self._variable = None

    @property
    def variable(self) -> "Tensor":
        """The leaf as the Python object the script holds (PyTorch's node keeps the leaf itself:
        `node.variable is x`), or a new tensor of it when no object holds it any more."""
        if self._variable is None:
            found = _holder(self._leaf)
            self._variable = _wrap(self._leaf) if found is None else found
        return self._variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    @property
    def metadata(self) -> dict:
        """The node's own dict for the user's entries (PyTorch's Node.metadata, _node_metadata)."""
        from . import _node_metadata
        return _node_metadata.of(self._leaf)

    @property
    def next_functions(self) -> tuple:
        return ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def _holder(handle) -> Optional["Tensor"]:
    """The live tensor object whose handle pins handle's value (a Parameter before a plain
    tensor), or None. Handles keep no link back to their Python objects and recording an op
    registers none (the hot path, _op), so this looks through the collector's objects: only
    AccumulateGrad.variable asks, once per node."""
    import gc
    identity, found = handle.identity, None
    for obj in gc.get_objects():
        try:
            is_tensor = isinstance(obj, Tensor)
        except ReferenceError:  # a weakref.proxy whose object is gone: isinstance reads its __class__
            continue
        if is_tensor:
            try:
                h = _HANDLE_SLOT.__get__(obj, Tensor)
            except AttributeError:  # a host tensor that holds its array still (array_tensor.py)
                continue
            if h.identity == identity and (found is None or type(found) is Tensor):
                found = obj
    return found


_AccumulateGrad.__name__ = _AccumulateGrad.__qualname__ = "AccumulateGrad"


def _wrap(handle) -> "Tensor":
    t = Tensor.__new__(Tensor)
    t._h = handle
    if _runtime._inference_blocks and _runtime.is_inference_mode_enabled():
        _INFERENCE_TENSORS[id(t)] = weakref.ref(t, _forget_inference_tensor(id(t)))
    return t


def _forget_inference_tensor(key: int):
    """The callback that drops key's entry from _INFERENCE_TENSORS when its tensor is collected."""
    def forget(_ref) -> None:
        _INFERENCE_TENSORS.pop(key, None)
    return forget


# The tensors made inside inference_mode() (Tensor.is_inference), by id, held weakly: an entry leaves
# when its tensor is collected. (Not a WeakSet: that compares tensors with ==, elementwise here.)
_INFERENCE_TENSORS: dict = {}

# The uninitialized parameters and buffers of lazy layers (nn/lazy.py), by id, held weakly as
# _INFERENCE_TENSORS: an op given one raises PyTorch's ValueError (its __torch_function__ refuses
# every torch function of one). Empty, and then not read, unless a lazy layer awaits its first forward.
_UNINITIALIZED: dict = {}


def _forget_uninitialized(key: int):
    def forget(_ref) -> None:
        _UNINITIALIZED.pop(key, None)
    return forget


def _refuse_uninitialized(name: str, inputs: Sequence["Tensor"]) -> None:
    """PyTorch's ValueError when an input of op `name` is an uninitialized lazy parameter or buffer."""
    for x in inputs:
        if id(x) in _UNINITIALIZED:
            from .nn import lazy
            lazy.refuse_in_op(x, name)


# The ops with several inputs whose gradient reads none of them (PyTorch's add, sub and cat save no
# tensor): an inference tensor may enter them beside one that requires grad.
_SAVES_NO_INPUT = frozenset({"Add", "Sub", "Concat"})

# Tensor.to's one-argument calls: the device strings (and glassgrad.device objects, equal to
# their strings) seen, -> the canonical device (_device.normalize's answer, which depends on the
# string alone outside a DataLoader worker). A training loop calls x.to(device) for every tensor
# of every batch, and telling a device from a dtype by name costs more than the copy's call.
_TO_DEVICE: Dict[str, str] = {}
# The ops whose output views their first input (the op schemas' view_of): as PyTorch's, a view of
# an inference tensor is one too, inside inference_mode() or not.
_VIEW_OPS = frozenset({"Detach", "Expand", "Permute", "Reshape", "Slice"})


def _check_inference_inputs(name: str, inputs: Sequence["Tensor"]) -> bool:
    """PyTorch's rule for inference tensors outside inference_mode(): an op autograd records (grad
    mode on, an input that requires grad) may not save one for its gradient. Returns whether the
    op's output views an inference tensor (and so is one)."""
    if _runtime.is_inference_mode_enabled():
        return False
    if name in _VIEW_OPS:
        return bool(inputs) and inputs[0].is_inference()
    if name in _SAVES_NO_INPUT or not _C.grad_enabled() or not any(x._h.requires_grad for x in inputs):
        return False
    for x in inputs:
        if not x._h.requires_grad and x.is_inference():
            raise _C.TensorStateError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                "`torch.inference_mode()`.\n"
                f"  {name}: an input {list(x.shape)} {x.dtype} was made inside inference_mode(), and another "
                "requires grad\n"
                "  fix: x = x.clone() outside inference_mode() before using it with parameters, or make it "
                "under glassgrad.no_grad() instead")
    return False


_AUTOGRAD_MODULES: tuple = ()


def _autograd_modules():
    """(autograd.anomaly, autograd.gradients), imported at the first backward (autograd imports nn,
    which imports this module) and kept: an import statement inside backward() costs a lookup
    in the import system on every step."""
    global _AUTOGRAD_MODULES
    if not _AUTOGRAD_MODULES:
        from .autograd import anomaly, gradients
        _AUTOGRAD_MODULES = (anomaly, gradients)
    return _AUTOGRAD_MODULES


_ELEMENTWISE: frozenset = _elementwise_layout.ELEMENTWISE


def _op(name: str, inputs: Sequence["Tensor"], attrs=None, _in_order: bool = False) -> "Tensor":
    """One node with one output, wrapped: nearly every op of every step comes here, so the
    recording is one runtime call (_C.lazy_record_op: _trace.record's node, the inputs' handles, the
    thread's scope, role and layer and the user's line read by the runtime) and _wrap is written out.
    _in_order: the layout of an elementwise op's result is decided (_record_op)."""
    if not _in_order and name in _ELEMENTWISE:
        for x in inputs:  # _elementwise_layout.needs_order, written out (most ops of a step are elementwise)
            h = x._h
            if h.is_view and not h.layout[2] and len(h.shape) > 1:
                try:
                    shape = np.broadcast_shapes(*[tuple(x._h.shape) for x in inputs])
                except ValueError:  # shapes that do not broadcast: the record below raises PyTorch's error
                    break
                order = _elementwise_layout.result_order(inputs, shape)
                if order is not None:  # a permuted input: the result laid out as PyTorch's
                    return _elementwise_layout.record_in_order(_op, _record_op, name, inputs, attrs, shape, order)
                break
    inference_view = _check_inference_inputs(name, inputs) if _INFERENCE_TENSORS else False
    if _UNINITIALIZED:
        _refuse_uninitialized(name, inputs)
    try:
        h = _C.lazy_record_op(name, inputs, attrs, _trace._local, _PACKAGE_DIR)
    except _C.DTypeError as e:  # (no cost on the path without an exception)
        _args.raise_unsupported_dtype(e, name, inputs, attrs)
        raise
    t = Tensor.__new__(Tensor)
    t._h = h
    if inference_view or (_runtime._inference_blocks and _runtime.is_inference_mode_enabled()):
        if h.is_view and name in _VIEW_OPS and not inputs[0].is_inference():
            _no_grad_views.made_in_inference_mode(t)  # PyTorch: a normal tensor (its in-place ops are checked)
        else:
            _INFERENCE_TENSORS[id(t)] = weakref.ref(t, _forget_inference_tensor(id(t)))
    if _saved_tensor_hooks.STACK:  # autograd.graph.saved_tensors_hooks: pack what PyTorch's node saves
        _saved_tensor_hooks.record(name, inputs, t, attrs)
    return t


# _op's recording, the layout of an elementwise op's result decided (one frame fewer per op than
# a second function that _op would call).
_record_op = functools.partial(_op, _in_order=True)


def _op_multi(name: str, inputs: Sequence["Tensor"], attrs=None):
    """One node with several outputs, each wrapped (recorded and _wrap written out as in _op)."""
    if _INFERENCE_TENSORS:
        _check_inference_inputs(name, inputs)  # no view op has several outputs
    if _UNINITIALIZED:
        _refuse_uninitialized(name, inputs)
    try:
        handles = _C.lazy_record_op_outputs(name, inputs, attrs, _trace._local, _PACKAGE_DIR)
    except _C.DTypeError as e:  # as _op's
        _args.raise_unsupported_dtype(e, name, inputs, attrs)
        raise
    inference = _runtime._inference_blocks and _runtime.is_inference_mode_enabled()
    outs = []
    for h in handles:
        t = Tensor.__new__(Tensor)
        t._h = h
        if inference:
            _INFERENCE_TENSORS[id(t)] = weakref.ref(t, _forget_inference_tensor(id(t)))
        outs.append(t)
    if _saved_tensor_hooks.STACK and outs:
        _saved_tensor_hooks.record(name, inputs, outs[0], attrs)
    return outs


def _op_handles(name: str, inputs: Sequence["Tensor"], attrs=None) -> list:
    """_op_multi's node, its output handles not wrapped: for outputs that only become other
    tensors' values through h.reset (BatchNorm's running statistics, every training step). While
    an inference tensor lives or saved-tensor hooks are on, _op_multi records it (its checks and
    hooks; the wrappers it makes are dropped)."""
    if _INFERENCE_TENSORS or _saved_tensor_hooks.STACK:
        return [t._h for t in _op_multi(name, inputs, attrs)]
    return _C.lazy_record_op_outputs(name, inputs, attrs, _trace._local, _PACKAGE_DIR)


class RefusedValueError(_C.InvalidArgumentError, RuntimeError):
    """An argument's value that PyTorch refuses with a RuntimeError (a ValueError here too): a
    number an integer dtype cannot hold as a fill value, a bound of clamp or an exponent, a
    negative integer power."""


def check_fits(value, dtype, where: str, data: bool = False, narrow_floats: bool = True) -> None:
    """Raises unless the number value converts to the integer dtype as PyTorch's checked conversion
    (fill_, full, masked_fill, x[key] = v, clamp's bounds, where's numbers) allows: an integer
    within [min, max] of a signed type or [-max, max] of an unsigned one (a negative one wraps,
    uint8's -3 being 253), a float within [min, max] (no NaN); any number converts to bool or
    float64, a finite one beyond float32's, float16's or bfloat16's largest value (65504 for
    float16, 70000 and 65519.0 too, before any rounding) does not to that type. narrow_floats=False
    lets float16 and bfloat16 take it as inf, where PyTorch converts unchecked (where's numbers,
    x[key] = v, the fill of a one-element CPU tensor: docs/porting.md, "Python numbers beside
    tensors"). A Python int outside [-2**63, 2**64) raises OverflowError first, whatever the dtype
    (_python_ints). The first line is PyTorch's sentence, which names a Scalar's C type (int8_t,
    int for int32, c10::Half) or, for torch.tensor's data (`data`), the dtype (int8); data's ints
    are read by _tensor_data, not checked for the Python range here."""
    if not data:
        _python_ints.check_int(value, where)
    name = _dtypes.plain(dtype)
    np_dtype = np.dtype(_NP[name])
    largest = _FLOAT_MAX.get(name) if narrow_floats or name == "float32" else None
    if largest is not None and isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_)) \
            and (isinstance(value, (numbers.Integral, np.integer)) or math.isfinite(value)) \
            and abs(value) > largest:  # type: ignore[operator]  # a Real's abs is comparable
        raise RefusedValueError(f"value cannot be converted to type {_FLOAT_TYPE_NAMES[name]} without overflow\n  "
                                f"{where}: {value} is beyond {name}'s largest finite value {largest:.8g}\n  fix: a "
                                f"value inside the range, float('inf') for an infinity, or compute in float32 or "
                                f"float64: x.float(), x.double()")
    if not isinstance(value, (numbers.Real, np.number, np.bool_)) or np_dtype.kind not in "iu":
        return
    info = np.iinfo(np_dtype)
    integral = isinstance(value, (numbers.Integral, np.integer, np.bool_))
    low = -int(info.max) if np_dtype.kind == "u" and integral else info.min
    number = int(value) if integral else float(value)  # type: ignore[arg-type]  # a Real is int()-able
    if not low <= number <= info.max:
        shown = name if data else _SCALAR_TYPE_NAMES[name]
        raise RefusedValueError(f"value cannot be converted to type {shown} without overflow\n  {where}: {value} is "
                                f"outside [{low}, {info.max}], the values {name} holds\n  fix: a value inside the "
                                f"range, or compute in int64: x.long()")


# The C types PyTorch's messages name for a number (a Scalar) converted to an integer dtype
_SCALAR_TYPE_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


# The C types PyTorch's messages name for a number converted to a floating dtype other than float64
_FLOAT_TYPE_NAMES = {"float32": "float", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


_INTEGER_NAMES = frozenset({"uint8", "int8", "int16", "int32", "int64"})
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT16_MAX = float(np.finfo(np.float16).max)
_FLOAT_MAX = {"float32": _FLOAT32_MAX, "float16": _FLOAT16_MAX, "bfloat16": 3.3895313892515355e38}


def _check_all_fit(arr: np.ndarray, dtype: str) -> None:
    """check_fits for every number of a nested list (as an array, before its conversion): what
    torch.tensor(data, dtype=<integer type>) checks. An integer beyond int64 is an object array."""
    if arr.size == 0 or arr.dtype.kind not in "iufO":
        return
    if arr.dtype.kind == "O":
        for v in arr.ravel():
            check_fits(v, dtype, "tensor", data=True)
        return
    info = np.iinfo(np.dtype(_NP[dtype]))
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr < info.min) | (arr > info.max)
    else:
        low = -int(info.max) if info.min == 0 else int(info.min)
        bad = (arr < low) | (arr > info.max)
    if bad.any():
        check_fits(arr.ravel()[int(np.argmax(bad.ravel()))].item(), dtype, "tensor", data=True)


def scalar_array(value, np_dtype) -> np.ndarray:
    """A Python number as a 0-d array of np_dtype. An integer outside an integer dtype's range
    wraps, as PyTorch converts scalars (uint8 - 1 is uint8 + 255, fill_(-1) of uint8 writes 255;
    2**63 is -2**63); a Python int outside [-2**63, 2**64) raises OverflowError (_python_ints)."""
    _python_ints.check_int(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
            and np.dtype(np_dtype).kind in "iu":
        value = _python_ints.wrapped(value) if type(value) is int else value
        return np.asarray(value, dtype=np.int64).astype(np_dtype)
    if isinstance(value, (float, int)) and not -_FLOAT16_MAX <= value <= _FLOAT16_MAX:  # inf, silently, as PyTorch
        with np.errstate(over="ignore"):
            return np.asarray(value, dtype=np_dtype)
    return np.asarray(value, dtype=np_dtype)


def _scalar_like(value, like: "Tensor", narrow_floats: bool = True) -> "Tensor":
    """A 0-d constant with `like`'s dtype and device (a leaf: its value is data, not structure);
    a number like's dtype cannot hold raises, as PyTorch's fill values do (check_fits, whose
    narrow_floats=False lets float16 and bfloat16 take an out-of-range float as inf)."""
    check_fits(value, like.dtype, "fill value", narrow_floats=narrow_floats)
    arr = scalar_array(value, _NP[like.dtype])
    return _wrap(_C.lazy_leaf(raw_from_numpy(arr, like.device, "constant", like.dtype), "constant", False, ""))


def _coerce(other, like: "Tensor") -> "Tensor":
    if isinstance(other, Tensor):
        return other
    if isinstance(other, (numbers.Number, np.number, np.bool_)):
        return _scalar_like(other, like)
    if isinstance(other, (np.ndarray, list, tuple)):
        return tensor(other, dtype=like.dtype, device=like.device)
    raise TypeError(f"unsupported operand type {type(other).__name__} for a glassgrad.Tensor")


def tensor(data, dtype=None, device=None, requires_grad: bool = False, name: str = "", *,
           pin_memory: bool = False) -> "Tensor":
    """Creates a tensor from an array, a nested list or a scalar (a copy, like torch.tensor).

    dtype defaults to the data's own (float64 arrays stay float64; Python floats become float32,
    Python ints int64). device defaults to the GPU when one is usable (see set_default_device).
    """
    if isinstance(data, Tensor):
        if not sys._getframe(1).f_code.co_filename.startswith(_PACKAGE_DIR):  # a script's own call
            warn_copy_construct("torch.tensor")
        dtype = data.dtype if dtype is None else dtype
        data = data._values()
    if isinstance(data, _C.Tensor):
        raw = data if dtype is None else None
        if raw is not None:
            dev = _device.normalize(device) if device is not None else raw.device
            raw = raw.to(dev)
            return _wrap(_C.lazy_leaf(raw, "input", requires_grad, name))
        data = data.numpy()
    want = None if dtype is None else _dtype_name(dtype)  # (each call written out here saves a frame per batch)
    if isinstance(data, np.ndarray):
        if not data.dtype.isnative or min(data.strides, default=0) < 0:  # (the batches' path stays frame-free)
            _numpy_arrays.check(data, "glassgrad.tensor")  # a negative stride or a foreign byte order, as PyTorch
        if data.dtype.kind in _numpy_arrays.REFUSED_KINDS or data.dtype.itemsize > 8 and data.dtype.kind == "f":
            _numpy_arrays.refuse_dtype(data, "glassgrad.tensor")  # objects, strings, dates, long double
        if not data.flags.c_contiguous and not requires_grad and _numpy_strides.applies(data) \
                and not sys._getframe(1).f_code.co_filename.startswith(_PACKAGE_DIR):
            # a script's copy laid out as clone() lays out the array's strides, as PyTorch's (a
            # transpose's order kept); glassgrad's own calls and a leaf requiring grad: row-major
            kept = _numpy_strides.viewed(data, lambda span: tensor(span, dtype, device, False, name))
            return kept.clone()
    if isinstance(data, (list, tuple)) and data:
        _warn_list_of_arrays(data)
    arr = _list_array(data, want) if isinstance(data, (list, tuple)) else np.asarray(data)
    if arr.dtype.kind in "OSU" and not isinstance(data, np.ndarray):
        arr = _tensor_data.numbers_of(data, want, arr)  # PyTorch's error for what its reader refuses
    if arr.dtype.kind == "c" and not isinstance(data, np.ndarray):
        values = arr.ravel().tolist()
        shown = next((v for v in values if v.imag), values[0] if values else None)
        raise _C.DTypeError(f"glassgrad.tensor: complex numbers are not supported (the data holds {shown!r}); "
                            f"PyTorch makes a complex tensor here, glassgrad has no complex dtype\n  fix: keep the "
                            f"real part (z.real) or hold the real and imaginary parts as two tensors")
    if want is None and not isinstance(data, (np.ndarray, np.generic)) and _overflows_int64(arr):
        big = next(int(v) for v in arr.ravel().tolist() if not -2 ** 63 <= int(v) < 2 ** 63)
        raise _C.InvalidArgumentError(f"Overflow when unpacking long long\n  glassgrad.tensor: the Python int {big} "
                                      f"does not fit int64, the dtype of Python ints (as PyTorch refuses it)\n  fix: "
                                      f"a float for a value this large (float({big})), or dtype=torch.float64")
    if want is not None:
        if not isinstance(data, (np.ndarray, np.generic)) and want in _INTEGER_NAMES:
            try:
                _check_all_fit(arr, want)  # Python numbers convert checked (NumPy arrays wrap), as in torch.tensor
            except RefusedValueError:
                _tensor_data.refuse(data, want)  # an int beyond int64 fails first, as PyTorch unpacks it
                raise
        arr = _quiet_cast(arr, _NP[want])  # an explicit dtype is the user's conversion
    elif isinstance(data, (list, tuple)) and arr.dtype.kind in "biuf" \
            and (inferred := _dtypes.data_dtype(data)) is not None:
        # a list's elements promote together, NumPy scalars with their own dtype (torch.tensor)
        if arr.dtype.kind == "f" and not inferred.is_floating_point:
            _tensor_data.refuse(data, None)  # ints that NumPy read as floats: one is beyond int64 ([1, 2**63])
        want = _dtypes.plain(inferred)
        arr = _quiet_cast(arr, _NP[want])
        want = None if want != "bfloat16" else want
    elif not isinstance(data, (np.ndarray, np.generic)):
        # Python numbers and lists: floats become float32 and ints int64, like torch.tensor.
        # NumPy arrays and scalars keep their dtype (np.float64 is a float subclass: test it first).
        if arr.dtype.kind == "f":
            arr = _quiet_cast(arr, _NP[_dtypes.plain(_dtypes.DEFAULT_FLOAT)])
            want = None if _dtypes.DEFAULT_FLOAT != "bfloat16" else "bfloat16"
        elif arr.dtype.kind in "iu":
            arr = arr.astype(np.int64)
    # NumPy arrays keep their dtype; an unsupported one (e.g. int32 labels) is refused with the fix.
    # The allocation log names the buffer after the tensor, or the line that created it.
    dev = _device.default_device() if device is None else _device.normalize(device)
    label = name or f"tensor@{_C.user_source(_PACKAGE_DIR)}"  # (_trace.user_source)
    raw = _C.Tensor.from_numpy(arr, dev, label) if want is None else raw_from_numpy(arr, dev, label, want)
    return _wrap(_C.lazy_leaf(raw, "input", requires_grad, name))


def _quiet_cast(arr: np.ndarray, np_dtype) -> np.ndarray:
    """arr as np_dtype, a float beyond the type's range becoming +-inf and a NaN or infinity cast
    to an integer type without NumPy's RuntimeWarning: torch.tensor([1e6], dtype=float16) is inf,
    silently (docs/porting.md, "Python numbers beside tensors")."""
    if arr.dtype.kind != "f":
        return arr.astype(np_dtype, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.astype(np_dtype, copy=False)


def warn_copy_construct(spelled: str) -> None:
    """PyTorch's UserWarning (every call) when torch.tensor(t) or t.new_tensor(s) copies a tensor."""
    warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  f"sourceTensor.detach().clone().requires_grad_(True), rather than {spelled}(sourceTensor).",
                  UserWarning, stacklevel=_trace.user_stacklevel())


_LIST_OF_ARRAYS_WARNED = [False]


def _warn_list_of_arrays(data) -> None:
    """PyTorch's once-per-process UserWarning (TORCH_WARN_ONCE) when a list it copies element by element
    holds NumPy arrays: a list whose first element's chain of lists ends in a non-empty ndarray."""
    first = data[0]
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, np.ndarray) and first.size and _runtime.warn_once(_LIST_OF_ARRAYS_WARNED):
        warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                      "the list to a single numpy.ndarray with numpy.array() before converting to a tensor.",
                      UserWarning, stacklevel=_trace.user_stacklevel())


def _list_array(data, want: Optional[str]) -> np.ndarray:
    """A list's values as an array. Tensors later in a list whose first items are numbers are found
    only when NumPy cannot read them (one that requires grad, or of several elements) or reads
    them as objects: the list is then read again with every leaf-depth item taken as a number."""
    try:
        arr = np.asarray(_leaf_tensors_as_numbers(data, want))
    except (RuntimeError, ValueError, TypeError):
        read = _leaf_tensors_as_numbers(data, want, every=True)
        try:
            return np.asarray(read)
        except (ValueError, TypeError):  # ragged rows: PyTorch's error for them, if its reader gives one
            empty = _tensor_data.ragged(data, want)
            if empty is None:
                raise
            return empty
    return arr if arr.dtype.kind != "O" else np.asarray(_leaf_tensors_as_numbers(data, want, every=True))


def _leaf_tensors_as_numbers(data, want: Optional[str] = None, every: bool = False):
    """data with the tensors at its leaf depth replaced by their numbers, as torch.tensor reads a
    list: its depth is that of the first elements' chain of lists, a tensor ending the chain (not
    a sequence to PyTorch), so each tensor at that depth must hold one element (of any shape:
    [tensor([1.]), tensor([2.])] is tensor([1., 2.])). data itself when no tensor ends the chain,
    unless `every` (then each item at that depth is read so, as PyTorch reads [1.0, tensor(2.)]).
    As PyTorch reads each such tensor as a Python number: one that requires grad gives float()'s
    warning, and a floating one is refused for an integer or bool `want` dtype (its __index__)."""
    depth, first = 0, data
    while isinstance(first, (list, tuple)) and first:
        depth, first = depth + 1, first[0]
    if not every and not isinstance(first, Tensor):
        return data
    integral = want is not None and (want in _INTEGER_NAMES or want == "bool")

    def number(t):
        if not isinstance(t, Tensor):
            return t
        if t.numel() != 1:  # PyTorch's TypeError (a ValueError here too, as item()'s)
            raise _args.InvalidArgumentTypeError(
                f"only one element tensors can be converted to Python scalars\n  glassgrad.tensor: a list's "
                f"innermost items are numbers, and this tensor of shape {list(t.shape)} holds {t.numel()} "
                f"(as in PyTorch)\n  fix: glassgrad.stack(tensors) to join tensors into one")
        if integral and t.is_floating_point():
            raise TypeError(f"only integer tensors of a single element can be converted to an index\n  "
                            f"glassgrad.tensor: a {t.dtype} tensor in the list, and dtype={want} asked for (as "
                            f"PyTorch refuses it)\n  fix: convert the tensor first: t.to(glassgrad.{want}), or "
                            f"glassgrad.stack(tensors).to(glassgrad.{want})")
        if t.requires_grad and _C.grad_enabled():
            _warn_float_of_grad(_trace.user_stacklevel() + 1)  # (warned one frame further in)
        return t.item()

    def walk(x, d):
        return [walk(v, d + 1) for v in x] if d < depth and isinstance(x, (list, tuple)) else number(x)
    return walk(data, 0)


def _overflows_int64(arr: np.ndarray) -> bool:
    """Whether NumPy read Python ints outside int64 (as uint64, or as objects past uint64): they
    would wrap silently in the int64 a Python int becomes."""
    if arr.dtype == np.uint64:
        return bool(arr.size) and int(arr.max()) >= 2 ** 63
    return arr.dtype.kind == "O" and bool(arr.size) and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.ravel().tolist())


def legacy_sizes(args, who: str) -> Optional[Tuple[int, ...]]:
    """The shape that the legacy constructors' arguments name (Tensor(2, 3), Tensor(Size([4])),
    Tensor() for an empty one, as x.new and FloatTensor take them), or None when they are one
    piece of data; anything else raises."""
    if len(args) == 1 and isinstance(args[0], Size):
        return tuple(args[0])
    if all(isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool) for a in args):
        return tuple(int(a) for a in args) or (0,)
    if len(args) != 1:
        raise TypeError(f"{who}(): pass data (a list or an array) or sizes (ints), got {len(args)} arguments "
                        f"of types {[type(a).__name__ for a in args]}\n  fix: glassgrad.tensor(data) or "
                        "glassgrad.zeros(*sizes)")
    return None


def legacy_shape(args, size, who: str) -> Optional[Tuple[int, ...]]:
    """legacy_sizes, or the shape given as the legacy constructors' keyword (PyTorch's
    torch.Tensor(size=(2, 3), device=d), FloatTensor(size=[4])): a tuple or list of ints, alone;
    size=() is the 0-d shape."""
    if size is None:
        return legacy_sizes(args, who)
    if args or not isinstance(size, (tuple, list)):
        got = ", ".join([type(a).__name__ for a in args] + [f"size={type(size).__name__}"])
        raise TypeError(f"{who}(): size= takes a tuple of ints and no other arguments, got ({got})\n"
                        f"  fix: {who}(size=(2, 3)) or {who}(2, 3)")
    return _shape_args(tuple(size), f"{who}(size=...)")


# The name PyTorch's argument parser gives the sizes of these ops ('size' for the others)
_SIZES_NAME = {"reshape": "shape", "permute": "dims", "repeat": "repeats", "tile": "dims", "unflatten": "sizes"}


def _shape_args(shape, op: str = "shape", name: str = "") -> Tuple[int, ...]:
    """The sizes given as f(2, 3) or f((2, 3)) as a tuple of ints. As PyTorch's, a size is an int or
    something with __index__ (a NumPy integer, a one-element integer tensor): anything else is
    PyTorch's TypeError naming `op` and its argument (`name`, else _SIZES_NAME's or 'size')."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    elif len(shape) == 1 and type(shape[0]) is not int and _index(shape[0]) is None:
        # one argument that is neither sizes nor a size: PyTorch's parser names its type
        raise TypeError(f"{op}(): argument '{name or _SIZES_NAME.get(op, 'size')}' (position 1) must be tuple of "
                        f"ints, not {type(shape[0]).__name__}\n  fix: {_sizes_fix(shape[0], op)}")
    for s in shape:
        if type(s) is not int:
            return tuple(_size(s, i, op, name) for i, s in enumerate(shape))
    return tuple(shape)  # the common case: ints already (checked without a generator's frame)


def sizes_or_keyword(args: tuple, value, op: str, keyword: str) -> tuple:
    """The sizes of a method taking them as *args or as one keyword (PyTorch's x.view(size=...),
    x.repeat(repeats=...)): (value,) when the keyword was given, refused when both were."""
    if value is None:
        return args
    if args:
        raise _args.InvalidArgumentTypeError(f"{op}() got the sizes both as arguments {args} and as {keyword}="
                                             f"{value}\n  fix: pass them once")
    return (value,)


def _sizes_fix(given, op: str) -> str:
    if isinstance(given, Tensor):
        return f"pass the tensor's values as ints: {op}(*sizes.tolist())"
    return "sizes are whole numbers: int(n), or n // 2 instead of n / 2"


def _index(s) -> Optional[int]:
    """s as a size (an int or something with __index__, not a float or a bool), else None."""
    if not isinstance(s, (bool, float, np.floating, np.bool_)):
        try:
            return operator.index(s)
        except TypeError:
            pass
    return None


def _size(s, pos: int, op: str, name: str = "") -> int:
    size = _index(s)
    if size is None:
        raise TypeError(f"{op}(): argument '{name or _SIZES_NAME.get(op, 'size')}' (position 1) must be tuple of "
                        f"ints, but found element of type {type(s).__name__} at pos {pos}\n  fix: {_sizes_fix(s, op)}")
    return size


def _dim(dim, ndim: int, op: str, shape=None) -> int:
    """`dim` as an axis of an ndim-d tensor (negative counts from the end), or an IndexError
    naming the op and the valid range: never wrapped modulo ndim (the engine's ShapeContext::axis
    says the same for the ops it checks)."""
    if type(dim) is int and -ndim <= dim < ndim:  # the common case, without the ABC checks below
        return dim % ndim
    held = _args.tensor_index(dim)  # a 0-d integer tensor reads as its int, as PyTorch's parser reads it
    if held is None and (isinstance(dim, bool) or not isinstance(dim, (numbers.Integral, np.integer))):
        raise TypeError(f"{op}: dim must be an int, got {type(dim).__name__}")
    d = int(dim) if held is None else held
    if -ndim <= d < ndim:
        return d % ndim
    where = f" {list(shape)}" if shape is not None else ""
    valid = f"[{-ndim}, {ndim - 1}]" if ndim else "none: the input has no axes"
    raise _C.GlassgradIndexError(f"{op}: dim {d} is out of range for a {len(shape) if shape is not None else ndim}-d "
                                 f"input{where}\n  valid: {valid}\n  fix: use a dim in {valid} (negative values "
                                 f"count from the end)")



_FLOAT_OF_GRAD_WARNED = [False]
# PyTorch's words for float(t) / int(t) of a tensor without exactly one element (a ValueError there;
# InvalidArgumentError is one)
_NOT_A_PYTHON_SCALAR = "only one element tensors can be converted to Python scalars"


def _not_one_element(t, first_line: str) -> str:
    """The message of item() / float() / int() on a tensor of other than one element: PyTorch's
    first line, then its shape and the fix."""
    return (f"{first_line}\n  the tensor has shape {list(t.shape)}\n"
            f"  fix: reduce it first, e.g. t.mean().item(), or use t.tolist() / t.numpy()")


def _warn_float_of_grad(stacklevel: int = 3) -> None:
    """PyTorch 2's warning for float() of a tensor that requires grad ('%1.3f' % loss), given once
    per process as PyTorch gives it (TORCH_WARN_ONCE), and only while gradients are enabled (not
    under no_grad or inference_mode); its text, so that filters written for PyTorch's match. item()
    and int() do not warn, as in PyTorch."""
    if _runtime.warn_once(_FLOAT_OF_GRAD_WARNED):
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                      "Consider using tensor.detach() first.", UserWarning, stacklevel=stacklevel)


class Tensor:
    """A value of the static graph: shape and dtype are known at once; data when needed."""

    # type(x) shows <class 'glassgrad.Tensor'>, as PyTorch's <class 'torch.Tensor'> (its public name)
    __module__ = "glassgrad"

    # _array: a CPU tensor made by host_tensor() holds its NumPy array instead of a handle until
    # first used as a tensor (utils/data/_utils/array_tensor.py, which gives the class a
    # __getattr__ while any tensor holds one); ordinary tensors never set it. __dict__: attributes
    # a script sets on a tensor (`inp.g = grad`, `p.no_decay = True`) stay on it, as on PyTorch's;
    # deepcopy, copy and pickling carry them (__deepcopy__, __reduce__).
    # _view_base: a view's root (Tensor._base, _view_base.py), set on views only.
    __slots__ = ("_h", "_array", "_view_base", "__weakref__", "__dict__")
    __hash__ = object.__hash__
    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, *args, size=None, dtype=None, device=None, requires_grad=False):
        """Tensor(data) copies data into the default float type, as torch.Tensor(data) does
        (torch.Tensor is torch.FloatTensor's alias: an int64 or float64 NumPy array becomes float32;
        glassgrad.tensor(array) keeps the array's dtype); a tensor keeps its own. Tensor(*sizes),
        Tensor(Size) and Tensor(size=sizes) give zeros of the default float type, as PyTorch's
        legacy constructor (uninitialized there)."""
        shape = legacy_shape(args, size, "Tensor")
        if shape is not None:
            from ._factories import zeros
            self._h = zeros(shape, dtype=dtype, device=device, requires_grad=requires_grad)._h
            return
        data = args[0]
        if isinstance(data, np.ndarray):  # refused and warned about as from_numpy's, as PyTorch's
            _numpy_arrays.check(data, "glassgrad.Tensor")
            _numpy_arrays.warn_if_not_writable(data)
        if dtype is None and not isinstance(data, (np.generic, Tensor, _C.Tensor)):
            dtype = _dtypes.DEFAULT_FLOAT
        self._h = tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)._h

    # ---- metadata: never computes anything ----
    @property
    def shape(self) -> Size:
        """The shape, a glassgrad.Size (Tensor.shape); known without computing anything."""
        return tuple.__new__(Size, self._h.shape)  # the runtime's shape: a tuple of ints already

    @property
    def dtype(self) -> _dtypes.dtype:
        """The element type, a glassgrad.dtype such as glassgrad.float32 (Tensor.dtype)."""
        return DTYPES[self._h.dtype]

    @property
    def device(self) -> _device.device:
        """Where the data lives, a glassgrad.device: 'cpu' or 'cuda:<i>' (Tensor.device)."""
        return _device.as_device(self._h.device)

    @property
    def ndim(self) -> int:
        """The number of dims (Tensor.ndim)."""
        return len(self._h.shape)

    def dim(self) -> int:
        """The number of dims (Tensor.dim, Tensor.ndimension)."""
        return self.ndim

    ndimension = dim

    def size(self, dim: Optional[int] = None):
        """The shape as a glassgrad.Size (a tuple), or the size of one dim (PyTorch's Tensor.size)."""
        return self.shape if dim is None else self.shape[_dim(dim, self.ndim, "size", self.shape)]

    def numel(self) -> int:
        """The number of elements (Tensor.numel, Tensor.nelement)."""
        return math.prod(self._h.shape)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element (PyTorch's Tensor.element_size)."""
        return self.dtype.itemsize

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating type (Tensor.is_floating_point)."""
        return self.dtype.is_floating_point

    @property
    def is_cuda(self) -> bool:
        """Whether the tensor is on a GPU (Tensor.is_cuda)."""
        return self.device.startswith("cuda")

    @property
    def is_cpu(self) -> bool:
        """Whether the tensor is on the CPU (Tensor.is_cpu)."""
        return self.device == "cpu"

    @property
    def is_xpu(self) -> bool:
        """False: glassgrad runs on the CPU and on CUDA GPUs (PyTorch's Tensor.is_xpu)."""
        return False

    def get_device(self) -> int:
        """The CUDA device's index, or -1 on the CPU (PyTorch's Tensor.get_device)."""
        return int(self.device.split(":")[1]) if self.is_cuda else -1

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """Without dtype: the tensor type's name as PyTorch prints it ('glassgrad.FloatTensor',
        'glassgrad.cuda.LongTensor' on a GPU). With one (a dtype or such a name): this tensor
        converted to it, as x.to(dtype). torch.Tensor (the class, or its name) is the default
        tensor type, a CPU one: the default float type (get_default_dtype) on the CPU."""
        if dtype is None:
            where = "cuda." if self.is_cuda else ""
            return f"glassgrad.{where}{_dtypes.TENSOR_TYPE_NAMES[_dtypes.plain(self.dtype)]}"
        if dtype is Tensor or dtype in ("torch.Tensor", "glassgrad.Tensor"):
            return self.to(device="cpu", dtype=_dtypes.get_default_dtype())
        if isinstance(dtype, str) and ".cuda." in dtype:
            return self.to(device="cuda", dtype=dtype.replace(".cuda.", "."))
        typed = getattr(dtype, "_dtype", None)  # torch.DoubleTensor, torch.cuda.FloatTensor
        if isinstance(typed, _dtypes.dtype):
            return self.to(device="cuda" if dtype._cuda else "cpu", dtype=typed)
        return self.astype(dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        """The slices along dim 0, in order (iterating a tensor, as in PyTorch)."""
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self) -> "Tensor":
        """This tensor flipped along dim 0 (reversed(x), as PyTorch's __reversed__; a 0-d tensor itself)."""
        return self if self.ndim == 0 else self.flip(0)

    def __contains__(self, element) -> bool:
        """Whether some element equals `element` (a number or a tensor broadcast against this
        one), as PyTorch's `element in x`; computes now."""
        if not isinstance(element, (Tensor, numbers.Number, np.number, np.bool_)):
            raise _C.InvalidArgumentError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                                          f"{type(element)}.\n  fix: test a number or a tensor, e.g. 2 in x")
        return bool((self == element).any().item())

    @property
    def itemsize(self) -> int:
        """Bytes per element (Tensor.itemsize)."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take, numel() * itemsize (Tensor.nbytes)."""
        return self.numel() * self.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of this tensor's first element (Tensor.data_ptr), computing it first: equal
        for two tensors that share memory at the same offset."""
        return int(self._raw().data_ptr)

    def is_shared(self) -> bool:
        """Whether this CPU tensor lives in shared memory (Tensor.is_shared; see share_memory_)."""
        return _shared_memory.is_shared(self)

    def share_memory_(self) -> "Tensor":
        """Moves this CPU tensor into shared memory (Tensor.share_memory_): processes that get it
        afterwards (forked, or spawned with it pickled) read and write the same values, e.g. a
        model trained by several processes at once. A GPU tensor is left as it is."""
        return _shared_memory.share_(self)

    def __reduce__(self):
        """Pickling (multiprocessing, copy): the values, or a shared tensor's shared memory, and
        the attributes set on the tensor (restored into the new one's __dict__)."""
        reduced = _shared_memory.reduce_tensor(self)
        return (*reduced, dict(self.__dict__)) if self.__dict__ else reduced

    def pin_memory(self, device=None) -> "Tensor":
        """A copy of this CPU tensor in page-locked memory (this tensor when it is pinned already),
        as PyTorch's Tensor.pin_memory: host-to-GPU copies from it can overlap compute."""
        from .utils.data._utils.pin_memory import pinned_tensor
        if self.requires_grad:
            raise _C.DeviceError(f"pin_memory: this tensor of shape {tuple(self.shape)} requires grad, and its pinned "
                                 f"copy would not carry the gradient back\n  fix: x.detach().pin_memory()")
        return pinned_tensor(self)

    def is_pinned(self, device=None) -> bool:
        """Whether this is a CPU tensor in page-locked memory (Tensor.is_pinned)."""
        from .utils.data._utils.pin_memory import is_pinned
        return is_pinned(self)

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers (Tensor.is_signed): not bool or uint8."""
        return self.dtype not in ("bool", "uint8")

    def is_nonzero(self) -> bool:
        """Whether the one element is nonzero (Tensor.is_nonzero); computes it."""
        if self.numel() != 1:
            what = "no values" if self.numel() == 0 else "more than one value"
            raise _C.InvalidArgumentError(f"Boolean value of Tensor with {what} is ambiguous\n  is_nonzero: the "
                                          f"tensor has shape {list(self.shape)}\n  fix: reduce it first, e.g. "
                                          f"x.any() or x.all()")
        return bool(self.item())

    def is_same_size(self, other: "Tensor") -> bool:
        """Whether other has this tensor's shape (Tensor.is_same_size)."""
        return tuple(self.shape) == tuple(other.shape)

    # Complex numbers, sparse layouts, quantization and inference mode are not glassgrad's: for its
    # real dense tensors these are PyTorch's answers for real dense tensors.
    def conj(self) -> "Tensor":
        """This tensor: the conjugate of a real tensor is itself (Tensor.conj)."""
        return self

    resolve_conj = resolve_neg = conj

    def is_conj(self) -> bool:
        """False: a real tensor has no conjugate bit (Tensor.is_conj)."""
        return False

    def is_neg(self) -> bool:
        """False: a real tensor has no negative bit (Tensor.is_neg)."""
        return False

    def is_inference(self) -> bool:
        """Whether this tensor was made inside inference_mode() (Tensor.is_inference)."""
        ref = _INFERENCE_TENSORS.get(id(self))
        return ref is not None and ref() is self

    @property
    def real(self) -> "Tensor":
        """This tensor: the real part of a real tensor (Tensor.real)."""
        return self

    @property
    def imag(self) -> "Tensor":
        """Refused, as PyTorch refuses it for a real tensor (Tensor.imag; glassgrad has no complex dtype)."""
        raise _C.UnsupportedError(f"imag is not implemented for tensors with non-complex dtypes.\n  imag: the input "
                                  f"is {self.dtype} {list(self.shape)}, a real tensor (glassgrad has no complex "
                                  f"dtype)\n  fix: a real tensor's imaginary part is zeros: torch.zeros_like(x)")

    @property
    def is_sparse(self) -> bool:
        """False: a Tensor is strided (Tensor.is_sparse); glassgrad.sparse holds the COO layout
        (docs/porting.md)."""
        return False

    @property
    def is_quantized(self) -> bool:
        """False: glassgrad has no quantized tensors (Tensor.is_quantized)."""
        return False

    @property
    def is_meta(self) -> bool:
        """False: every glassgrad tensor has data, on the CPU or a GPU (Tensor.is_meta)."""
        return False

    # The devices and layouts glassgrad has none of (PyTorch's Apple GPU, XLA, IPU, MAIA, MTIA,
    # Vulkan and oneDNN tensors, and nested tensors): False for every tensor, as is_meta.
    is_mps = is_xla = is_ipu = is_maia = is_mtia = is_vulkan = is_mkldnn = is_nested = property(lambda self: False)

    def record_stream(self, s) -> None:
        """Tensor.record_stream(s): nothing to do. PyTorch keeps a freed block from reuse until
        the work queued on stream s has run; glassgrad runs every kernel and copy of a device on
        the device's one stream, in order, so a freed block is reused only after that work
        (docs/cuda.md, "Each device has its primary context and one stream")."""
        if s is None:
            raise RuntimeError("record_stream: unknown parameter type (None)\n  fix: pass the stream the tensor is "
                               "used on, e.g. torch.cuda.current_stream()")

    @property
    def H(self) -> "Tensor":
        """The conjugate transpose of a matrix, for real dtypes its transpose (Tensor.H); a 0-d
        tensor is itself, with PyTorch's deprecation warning."""
        if self.ndim == 0:
            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                          stacklevel=_trace.user_stacklevel())
            return self
        if self.ndim != 2:
            raise _C.ShapeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.\n"
                                f"  fix: x.mH for the last two dims of a batch, or x.transpose(a, b)")
        return self.transpose(0, 1)

    @property
    def mH(self) -> "Tensor":
        """The last two dims swapped, for real dtypes (Tensor.mH, as mT)."""
        from . import _shapes  # (it imports this module)
        return _shapes.matrix_transpose(self, "mH", "Consider using x.conj().")

    @property
    def strides(self) -> Tuple[int, ...]:
        """Element strides of the computed data (computes it if needed)."""
        return self._raw().strides

    @property
    def requires_grad(self) -> bool:
        """Whether gradients flow to this tensor (Tensor.requires_grad); settable on leaves. A view
        made under no_grad() or inference_mode() of a tensor that requires grad says True, as
        PyTorch's view of a base that requires grad does (its grad_fn stays None, and it stays a
        leaf); the gradient of what is computed from it stops there (docs/inplace-and-views.md)."""
        h = self._h
        if h.requires_grad:
            return True
        if not h.is_view:
            return False
        made = h.view_made_without_grad
        return made is not None and made[1]

    @requires_grad.setter
    def requires_grad(self, on: bool) -> None:
        if on and self.is_inference() and not _runtime.is_inference_mode_enabled():
            raise _C.TensorStateError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.\n"
                f"  this tensor {list(self.shape)} {self.dtype} was made inside inference_mode()\n"
                "  fix: x = x.clone() outside inference_mode() gives a normal tensor to train with")
        self._h.set_requires_grad(bool(on))

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Turns gradient tracking of this leaf on (or off) and returns it (Tensor.requires_grad_).
        requires_grad is a Python bool, as PyTorch's parser takes (1, None or a tensor is its TypeError)."""
        if type(requires_grad) is not bool:
            raise _args.InvalidArgumentTypeError(
                f"requires_grad_(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}\n"
                f"  fix: x.requires_grad_(True) or x.requires_grad_(False)")
        if requires_grad and not self.dtype.is_floating_point:  # PyTorch's words differ from the setter's
            raise _C.DTypeError(f"only Tensors of floating point dtype can require gradients\n  requires_grad_() on a "
                                f"{self.dtype} tensor {list(self.shape)}\n  fix: x.float().requires_grad_()")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """Whether gradients stop at this tensor (Tensor.is_leaf): it was made directly (data,
        parameters), or, as PyTorch counts it, computed from tensors that require no gradient,
        or a view made under no_grad() (docs/inplace-and-views.md, "Views made under no_grad")."""
        h = self._h
        return h.is_leaf or not h.requires_grad or _no_grad_views.is_own(h)

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (Tensor.output_nr): 0 but for the later
        results of a function PyTorch computes as one node of several outputs (_output_numbers)."""
        return _output_numbers.output_nr(self)

    @property
    def grad_fn(self) -> Optional["_GradFn"]:
        """None for a leaf; else the op that computed the tensor, named as PyTorch names its
        backward nodes (Tensor.grad_fn.name() gives 'MulBackward0' for a glassgrad Mul)."""
        if self.is_leaf:
            return None
        h = self._h
        while h.producer_attr("unrecorded_write"):  # a write autograd does not record keeps the node
            h = h.producer_inputs[1].producer_inputs[1].producer_inputs[1]  # (alias.cpp, passed_through)
        return _grad_fn(h.op or "Alias", h)

    @property
    def name(self) -> str:
        """The tensor's name in plans and the allocation log (glassgrad's own; '' when unnamed)."""
        return self._h.name

    @property
    def grad(self) -> Optional["Tensor"]:
        """The gradient backward() accumulated for this leaf, or None (Tensor.grad): the same
        tensor object on every read, which backward() accumulates into in place (docs/autograd.md)."""
        if _grad_views.LINKED:  # a view assigned as .grad (a flat gradient buffer's slice)
            view = _grad_views.view_of(self)
            if view is not None:
                return view
        g = self._h.grad()
        if g is None and not self.is_leaf and not self._h.retains_grad:
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                          "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                          "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                          "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                          "instead.", UserWarning, stacklevel=_trace.user_stacklevel())
        if g is None:
            return None
        if self._h.is_view and self._h.is_leaf:  # laid out as the leaf, where it is dense (_grad_views)
            laid = _grad_views.laid_out_like(self, g)
            if laid is not None:
                return laid
        return _grad_objects.get(self, g, _wrap)

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        """Sets .grad to None or a tensor of this tensor's dtype, device and shape, as PyTorch's
        setter checks them in that order (`a.grad = 0.` raises its TypeError, `a.grad = a` and a
        gradient of another dtype, device or shape its RuntimeError; zero a gradient with
        a.grad = None)."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}\n  fix: x.grad = None (or x.grad.zero_()) to clear it, "
                                f"or a tensor: x.grad = glassgrad.zeros_like(x)")
            if value is self:
                raise _C.TensorStateError("can't assign Variable as its own grad\n"
                                          "  fix: x.grad = x.detach().clone() for a gradient equal to its values")
            if value.dtype != self.dtype:
                raise _C.TensorStateError(
                    f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with dtype "
                    f"'{self.dtype}'. Please ensure that the gradient and the tensor have the same dtype\n"
                    f"  fix: x.grad = g.to(x.dtype)")
            if value.device != self.device:
                raise _C.TensorStateError(
                    f"attempting to assign a gradient on device '{value.device}' to a tensor on device "
                    f"'{self.device}'. Please ensure that the gradient and the tensor are on the same device\n"
                    f"  fix: x.grad = g.to(x.device)")
            if value.shape != self.shape:
                raise _C.TensorStateError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size\n"
                    f"  fix: a gradient of the tensor's shape, e.g. x.grad = g.reshape(x.shape)")
        if _grad_views.LINKED:
            _grad_views.unlink(self)
        if value is not None and value._h.is_view:  # its memory is its base's: linked (_grad_views)
            _grad_objects.forget(self)
            _grad_views.link(self, value)
            return
        self._h.set_grad(None if value is None else value._h)
        if value is None:
            _grad_objects.forget(self)
        else:  # as PyTorch: p.grad is value now, and backward() accumulates into it
            _grad_objects.remember(self, value)

    # PyTorch's Tensor._grad is the same getter and setter as .grad (A3C-style scripts copy a local
    # model's gradients onto a shared one with `global_param._grad = local_param.grad`)
    _grad = grad

    # ---- realizing ----
    def _raw(self) -> "_C.Tensor":
        return self._h.data()

    @property
    def layout(self):
        return _layouts.strided

    def to_sparse(self):
        """The nonzero entries as a coalesced sparse_coo tensor (torch's Tensor.to_sparse)."""
        from .sparse import to_sparse
        return to_sparse(self)

    def to_dense(self) -> "Tensor":
        return self

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy copy of the data (computes pending work first) (Tensor.numpy). As PyTorch's,
        unless force=True: a tensor on a GPU other than the default device is refused with
        TypeError (x.cpu().numpy() copies it; one on the default device converts, as PyTorch's
        CPU tensors do), and so is a tensor that requires grad while gradients are recorded
        (outside no_grad()); force=True detaches and copies to the host, as x.detach().cpu().numpy().
        A bfloat16 tensor is refused (NumPy has no bfloat16): x.float().numpy(). Library code
        reads values with numpy(force=True), so it works on any device."""
        if not force:
            device = self.device
            # glassgrad's default device is the GPU where PyTorch's is the CPU (docs/porting.md,
            # deliberate differences): a tensor on the default device converts, as a PyTorch
            # script's CPU tensors do; one moved to a GPU off the default raises as PyTorch's
            if device.type != "cpu" and str(device) != _device.default_device():
                raise TypeError(
                    f"can't convert {device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                    f"to host memory first.\n  this tensor {list(self.shape)} {self.dtype} is on {device}\n"
                    "  fix: x.cpu().numpy() (x.detach().cpu().numpy() when it requires grad)")
            if self._h.requires_grad and _runtime.records_grad():
                raise _C.TensorStateError(
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
                    f"  this tensor {list(self.shape)} {self.dtype} requires grad (a parameter, or computed from one)\n"
                    "  fix: x.detach().numpy() (or x.numpy(force=True), or read it inside glassgrad.no_grad())")
        return self._raw().numpy()

    def _values(self) -> np.ndarray:
        """The elements as NumPy values for item/tolist/printing (bfloat16 exactly, as float32),
        with or without requires_grad (PyTorch's item, tolist and print read through it)."""
        return (self.float() if self._h.dtype == "bfloat16" else self)._raw().numpy()

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t): as t.numpy(), so a tensor that requires grad is refused (while gradients
        are recorded) as PyTorch's is; one on a GPU is copied to the host, where PyTorch raises as
        its numpy() does: the library's own np.asarray of state_dict entries, indices and targets
        works on any device (docs/porting.md, deliberate differences)."""
        a = self.numpy() if self.device.type == "cpu" else self.cpu().numpy()
        return a if dtype is None else a.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """What NumPy hands back from a function it ran on this tensor's array: a CPU tensor, as
        PyTorch's __array_wrap__ gives (np.clip(t, 0, 1) and np.exp(t) return tensors there;
        bool results become uint8, as PyTorch makes them)."""
        arr = np.asarray(array)
        if arr.dtype == np.bool_:
            arr = arr.astype(np.uint8)
        return tensor(np.array(arr, order="C"))  # np.ascontiguousarray would make a 0-d array 1-d

    def item(self):
        """The one element as a Python number (Tensor.item); computes pending work."""
        if _vmap_calls.MAPPED:
            _vmap_calls.refuse_number(self)
        if self.numel() != 1:
            raise _C.InvalidArgumentError(_not_one_element(self, f"a Tensor with {self.numel()} elements cannot be "
                                                                 "converted to Scalar"))
        number = self._h.item()  # one call into the runtime for the types Python holds exactly
        return number if number is not None else self._values().reshape(()).item()

    def tolist(self):
        """The elements as nested Python lists (a number for a 0-d tensor) (Tensor.tolist)."""
        return self._values().tolist()

    def __float__(self):
        if self.numel() != 1:
            raise _C.InvalidArgumentError(_not_one_element(self, _NOT_A_PYTHON_SCALAR))
        if _C.grad_enabled() and self.requires_grad:  # as PyTorch: no warning under no_grad
            _warn_float_of_grad()
        return float(self.item())

    def __int__(self):
        if self.numel() != 1:
            raise _C.InvalidArgumentError(_not_one_element(self, _NOT_A_PYTHON_SCALAR))
        return int(self.item())

    def __bool__(self):
        if self.numel() != 1:
            what = "no values" if self.numel() == 0 else "more than one value"
            raise _C.InvalidArgumentError(
                f"Boolean value of Tensor with {what} is ambiguous\n  the tensor has {self.numel()} elements "
                f"(shape {list(self.shape)})\n  fix: use (t == x).all() style reductions, or t.item() for one element")
        if _vmap_calls.MAPPED:
            _vmap_calls.refuse_number(self, _vmap_calls.CONTROL_FLOW)
        return bool(self.item())

    def __index__(self):
        # a bool counts as its int, as in PyTorch: range(5)[torch.tensor(True)] is 1
        if self.dtype not in ("int64", "int32", "int16", "int8", "uint8", "bool") or self.numel() != 1:
            raise TypeError("only one-element integer tensors can be used as an index")
        return int(self.item())

    _repr_prefix = "tensor("  # a subclass that prints its own name (tv_tensors) sets its own

    def __repr__(self) -> str:
        prefix = self._repr_prefix
        body = _printing.array_body(self._values(), prefix=prefix)
        # as PyTorch prints: no dtype for the defaults (the default float dtype, int64, bool), an
        # empty tensor's shape unless it is (0,) and its dtype unless it is the default float
        # (and with edgeitems=0, the shape); the device comes first
        default = _dtypes.plain(_dtypes.get_default_dtype())
        suffixes = [f"device='{self.device}'"] if self.device != "cpu" else []
        if self.numel() == 0:
            if self.dim() != 1:
                suffixes.append(f"size={tuple(self.shape)}")
            if self.dtype != default:
                suffixes.append(f"dtype={self.dtype!r}")
        else:
            if not _printing.get_printoptions()["edgeitems"]:
                suffixes.append(f"size={tuple(self.shape)}")
            if self.dtype not in (default, "int64", "bool"):
                suffixes.append(f"dtype={self.dtype!r}")
        # a computed tensor names the op that made it, as PyTorch's backward node (which can
        # differ where glassgrad's op is another: Linear, not Addmm); a leaf says requires_grad
        fn = self.grad_fn
        if fn is not None:
            suffixes.append(f"grad_fn=<{type(fn).__name__}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        return _printing.with_suffixes(prefix + body, suffixes, len(prefix))

    def __format__(self, spec: str) -> str:
        """f"{t}" and f"{t:.4f}": a 0-d tensor formats its number, as PyTorch's (f"Label: {y[0]}"
        prints "Label: 9"); a Parameter and a tensor of more dims print their repr. A spec on a
        one-element tensor of more dims formats its number too (PyTorch refuses it), on others
        PyTorch's TypeError."""
        if spec or (self.ndim == 0 and type(self) is Tensor):
            if self.numel() == 1:
                return format(self.item(), spec)
            raise TypeError(f"unsupported format string passed to Tensor.__format__ (a tensor of shape "
                            f"{list(self.shape)} with the spec {spec!r})\n  fix: format its numbers, "
                            f"e.g. [format(v, {spec!r}) for v in t.tolist()], or print it with f\"{{t}}\"")
        return repr(self)

    # ---- autodiff ----
    def backward(self, gradient: Optional["Tensor"] = None, retain_graph: Optional[bool] = None,
                 create_graph: bool = False, inputs=None) -> None:
        """Adds d(self)/d(leaf) to the .grad of every leaf with requires_grad (accumulating until
        zeroed). Records the backward graph; it runs at the next realize (e.g. optimizer.step()).
        As in PyTorch, the graph's saved values are freed: a second backward through it needs
        retain_graph=True on the first. With inputs, only those tensors' .grad get the gradient;
        with create_graph the .grad values can be differentiated again (docs/autograd.md)."""
        _backward_end.enter()  # _backward_end.scope(), written out: register_multi_grad_hook's callbacks run as it ends
        if _grad_views.LINKED:  # views assigned as .grad: accumulated from their current values
            _grad_views.sync()
        try:
            self._backward(gradient, retain_graph, create_graph, inputs)
        except BaseException:
            _backward_end.leave(False)
            raise
        if _grad_views.LINKED:  # ... and into their memory
            _grad_views.sync()
        _backward_end.leave(True)

    def register_post_accumulate_grad_hook(self, hook):
        """Registers hook(tensor), run after backward() has added this leaf's gradient to .grad
        (PyTorch's Tensor.register_post_accumulate_grad_hook; autograd.grad runs none). Returns a
        handle whose remove() unregisters it."""
        return _post_accumulate_hooks.register(self, hook)

    def _backward(self, gradient, retain_graph, create_graph, inputs) -> None:
        anomaly, gradients = _AUTOGRAD_MODULES or _autograd_modules()
        _trace._local.differentiations += 1  # _trace.note_differentiation, written out
        retain = bool(create_graph if retain_graph is None else retain_graph)
        seed = None
        if gradient is not None and not isinstance(gradient, Tensor):  # a sequence of one, as PyTorch reads it
            gradient = gradients.one_gradient(gradient, "backward()")
        if gradient is None:
            shape = self._h.shape
            # PyTorch's RuntimeError, its words alone on the first line (a tensor that requires no grad
            # gets 'element 0 of tensors does not require grad' instead, as PyTorch checks that later)
            if shape and self._h.requires_grad and math.prod(shape) != 1:
                raise _C.InvalidArgumentError(
                    f"grad can be implicitly created only for scalar outputs\n  backward(): this tensor has shape "
                    f"{list(shape)} ({math.prod(shape)} elements), and gradients start from one number\n  fix: "
                    "reduce it first, e.g. loss.mean().backward(), or pass the gradient: y.backward(gradient)")
        else:
            g = gradient
            if g._h.shape != self._h.shape:
                raise gradients.shape_mismatch(0, g, self)
            if g.dtype != self.dtype:  # PyTorch converts the gradient to the tensor's dtype
                g = g.to(self.dtype)
            seed = g._h
        if inputs is not None or create_graph:
            if inputs is None:
                gradients.warn_create_graph_cycle()
                ins = tuple(_wrap(h) for h in self._h.leaves_requiring_grad())
            else:
                ins = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
            gradients.accumulate_into(self, None if seed is None else _wrap(seed), ins, retain, bool(create_graph))
            return
        if _saved_tensor_hooks.SAVED:  # (autograd.grad's path unpacks in _input_gradients)
            _saved_tensor_hooks.unpack_reached(self, retain)
        anomalous = anomaly.is_anomaly_enabled()  # (read once: the check after needs the leaves read before)
        watching = []
        if anomalous:
            leaves = [_wrap(h) for h in self._h.leaves_requiring_grad()]
            watching = anomaly.watch_nodes(self.grad_fn)
        _backward_end.RETAINING.append(retain)
        try:
            if _pending_gradient_sync:  # a DistributedDataParallel forward ran: average its gradients
                wrappers = list(dict.fromkeys(_pending_gradient_sync))
                _pending_gradient_sync.clear()
                params, group, world_size, cap = wrappers[0]._gradient_sync_args()
                for w in wrappers[1:]:
                    params += [p for p in w._gradient_sync_args()[0] if all(p is not q for q in params)]
                _C.lazy_backward_synced(self._h, seed, [p._h for p in params], group, world_size, cap,
                                        retain_graph=retain)
                return
            self._h.backward(seed, retain)
        finally:
            _backward_end.RETAINING.pop()
            for handle in watching:
                handle.remove()
        if anomalous:
            anomaly.check_gradients(((t.name or f"leaf {list(t.shape)}"), t.grad) for t in leaves)

    def register_hook(self, hook):
        """Registers hook(grad) -> Tensor or None, run by backward() on this tensor's gradient
        once it is complete (PyTorch's Tensor.register_hook): a returned tensor replaces the
        gradient that flows on to what this tensor was computed from (for a leaf, before it is
        added to .grad). Hooks run in registration order, under no_grad; what they compute joins
        the backward graph (a compiled step replays it, but a hook's Python side effects, such as
        printing, happen when the step is traced). Returns a handle whose remove() unregisters it.
        Where the gradient is undefined (an autograd.Function's backward returned None for this
        tensor), hook gets None, and must return None, as PyTorch's."""
        from . import _node_hooks
        from .utils.hooks import RemovableHandle
        if not self.requires_grad:
            raise _C.TensorStateError("cannot register a hook on a tensor that doesn't require gradient\n"
                                      f"  register_hook: this tensor {list(self.shape)} is not part of a gradient "
                                      "computation\n  fix: x.requires_grad_() on a leaf, or register the hook on "
                                      "a tensor computed from parameters")
        if not callable(hook):
            raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")

        def call(grad_handle):
            if _node_hooks.INNER[0]:  # a node post hook's own gradient pass (_node_hooks)
                return None
            # None: the gradient is undefined (docs/architecture.md, "Undefined gradients")
            out = hook(None if grad_handle is None else _wrap(grad_handle))
            if out is None or out is _C.undefined_gradient:  # the latter: autograd.Function's None
                return out
            if not isinstance(out, Tensor):
                raise TypeError(f"register_hook: the hook returned {type(out).__name__}; it must return a Tensor "
                                f"or None\n  fix: return the new gradient (a glassgrad.Tensor), or nothing")
            if grad_handle is None:
                raise _C.TensorStateError(
                    "can't replace a None gradient with a non-None value\n  register_hook: the hook was given None "
                    "(the tensor gets no gradient: an autograd.Function's backward returned None for it) and "
                    "returned a Tensor\n  fix: return None when the gradient is None")
            _node_hooks.check_result(hook, grad_handle, out)
            return out._h

        key = self._h.add_grad_hook(call)
        _view_hooks.registered(self, key)
        if _node_hooks._NODES:
            _node_hooks.keep_last(self._h)
        owner = weakref.ref(self)  # a parameter's value changes at each update; its hooks move along

        def remove():
            t = owner()
            if t is not None:
                t._h.remove_grad_hook(key)
        return RemovableHandle(remove)

    def retain_grad(self) -> None:
        """Keeps this computed tensor's gradient in .grad at the next backward() (PyTorch's
        Tensor.retain_grad; a leaf keeps its gradient anyway). The gradient is the one after the
        tensor's hooks, and accumulates over backward calls as a leaf's does."""
        if not self.requires_grad:
            raise _C.TensorStateError("can't retain_grad on Tensor that has requires_grad=False\n  fix: only "
                                      "tensors computed from parameters (or leaves with requires_grad=True) have "
                                      "gradients")
        if not self.is_leaf:
            self._h.retains_grad = True

    @property
    def retains_grad(self) -> bool:
        """Whether retain_grad() was called on this computed tensor (Tensor.retains_grad)."""
        return (not self.is_leaf) and self._h.retains_grad

    _base = property(_view_base.base, doc="The tensor this view's chain of views started from, or None (Tensor._base).")
    _is_view = _view_base.is_view

    def detach(self) -> "Tensor":
        """The same values with no gradient flowing back (Tensor.detach); a view."""
        return _op("Detach", [self])

    def __deepcopy__(self, memo) -> "Tensor":
        """copy.deepcopy: a new leaf holding a copy of the values (and requires_grad), with the
        strides of a tensor dense in another order than row-major (laid_out_copy), as PyTorch's."""
        if id(self) not in memo:
            laid_out = _mf.laid_out_copy(self)
            if laid_out is not None:
                copied = laid_out
            else:
                raw = _C.Tensor.from_numpy(self.numpy(force=True), self.device, self.name)
                copied = _wrap(_C.lazy_leaf(raw, "input", self.requires_grad, self.name))
            memo[id(self)] = copied
            if self.__dict__:
                copied.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return memo[id(self)]

    # ---- conversion ----
    def to(self, *args, dtype=None, device=None, non_blocking: bool = False, copy: bool = False,
           memory_format=None, **kwargs) -> "Tensor":
        """PyTorch's Tensor.to: to(device), to(dtype), to(device, dtype), to(other) (other's device
        and dtype), with device= and dtype= as keywords, then non_blocking and copy (positional
        too). From pinned memory to a GPU the copy is queued on the device's copy stream and
        the call returns at once; the source may still be written right after (as PyTorch's
        synchronous copy allows, and with non_blocking=True too): glassgrad's next write of it
        waits for the copy to have read it (docs/data-loading.md, "Copies to the GPU").
        memory_format (channels_last, ...) lays the result out in that order (_memory_formats.py)."""
        if memory_format is not None:
            out = self.to(*args, dtype=dtype, device=device, non_blocking=non_blocking, copy=copy, **kwargs)
            return _mf.to_format(out, memory_format, "to")
        if len(args) == 1 and dtype is None and device is None and not copy and not kwargs \
                and _device._cuda_forbidden is None:
            d = _TO_DEVICE.get(args[0]) if type(args[0]) in (str, _device.device) else None
            if d is not None:  # x.to(device): the slow path's answer without its parsing
                h = self._h
                if d == h.device:
                    return self
                if h.realized and not h.requires_grad:
                    return _wrap(_C.lazy_leaf(h.data().to(d), "input", False, self.name))
        n_flags = 0
        while n_flags < len(args) and isinstance(args[len(args) - 1 - n_flags], bool):
            n_flags += 1
        flags, args = args[len(args) - n_flags:], args[:len(args) - n_flags]
        last = None
        for a in args:
            if isinstance(a, Tensor):
                device, dtype, last = device or a.device, dtype or a.dtype, "tensor"
            elif _dtypes._parse(a) is not None and not (isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda", "gpu")):
                dtype, last = a, "dtype"
            else:
                device, last = a, "device"
        if flags:
            if len(flags) > 2 or last not in ("tensor", "dtype"):
                raise TypeError(f"to(): non_blocking and copy follow a dtype or a tensor when given by position, got "
                                f"{args + flags}\n  fix: x.to(device, non_blocking=True), or x.to(device, dtype, "
                                f"True)")
            copy = flags[1] if len(flags) > 1 else copy  # flags[0] is non_blocking: see the docstring
        out = self
        if dtype is not None:
            out = out._converted(dtype, None, "to")
        if device is not None:
            d = _device.normalize(device)
            if last == "device" and len(args) == 1 and type(device) in (str, _device.device) \
                    and _device._cuda_forbidden is None and len(_TO_DEVICE) < 64:
                _TO_DEVICE[device] = d
            if d != out.device:
                if out._h.realized and not out.requires_grad:
                    # From pinned memory the copy is queued either way: a later write of the
                    # source waits for it (docs/data-loading.md, "Copies to the GPU").
                    out = _wrap(_C.lazy_leaf(out._raw().to(d), "input", False, out.name))
                else:
                    if d != "cpu" and not _device.cuda_available():
                        # as the realized path's copy does (and PyTorch's .to): refused at the
                        # call, not later when the lazy copy runs
                        _C.cuda_device_info(int(d.partition(":")[2]))
                    out = _op("ToDevice", [out], {"device": d})
        if copy and out is self:
            out = out.clone()
        return out

    def to_device(self, index: int = 0) -> "Tensor":
        """This tensor on GPU `index` (glassgrad's spelling of cuda(index))."""
        return self.to(f"cuda:{index}")

    def cpu(self, memory_format=None) -> "Tensor":
        """This tensor on the CPU (Tensor.cpu), in memory_format when given (as to())."""
        return _mf.to_format(self.to("cpu"), memory_format, "cpu")

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> "Tensor":
        """This tensor on a GPU: device an index, 'cuda:<i>' or None for GPU 0 (Tensor.cuda);
        non_blocking as in to()."""
        out = self.to(_device.cuda_target(device), non_blocking=non_blocking)
        return _mf.to_format(out, memory_format, "cuda")

    def astype(self, dtype) -> "Tensor":
        """This tensor converted to dtype (a new tensor; the same object when the dtype is already this one)."""
        d = _dtype_name(dtype)
        return self if d == self.dtype else _op("Cast", [self], {"dtype": d})

    def _converted(self, dtype, memory_format, fn: str) -> "Tensor":
        """This tensor as dtype, laid out as it is (memory_format None or preserve_format: a
        dense tensor keeps its strides, as PyTorch's conversions do) or in memory_format."""
        if self._h.layout[2] or (memory_format is not None and memory_format is not _layouts.preserve_format):
            return _mf.to_format(self.astype(dtype), memory_format, fn)
        order = _mf.result_order(self, None, fn) if _dtype_name(dtype) != self.dtype else None
        if order is None:
            return self.astype(dtype)
        return self.permute(*order).astype(dtype).permute(*_mf.inverse(order))

    def float(self, memory_format=None) -> "Tensor":
        """This tensor as float32 (Tensor.float)."""
        return self._converted("float32", memory_format, "float")

    def double(self, memory_format=None) -> "Tensor":
        """This tensor as float64 (Tensor.double)."""
        return self._converted("float64", memory_format, "double")

    def long(self, memory_format=None) -> "Tensor":
        """This tensor as int64 (Tensor.long)."""
        return self._converted("int64", memory_format, "long")

    def bool(self, memory_format=None) -> "Tensor":
        """This tensor as bool: nonzero is True (Tensor.bool)."""
        return self._converted("bool", memory_format, "bool")

    def byte(self, memory_format=None) -> "Tensor":
        """This tensor as uint8 (Tensor.byte)."""
        return self._converted("uint8", memory_format, "byte")

    def char(self, memory_format=None) -> "Tensor":
        """This tensor as int8 (Tensor.char)."""
        return self._converted("int8", memory_format, "char")

    def short(self, memory_format=None) -> "Tensor":
        """This tensor as int16 (Tensor.short)."""
        return self._converted("int16", memory_format, "short")

    def int(self, memory_format=None) -> "Tensor":
        """This tensor as int32 (Tensor.int)."""
        return self._converted("int32", memory_format, "int")

    def half(self, memory_format=None) -> "Tensor":
        """This tensor as float16 (Tensor.half)."""
        return self._converted("float16", memory_format, "half")

    def bfloat16(self, memory_format=None) -> "Tensor":
        """This tensor as bfloat16 (Tensor.bfloat16)."""
        return self._converted("bfloat16", memory_format, "bfloat16")

    def contiguous(self, memory_format=None) -> "Tensor":
        """self when its elements are already dense in row-major order (as in PyTorch), else a copy;
        with memory_format=glassgrad.channels_last, dense in NHWC order (_memory_formats.py)."""
        if memory_format is not None:
            return _mf.contiguous(self, memory_format)
        return self if self._h.layout[2] else _op("Contiguous", [self])

    def is_contiguous(self, memory_format=None) -> bool:
        """Dense in row-major order, or in memory_format's order (channels_last: NHWC). A tensor
        without elements is contiguous whatever its strides, as PyTorch's."""
        if memory_format is None:
            return self._h.layout[2] or 0 in self._h.shape
        return _mf.is_contiguous(self, memory_format)

    def stride(self, dim: Optional[int] = None):
        """Element strides of this tensor within its storage (a view's, over its base)."""
        strides = tuple(self._h.layout[0])
        return strides if dim is None else strides[_dim(dim, self.ndim, "stride", self.shape)]

    def storage_offset(self) -> int:
        return self._h.layout[1]

    def storage(self):
        """The buffer this tensor and its views share, as elements of its dtype (Tensor.storage;
        glassgrad/storage.py): size(), len, s[i], s[i] = v (writes the tensor), tolist(), data_ptr()."""
        from .storage import storage_of
        return storage_of(self)

    def untyped_storage(self):
        """The buffer this tensor and its views share, as bytes (Tensor.untyped_storage)."""
        from .storage import UntypedStorage
        return UntypedStorage(self)

    def clone(self, *, memory_format=None) -> "Tensor":
        """A copy with its own memory, in the graph (gradients flow through it) (Tensor.clone). By
        default (preserve_format) a dense tensor's copy keeps its strides (a transpose's, a
        channels-last tensor's), as PyTorch's; other tensors' copies are row-major."""
        order = _mf.result_order(self, memory_format, "clone") if not self._h.layout[2] or memory_format else None
        out = _op("Contiguous", [self if order is None else self.permute(*order)])
        if _shared_memory.holds_shared_values(self):  # a snapshot of memory other processes write
            _C.lazy_realize([out._h])
        return out if order is None else out.permute(*_mf.inverse(order))

    # ---- shape ----
    def reshape(self, *sizes, shape=None) -> "Tensor":
        """The same elements in a new shape, -1 inferring one size (Tensor.reshape; sizes or shape=); a view where
        the layout allows."""
        sizes = sizes_or_keyword(sizes, shape, "reshape", "shape") if shape is not None else sizes
        shape = list(_shape_args(sizes, "reshape")) if sizes else []
        if shape == list(self._h.shape) and not self._h.requires_grad:
            return self  # PyTorch's is a view, a new tensor with ViewBackward0 where it records grad
        if -1 in shape and 0 in shape and self.numel() == 0:
            raise _C.ShapeError(f"cannot reshape tensor of 0 elements into shape {shape} because the unspecified "
                                f"dimension size -1 can be any value and is ambiguous\n  fix: give every size")
        return _op("Reshape", [self], _reshape_attrs(self._h, shape))

    def view(self, *shape, size=None, dtype=None) -> "Tensor":
        """The same elements with another shape, always a view of this tensor's storage: PyTorch's
        error when the strides make that impossible (reshape() copies then). view(dtype) reads the
        bytes as another dtype (_dtype_views.py)."""
        if dtype is not None and not shape and size is None:
            return _dtype_views.view_as_dtype(self, dtype)
        shape = sizes_or_keyword(shape, size, "view", "size")
        if len(shape) == 1 and not isinstance(shape[0], (numbers.Integral, tuple, list)) and \
                _args.element_index(shape[0]) is None:
            if isinstance(shape[0], Tensor):  # one integer element is a size, as PyTorch's view(tensor([6]))
                raise _args.InvalidArgumentTypeError(
                    "view() received an invalid combination of arguments - got (Tensor), but expected one of:\n"
                    f" * (torch.dtype dtype)\n * (tuple of ints size)\n  view: a {shape[0].dtype} tensor of shape "
                    f"{list(shape[0].shape)} is neither a size nor a dtype\n  fix: x.view(*sizes.tolist())")
            return _dtype_views.view_as_dtype(self, shape[0])
        want = list(_shape_args(shape, "view")) if shape else []
        n, known = self.numel(), math.prod(s for s in want if s != -1)
        resolved = [n // known if s == -1 and known else s for s in want]
        if math.prod(resolved) == n and not self._h.reshape_is_view(resolved):
            raise _C.TensorStateError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
                f"two contiguous subspaces). Use .reshape(...) instead.\n  viewing {list(self.shape)} (strides "
                f"{list(self.stride())}) as {want}\n  fix: x.reshape({', '.join(map(str, want))}), which copies when "
                f"it must, or x.contiguous().view(...)")
        if resolved == list(self.shape):  # a new tensor object even for the same shape, as PyTorch's view
            return _op("Reshape", [self], {"shape": resolved})
        return self.reshape(*shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Dims start_dim..end_dim merged into one (Tensor.flatten; the defaults flatten everything)."""
        shape_ = self._h.shape  # the runtime's shape, a tuple (self.shape without its frames)
        n = len(shape_)
        if n == 0:  # a scalar flattens to one element; its only dims are 0 and -1
            _dim(start_dim, 1, "flatten", shape_), _dim(end_dim, 1, "flatten", shape_)
            return self.reshape(1)
        # _dim's common case (an int in range) written out: flatten(x, 1) runs in every forward of a CNN
        s = start_dim % n if type(start_dim) is int and -n <= start_dim < n else _dim(start_dim, n, "flatten", shape_)
        e = end_dim % n if type(end_dim) is int and -n <= end_dim < n else _dim(end_dim, n, "flatten", shape_)
        if s > e:
            raise _C.ShapeError(f"flatten() has invalid args: start_dim cannot come after end_dim\n  cause: start_dim "
                                f"{start_dim} comes after end_dim {end_dim} for a {n}-d input {list(self.shape)}\n"
                                f"  fix: flatten(x, start_dim, end_dim) with start_dim <= end_dim")
        shape = list(shape_[:s]) + [math.prod(shape_[s:e + 1])] + list(shape_[e + 1:])
        if s == e:  # nothing merged: self, as PyTorch's flatten returns it (no ViewBackward0 node)
            return self
        return _op("Reshape", [self], _reshape_attrs(self._h, shape))  # reshape's node (its checks hold: sizes >= 0, no -1)

    def permute(self, *order, dims=None) -> "Tensor":
        """The dims reordered (Tensor.permute; the dims or dims=); a view."""
        shape = self._h.shape
        if not order and dims is None:  # PyTorch's argument parser: dims is required
            raise TypeError("permute() missing 1 required positional argument: 'dims'\n  fix: x.permute(1, 0) or "
                            "x.permute(dims=(1, 0)); x.permute(()) for a 0-d tensor")
        order = sizes_or_keyword(order, dims, "permute", "dims") if dims is not None else order
        return _op("Permute", [self], {"dims": [_dim(d, len(shape), "permute", shape) for d in _shape_args(order, "permute")]})

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """Two dims swapped (Tensor.transpose); a view."""
        dims = list(range(self.ndim))
        n = max(self.ndim, 1)  # a scalar's dims are 0 and -1, as in PyTorch
        a, b = _dim(dim0, n, "transpose", self.shape), _dim(dim1, n, "transpose", self.shape)
        if self.ndim == 0:
            return self.permute([])
        dims[a], dims[b] = dims[b], dims[a]
        return _op("Permute", [self], {"dims": dims, "torch_node": "TransposeBackward0"})

    @property
    def T(self) -> "Tensor":
        """The dims in reverse order (Tensor.T); a view. PyTorch deprecates it for other than 2 dims
        (once-per-process UserWarnings, _shapes.warn_reversing_T)."""
        n = len(self._h.shape)
        if n != 2:
            from . import _shapes  # (it imports this module)
            _shapes.warn_reversing_T(n)
        return self.permute(list(reversed(range(n))))

    def expand(self, *shape, size=None) -> "Tensor":
        """Size-1 dims stretched (and new leading dims) to `sizes` (or size=), -1 keeping a size
        (Tensor.expand); a view."""
        shape = list(_shape_args(shape if size is None else (size,), "expand"))
        lead = len(shape) - self.ndim
        if -1 in shape[:lead]:
            raise _C.ShapeError(f"expand: The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                f"dimension {shape.index(-1)}\n  expanding {list(self.shape)} to {shape}\n"
                                f"  fix: give the size of each new leading dim")
        shape = [self.shape[i - lead] if s == -1 else s for i, s in enumerate(shape)]
        return _op("Expand", [self], {"shape": shape})

    def __getitem__(self, index) -> "Tensor":
        return _indexing._index(self, index)

    # Arithmetic, comparisons, math, reductions, scans and most shape methods are the functions
    # of _math.py, _reductions.py, _scans.py and _shapes.py, bound by _methods.py.
    @_autocast.op("softmax")
    def softmax(self, dim: int, dtype=None):
        """softmax along dim (Tensor.softmax: dim is required, as PyTorch's), after converting to
        dtype when given."""
        if type(dim) is not int:  # PyTorch's parser: an int (NumPy's too), not a bool, tuple or float
            dim = _args.integer(dim, "dim", "softmax")
        if not -1 <= dim < max(self.ndim, 1):  # PyTorch checks dim before the dtype (an int x: IndexError first)
            _dim(dim, max(self.ndim, 1), "softmax", self.shape)
        x = self.astype(dtype) if dtype is not None else self
        return _op("Softmax", [x], {"dim": dim})

    @_autocast.op("log_softmax")
    def log_softmax(self, dim: int, dtype=None):
        """log_softmax along dim (Tensor.log_softmax: dim is required, as PyTorch's), after
        converting to dtype when given."""
        if type(dim) is not int:  # as softmax's
            dim = _args.integer(dim, "dim", "log_softmax")
        if not -1 <= dim < max(self.ndim, 1):  # PyTorch checks dim before the dtype (an int x: IndexError first)
            _dim(dim, max(self.ndim, 1), "log_softmax", self.shape)
        x = self.astype(dtype) if dtype is not None else self
        return _op("LogSoftmax", [x], {"dim": dim})

    def __pos__(self):
        if self.dtype == "bool":  # PyTorch's unary + refuses bool too
            raise _C.UnsupportedError(f"The `+` operator, on a bool tensor is not supported (shape "
                                      f"{list(self.shape)})\n  fix: the tensor itself, or x.long()")
        return self

    # ---- indexing (glassgrad/_indexing.py) ----
    def gather(self, dim: int, index: "Tensor", *, sparse_grad: bool = False) -> "Tensor":
        return _indexing.gather(self, dim, index)

    def scatter(self, dim: int, index: "Tensor", src=None, value=None, *, reduce: Optional[str] = None) -> "Tensor":
        return _indexing.scatter(self, dim, index, src, value, reduce=reduce)

    def scatter_add(self, dim: int, index: "Tensor", src: "Tensor") -> "Tensor":
        return _indexing.scatter_add(self, dim, index, src)

    def index_select(self, dim: int, index: "Tensor") -> "Tensor":
        return _indexing.index_select(self, dim, index)

    def index_add(self, dim: int, index: "Tensor", source: "Tensor", *, alpha=1) -> "Tensor":
        return _indexing.index_add(self, dim, index, source, alpha=alpha)

    def index_fill(self, dim: int, index: "Tensor", value) -> "Tensor":
        return _indexing.index_fill(self, dim, index, value)

    def index_put(self, indices, values, accumulate: bool = False) -> "Tensor":
        return _indexing.index_put(self, indices, values, accumulate)

    def masked_fill(self, mask: "Tensor", value) -> "Tensor":
        return _indexing.masked_fill(self, mask, value)

    def masked_select(self, mask: "Tensor") -> "Tensor":
        return _indexing.masked_select(self, mask)

    def take_along_dim(self, indices: "Tensor", dim: Optional[int] = None) -> "Tensor":
        return _indexing.take_along_dim(self, indices, dim)

    # ---- in-place ops (glassgrad/_inplace.py): each writes its out-of-place result back; the
    # in-place forms of the math methods (add_, sin_, +=, ...) are bound in _methods.py ----
    # into an expanded tensor too, with PyTorch's deprecation warning (_expanded_writes.py)
    def masked_fill_(self, mask: "Tensor", value) -> "Tensor":
        """In-place version of masked_fill()."""
        first = _C.lazy_seq()
        return _expanded_writes.in_place(self, "masked_fill_", first, self.masked_fill(mask, value),
                                         lambda none: none.masked_fill(mask, True))

    def index_fill_(self, dim, index: "Tensor", value) -> "Tensor":
        """In-place version of index_fill()."""
        first = _C.lazy_seq()
        return _expanded_writes.in_place(self, "index_fill_", first, self.index_fill(dim, index, value),
                                         lambda none: none.index_fill(dim, index, True))

    def index_put_(self, indices, values, accumulate=False) -> "Tensor":
        """In-place version of index_put()."""
        first = _C.lazy_seq()
        result = self.index_put(indices, values, accumulate)
        if accumulate:
            return _expanded_writes.in_place(self, "index_put_", first, result,
                                             added=lambda: _factories.zeros_like(self).index_put(indices, values, True))
        return _expanded_writes.in_place(self, "index_put_", first, result,
                                         lambda none: none.index_put(indices, tensor(True, device=self.device)))
    index_add_ = in_place(index_add)
    scatter_ = in_place(scatter)
    scatter_add_ = in_place(scatter_add)
    transpose_ = in_place_view(transpose)  # unsqueeze_ and squeeze_: _methods.py

    def fill_(self, value) -> "Tensor":
        return _inplace.fill_(self, value)

    def zero_(self) -> "Tensor":
        return _inplace.fill_(self, 0, "ZeroBackward0")

    def copy_(self, src, non_blocking: bool = False) -> "Tensor":
        """This tensor's elements := src's (broadcast, converted to this dtype and device)."""
        return _inplace.copy_(self, src)

    def apply_(self, callable) -> "Tensor":
        """Every element := callable(element), a Python function run on the host (Tensor.apply_)."""
        return _inplace.apply_elementwise(self, callable, "apply_")

    def map_(self, tensor, callable) -> "Tensor":
        """Every element := callable(element, tensor's element), tensor broadcast to this shape
        (Tensor.map_)."""
        return _inplace.apply_elementwise(self, callable, "map_", tensor)

    def map2_(self, x, y, callable) -> "Tensor":
        """Every element := callable(element, x's element, y's element), x and y broadcast to this
        shape (Tensor.map2_)."""
        return _inplace.apply_elementwise(self, callable, "map2_", x, y)

    def uniform_(self, *args, generator=None, **kwargs) -> "Tensor":
        """Values drawn uniformly from [from, to) (PyTorch's uniform_(from=0, to=1, *, generator=None))."""
        bounds = dict(zip(("from", "to"), args))
        bounds.update(kwargs)
        low, high = float(bounds.get("from", 0.0)), float(bounds.get("to", 1.0))
        return _inplace.random_fill(self, "uniform_", lambda rng, shape: rng.uniform(low, high, shape), generator)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None) -> "Tensor":
        return _inplace.random_fill(self, "normal_", lambda rng, shape: rng.normal(mean, std, shape), generator)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None) -> "Tensor":
        """exp of normal(mean, std) values (PyTorch's log_normal_)."""
        return _inplace.random_fill(self, "log_normal_", lambda rng, shape: rng.lognormal(mean, std, shape), generator)

    def exponential_(self, lambd: float = 1.0, *, generator=None) -> "Tensor":
        """Values with density lambd * exp(-lambd * x) (PyTorch's exponential_)."""
        return _inplace.random_fill(self, "exponential_", lambda rng, shape: rng.exponential(1.0 / lambd, shape),
                                    generator)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> "Tensor":
        return _inplace.random_fill(self, "cauchy_", lambda rng, shape: median + sigma * rng.standard_cauchy(shape),
                                    generator)

    def geometric_(self, p: float, *, generator=None) -> "Tensor":
        """The number of Bernoulli(p) trials up to the first success, 1, 2, ... (PyTorch's geometric_)."""
        return _inplace.random_fill(self, "geometric_", lambda rng, shape: rng.geometric(p, shape), generator,
                                    floating=False)

    def random_(self, *args, generator=None, **kwargs) -> "Tensor":
        """Integers drawn uniformly: random_() over [0, 2**mantissa] (floats) or the dtype's range,
        random_(to) over [0, to), random_(from, to) over [from, to)."""
        bounds = dict(zip(("from", "to"), args))
        bounds.update(kwargs)
        return _inplace.random_(self, bounds.get("from"), bounds.get("to"), generator)

    def bernoulli_(self, p=0.5, *, generator=None) -> "Tensor":
        """Each element 1 with probability p (a number or a tensor of probabilities), else 0."""
        return _inplace.bernoulli_(self, p, generator)

    def __setitem__(self, key, value) -> None:
        _inplace.setitem(self, key, value)

    @property
    def data(self) -> "Tensor":
        """This tensor's storage without autograd: writes through it are seen here, are not
        recorded for gradients and do not count as in-place versions (PyTorch's .data)."""
        return _wrap(self._h.data_alias())

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"x.data must be set to a Tensor, got {type(value).__name__}")
        if (value._h.shares_storage(self._h) and value.shape == self.shape and value.dtype == self.dtype
                and value._h.layout == self._h.layout):
            # x.data *= 2 (Python's `x.data = x.data.__imul__(2)`): the write went through x's own
            # storage already. x stays the leaf that graphs recorded before it accumulate into.
            return
        if self.requires_grad and not (value.dtype.is_floating_point or value.dtype.is_complex):
            raise _C.DTypeError(f"data set to a tensor that requires gradients must be floating point or complex "
                                f"dtype\n  x.data = a {value.dtype} tensor, and x requires grad\n  fix: x.data = "
                                f"value.to({self.dtype}), or x.requires_grad_(False) first")
        kind = "parameter" if self.requires_grad else "input"
        # PyTorch's x.data = y keeps x's .grad: `w.data -= lr * w.grad.data` (Python sets w.data
        # to the written alias) and then `w.grad.data.zero_()` is how scripts before optim wrote SGD.
        grad = self.grad if self.requires_grad else None
        self._h.reset(_C.lazy_leaf(value._raw(), kind, self.requires_grad, self.name))
        if grad is not None:
            self._h.set_grad(grad._h)  # kept as it was, whatever value's shape (PyTorch keeps it too)

    def detach_(self) -> "Tensor":
        """Stops this tensor requiring gradients and makes it a leaf (views refuse: detach() them; a
        detached tensor, x.detach() or x.data, is none, docs/inplace-and-views.md)."""
        self._h.detach_()
        return self

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor's storage has had (PyTorch's version counter); an
        inference tensor has none, and PyTorch refuses the read."""
        if _INFERENCE_TENSORS and self.is_inference():
            raise _C.TensorStateError("Inference tensors do not track version counter.\n  this tensor "
                                      f"{list(self.shape)} was made inside inference_mode()\n  fix: read _version of "
                                      "a clone made outside inference_mode()")
        return self._h.version


_HANDLE_SLOT, _ARRAY_SLOT = Tensor.__dict__["_h"], Tensor.__dict__["_array"]  # the slots' descriptors

from . import _indexing, _inplace  # noqa: E402  (they import this module's names)
from . import _expanded_writes, _factories  # noqa: E402
from . import _dtype_views  # noqa: E402
