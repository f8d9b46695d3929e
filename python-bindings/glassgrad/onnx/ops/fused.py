"""FusedElementwise (autodiff-engine/src/ops/fused.cpp), the fusion pass's register program, unfused:
registers 0..n-1 are the inputs, instruction j (op code, register a, register b or -1, scalar)
writes register n + j with that row's formula (elementwise.py), and the last register is the
result, broadcast to the node's output shape."""
from __future__ import annotations

from ... import _C
from .._context import NodeContext
from .._registry import converts
from .elementwise import FORMULAS


def _broadcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    return [y if x == 1 else x for x, y in zip(a, b)]


@converts("FusedElementwise", onnx="the ops of its instructions")
def fused_elementwise(ctx: NodeContext):
    names = {row["code"]: row["name"] for row in _C.elementwise_ops()}
    program, scalars = list(ctx.attr("program")), list(ctx.attr("scalars"))
    regs = list(ctx.inputs)
    shapes = [list(s) for s in ctx.in_shapes]
    dt = ctx.out_dtypes[0]
    for j in range(len(program) // 3):
        code, a, b = program[3 * j:3 * j + 3]
        op = names[int(code)]
        if op not in FORMULAS:
            ctx.fail(f"its instruction {j} is {op}, which has no ONNX form (a gradient formula)",
                     "export the forward pass only (evaluation mode)")
        operands = [regs[a]] + ([regs[b]] if b >= 0 else [])
        regs.append(FORMULAS[op](ctx, operands, scalars[j], dt))
        shapes.append(_broadcast(shapes[a], shapes[b]) if b >= 0 else shapes[a])
    out = regs[-1]
    if shapes[-1] != list(ctx.out_shapes[0]):
        out = ctx.emit("Expand", out, ctx.shape(ctx.out_shapes[0]))
    return out
