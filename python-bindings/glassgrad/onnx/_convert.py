"""From a captured forward pass to an onnx.ModelProto: graph inputs, initializers named by module
path, constants, one converter call per node (or per matched pattern, _patterns.py), graph
outputs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np
import onnx
from onnx import helper

from .. import __version__
from . import _patterns, _registry
from ._builder import ONNX_TYPES, Builder
from ._capture import Captured
from ._context import NodeContext
from ._symbolic import Dim, Sym
from .errors import UnsupportedOperatorError


@dataclass
class InputSpec:
    name: str
    shape: Tuple[Dim, ...]
    dtype: str
    axis_names: Dict[int, str]   # dynamic axis -> its name in the file


@dataclass
class OutputSpec:
    name: str
    axis_names: Dict[int, str]


def _value_info(name: str, dtype: str, shape: Sequence[Dim], axis_names: Dict[int, str]) -> onnx.ValueInfoProto:
    dims = []
    for axis, d in enumerate(shape):
        if axis in axis_names:
            dims.append(axis_names[axis])
        elif isinstance(d, Sym):
            dims.append(str(d))
        else:
            dims.append(int(d))
    return helper.make_tensor_value_info(name, ONNX_TYPES[dtype], dims)


def _dtype(captured: Captured, vid: int) -> str:
    return captured.trace.values[vid]["dtype"]


def _unsupported(node: dict, opset: int) -> UnsupportedOperatorError:
    op = node["op"]
    layer = node.get("layer") or (f"'{node['scope']}'" if node.get("scope") else "the model")
    src = f", recorded at {node['source']}" if node.get("source") else ""
    conv = _registry.converter(op)
    reason = _registry.reason_not_exported(op)
    if conv is not None:  # mapped only from a later opset
        return UnsupportedOperatorError(
            f"ONNX export: op {op} (in {layer}{src}) has no ONNX form at opset {opset}; it exports as "
            f"{conv.onnx_ops} from opset {conv.min_opset}\n  fix: glassgrad.onnx.export(..., "
            f"opset_version={conv.min_opset})")
    if reason:
        return UnsupportedOperatorError(
            f"ONNX export: op {op} (in {layer}{src}) cannot be exported at opset {opset}: {reason}\n"
            f"  fix: {_registry.fix_for(op)} (docs/export.md lists every op and how it exports)")
    return UnsupportedOperatorError(
        f"ONNX export: op {op} (in {layer}{src}) has no ONNX mapping yet at opset {opset}\n"
        f"  fix: write that part of the model with ops that export (docs/export.md lists them), or add a "
        f"converter for {op} in glassgrad/onnx/ops/")


def build_model(captured: Captured, inputs: List[InputSpec], outputs: List[OutputSpec], opset: int,
                export_params: bool, keep_initializers_as_inputs: bool, custom_opsets: Dict[str, int],
                graph_name: str, fallthrough: bool = False) -> onnx.ModelProto:
    trace = captured.trace
    b = Builder(opset)
    names: Dict[int, str] = {}          # glassgrad value id -> ONNX name
    graph_inputs: List[onnx.ValueInfoProto] = []
    extra_inputs: List[onnx.ValueInfoProto] = []

    for spec in inputs:
        b.reserve(spec.name)
        graph_inputs.append(_value_info(spec.name, spec.dtype, spec.shape, spec.axis_names))
        for axis, d in enumerate(spec.shape):
            if isinstance(d, Sym) and d.is_symbol():
                b.add_size_source(d.is_symbol(), spec.name, axis)
    for out in outputs:
        b.reserve(out.name)

    # Leaves: inputs, parameters and buffers (initializers named by module path), constants.
    initialized = set()
    for vid, leaf in sorted(trace.leaves.items()):
        if leaf.kind == "input":
            names[vid] = inputs[leaf.index].name
        elif leaf.kind in ("parameter", "buffer"):
            names[vid] = leaf.name
            if leaf.name in initialized:
                continue
            initialized.add(leaf.name)
            array = leaf.handle.data().numpy()
            if export_params:
                b.initializer(leaf.name, array)
                if keep_initializers_as_inputs:
                    extra_inputs.append(_value_info(leaf.name, _dtype(captured, vid), array.shape, {}))
            else:
                b.reserve(leaf.name)
                extra_inputs.append(_value_info(leaf.name, _dtype(captured, vid), array.shape, {}))
    for vid, leaf in sorted(trace.leaves.items()):
        if leaf.kind != "constant":
            continue
        dtype, shape = _dtype(captured, vid), captured.shapes[vid]
        if leaf.random_p is not None:  # a dropout mask drawn in training: Dropout of ones keeps 1/(1-p)
            ones = b.filled(shape, 1, dtype)
            names[vid] = b.node("Dropout", [ones, b.const(np.float32(leaf.random_p)), b.const(np.bool_(True))],
                                1, scope="dropout")[0]
        elif vid in captured.constants:
            _, fill = captured.constants[vid]
            names[vid] = b.filled(shape, fill, dtype)
        else:
            names[vid] = b.const(leaf.handle.data().numpy())

    used = _consumers(captured)
    for unit in _patterns.units(captured, opset, used):
        node = unit.node
        conv = _registry.converter(unit.op)
        if conv is None or opset < conv.min_opset:
            if not fallthrough:
                raise _unsupported(node, opset)
            conv = _fallthrough_converter(unit.op)
            custom_opsets.setdefault(FALLTHROUGH_DOMAIN, 1)
        attrs = unit.attrs
        for k, v in attrs.items():
            dynamic = isinstance(v, Sym) or (isinstance(v, list) and any(isinstance(x, Sym) for x in v))
            if dynamic and k not in conv.dynamic_attrs:
                raise UnsupportedOperatorError(
                    f"ONNX export: attribute {k}={v} of {node['op']} (in {node.get('layer') or node.get('scope')}) "
                    f"follows a dynamic axis, and its ONNX form needs it fixed\n"
                    f"  fix: keep that axis static (leave it out of dynamic_axes)")
        ctx = NodeContext(b, unit.op, attrs, [names[i] for i in unit.inputs],
                          [captured.shapes[i] for i in unit.inputs], [_dtype(captured, i) for i in unit.inputs],
                          [captured.shapes[o] for o in unit.outputs], [_dtype(captured, o) for o in unit.outputs],
                          node.get("scope", ""), node.get("layer", ""), node.get("source", ""),
                          [bool(used.get(o)) for o in unit.outputs])
        produced = conv.fn(ctx)
        if isinstance(produced, str):
            produced = [produced]
        for k, o in enumerate(unit.outputs):
            name = produced[k] if k < len(produced) else None
            if name is None:
                if used.get(o):
                    ctx.fail(f"its output {k} has no ONNX form, and the model reads it", "use the other outputs only")
                continue
            names[o] = name

    # Outputs: rename the producing node's output, or an Identity where the name is taken.
    taken = {spec.name for spec in inputs} | initialized
    renamed: Dict[str, str] = {}
    output_infos = []
    for spec, vid in zip(outputs, trace.outputs):
        src = renamed.get(names[vid], names[vid])
        if _producer_of(b, src) is None or src in taken:
            b.node("Identity", [src], [spec.name])
        else:
            _rename(b, src, spec.name)
            renamed[src] = spec.name
        taken.add(spec.name)
        output_infos.append(_value_info(spec.name, _dtype(captured, vid), captured.shapes[vid], spec.axis_names))

    graph = helper.make_graph(b.nodes, graph_name, graph_inputs + extra_inputs, output_infos)
    b.write_initializers(graph)
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in custom_opsets.items()]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="glassgrad", producer_version=__version__)
    model.ir_version = helper.find_min_ir_version_for(opsets, ignore_unknown=True)
    return model


FALLTHROUGH_DOMAIN = "org.glassgrad"


def _fallthrough_converter(op: str) -> "_registry.Converter":
    """OperatorExportTypes.ONNX_FALLTHROUGH: the op as a node of the domain 'org.glassgrad', with
    its inputs, outputs and attributes as they are (a runtime must implement it)."""
    def emit(ctx: NodeContext):
        attrs = {k: ([str(x) if isinstance(x, Sym) else x for x in v] if isinstance(v, list) else
                     (str(v) if isinstance(v, Sym) else v)) for k, v in ctx.attrs.items()}
        return ctx.b.node(op, ctx.inputs, len(ctx.out_shapes), scope=ctx.scope, domain=FALLTHROUGH_DOMAIN, **attrs)
    return _registry.Converter(op, emit, op, 1)


def _consumers(captured: Captured) -> Dict[int, int]:
    """How many nodes read each value (outputs of the graph count once more)."""
    used: Dict[int, int] = {}
    for node in captured.nodes:
        for i in node["inputs"]:
            used[i] = used.get(i, 0) + 1
    for o in captured.trace.outputs:
        used[o] = used.get(o, 0) + 1
    return used


def _producer_of(b: Builder, name: str):
    for node in reversed(b.nodes):
        if name in node.output:
            return node
    return None


def _rename(b: Builder, old: str, new: str) -> None:
    for node in b.nodes:
        for i, n in enumerate(node.output):
            if n == old:
                node.output[i] = new
        for i, n in enumerate(node.input):
            if n == old:
                node.input[i] = new
