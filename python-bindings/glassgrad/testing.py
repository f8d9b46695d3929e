"""Testing helpers: compare kernels with NumPy references and gradient rules with finite
differences. Used by glassgrad's own op table, and by anyone writing a new op.

An OpSpec describes one kernel: a NumPy reference, a generator of valid random inputs, the
attributes, and which inputs get a float64 finite-difference check of the op's gradient rule.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _C
from ._dtypes import plain
from ._finite_differences import central_differences

SIZES = (1, 3, 17, 33)


@dataclass
class OpSpec:
    op: str
    ref: Callable[..., Any]
    inputs: Callable[[np.random.Generator, str, int], List[np.ndarray]]
    attrs: Union[Dict[str, Any], Callable[[int], Dict[str, Any]]] = field(default_factory=dict)
    dtypes: Tuple[str, ...] = ("float32", "float64")
    grad: Tuple[int, ...] = ()          # input indices whose gradient rule is checked
    sizes: Tuple[int, ...] = SIZES
    grad_sizes: Tuple[int, ...] = (3,)
    outputs: Optional[Tuple[int, ...]] = None  # output indices to compare (default: all)
    grad_outputs: Optional[Tuple[int, ...]] = None  # outputs that get a cotangent (default: all float)
    rtol: Dict[str, float] = field(default_factory=lambda: {"float32": 1e-4, "float64": 1e-9})
    atol: Dict[str, float] = field(default_factory=lambda: {"float32": 1e-5, "float64": 1e-10})
    noncontiguous: bool = True           # also run on strided views of the inputs
    name: str = ""
    # Why the CUDA kernel refuses these attributes (UnsupportedError), e.g. a configuration only
    # the CPU kernels compute yet; "" when CUDA must match the CPU.
    cuda_unsupported: str = ""

    @property
    def id(self) -> str:
        return self.name or self.op

    def attrs_for(self, n: int) -> Dict[str, Any]:
        return self.attrs(n) if callable(self.attrs) else dict(self.attrs)

    def reference(self, arrays: Sequence[np.ndarray], attrs: Dict[str, Any]) -> List[np.ndarray]:
        out = self.ref(*arrays, **attrs)
        return list(out) if isinstance(out, (tuple, list)) else [out]


def to_tensor(a: np.ndarray, device: str = "cpu", contiguous: bool = True) -> "_C.Tensor":
    """A runtime tensor holding `a`; with contiguous=False, a strided view with the same values
    (every other element of a doubled last axis), to exercise kernels on non-contiguous input."""
    a = np.asarray(a)
    if contiguous or a.ndim == 0 or a.size == 0:
        return _C.Tensor.from_numpy(a, device)
    doubled = np.repeat(a, 2, axis=-1)
    base = _C.Tensor.from_numpy(doubled, device)
    view = base.slice(a.ndim - 1, 0, doubled.shape[-1], 2)
    assert not view.is_contiguous() or a.shape[-1] == 1
    return view


def run_kernel(op: str, arrays: Sequence[np.ndarray], attrs: Dict[str, Any], device: str = "cpu",
               contiguous: bool = True) -> List[np.ndarray]:
    tensors = [to_tensor(a, device, contiguous) for a in arrays]
    return [t.numpy() for t in _C.run_op(op, tensors, attrs, "")]


def fused_program(instructions: Sequence[Tuple[str, int, int, float]]) -> Dict[str, Any]:
    """The attributes of a FusedElementwise node running `instructions`, each (op name, register
    a, register b or -1, scalar): registers 0..n-1 are the inputs, instruction j writes register
    n + j. Op codes come from the engine's elementwise table (glassgrad.kernels.elementwise_ops)."""
    codes = {e["name"]: e["code"] for e in _C.elementwise_ops() if e["fusible"]}
    return {"program": [v for op, a, b, _ in instructions for v in (codes[op], a, b)],
            "scalars": [float(s) for *_, s in instructions]}


def fused_instruction(op: str, attrs: Dict[str, Any]) -> Dict[str, Any]:
    """A one-instruction FusedElementwise program computing `op` (a fusible elementwise op) of
    inputs 0 (and 1), with the scalar attribute taken from the op's `attrs`."""
    row = next(e for e in _C.elementwise_ops() if e["name"] == op)
    scalar = float(attrs[row["scalar"]]) if row["scalar"] else 0.0
    return fused_program([(op, 0, 1 if row["arity"] == 2 else -1, scalar)])


def fused_cases(specs: Sequence[OpSpec]) -> List[Tuple[OpSpec, str]]:
    """(spec, float dtype) of every spec of an op that FusedElementwise runs."""
    fusible = {e["name"] for e in _C.elementwise_ops() if e["fusible"]}
    return [(s, dt) for s in specs if s.op in fusible for dt in s.dtypes if dt in ("float32", "float64")]


def check_fused_instruction(spec: OpSpec, dtype: str, device: str = "cpu", n: int = 17) -> None:
    """A one-instruction FusedElementwise program of spec's op gives the op kernel's numbers bit
    for bit (both run the row's scalar function), on dense and strided inputs."""
    rng = np.random.default_rng(abs(hash((spec.id, dtype, device, "fused"))) % 2**32)
    arrays = spec.inputs(rng, dtype, n)
    attrs = spec.attrs_for(n)
    for contiguous in (True, False):
        (want,) = run_kernel(spec.op, arrays, attrs, device, contiguous)
        (got,) = run_kernel("FusedElementwise", arrays, fused_instruction(spec.op, attrs), device, contiguous)
        np.testing.assert_array_equal(got, want, err_msg=f"fused {spec.id} on {device}, contiguous={contiguous}")


