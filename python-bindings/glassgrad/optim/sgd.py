from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .. import _C, _args
from .._tensor import Tensor
from .optimizer import Optimizer, _op_multi, refuse_differentiable


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's torch.optim.SGD (same arguments, defaults and rule):

        d = g + weight_decay * p                        (g = -grad with maximize=True)
        buf = d                                         (first step)
        buf = momentum * buf + (1 - dampening) * d      (later steps; momentum > 0)
        d = d + momentum * buf if nesterov else buf
        p = p - lr * d

    lr and momentum are tensors read by the update (schedules change them without recompiling).
    foreach and fused are accepted and ignored: on CUDA the updates of a step always run as
    multi-tensor launches (up to 28 parameters each), on the CPU one pass per parameter.
    """

    _TENSOR_HYPERPARAMETERS = ("lr", "momentum")

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None):
        refuse_differentiable("SGD", differentiable)
        # Checked (and made plain floats and bools) by _check_group: bool("no") would be True.
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        where = type(self).__name__
        for key in ("momentum", "dampening", "weight_decay"):
            dict.__setitem__(group, key, _args.real(group[key], key, where, minimum=0.0))
        for key in ("nesterov", "maximize"):
            dict.__setitem__(group, key, _args.flag(group[key], key, where))
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise _C.InvalidArgumentError("SGD: Nesterov momentum requires a momentum and zero dampening\n"
                                          "  fix: SGD(params, lr, momentum=0.9, nesterov=True)")

    def _structure(self, group):
        return (group["momentum"] != 0,)

    def _update_all(self, work) -> None:
        """The updates of _update, recorded in runs of the same op and attributes (one call each:
        _record_updates) instead of one call per parameter; maximize (which negates the gradient
        first) and subclasses overriding _update take the per-parameter path."""
        if type(self)._update is not _SGD_UPDATE:  # a subclass's (or a patched) _update runs per parameter
            return super()._update_all(work)
        run_key: Optional[Tuple[str, Tuple[Tuple[str, Any], ...]]] = None  # (op, attrs) of the run
        rows: List[List[Any]] = []
        targets: List[List[Tensor]] = []

        def flush():
            if rows:
                assert run_key is not None  # set with the run's first row
                self._record_updates(run_key[0], rows, targets, dict(run_key[1]))
                rows.clear()
                targets.clear()

        for group, p in work:
            if group["maximize"]:
                flush()
                self._update(p, group)
                continue
            lr = self._hyper(group, "lr", p)._h
            key: Tuple[str, Tuple[Tuple[str, Any], ...]]
            if group["momentum"] == 0:
                key = ("SGDUpdate", (("weight_decay", group["weight_decay"]),))
                row, target = [p._h, p._h.grad(), lr], [p]
            else:
                st = self._state_for(p)
                first = "momentum_buffer" not in st
                if first:
                    st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
                buf = st["momentum_buffer"]
                # As _update: the first step copies d into the buffer (no dampening yet).
                key = ("SGDMomentumUpdate", (("weight_decay", group["weight_decay"]),
                                             ("dampening", 0.0 if first else group["dampening"]),
                                             ("nesterov", group["nesterov"])))
                row = [p._h, p._h.grad(), lr, buf._h, self._hyper(group, "momentum", p)._h]
                target = [p, buf]
            if key != run_key:
                flush()
                run_key = key
            rows.append(row)
            targets.append(target)
        flush()

    def _update(self, p, group) -> None:
        lr = self._hyper(group, "lr", p)
        g = self._grad(p, group)
        if group["momentum"] == 0:
            (new_p,) = _op_multi("SGDUpdate", [p, g, lr], {"weight_decay": group["weight_decay"]})
            self._swap(p, new_p)
            return
        st = self._state_for(p)
        first = "momentum_buffer" not in st
        if first:
            st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
        buf = st["momentum_buffer"]
        # First step: buf = momentum * 0 + d = d, PyTorch's copy, so no dampening yet.
        new_p, new_buf = _op_multi("SGDMomentumUpdate", [p, g, lr, buf, self._hyper(group, "momentum", p)],
                                   {"weight_decay": group["weight_decay"],
                                    "dampening": 0.0 if first else group["dampening"],
                                    "nesterov": group["nesterov"]})
        self._swap(p, new_p)
        self._swap(buf, new_buf)


_SGD_UPDATE = SGD._update  # the rule _update_all batches (any other _update is called as written)
