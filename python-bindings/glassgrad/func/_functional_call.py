"""torch.func.functional_call, stack_module_state and replace_all_batch_norm_modules_: a module
called with other tensors in the places of its parameters and buffers (docs/autograd.md,
"torch.func"). The module's own tensors come back when the call returns or raises."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from .._tensor import Tensor

_MISSING = object()


def _merged(parameter_and_buffer_dicts) -> Dict[str, Any]:
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list)) else (
        parameter_and_buffer_dicts,)
    merged: Dict[str, Any] = {}
    for d in dicts:
        if not isinstance(d, dict):
            raise ValueError(f"functional_call: expected a dict of tensors (or a tuple of dicts) by parameter and "
                             f"buffer name, got {type(d).__name__}\n  fix: dict(model.named_parameters())")
        repeated = sorted(k for k in d if k in merged)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged.update(d)
    return merged


def _module_tensors(module) -> Dict[str, Any]:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _tie(module, merged: Dict[str, Any], own: Dict[str, Any]) -> None:
    """A tensor the module holds under several names (tied weights) takes the given value under all of them."""
    groups: Dict[int, List[str]] = {}
    for name, t in own.items():
        if t is not None:
            groups.setdefault(id(t), []).append(name)
    for names in groups.values():
        given = [n for n in names if n in merged]
        if len(names) < 2 or not given:
            continue
        if any(merged[n] is not merged[given[0]] for n in given[1:]):
            raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. Consider using "
                             "tie_weights=False")
        for n in names:
            merged.setdefault(n, merged[given[0]])


def _check_strict(module, merged: Dict[str, Any], own: Dict[str, Any]) -> None:
    unexpected = [k for k in merged if k not in own]
    missing = [k for k in own if k not in merged]
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(msgs)
                           + "\n  fix: pass every parameter and buffer by its name in named_parameters() / "
                             "named_buffers(), or strict=False")


def _swap(module, name: str, value) -> Tuple[Any, str, str, Any]:
    """Puts value in the place of module's `name`; returns what restores it."""
    path, _, attr = name.rpartition(".")
    owner = module.get_submodule(path) if path else module
    for table in ("_parameters", "_buffers"):
        entries = owner.__dict__[table]
        if attr in entries:
            old = entries[attr]
            entries[attr] = value
            return owner, table, attr, old
    old = owner.__dict__.get(attr, _MISSING)
    object.__setattr__(owner, attr, value)
    return owner, "", attr, old


def _restore(owner, table: str, attr: str, old) -> None:
    if table:
        owner.__dict__[table][attr] = old
    elif old is _MISSING:
        object.__delattr__(owner, attr)
    else:
        object.__setattr__(owner, attr, old)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """torch.func.functional_call: module(*args, **kwargs) with the given tensors (a dict by name,
    or a tuple of dicts, e.g. (params, buffers)) in the places of its parameters and buffers;
    the others are the module's own. Gradients flow to the given tensors. tie_weights: a tied
    tensor given under one of its names is used under all. strict: every name must be given,
    and no other."""
    merged = _merged(parameter_and_buffer_dicts)
    own = _module_tensors(module)
    if tie_weights:
        _tie(module, merged, own)
    if strict:
        _check_strict(module, merged, own)
    for k, v in merged.items():
        if v is not None and not isinstance(v, Tensor):
            raise ValueError(f"functional_call: {k!r} must be a Tensor (or None), got {type(v).__name__}")
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    swapped = []
    try:
        for k, v in merged.items():
            swapped.append(_swap(module, k, v))
        return module(*args, **(kwargs or {}))
    finally:
        for entry in reversed(swapped):
            _restore(*entry)


def stack_module_state(models) -> Tuple[Dict[str, Tensor], Dict[str, Tensor]]:
    """torch.func.stack_module_state: (params, buffers) with each of the models' tensors stacked
    along a new first dimension, for vmap over an ensemble. The stacked parameters are new
    leaves that require grad when the models' do."""
    from .._shapes import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {n: stack([dict(m.named_parameters())[n].detach() for m in models]) for n, _ in
              models[0].named_parameters()}
    params = {n: t.requires_grad_(dict(models[0].named_parameters())[n].requires_grad) for n, t in params.items()}
    buffers = {n: stack([dict(m.named_buffers())[n] for m in models]) for n, _ in models[0].named_buffers()}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """torch.func.replace_all_batch_norm_modules_: every BatchNorm layer in root stops tracking
    running statistics (running_mean, running_var, num_batches_tracked become None), so it
    normalizes with each call's own batch statistics, as vmap over samples wants. In place;
    returns root."""
    from ..nn.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
