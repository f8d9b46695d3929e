"""Building an ONNX graph: nodes with unique names, constants, and the int64 shape tensors that
sizes following a dynamic axis need (their value is computed from the inputs' shapes at run time).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ._symbolic import Dim

# glassgrad's dtypes as ONNX element types.
ONNX_TYPES = {
    "float32": onnx.TensorProto.FLOAT, "float64": onnx.TensorProto.DOUBLE, "float16": onnx.TensorProto.FLOAT16,
    "bfloat16": onnx.TensorProto.BFLOAT16, "int64": onnx.TensorProto.INT64, "int32": onnx.TensorProto.INT32,
    "int16": onnx.TensorProto.INT16, "int8": onnx.TensorProto.INT8, "uint8": onnx.TensorProto.UINT8,
    "bool": onnx.TensorProto.BOOL,
}
NUMPY_TYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
               "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_}


class Builder:
    """The nodes of one ONNX graph, in order, and what they need: constants (as Constant nodes),
    initializers, and where each dynamic size can be read (an input and its axis)."""

    def __init__(self, opset: int):
        self.opset = opset
        self.nodes: List[onnx.NodeProto] = []
        self.initializers: List[Tuple[str, np.ndarray]] = []
        self._names: Dict[str, int] = {}
        self._size_sources: Dict[str, Tuple[str, int]] = {}   # dynamic size name -> (input name, axis)
        self._cache: Dict[tuple, str] = {}                    # constants and size tensors made once

    # ---- names ----
    def unique(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def reserve(self, name: str) -> None:
        """Marks a name as taken (graph inputs, initializers, outputs)."""
        self._names.setdefault(name, 1)

    # ---- nodes ----
    def node(self, op_type: str, inputs: Sequence[Optional[str]], outputs: Union[int, Sequence[str]] = 1,
             scope: str = "", domain: str = "", **attrs) -> List[str]:
        """Appends a node; returns its output names (given, or made from the node's name)."""
        name = self.unique(f"/{scope.replace('.', '/')}/{op_type}" if scope else f"/{op_type}")
        if isinstance(outputs, int):
            outputs = [self.unique(f"{name}_output_{i}") for i in range(outputs)]
        ins = ["" if i is None else i for i in inputs]
        while ins and ins[-1] == "":   # trailing optional inputs are left out
            ins.pop()
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, ins, list(outputs), name=name, domain=domain or None, **attrs))
        return list(outputs)

    def op(self, op_type: str, *inputs: Optional[str], scope: str = "", **attrs) -> str:
        """A one-output node: its output's name."""
        return self.node(op_type, list(inputs), 1, scope=scope, **attrs)[0]

    # ---- constants ----
    def const(self, value, dtype: Optional[str] = None, name: str = "Constant") -> str:
        """A Constant node holding `value` (made once per distinct value, dtype and shape)."""
        arr = np.asarray(value, dtype=NUMPY_TYPES[dtype] if dtype else None)
        if arr.dtype == np.float64 and dtype is None and not isinstance(value, np.ndarray):
            arr = arr.astype(np.float32)
        key = ("const", arr.dtype.str, arr.shape, arr.tobytes())
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out = self.unique(f"/{name}_output_0")
        node_name = self.unique(f"/{name}")
        self.nodes.append(helper.make_node("Constant", [], [out], name=node_name,
                                           value=numpy_helper.from_array(arr, out)))
        self._cache[key] = out
        return out

    def ints(self, values: Sequence[int]) -> str:
        """A 1-D int64 constant."""
        return self.const(np.asarray(list(values), dtype=np.int64))

    def initializer(self, name: str, array: np.ndarray) -> str:
        self.reserve(name)
        self.initializers.append((name, array))
        return name

    def write_initializers(self, graph: onnx.GraphProto) -> None:
        """The initializers as tensors of `graph`, written in place (one copy of the data: a
        model's weights are most of the file)."""
        for name, array in self.initializers:
            t = graph.initializer.add()
            t.name = name
            t.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
            t.dims.extend(array.shape)
            t.raw_data = np.asarray(array, dtype=array.dtype.newbyteorder("<"), order="C").tobytes()

    def initializer_bytes(self) -> int:
        return sum(a.nbytes for _, a in self.initializers)

    # ---- dynamic sizes ----
    def add_size_source(self, size: str, input_name: str, axis: int) -> None:
        self._size_sources.setdefault(size, (input_name, axis))

    def _size(self, size: str) -> str:
        """A [1] int64 tensor holding a dynamic size, read off the input that declared it."""
        key = ("size", size)
        if key not in self._cache:
            inp, axis = self._size_sources[size]
            shape = self.op("Shape", inp, scope="sizes")
            self._cache[key] = self.op("Gather", shape, self.ints([axis]), scope="sizes", axis=0)
        return self._cache[key]

    def dim(self, d: Dim) -> str:
        """A [1] int64 tensor holding d (a number, or a polynomial of dynamic sizes)."""
        if isinstance(d, int):
            return self.ints([d])
        key = ("dim", d)
        if key in self._cache:
            return self._cache[key]
        total = None
        for mono, coeff in sorted(d.terms.items(), key=lambda mc: sorted(mc[0])):
            if not mono:
                term = self.ints([coeff])
            else:
                term = None
                for s in sorted(mono):
                    v = self._size(s)
                    term = v if term is None else self.op("Mul", term, v, scope="sizes")
                if coeff != 1:
                    term = self.op("Mul", term, self.ints([coeff]), scope="sizes")
            total = term if total is None else self.op("Add", total, term, scope="sizes")
        self._cache[key] = total
        return total

    def shape(self, dims: Sequence[Dim]) -> str:
        """A 1-D int64 tensor holding these sizes: a constant when none is dynamic."""
        if all(isinstance(d, int) for d in dims):
            return self.ints(dims)
        key = ("shape", tuple(dims))
        if key not in self._cache:
            self._cache[key] = self.op("Concat", *[self.dim(d) for d in dims], scope="sizes", axis=0)
        return self._cache[key]

    def filled(self, dims: Sequence[Dim], value, dtype: str, scope: str = "") -> str:
        """A tensor of shape dims (sizes may be dynamic) holding one value: ConstantOfShape."""
        fill = numpy_helper.from_array(np.asarray([value], dtype=NUMPY_TYPES[dtype]))
        return self.op("ConstantOfShape", self.shape(dims), scope=scope, value=fill)
