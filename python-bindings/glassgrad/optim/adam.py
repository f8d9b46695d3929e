from __future__ import annotations

from .. import _C, _args
from .._tensor import Tensor
from .optimizer import NO_STATE, Optimizer, UpdateRow, refuse_differentiable, refuse_fused_with_foreach


class BetasOptimizer(Optimizer):
    """The checks and the tensor beta1 of the optimizers with Adam's betas (Adam, AdamW, Adamax,
    NAdam, RAdam): betas a pair in [0, 1), eps and weight_decay >= 0, the flags booleans; beta1 is
    a tensor read by the updates (OneCycleLR cycles it), beta2 an attribute."""

    _TENSOR_HYPERPARAMETERS = ("lr",)  # and betas[0], through _static_signature below

    def _check_group(self, group) -> None:
        super()._check_group(group)
        name = type(self).__name__
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise _C.InvalidArgumentError(f"{name}: betas must be a pair (beta1, beta2), got {betas!r}\n"
                                          f"  fix: betas=(0.9, 0.999)")
        dict.__setitem__(group, "betas", _args.sequence_as_given(betas, lambda b: _args.real_as_given(
            b, "betas", name, minimum=0.0, maximum=1.0, below=True, fix="betas=(0.9, 0.999)")))
        for key in ("eps", "weight_decay"):
            if key in group:  # SparseAdam has no weight_decay
                dict.__setitem__(group, key, _args.real_as_given(group[key], key, name, minimum=0.0))
        for key in ("amsgrad", "maximize", "decoupled_weight_decay"):
            if key in group:
                dict.__setitem__(group, key, _args.flag(group[key], key, name))

    def _static_signature(self, group):
        # beta1 is a tensor; beta2 is an attribute of the update.
        sig = super()._static_signature({k: v for k, v in group.items() if k != "betas"})
        return sig + (float(group["betas"][1]),)


class Adam(BetasOptimizer):
    """Adam, PyTorch's torch.optim.Adam (same arguments, defaults and rule):

        t += 1;  g = -grad with maximize=True
        decoupled_weight_decay (AdamW):  p = p * (1 - lr * weight_decay)
        else (L2):                       g = g + weight_decay * p
        m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
        amsgrad:  v_max = max(v_max, v), used for v below
        p = p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)

    lr and beta1 are tensors read by the update (schedules, including OneCycleLR's momentum
    cycling of beta1, change them without recompiling). foreach and fused are accepted
    and ignored, so is capturable on CUDA (it is refused for CPU parameters at the step, as PyTorch
    refuses it): on CUDA the updates of a step always run as multi-tensor launches (up to
    28 parameters each, then one launch counting the steps), and are CUDA-graph safe.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None, decoupled_weight_decay: bool = False):
        refuse_differentiable(type(self).__name__, differentiable)
        refuse_fused_with_foreach(type(self).__name__, fused, foreach)
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise _C.InvalidArgumentError(f"{type(self).__name__}: lr as a Tensor is not supported for "
                                          f"capturable=False and foreach=True (PyTorch's rule)\n"
                                          f"  fix: foreach=None, or capturable=True")
        # Checked (and made plain floats and bools) by _check_group.
        # the keys in PyTorch's order: param_groups and state_dict() list them as PyTorch's do;
        # PyTorch's Adam makes the constructor's betas a tuple (a group added later keeps its list)
        super().__init__(params, dict(lr=lr, betas=tuple(betas) if isinstance(betas, list) else betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))
        _check_beta_kinds(type(self).__name__, betas, foreach, capturable)

    def _group_call(self, group, params):
        # _row's nodes for the whole group once every parameter's state exists (the first step
        # makes it row by row); maximize's negated gradients go row by row.
        if group["maximize"] or not self._rows_as_written(Adam):
            return None
        state = self.state
        names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step") if group["amsgrad"] else \
            ("exp_avg", "exp_avg_sq", "step")
        try:   # read with get: state is a defaultdict, where state[p] would make an empty entry
            per_param = [state.get(p, NO_STATE) for p in params]
            states = [[st[name] for st in per_param] for name in names]
        except KeyError:
            return None
        attrs = {"beta2": float(group["betas"][1]), "eps": float(group["eps"]),
                 "weight_decay": float(group["weight_decay"]),
                 "decoupled_weight_decay": group["decoupled_weight_decay"]}
        op = "AdamAMSGradUpdate" if group["amsgrad"] else "AdamUpdate"
        return op, attrs, states, [self._hyper(group, "lr", params[0])._h, self._hyper(group, "beta1", params[0])._h], []

    def _row(self, p, group) -> UpdateRow:
        st = self._state_with(p, "exp_avg", "exp_avg_sq")
        amsgrad = group["amsgrad"]
        if amsgrad and "max_exp_avg_sq" not in st:
            st["max_exp_avg_sq"] = self._zeros_state(p, "max_exp_avg_sq")
        attrs = (("beta2", float(group["betas"][1])), ("eps", float(group["eps"])),
                 ("weight_decay", float(group["weight_decay"])),
                 ("decoupled_weight_decay", group["decoupled_weight_decay"]))
        head = [p._h, self._grad_input(p, group), self._hyper(group, "lr", p)._h, self._hyper(group, "beta1", p)._h,
                st["exp_avg"]._h, st["exp_avg_sq"]._h]
        if amsgrad:
            targets = [p, st["exp_avg"], st["exp_avg_sq"], st["max_exp_avg_sq"], st["step"]]
            return "AdamAMSGradUpdate", attrs, head + [st["max_exp_avg_sq"]._h, st["step"]._h], targets
        targets = [p, st["exp_avg"], st["exp_avg_sq"], st["step"]]
        return "AdamUpdate", attrs, head + [st["step"]._h], targets


def _check_beta_kinds(name: str, betas, foreach, capturable) -> None:
    """PyTorch's Adam (and AdamW) rule for the betas argument, checked after their range: both
    Python floats or both tensors (betas=(0, 0.999) is refused, as there), and tensors only where
    foreach is not asked without capturable."""
    floats = all(isinstance(b, float) for b in betas)
    if not floats and not all(isinstance(b, Tensor) for b in betas):
        raise _C.InvalidArgumentError(f"betas must be either both floats or both Tensors\n  {name}: got betas="
                                      f"{tuple(betas)!r}\n  fix: betas=(0.9, 0.999), floats written with a point")
    if not floats and foreach and not capturable:
        raise _C.InvalidArgumentError(f"betas[0] as a Tensor is not supported for capturable=False and foreach=True\n"
                                      f"  fix: {name}(..., betas=(float(b1), float(b2))), or foreach=None")


class AdamW(Adam):
    """AdamW (Loshchilov & Hutter), PyTorch's torch.optim.AdamW: Adam with decoupled weight decay,
    p = p * (1 - lr * weight_decay) before the Adam step; weight_decay defaults to 0.01."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach=None, capturable: bool = False,
                 differentiable: bool = False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
