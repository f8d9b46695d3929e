from __future__ import annotations

from .. import _C, _args
from .optimizer import NO_STATE, Optimizer, UpdateRow, refuse_differentiable, refuse_fused_with_foreach


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

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None):
        refuse_differentiable("SGD", differentiable)
        refuse_fused_with_foreach("SGD", fused, foreach)
        # Checked (and made plain floats and bools) by _check_group: bool("no") would be True.
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize,
                                      foreach=foreach, differentiable=differentiable, fused=fused))

    def _check_group(self, group) -> None:
        super()._check_group(group)
        where = type(self).__name__
        for key in ("momentum", "dampening", "weight_decay"):
            dict.__setitem__(group, key, _args.real_as_given(group[key], key, where, minimum=0.0))
        for key in ("nesterov", "maximize"):
            dict.__setitem__(group, key, _args.flag(group[key], key, where))
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise _C.InvalidArgumentError("SGD: Nesterov momentum requires a momentum and zero dampening\n"
                                          "  fix: SGD(params, lr, momentum=0.9, nesterov=True)")

    def _structure(self, group):
        return (group["momentum"] != 0,)

    def _group_call(self, group, params):
        # _row's nodes for the whole group once every momentum buffer exists (the first step
        # makes them row by row, with no dampening); maximize's negated gradients go row by row.
        if group["maximize"] or not self._rows_as_written(SGD):
            return None
        h = params[0]._h
        device, dtype = h.device, h.dtype
        lr = group._tensors.get(("lr", device, dtype))
        if lr is None:
            lr = self._hyper(group, "lr", params[0])
        if group["momentum"] == 0:
            return "SGDUpdate", {"weight_decay": float(group["weight_decay"])}, [], [lr._h], []
        state = self.state   # read with get: a defaultdict, where state[p] would make an empty entry
        try:
            bufs = [state.get(p, NO_STATE)["momentum_buffer"] for p in params]
        except KeyError:
            return None
        momentum = group._tensors.get(("momentum", device, dtype))
        if momentum is None:
            momentum = self._hyper(group, "momentum", params[0])
        attrs = {"weight_decay": float(group["weight_decay"]), "dampening": float(group["dampening"]),
                 "nesterov": group["nesterov"]}
        return "SGDMomentumUpdate", attrs, [bufs], [lr._h], [momentum._h]

    def _row(self, p, group) -> UpdateRow:
        h = p._h
        # The group's 0-d tensors as _hyper keys them (looked up here: this runs per parameter
        # and step); _hyper makes one the first time. device and dtype are each a call into the
        # runtime: read once for both keys.
        device, dtype = h.device, h.dtype
        lr = group._tensors.get(("lr", device, dtype))  # (never `or`: a tensor's truth is its value)
        if lr is None:
            lr = self._hyper(group, "lr", p)
        g = self._grad_input(p, group)
        if group["momentum"] == 0:
            return "SGDUpdate", (("weight_decay", float(group["weight_decay"])),), [h, g, lr._h], [p]
        st = self._state_for(p)
        # A parameter listed twice in the group: PyTorch reads every buffer before the loop, so
        # each appearance in the step that makes the buffer starts it afresh (the last one is kept).
        made: set = getattr(self, "_made_this_step", set())
        first = "momentum_buffer" not in st or id(p) in made
        if first:
            st["momentum_buffer"] = self._zeros_state(p, "momentum_buffer")
            made.add(id(p))
        buf = st["momentum_buffer"]
        # First step: buf = momentum * 0 + d = d, PyTorch's copy, so no dampening yet.
        attrs = (("weight_decay", float(group["weight_decay"])),
                 ("dampening", 0.0 if first else float(group["dampening"])), ("nesterov", group["nesterov"]))
        momentum = group._tensors.get(("momentum", device, dtype))
        if momentum is None:
            momentum = self._hyper(group, "momentum", p)
        return "SGDMomentumUpdate", attrs, [h, g, lr._h, buf._h, momentum._h], [p, buf]
