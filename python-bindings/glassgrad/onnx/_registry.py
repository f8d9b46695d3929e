"""Which glassgrad op becomes which ONNX ops: the converter table, and the reasons an op cannot be
exported.

A converter takes a NodeContext (the node's ONNX input names, shapes, dtypes and attributes) and
returns the ONNX names of the node's outputs (None for an output nothing may read, such as a
recurrent op's reserve for its backward pass). Converters live in glassgrad/onnx/ops/, one module
per op family of the engine (autodiff-engine/src/ops/<family>.cpp).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .. import _C


@dataclass(frozen=True)
class Converter:
    op: str
    fn: Callable
    onnx_ops: str                    # what it becomes, for the coverage list ("Conv", "Gemm or MatMul")
    min_opset: int = 13
    dynamic_attrs: FrozenSet[str] = frozenset()  # attributes that may follow a dynamic axis


CONVERTERS: Dict[str, Converter] = {}

# Forward ops that have no ONNX form: (the reason, the fix), what the coverage list and the error say.
CANNOT: Dict[str, Tuple[str, str]] = {}

_TRAINING_FIX = ("export the model in evaluation mode (the default, training=TrainingMode.EVAL), calling only its "
                 "forward pass")


def converts(*ops: str, onnx: str, min_opset: int = 13, dynamic_attrs: Sequence[str] = ()):
    """Registers the decorated function as the converter of `ops`."""
    def register(fn):
        for op in ops:
            if op in CONVERTERS:
                raise ValueError(f"two ONNX converters for {op}")
            CONVERTERS[op] = Converter(op, fn, onnx, min_opset, frozenset(dynamic_attrs))
        return fn
    return register


def cannot(op: str, reason: str, fix: str = _TRAINING_FIX) -> None:
    CANNOT[op] = (reason, fix)


_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        from . import ops
        for mod in sorted(m.name for m in pkgutil.iter_modules(ops.__path__)):
            importlib.import_module(f"{ops.__name__}.{mod}")
        _loaded = True


def converter(op: str) -> Optional[Converter]:
    _load()
    return CONVERTERS.get(op)


def reason_not_exported(op: str) -> Optional[str]:
    """Why `op` has no ONNX form (None when it has one). Besides the listed forward ops, every
    gradient op (its name says Backward) and every in-place update (optimizer steps, running
    statistics) belongs to training, which an ONNX inference graph does not hold."""
    _load()
    if op in CONVERTERS:
        return None
    if op in CANNOT:
        return CANNOT[op][0]
    if "Backward" in op:
        return "a gradient op: it appears only in backward graphs, and an exported model is the forward pass"
    try:
        schema = _C.op_schema(op)
    except Exception:  # an op name the engine does not know
        return None
    if schema["inplace"]:
        return ("an in-place update of stored state (an optimizer step, running statistics): training work, "
                "which the forward pass of an exported model does not do")
    return None


def fix_for(op: str) -> str:
    """What to do about an op that cannot be exported."""
    return CANNOT[op][1] if op in CANNOT else _TRAINING_FIX


def coverage() -> List[Tuple[str, str, str]]:
    """(op, 'exports' or 'cannot' or 'missing', the ONNX ops or the reason) for every op the engine
    knows, sorted by name."""
    _load()
    rows = []
    for op in sorted(_C.op_names()):
        conv = CONVERTERS.get(op)
        if conv is not None:
            rows.append((op, "exports", conv.onnx_ops + (f" (opset {conv.min_opset}+)" if conv.min_opset > 13 else "")))
            continue
        reason = reason_not_exported(op)
        rows.append((op, "cannot", reason) if reason else (op, "missing", "no converter yet"))
    return rows
