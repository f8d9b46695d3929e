"""Jacobian-vector products from reverse mode ("the double-vjp trick", docs/autograd.md,
"Forward-mode AD"): J^T u is linear in u, so J t is the gradient in u of <J^T u, t>. Two
backward passes per output, each through the graph that computed it, the first with
create_graph=True: every op on the path needs the gradient rule of its backward op, and stops
with UnsupportedError at those that have none (the list in docs/autograd.md)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from .. import _C
from .._runtime import enable_grad
from .._tensor import Tensor
from .gradients import grad


def jvp_of(outputs: Sequence[Any], inputs: Sequence[Tensor], tangents: Sequence[Tensor], create_graph: bool,
           who: str) -> List[Optional[Tensor]]:
    """J t for each output (None for one that does not depend on the inputs)."""
    from .._factories import zeros_like
    results: List[Optional[Tensor]] = []
    with enable_grad():
        for o in outputs:
            if not isinstance(o, Tensor) or not o.requires_grad:
                results.append(None)
                continue
            # u requires grad, so with create_graph the gradients J^T u are functions of u.
            u = zeros_like(o).requires_grad_(True)
            try:
                gs = grad([o], list(inputs), [u], retain_graph=True, create_graph=True, allow_unused=True)
                inner = None
                for g, t in zip(gs, tangents):
                    if g is not None:
                        term = (g * t.to(g.dtype)).sum()
                        inner = term if inner is None else inner + term
                if inner is None:
                    results.append(None)
                    continue
                (jt,) = grad([inner], [u], allow_unused=True, materialize_grads=True, create_graph=create_graph)
            except _C.UnsupportedError as e:
                raise _C.UnsupportedError(
                    f"{who}: the tangent is computed by differentiating a gradient (glassgrad has no forward mode), "
                    f"and an op on the path has no second derivative:\n{e}\n  fix: compute the Jacobian by reverse "
                    f"mode (glassgrad.func.jacrev / torch.autograd.functional.jacobian) and multiply") from None
            results.append(jt if create_graph else jt.detach())
    return results