def _cotangents(rng: np.random.Generator, outs: Sequence[np.ndarray], which: Sequence[int]) -> Dict[int, np.ndarray]:
    return {k: rng.standard_normal(outs[k].shape).astype(outs[k].dtype) for k in which}


def _float_outputs(outs: Sequence[np.ndarray]) -> List[int]:
    return [k for k, o in enumerate(outs) if o.dtype.kind == "f"]


def numeric_gradient(op: str, arrays: Sequence[np.ndarray], attrs: Dict[str, Any], wrt: Sequence[int],
                     cotangents: Dict[int, np.ndarray], eps: float = 1e-6) -> List[np.ndarray]:
    """Central differences of L = sum_k <out_k, cotangent_k> with respect to arrays[i], i in wrt."""
    def loss(arrs):
        outs = run_kernel(op, arrs, attrs)
        return sum(float(np.sum(outs[k].astype(np.float64) * c)) for k, c in cotangents.items())

    return [central_differences(loss, arrays, i, eps) for i in wrt]


def graph_gradient(op: str, arrays: Sequence[np.ndarray], attrs: Dict[str, Any], wrt: Sequence[int],
                   cotangents: Dict[int, np.ndarray]) -> List[np.ndarray]:
    """The op's gradient rule, run for real: records op -> L = sum_k Sum(out_k * cotangent_k) in a
    graph, asks the engine for dL/d(arrays[i]), compiles and executes the backward graph."""
    g = _C.Graph()
    leaves = []
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        leaves.append(g.add_leaf(f"x{i}", list(a.shape), plain(a.dtype), "cpu", "input",
                                 requires_grad=i in wrt))
    outs = g.add(op, leaves, attrs)
    cot_leaves = {}
    for k, c in cotangents.items():
        cot_leaves[k] = g.add_leaf(f"cot{k}", list(c.shape), plain(c.dtype), "cpu", "input")
    loss = None
    for k in sorted(cotangents):
        prod = g.add("Mul", [outs[k], cot_leaves[k]])[0]
        term = g.add("Sum", [prod], {"dims": [], "keepdim": False})[0]
        loss = term if loss is None else g.add("Add", [loss, term])[0]
    grads = g.backward(loss, [leaves[i] for i in wrt])
    if any(v < 0 for v in grads):
        missing = [wrt[j] for j, v in enumerate(grads) if v < 0]
        raise AssertionError(f"{op}: no gradient reached inputs {missing}")
    plan = _C.compile(g, grads)
    bound = {leaves[i]: np.asarray(a) for i, a in enumerate(arrays)}
    bound.update({cot_leaves[k]: c for k, c in cotangents.items()})
    inputs = [_C.Tensor.from_numpy(bound[v]) for v in plan.input_values]
    return [t.numpy() for t in _C.Executor(plan).run(inputs)]


def check_gradient(spec: OpSpec, rng: np.random.Generator, n: int, eps: float = 1e-6,
                   rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Asserts that the op's gradient rule matches central finite differences in float64."""
    arrays = [np.asarray(a) for a in spec.inputs(rng, "float64", n)]
    attrs = spec.attrs_for(n)
    outs = run_kernel(spec.op, arrays, attrs)
    which = spec.grad_outputs if spec.grad_outputs is not None else _float_outputs(outs)
    cot = _cotangents(rng, outs, which)
    analytic = graph_gradient(spec.op, arrays, attrs, spec.grad, cot)
    numeric = numeric_gradient(spec.op, arrays, attrs, spec.grad, cot, eps)
    for i, a, b in zip(spec.grad, analytic, numeric):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                   err_msg=f"{spec.id}: gradient of input {i} (n={n}) differs from finite differences")


class MirrorCommunicator(_C.Communicator):
    """A stand-in for `world_size` ranks that all hold this process's data, for testing the
    collective kernels without a second process: an all-reduce sums world_size equal copies
    (x * world_size; op "average" gives x back) and a broadcast changes nothing. It reads host
    memory, so a CUDA kernel that calls it is refused with UnsupportedError (NCCL serves CUDA)."""

    def __init__(self, world_size: int = 3):
        super().__init__()
        self.world_size = int(world_size)

    def rank(self) -> int:
        return 0

    def size(self) -> int:
        return self.world_size

    def backend(self) -> str:
        return "mirror"

    def _host(self, address: int, count: int, dtype: str, stream: int) -> np.ndarray:
        if stream:
            raise _C.UnsupportedError("MirrorCommunicator reads host memory and was handed CUDA memory\n"
                                      "  fix: test CUDA collectives with NCCL (backend='nccl') on a GPU machine")
        import ctypes
        t = np.dtype(dtype if dtype != "bool" else "uint8")
        buf = (ctypes.c_char * (int(count) * t.itemsize)).from_address(address)
        return np.frombuffer(buf, dtype=t, count=int(count))

    def all_reduce(self, address, count, dtype, op, stream):
        a = self._host(address, count, dtype, stream)
        if op == "sum":
            a *= self.world_size

    def broadcast(self, address, count, dtype, root, stream):
        self._host(address, count, dtype, stream)


# torch.testing's comparison (docs/porting.md, "Testing").
from ._assert_close import assert_allclose, assert_close  # noqa: E402,F401
from ._make_tensor import make_tensor  # noqa: E402,F401
