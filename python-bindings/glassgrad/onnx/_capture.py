"""Tracing a model for export: its forward pass recorded as glassgrad's static graph.

The model runs once per set of sizes (the example inputs' own, and more when axes are dynamic,
_symbolic.py) with fresh input leaves, gradients off and every view recorded as a node (the
runtime's eager views are off, lazy.h), so the graph reaches exactly the inputs, parameters and
buffers the forward pass reads. The traces are then merged: the same ops in the same order, and
every size that changed between them becomes a polynomial of the dynamic axes' sizes.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _C
from .._tensor import Tensor, _wrap
from .._trace import recording_step
from ._symbolic import Corners, Dim, NotPolynomial, Sym
from .errors import OnnxExporterError

_state = threading.local()


def is_exporting() -> bool:
    return getattr(_state, "depth", 0) > 0


@contextlib.contextmanager
def _tracing():
    """Gradients off, views recorded as nodes, is_in_onnx_export() true; all restored after."""
    grad, views = _C.grad_enabled(), _C.eager_views()
    _state.depth = getattr(_state, "depth", 0) + 1
    _C.set_grad_enabled(False)
    _C.set_eager_views(False)
    try:
        yield
    finally:
        _C.set_grad_enabled(grad)
        _C.set_eager_views(views)
        _state.depth -= 1


# ---- inputs: a nested structure of tensors and other values ----

def flatten(obj, what: str) -> Tuple[List[Tensor], Callable[[List[Tensor]], Any]]:
    """The tensors of a nested tuple/list/dict, in order, and a function that rebuilds the
    structure around other tensors (PyTorch's flattening of export inputs and outputs)."""
    if isinstance(obj, Tensor):
        return [obj], lambda ts: ts[0]
    if isinstance(obj, (tuple, list)):
        parts = [flatten(o, what) for o in obj]

        def rebuild(ts, parts=parts, obj=obj):
            out, k = [], 0
            for tensors, fn in parts:
                out.append(fn(ts[k:k + len(tensors)]))
                k += len(tensors)
            if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
                return type(obj)(*out)
            return type(obj)(out) if isinstance(obj, tuple) else out
        return [t for tensors, _ in parts for t in tensors], rebuild
    if isinstance(obj, dict):
        keys = list(obj)
        tensors, fn = flatten([obj[k] for k in keys], what)
        return tensors, lambda ts, keys=keys, fn=fn, obj=obj: type(obj)(zip(keys, fn(ts)))
    return [], lambda ts, obj=obj: obj


@dataclass
class Leaf:
    kind: str                      # "input", "parameter", "buffer" or "constant"
    name: str = ""                 # module path of a parameter or buffer
    index: int = -1                # position among the flattened inputs
    handle: Any = None             # the lazy value (its data for initializers and constants)
    random_p: Optional[float] = None  # a dropout mask drawn in training: its drop probability


@dataclass
class Trace:
    graph: Any
    leaves: Dict[int, Leaf]
    outputs: List[int]
    nodes: List[dict]
    values: List[dict]
    shapes: List[Tuple[int, ...]]


def _named_state(model) -> Dict[int, Tuple[str, str]]:
    """identity of the lazy value -> (module path, 'parameter' or 'buffer'); the first path of a
    tensor shared by several layers."""
    out: Dict[int, Tuple[str, str]] = {}
    if model is None:
        return out
    for name, p in model.named_parameters():
        out.setdefault(p._h.identity, (name, "parameter"))
    for name, b in model.named_buffers():
        if isinstance(b, Tensor):
            out.setdefault(b._h.identity, (name, "buffer"))
    return out


def _state_handles(model) -> List[Tuple[Tensor, Any]]:
    if model is None:
        return []
    ts = [p for _, p in model.named_parameters()] + [b for _, b in model.named_buffers() if isinstance(b, Tensor)]
    return [(t, t._h.pin()) for t in ts]


def _restore(saved: List[Tuple[Tensor, Any]]) -> None:
    """Points parameters and buffers back at their values from before the trace (a forward pass in
    training mode records running-statistics updates: the export must not apply them)."""
    moved = [(t, old) for t, old in saved if not t._h.same_value(old)]
    if moved:
        _C.lazy_reset_all([t._h for t, _ in moved], [old for _, old in moved])


def _dropout_p(mask: np.ndarray) -> Optional[float]:
    """The drop probability of a dropout mask (kept entries hold 1 / (1 - p)); None for a random
    input that is no mask (the integer seed of the Dropout op, whose converter draws its own)."""
    if mask.dtype.kind != "f":
        return None
    kept = mask[mask != 0]
    if kept.size == 0:
        return None
    return float(1.0 - 1.0 / float(kept.flat[0]))


def trace_once(fn: Callable, model, arrays: Sequence[np.ndarray], devices: Sequence[str],
               rebuild: Callable[[List[Tensor]], Tuple[tuple, dict]]) -> Trace:
    """Runs fn (the model's call) on fresh input leaves holding `arrays` (rebuild places them in the
    call's arguments: (args, kwargs)) and exports what the outputs need."""
    inputs = [_wrap(_C.lazy_leaf(_C.Tensor.from_numpy(np.asarray(a, order="C"), d, "export input"), "input", False, ""))
              for a, d in zip(arrays, devices)]
    saved = _state_handles(model)
    try:
        with _tracing(), recording_step() as rec:
            args, kwargs = rebuild(inputs)
            out = fn(*args, **kwargs)
        outs, _ = flatten(out, "output")
        if not outs:
            raise OnnxExporterError(
                f"ONNX export: the model returned {type(out).__name__}, which holds no tensor\n"
                f"  fix: return the tensors to export from forward() (a tensor, or a tuple/list/dict of them)")
        graph, leaf_handles, out_ids = _C.lazy_inspect([t._h for t in outs])
        names = _named_state(model)
        input_ids = {t._h.identity: i for i, t in enumerate(inputs)}
        random = {ident for ident in rec.random}
        leaves: Dict[int, Leaf] = {}
        for vid, h in enumerate(leaf_handles):
            if h is None:
                continue
            ident = h.identity
            if ident in input_ids:
                leaves[vid] = Leaf("input", index=input_ids[ident], handle=h)
            elif ident in names:
                path, kind = names[ident]
                leaves[vid] = Leaf(kind, name=path, handle=h)
            else:
                leaf = Leaf("constant", handle=h)
                if random:
                    from ..compile import _identity
                    if _identity(h.data()) in random:
                        leaf.random_p = _dropout_p(h.data().numpy())
                leaves[vid] = leaf
        nodes = [graph.node_info(i) for i in range(graph.num_nodes)]
        values = [graph.value_info(i) for i in range(graph.num_values)]
        return Trace(graph, leaves, list(out_ids), nodes, values, [tuple(v["shape"]) for v in values])
    finally:
        _restore(saved)


# ---- merging the traces of several sizes ----

@dataclass
class Captured:
    """The traced forward pass with its sizes as numbers or polynomials of the dynamic sizes."""
    trace: Trace                     # at the example inputs' sizes
    shapes: List[Tuple[Dim, ...]]    # of every value
    attrs: List[dict]                # of every node; sizes that follow a dynamic axis are Syms
    constants: Dict[int, Any] = field(default_factory=dict)  # value id -> ("fill", value) for sized constants

    @property
    def nodes(self) -> List[dict]:
        return self.trace.nodes


def _where(node: dict) -> str:
    layer = node.get("layer") or node.get("scope") or "the model"
    src = f" (recorded at {node['source']})" if node.get("source") else ""
    return f"{node['op']} in {layer}{src}"


def _fit_ints(corners: Corners, values: List[Any], what: Callable[[], str]):
    """Fits an attribute's values across the traces (an int, or a list of ints)."""
    first = values[0]
    if all(v == first for v in values):
        return first
    try:
        if isinstance(first, bool) or not isinstance(first, (int, list)):
            raise NotPolynomial(values)
        if isinstance(first, int):
            return corners.fit(values)
        if any(not isinstance(v, list) or len(v) != len(first) for v in values):
            raise NotPolynomial(values)
        return [corners.fit([v[i] for v in values]) for i in range(len(first))]
    except NotPolynomial:
        raise OnnxExporterError(
            f"ONNX export: {what()} changes with the dynamic axes in a way no size expression gives "
            f"(values {values} at the traced sizes)\n"
            f"  cause: the model computes it from a dynamic size with Python arithmetic the graph cannot "
            f"record (e.g. B // 2)\n"
            f"  fix: keep that axis static (leave it out of dynamic_axes), or compute the size from x.shape "
            f"without division") from None


def merge(traces: List[Trace], corners: Optional[Corners]) -> Captured:
    base = traces[0]
    if corners is None or len(traces) == 1:
        return Captured(base, list(base.shapes), [dict(n["attrs"]) for n in base.nodes])
    for t in traces[1:]:
        _check_same_structure(base, t)
    shapes: List[Tuple[Dim, ...]] = []
    for vid, shape in enumerate(base.shapes):
        dims = []
        for axis in range(len(shape)):
            vals = [t.shapes[vid][axis] for t in traces]
            try:
                dims.append(corners.fit(vals))
            except NotPolynomial:
                producer = base.values[vid]["producer"]
                what = _where(base.nodes[producer]) if producer >= 0 else "an input"
                raise OnnxExporterError(
                    f"ONNX export: axis {axis} of a value computed by {what} changes with the dynamic axes in a "
                    f"way no size expression gives (sizes {vals} at the traced sizes)\n"
                    f"  fix: keep that axis static (leave it out of dynamic_axes)") from None
        shapes.append(tuple(dims))
    attrs = []
    for i, node in enumerate(base.nodes):
        merged = {}
        for k, v in node["attrs"].items():
            merged[k] = _fit_ints(corners, [t.nodes[i]["attrs"].get(k) for t in traces],
                                  lambda k=k, node=node: f"attribute '{k}' of {_where(node)}")
        attrs.append(merged)
    captured = Captured(base, shapes, attrs)
    for vid, leaf in base.leaves.items():
        if leaf.kind == "constant" and any(isinstance(d, Sym) for d in shapes[vid]):
            captured.constants[vid] = _sized_constant(traces, vid)
    return captured


def _sized_constant(traces: List[Trace], vid: int):
    """A constant whose shape follows a dynamic axis: exportable when every trace filled it with
    one value (zeros for a recurrent layer's initial state): ConstantOfShape."""
    fills = []
    for t in traces:
        flat = t.leaves[vid].handle.data().numpy().reshape(-1)
        if flat.size == 0:
            continue
        fills.append(flat[0].item() if np.all(flat == flat[0]) else None)
    if None in fills or len(set(fills)) > 1:
        raise OnnxExporterError(
            "ONNX export: the model makes a constant tensor whose size follows a dynamic axis and whose values "
            "differ from element to element, which an ONNX file cannot rebuild at another size\n"
            "  cause: a tensor made from data inside forward() (glassgrad.tensor(...)) with a dynamic size\n"
            "  fix: compute it from the input with tensor ops, or keep that axis static")
    return ("fill", fills[0] if fills else 0)


def _check_same_structure(a: Trace, b: Trace) -> None:
    if len(a.nodes) == len(b.nodes) and all(
            x["op"] == y["op"] and x["inputs"] == y["inputs"] and x["outputs"] == y["outputs"]
            for x, y in zip(a.nodes, b.nodes)) and a.outputs == b.outputs:
        same_leaves = a.leaves.keys() == b.leaves.keys() and all(
            a.leaves[k].kind == b.leaves[k].kind and a.leaves[k].name == b.leaves[k].name for k in a.leaves)
        if same_leaves:
            return
    first = next((i for i, (x, y) in enumerate(zip(a.nodes, b.nodes)) if x["op"] != y["op"]), None)
    where = f" (the first difference: node {first}, {_where(a.nodes[first])} vs {b.nodes[first]['op']})" \
        if first is not None else ""
    raise OnnxExporterError(
        f"ONNX export: the model records a different graph when a dynamic axis changes size{where}\n"
        f"  cause: forward() takes a different path depending on the input's size (a Python if or loop on "
        f"x.shape)\n"
        f"  fix: keep that axis static (leave it out of dynamic_axes), or export one file per size")
