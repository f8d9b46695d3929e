"""What a converter sees of one node: its ONNX inputs, their shapes (numbers, or polynomials of the
dynamic sizes) and dtypes, the node's attributes, and a Builder to emit ONNX nodes with."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._builder import NUMPY_TYPES, ONNX_TYPES, Builder
from ._symbolic import Dim, Sym, shape_str
from .errors import UnsupportedOperatorError


class NodeContext:
    def __init__(self, builder: Builder, op: str, attrs: Dict[str, Any], inputs: List[Optional[str]],
                 in_shapes: List[Tuple[Dim, ...]], in_dtypes: List[str], out_shapes: List[Tuple[Dim, ...]],
                 out_dtypes: List[str], scope: str, layer: str, source: str, used_outputs: Sequence[bool]):
        self.b = builder
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.in_shapes = in_shapes
        self.in_dtypes = in_dtypes
        self.out_shapes = out_shapes
        self.out_dtypes = out_dtypes
        self.scope = scope
        self.layer = layer
        self.source = source
        self.used_outputs = list(used_outputs)

    @property
    def opset(self) -> int:
        return self.b.opset

    # ---- emitting ----
    def node(self, op_type: str, inputs: Sequence[Optional[str]], outputs=1, **attrs) -> List[str]:
        return self.b.node(op_type, inputs, outputs, scope=self.scope, **attrs)

    def emit(self, op_type: str, *inputs: Optional[str], **attrs) -> str:
        """A one-output ONNX node under this layer's scope: its output's name."""
        return self.b.node(op_type, list(inputs), 1, scope=self.scope, **attrs)[0]

    def const(self, value, dtype: Optional[str] = None) -> str:
        return self.b.const(value, dtype)

    def scalar(self, value, dtype: str) -> str:
        """A 0-d constant of a glassgrad dtype (an operand broadcast against a tensor)."""
        return self.b.const(np.asarray(value, dtype=NUMPY_TYPES[dtype]))

    def ints(self, values: Sequence[int]) -> str:
        return self.b.ints(values)

    def shape(self, dims: Sequence[Dim]) -> str:
        return self.b.shape(dims)

    def reduce(self, op_type: str, x: str, axes: Optional[Sequence[int]], keepdims: bool) -> str:
        """An ONNX Reduce* over `axes` (None: every axis). The axes are an input of ReduceSum from
        opset 13 and of the others from opset 18, an attribute before."""
        if axes is None:
            return self.emit(op_type, x, keepdims=int(keepdims))
        axes = [int(a) for a in axes]
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.emit(op_type, x, self.ints(axes), keepdims=int(keepdims))
        return self.emit(op_type, x, axes=axes, keepdims=int(keepdims))

    def filled(self, dims: Sequence[Dim], value, dtype: str) -> str:
        return self.b.filled(dims, value, dtype, scope=self.scope)

    def cast(self, name: str, dtype: str) -> str:
        return self.emit("Cast", name, to=ONNX_TYPES[dtype])

    # ---- reading ----
    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def static_attr(self, name: str, default=None):
        """An attribute that must be the same number at every size of the dynamic axes."""
        v = self.attrs.get(name, default)
        if isinstance(v, Sym) or (isinstance(v, list) and any(isinstance(x, Sym) for x in v)):
            self.fail(f"its attribute {name}={v} follows a dynamic axis, and the ONNX form of {self.op} needs it "
                      f"fixed", "keep that axis static (leave it out of dynamic_axes)")
        return v

    def rank(self, i: int = 0) -> int:
        return len(self.in_shapes[i])

    def has_input(self, i: int) -> bool:
        return i < len(self.inputs) and self.inputs[i] is not None

    def where(self) -> str:
        layer = self.layer or (f"'{self.scope}'" if self.scope else "the model")
        src = f", recorded at {self.source}" if self.source else ""
        return f"{self.op} in {layer}{src}"

    def fail(self, cause: str, fix: str) -> None:
        shapes = ", ".join(f"{shape_str(s)} {d}" for s, d in zip(self.in_shapes, self.in_dtypes))
        raise UnsupportedOperatorError(
            f"ONNX export (opset {self.opset}): {self.where()} cannot be exported: {cause}\n"
            f"  inputs: {shapes}\n  attributes: {self.attrs}\n  fix: {fix}")
