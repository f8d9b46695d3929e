"""Optimizer base, with PyTorch's interface: param_groups (a list of dicts holding 'params' and
the group's hyperparameters, which step() reads), state (per parameter), state_dict /
load_state_dict, zero_grad, add_param_group.

step() records one in-place update node per parameter (with its state: momentum buffers, Adam
moments, step counts) and realizes the whole training step in one plan.

Hyperparameters that schedules change every step are data, not structure: the learning rate,
SGD's and RMSprop's momentum and Adam's beta1 are 0-d tensors (one per group, device and dtype)
that the update ops read. Writing them into a group (`group['lr'] = 0.01`, as every
lr_scheduler does, or `group['betas'] = (0.85, 0.999)`, as OneCycleLR does) fills those tensors
at once, so the next step, even a replay of a glassgrad.compile'd step or of a captured CUDA
graph, uses the new value without compiling anything. Every other hyperparameter (weight_decay,
eps, nesterov, ...) is an attribute of the update ops: changing it makes the next plain step
compile a new plan, and makes compiled steps trace again (static_version() changes).
"""
from __future__ import annotations

import operator
import warnings
import weakref
from collections import defaultdict
from itertools import compress
from types import MappingProxyType
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .. import _C, _args, _dtypes, _grad_views
from .._tensor import Tensor, _op, _op_multi, _wrap
from .. import _trace
from .._trace import record_updates
from . import _hooks
from ._hooks import OptimizerHooks, wrap_hooked_methods
from ._stand_ins import StandIns, lay_out_state, restore, strided_params, swap_in

_static_version = 0
_HANDLE = operator.attrgetter("_h")  # a tensor's runtime handle


def static_version() -> int:
    """Changes whenever an optimizer hyperparameter that the update ops hold as an attribute
    changes (glassgrad.compile guards its replays with it)."""
    return _static_version


def _bump_static_version() -> None:
    global _static_version
    _static_version += 1


# Keys that lr_scheduler and users add to groups for their own bookkeeping: never read by step().
# PyTorch's implementation switches (foreach, fused, capturable, differentiable) are kept in each
# group under its keys, so state_dicts have PyTorch's layout; glassgrad has one implementation, so
# step() never reads them either (differentiable=True is refused when the optimizer is built).
_BOOKKEEPING = {"params", "param_names", "initial_lr", "max_lr", "min_lr", "base_momentum", "max_momentum",
                "swa_lr", "foreach", "fused", "capturable", "differentiable"}


def _rounds(work):
    """work split so that no parameter appears twice in one part: a parameter listed twice in a
    group (PyTorch warns and keeps it) is updated once per appearance, the second update reading
    the first's result and state, as PyTorch's loop over the group's list does."""
    parts: List[List[Any]] = []
    count: Dict[int, int] = {}
    for item in work:
        k = count[id(item[1])] = count.get(id(item[1]), -1) + 1
        if k == len(parts):
            parts.append([])
        parts[k].append(item)
    return parts


def _written_by_update(p: Tensor) -> bool:
    """p is the pending output of an in-place update op (an earlier optimizer step in the same
    recorded step): the next update chains onto it."""
    return bool(p._h.op) and bool(_C.op_schema(p._h.op)["inplace"])


def _skipped_keys(cls) -> frozenset:
    """The group keys _static_signature leaves out for an optimizer class (made once per class:
    step() computes the signature on every call)."""
    skip = cls.__dict__.get("_SKIPPED_KEYS")
    if skip is None or skip[0] != cls._TENSOR_HYPERPARAMETERS:
        skip = (cls._TENSOR_HYPERPARAMETERS, frozenset(_BOOKKEEPING | set(cls._TENSOR_HYPERPARAMETERS)))
        cls._SKIPPED_KEYS = skip
    return skip[1]


_UNCHANGING = frozenset((int, float, bool, str, type(None)))


def _unchanging(v) -> bool:
    """v cannot change but by a write into the group: a number, bool, string or None, or a tuple of
    those (a list, a tensor learning rate or a NumPy scalar may change in place)."""
    t = type(v)
    return t in _UNCHANGING or (t is tuple and all(type(e) in _UNCHANGING for e in v))


# The state of a parameter without state, for reads that must not add an entry to the
# defaultdict optimizer.state (the group calls' state.get(p, NO_STATE)).
NO_STATE: Mapping[str, Any] = MappingProxyType({})


class ParamGroup(dict):
    """One entry of optimizer.param_groups: a dict, as in PyTorch. Writing a hyperparameter
    updates what the next step uses at once (see the module doc)."""

    __slots__ = ("_opt", "_tensors", "_filled", "_static", "_checked")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._opt = None
        self._tensors: Dict[Tuple[str, str, str], Tensor] = {}  # (key, device, dtype) -> 0-d tensor
        self._filled: Dict[Tuple[str, str, str], float] = {}    # the value each tensor holds
        self._static = None
        self._checked: Optional[Tuple[list, list, list]] = None  # Optimizer._group_changed's snapshot

    def _changed(self) -> None:
        opt = self._opt() if self._opt is not None else None
        if opt is not None:
            opt._group_changed(self)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if key not in _BOOKKEEPING:
            self._changed()

    def update(self, *args, **kwargs):
        super().update(*args, **kwargs)
        self._changed()

    def __reduce__(self):
        # Pickled (glassgrad.save of a whole optimizer) as its entries alone: the link to the
        # optimizer (a weak reference) and the 0-d hyperparameter tensors are remade on load
        # (Optimizer.__setstate__).
        return (ParamGroup, (dict(self),))

    def setdefault(self, key, default=None):
        had = key in self
        out = super().setdefault(key, default)
        if not had and key not in _BOOKKEEPING:
            self._changed()
        return out


# One parameter's update node (Optimizer._row): op, attrs as (key, value) pairs, input handles,
# the tensors its outputs are written to.
UpdateRow = Tuple[str, Tuple[Tuple[str, Any], ...], List[Any], List[Tensor]]


def _check_param(opt_name: str, i: int, p) -> None:
    """PyTorch's checks: a tensor (else a TypeError), a leaf (else a ValueError). A frozen parameter
    (requires_grad=False) is accepted, as PyTorch accepts it: it never has a gradient, so step()
    skips it until it is unfrozen."""
    if not isinstance(p, Tensor):
        raise _args.InvalidArgumentTypeError(
            f"{opt_name}: optimizer can only optimize Tensors, but one of the params (parameter {i}) is "
            f"{type(p).__name__}\n  fix: pass model.parameters() or a list of tensors")
    if not p.is_leaf:
        raise _C.InvalidArgumentError(
            f"{opt_name}: can't optimize a non-leaf Tensor (parameter {i}, {list(p.shape)}, computed from other "
            f"tensors)\n  fix: optimize the leaf it was computed from, or w = w.detach().requires_grad_()")


def scalar_dtype() -> str:
    """The dtype of the optimizers' 0-d state (step, NAdam's mu_product, ASGD's eta and mu), as
    PyTorch's _get_scalar_dtype: float32, float64 while the default dtype is float64. A float32
    step counts exactly up to 2**24, as PyTorch's."""
    return "float64" if _dtypes.DEFAULT_FLOAT == "float64" else "float32"


def refuse_differentiable(name: str, differentiable) -> None:
    """PyTorch's differentiable=True (autograd through the step) is refused: glassgrad's
    optimizer steps are in-place nodes outside the differentiated graph."""
    if differentiable:
        raise _C.UnsupportedError(f"{name}(differentiable=True): glassgrad's optimizer steps are not "
                                  f"differentiated\n  fix: drop differentiable=True")


def refuse_fused_with_foreach(name: str, fused, foreach) -> None:
    """PyTorch refuses fused=True with foreach=True (a RuntimeError; UnsupportedError is one) in the
    optimizers that take both (SGD, Adam, AdamW, Adagrad)."""
    if fused and foreach:
        raise _C.UnsupportedError(f"{name}: `fused` and `foreach` cannot be `True` together\n"
                                  f"  fix: pass one of them (glassgrad runs the same step either way)")


class CapturableDeviceError(_C.DeviceError, AssertionError):
    """capturable=True (CUDA-graph capture) with a parameter on the CPU: a DeviceError, and the
    AssertionError PyTorch's step raises there."""


def refuse_capturable_on_cpu(opt, work) -> None:
    """PyTorch's step refuses capturable=True for a parameter with a gradient on a device CUDA
    graphs cannot capture; glassgrad ignores the flag on CUDA (its steps are graph safe)."""
    if not any([g.get("capturable") for g in opt.param_groups]):  # the common case: no group asks
        return
    for group, p in work:
        if group.get("capturable") and p.device.type != "cuda":
            name = type(opt).__name__
            raise CapturableDeviceError(
                f"{name}: If capturable=True, {opt._CAPTURABLE_TENSORS} must be on supported devices: ['cuda'] "
                f"(a parameter {list(p.shape)} {p.dtype} is on {p.device})\n"
                f"  fix: {name}(params, ..., capturable=False) on the CPU, or move the model to the GPU first")


class Optimizer(OptimizerHooks):
    """Base class: Optimizer(params, defaults). params is an iterable of tensors, of dicts
    (parameter groups: {'params': [...], 'lr': ...}, missing keys taken from defaults), or of
    (name, tensor) pairs (model.named_parameters()). Step and state_dict hooks: optim/_hooks.py."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        wrap_hooked_methods(cls)

    # Group keys held as 0-d tensors (read by the update ops), per optimizer class.
    _TENSOR_HYPERPARAMETERS: Tuple[str, ...] = ("lr",)
    # What PyTorch's capturable check names (refuse_capturable_on_cpu).
    _CAPTURABLE_TENSORS = "params and state_steps"
    # 0-d float state entries other than "step" (NAdam's "mu_product"; made as scalar_dtype()).
    _SCALAR_STATE: Tuple[str, ...] = ()
    # The state's "step" is a Python int (SparseAdam's, as PyTorch's), not a 0-d tensor.
    _INT_STEP = False
    # Set on the instance when a group lists a parameter twice (its updates then go in rounds); read
    # on every step, so the class holds the default (a miss would go through __getattr__).
    _repeats: bool = False
    # During step(): the state dicts' entries before the step, once an update recorded in Python may
    # change them (_keep_state); None otherwise.
    _state_before: Optional[Dict[Tensor, Dict[str, Any]]] = None

    def __init__(self, params: Iterable, defaults: Dict[str, Any]):
        self.defaults = dict(defaults)
        # defaultdict(dict), as PyTorch's: optimizer.state[p] of a parameter without state is {}
        self.state: Dict[Tensor, Dict[str, Any]] = defaultdict(dict)
        # During step(): (the tensors its updates moved, in order; a _C.UpdateJournal of their values
        # before the step, in the same order).
        self._swaps: Optional[Tuple[List[Tensor], Any]] = None
        self.param_groups: List[ParamGroup] = []
        self._step_calls = 0  # lr_scheduler warns when it steps before the optimizer ever did
        name = type(self).__name__
        items = list(params) if not isinstance(params, Tensor) else None
        if items is None:
            raise TypeError(f"{name}: params must be an iterable of tensors or dicts, got a single Tensor\n"
                            f"  fix: {name}([tensor], ...) or {name}(model.parameters(), ...)")
        if not items:
            raise _C.InvalidArgumentError(
                f"{name} got an empty parameter list\n"
                "  cause: model.parameters() is empty (layers assigned before super().__init__()?) or a "
                "generator was already consumed\n  fix: pass list(model.parameters())")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        for g in groups:
            self.add_param_group(g)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        for group in self.param_groups:
            group._opt = weakref.ref(self)
            group._static = self._static_signature(group)

    # ---- groups ----
    def add_param_group(self, param_group: Dict[str, Any]) -> None:
        """Adds a group ({'params': [...], hyperparameters...}); missing hyperparameters come from
        the optimizer's defaults. A parameter may belong to one group only."""
        name = type(self).__name__
        if not isinstance(param_group, dict):
            raise TypeError(f"{name}: a parameter group must be a dict, got {type(param_group).__name__}")
        params = param_group.get("params")
        if params is None:   # a KeyError, as PyTorch's param_group["params"]
            raise KeyError(f"{name}: a parameter group needs a 'params' entry; fix: "
                           f"{{'params': model.fc.parameters(), 'lr': 0.01}}")
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        names = None
        named = [isinstance(p, tuple) for p in params]
        if any(named):  # model.named_parameters(): (name, tensor) pairs, every one or none, as PyTorch's
            if not all(named):
                raise ValueError(f"all optimizer params should be with/without names. Some param names are missing\n"
                                 f"  {name}: parameter {named.index(False)} of the group is not a (name, tensor) pair\n"
                                 "  fix: pass model.named_parameters() or model.parameters(), not a mix")
            names = [n for n, _ in params]
            params = [p for _, p in params]
        start = sum(len(g["params"]) for g in self.param_groups)
        for i, p in enumerate(params):
            _check_param(name, start + i, p)
        if len({id(p) for p in params}) != len(params):
            # PyTorch keeps a repeated parameter and updates it once per appearance, warning
            # (pytorch/pytorch#40967); models with shared layers chain their parts' parameters.
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
            self._repeats = True
        has_names = names is not None or "param_names" in param_group
        if self.param_groups and ("param_names" in self.param_groups[0]) != has_names:  # PyTorch's rule
            raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group "
                             f"{'with names' if has_names else 'without names'} to the optimizer\n  {name}: the "
                             f"groups before are {'without' if has_names else 'with'} names\n  fix: give every group "
                             "its parameters the same way: model.fc.named_parameters() or model.fc.parameters()")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError(f"{name}: some parameters appear in more than one parameter group\n"
                             "  fix: give each parameter to one group only")
        group = ParamGroup({k: v for k, v in param_group.items() if k != "params"})
        group["params"] = params
        if names is not None:
            group["param_names"] = names
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self._check_group(group)
        group._opt = weakref.ref(self)  # no cycle: an optimizer is freed (with its state) once unused
        group._static = self._static_signature(group)
        self.param_groups.append(group)

    def _check_group(self, group: Dict[str, Any]) -> None:
        """Refuses invalid hyperparameters with a GlassgradError naming them (subclasses add
        their own checks through glassgrad._args)."""
        if not isinstance(group["lr"], Tensor):  # a tensor learning rate is read as data
            dict.__setitem__(group, "lr", _args.real_as_given(group["lr"], "lr", type(self).__name__, minimum=0.0))
        elif group["lr"].numel() != 1:
            raise _C.InvalidArgumentError(f"{type(self).__name__}: Tensor lr must be 1-element, got shape "
                                          f"{list(group['lr'].shape)}\n  fix: lr=glassgrad.tensor(0.01) (a 0-d tensor)")

    def _static_signature(self, group: Dict[str, Any]) -> Tuple:
        """The hyperparameters that shape the step's graph (attributes of the update ops, or which
        op runs): every group key but the tensor ones and the bookkeeping ones, plus
        _structure(group)."""
        skip = _skipped_keys(type(self))
        items = tuple(sorted((k, repr(v)) for k, v in group.items() if k not in skip))
        return items + (self._structure(group),)

    def _structure(self, group: Dict[str, Any]) -> Tuple:
        """What a tensor hyperparameter's value decides about the graph (SGD: momentum 0 or not)."""
        return ()

    def _group_changed(self, group: ParamGroup) -> None:
        for k, t in group._tensors.items():
            value = self._tensor_value(group, k[0])
            if group._filled.get(k) != value:
                t._raw().fill(value)
                group._filled[k] = value
        sig = self._static_signature(group)
        if sig != group._static:
            group._static = sig
            _bump_static_version()
        # What the group held when checked, by identity (the values are kept, so no other object can
        # take one's id): step() checks again only when a key or a value is another object, or when
        # a value could change in place (a list, a tensor, a NumPy scalar).
        values = list(group.values())
        unchanging = all(_unchanging(v) for k, v in group.items() if k not in _BOOKKEEPING)
        group._checked = (list(group), values, list(map(id, values))) if unchanging else None

    @staticmethod
    def _unchecked(group: ParamGroup) -> bool:
        """The group may hold other values than at its last check (_group_changed): written through
        dict methods the hooks do not see (dict.__setitem__(group, ...)), or holding a value that
        changes in place."""
        checked = getattr(group, "_checked", None)
        return checked is None or list(map(id, group.values())) != checked[2] or list(group) != checked[0]

    # ---- hyperparameters as tensors ----
    def _tensor_value(self, group: Dict[str, Any], key: str) -> float:
        if key == "beta1":
            return float(group["betas"][0])
        return float(group[key])

    def _hyper(self, group: ParamGroup, key: str, p: Tensor, dtype: Optional[str] = None) -> Tensor:
        """The group's 0-d tensor for `key` ('lr', 'momentum', 'beta1') on p's device, of p's dtype
        (or `dtype`: float64 for step-dependent factors computed as PyTorch does, in double)."""
        # Keyed by the runtime's device and dtype names: glassgrad.device and glassgrad.dtype are
        # str subclasses, equal and hashing alike, so either spelling finds the same entry.
        h = p._h
        dtype = dtype or h.dtype
        k = (key, h.device, dtype)
        t = group._tensors.get(k)
        if t is None:
            raw = _C.Tensor.full([], self._tensor_value(group, key), dtype, h.device, key)
            t = _wrap(_C.lazy_leaf(raw, "state", False, key))
            group._tensors[k] = t
            group._filled[k] = self._tensor_value(group, key)
        return t

    def _hyper_tensors(self) -> List[Tuple[str, Tensor]]:
        return [(k[0], t) for g in self.param_groups for k, t in g._tensors.items()]

    @property
    def lr(self) -> float:
        """The first group's learning rate; setting it sets every group's (a shortcut for
        `for g in optimizer.param_groups: g['lr'] = value`)."""
        return self.param_groups[0]["lr"]

    @lr.setter
    def lr(self, value: float) -> None:
        for g in self.param_groups:
            g["lr"] = float(value)

    def __getattr__(self, name: str):
        # optimizer.momentum, .betas, ... read the first group's value (glassgrad's older spelling).
        d = self.__dict__
        if "param_groups" in d and d["param_groups"] and name in d.get("defaults", {}):
            return d["param_groups"][0][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def params(self) -> List[Tensor]:
        """Every parameter, group after group (the positions state_dict() uses)."""
        return [p for g in self.param_groups for p in g["params"]]

    # ---- stepping ----
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients (they accumulate across backward() calls until cleared). With
        set_to_none=False they become zeros instead of None."""
        if set_to_none:  # p.grad = None for every parameter, in one call into the runtime
            _C.clear_grads([p._h for g in self.param_groups for p in g["params"]])
            return
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    p.grad.zero_()  # in place, as PyTorch: tensors holding p.grad see the zeros

    def step(self, closure: Optional[Callable[[], Any]] = None):
        """Records the update of every parameter that has a gradient and runs the step's plan.
        closure (optional): re-evaluates the model and returns the loss (called first, with
        gradients enabled); step returns what it returned."""
        self._step_calls += 1
        loss = None
        if closure is not None:
            from .._runtime import enable_grad
            with enable_grad():
                loss = closure()
        # Which parameters have a gradient, in one call into the runtime (no handle on any gradient).
        every = [(g, p) for g in self.param_groups for p in g["params"]]
        handles = [p._h for _, p in every]
        have = _C.lazy_have_grads(handles)
        whole = all(have)  # (every parameter has a gradient, the usual step: the lists serve as they are)
        work = every if whole else list(compress(every, have))
        if not work:  # as PyTorch: parameters without a gradient are skipped, so nothing happens
            return loss
        if "capturable" in self.defaults:
            refuse_capturable_on_cpu(self, work)
        for g in self.param_groups:  # groups edited through dict methods the hooks do not see
            if self._unchecked(g):
                self._group_changed(g)
        # A parameter written in place since it was last computed (`w.data.normal_(0, 0.01)`,
        # `b.data.fill_(0)` at initialization, as PyTorch scripts do) is a pending result; the
        # update ops write stored tensors only, so it is computed first (once: it is stored after).
        # (which are not computed: one call for the list, positions in `work`, usually none)
        work_handles = handles if whole else list(compress(handles, have))
        unrealized = _C.lazy_unrealized(work_handles)
        pending = [work[i][1] for i in unrealized if not _written_by_update(work[i][1])] if unrealized else []
        if pending:
            _C.lazy_realize([p._h for p in pending])
        # Parameters not dense in row-major order are updated through dense stand-ins (_stand_ins.py).
        strided = strided_params(work, work_handles)
        stand_ins: StandIns = []
        # All or nothing: every parameter and state tensor the updates re-point is remembered,
        # and if recording or running the step fails (a hook raising, anomaly mode stopping, a
        # KeyboardInterrupt), they all point back at their values before the step (the executor
        # restores any buffer the plan had already written) and new state entries are dropped.
        # The state dicts' entries are copied before the first update that Python records
        # (_keep_state, from _update_all's row-by-row paths): a group recorded whole in the runtime
        # re-points tensors (the journal) and changes no state dict, so a step of SGD, Adam or AdamW
        # whose state exists copies nothing. A subclass's own _update_all: copied here.
        self._state_before = None
        if type(self)._update_all is not Optimizer._update_all:
            self._keep_state()
        swaps = self._swaps = ([], _C.UpdateJournal())
        try:
            if strided:
                state_before_step = swap_in(strided, stand_ins, self.state)
            # scope("optimizer", role="optimizer") written out (its object and three frames a step)
            scopes, roles, layers = _trace._local.stacks
            scopes.append("optimizer")
            roles.append("optimizer")
            layers.append("")
            try:
                self._made_this_step: set = set()  # ids of parameters whose state this step made
                for k, part in enumerate(_rounds(work) if getattr(self, "_repeats", False) else [work]):
                    if k:  # the earlier round's writes land before this one reads them
                        _C.lazy_realize([])
                    self._update_all(part)
            finally:
                scopes.pop()
                roles.pop()
                layers.pop()
            _C.lazy_realize([])
        except BaseException:
            self._swaps = None
            tensors, journal = swaps
            # One call: moves back exactly the handles whose old value is still valid (none when
            # the step ran to its end and only the interrupt came after). The journal holds the
            # old value of each tensor that moved: tensors[i] is the one of its entry i.
            moved = _C.lazy_revert_logged([t._h for t in tensors[:len(journal)]], journal)
            restore(stand_ins, write=False)  # after the revert: the journal's entries are the stand-ins'
            state_before, self._state_before = self._state_before, None
            if state_before is not None and (moved or not len(journal)):
                for p in list(self.state):
                    if p in state_before:
                        self.state[p].clear()
                        self.state[p].update(state_before[p])
                    else:
                        del self.state[p]
            raise
        self._swaps = None
        self._state_before = None
        if stand_ins:
            restore(stand_ins, write=True)
            lay_out_state(strided, self.state, state_before_step)
        return loss

    def _keep_state(self) -> None:
        """Copies the state dicts' entries for step()'s undo, once a step (before its first
        update recorded in Python)."""
        if self._state_before is None:
            state = self.state
            self._state_before = dict(zip(state.keys(), map(dict, state.values())))  # (no comprehension frame)

    def _row(self, p: Tensor, group: Dict[str, Any]) -> UpdateRow:  # pragma: no cover - abstract
        """p's update as one in-place node: (op, attrs as (key, value) pairs in a fixed order,
        input handles, the tensors its outputs are written to, in output order). Making the row
        may create p's state."""
        raise NotImplementedError

    def _update(self, p: Tensor, group: Dict[str, Any]) -> None:
        """Records p's update: the node _row describes (optimizers with other updates override this)."""
        op, attrs, row, targets = self._row(p, group)
        self._record_updates(op, [row], [targets], dict(attrs))

    def _update_all(self, work: Sequence[Tuple[Dict[str, Any], Tensor]]) -> None:
        """Records the update of every (group, parameter) of `work`, in order. Where _update is
        the one above, a group that _group_call describes is recorded in one call (its
        parameters' updates in the runtime: SGD, Adam and AdamW once their state exists), and
        runs of parameters whose rows share the op and attrs in one call each (_record_updates);
        an overridden or patched _update runs per parameter."""
        if _grad_views.LINKED:  # a gradient of other memory written since (_grad_views): the runtime reads it
            _grad_views.sync()
        if type(self)._update is not Optimizer._update:
            self._keep_state()
            for group, p in work:
                self._update(p, group)
            return
        if type(self)._group_call is Optimizer._group_call or getattr(self, "_repeats", False):
            self._keep_state()
            self._update_rows(work)
            return
        # Groups in order; rows of the groups recorded row by row are recorded before the next
        # group recorded whole, so the nodes keep the order of `work`.
        rows: List[Tuple[Dict[str, Any], Tensor]] = []
        start = 0
        # With one group, step()'s work is that group's alone: one run, its end not searched for.
        single = len(self.param_groups) == 1
        while start < len(work):
            group = work[start][0]
            end = len(work) if single else start + 1
            while end < len(work) and work[end][0] is group:
                end += 1
            params = [p for _, p in work[start:end]]
            call = self._group_call(group, params)
            if call is not None:
                if rows:
                    self._keep_state()
                    self._update_rows(rows)
                    rows = []
                if self._record_group(params, *call):
                    start = end
                    continue
            rows.extend(work[start:end])
            start = end
        if rows:
            self._keep_state()
            self._update_rows(rows)

    def _group_call(self, group: Dict[str, Any], params: List[Tensor]) \
            -> Optional[Tuple[str, Dict[str, Any], List[List[Tensor]], List[Any], List[Any]]]:
        """The updates of `params` (the group's parameters with a gradient, in order) as one
        _record_group call: (op, attrs, state lists, shared inputs before the states, shared
        inputs after them), the rows _row would make, or None to record them row by row (state
        not made yet, maximize, a subclass's own _row)."""
        return None

    def _rows_as_written(self, cls: type) -> bool:
        """The row methods _group_call stands for are `cls`'s own and the base's (a subclass or an
        instance overriding one of them is recorded row by row, through its own method)."""
        t, d = type(self), self.__dict__
        return (t._row is cls._row and t._grad_input is Optimizer._grad_input  # type: ignore[attr-defined]
                and t._state_for is Optimizer._state_for and t._state_with is Optimizer._state_with
                and d.keys().isdisjoint(("_row", "_grad_input", "_state_for", "_state_with")))

    def _record_group(self, params: List[Tensor], op: str, attrs: Dict[str, Any], states: List[List[Tensor]],
                      before: List[Any], after: List[Any]) -> bool:
        """_C.lazy_record_group_updates: node i reads params[i], its gradient, `before`, each
        state list's entry i and `after`, and moves params[i] and the state entries. False (nothing
        recorded) when a parameter has another device or dtype than the shared inputs."""
        swaps = getattr(self, "_swaps", None)
        if swaps is None:
            return _C.lazy_record_group_updates(op, params, states, before, after, attrs, _trace._local,
                                                _trace._PACKAGE_DIR)
        # The journal is in target-kind order (every parameter, then each state list): `tensors`
        # the same, trimmed to the journal when the call refuses or fails (as _record_updates).
        tensors, journal = swaps
        tensors.extend(params)
        for kind in states:
            tensors.extend(kind)
        try:
            done = _C.lazy_record_group_updates(op, params, states, before, after, attrs, _trace._local,
                                                _trace._PACKAGE_DIR, journal)
        except BaseException:
            del tensors[len(journal):]
            raise
        if not done:
            del tensors[len(journal):]
        return done

    def _update_rows(self, work: Sequence[Tuple[Dict[str, Any], Tensor]]) -> None:
        """_update_all's row-by-row recording: runs of rows sharing the op and attrs in one call each."""
        # Rows are made in order (a row may create state); a run is recorded once the next row
        # shows it has ended.
        run: Optional[Tuple[str, Tuple]] = None
        rows: List[List[Any]] = []
        targets: List[List[Tensor]] = []
        for group, p in work:
            op, attrs, row, tgt = self._row(p, group)
            if run is None or op != run[0] or attrs != run[1]:
                if run is not None:
                    self._record_updates(run[0], rows, targets, dict(run[1]))
                run, rows, targets = (op, attrs), [], []
            rows.append(row)
            targets.append(tgt)
        if run is not None:
            self._record_updates(run[0], rows, targets, dict(run[1]))

    def _record_updates(self, op: str, rows: List[List[Any]], targets: List[List[Tensor]], attrs: Dict[str, Any]) -> None:
        """One `op` node per row of input handles (the same attrs), each output j of row i written
        to targets[i][j] as _swap does: the whole run in one call into the runtime."""
        handles = [list(map(_HANDLE, ts)) for ts in targets]  # (map: no comprehension frame per row)
        swaps = getattr(self, "_swaps", None)
        if swaps is None:
            record_updates(op, rows, handles, attrs)
            return
        # As _swap: the runtime appends each target's old value to the journal as the target
        # moves, in this order. If the call fails (or an interrupt lands around it), the tensors
        # that did not move are dropped again, so step() sees exactly what changed (nothing, when
        # the runtime refused a row).
        tensors, journal = swaps
        tensors.extend([t for ts in targets for t in ts])
        try:
            record_updates(op, rows, handles, attrs, journal)
        except BaseException:
            del tensors[len(journal):]
            raise

    @staticmethod
    def _grad(p: Tensor, group: Dict[str, Any]) -> Tensor:
        """p.grad, negated when the group maximizes (PyTorch's maximize=True)."""
        return -p.grad if group.get("maximize") else p.grad

    @staticmethod
    def _grad_input(p: Tensor, group: Dict[str, Any]):
        """_grad(p, group)'s handle, as an update node's input: without maximize a handle on p's
        gradient value alone (p.grad's tensor also links writes through it to the gradient, which
        an update that only reads it never needs)."""
        if _grad_views.LINKED:  # a view assigned as p.grad, written since (_grad_views)
            _grad_views.sync()
        g = p._h.grad_value()
        return _op("Neg", [_wrap(g)])._h if group.get("maximize") else g

    def _swap(self, t: Tensor, new: Tensor) -> None:
        """Points t (a parameter or a state tensor) at its updated value; step() remembers the
        old one to undo a step that fails."""
        swaps = getattr(self, "_swaps", None)
        if swaps is None:
            t._h.reset(new._h)
            return
        tensors, journal = swaps
        tensors.append(t)
        try:
            _C.lazy_reset_logged(journal, t._h, new._h)
        except BaseException:
            del tensors[len(journal):]
            raise

    def _assign(self, st: Dict[str, Any], key: str, value: Tensor) -> None:
        """st[key] = value, written in place into the state tensor's buffer (an Assign node)."""
        self._swap(st[key], _op("Assign", [st[key], value]))

    def _zeros_state(self, p: Tensor, name: str, dtype=None, shape=None, value: float = 0.0) -> Tensor:
        """A new state tensor for p (p's shape and dtype unless given) holding `value` (0)."""
        full = f"{p.name}.{name}" if p.name else name
        raw = _C.Tensor.full(list(p.shape if shape is None else shape), value, dtype or p.dtype, p.device, full)
        return _wrap(_C.lazy_leaf(raw, "state", False, full))

    def _state_for(self, p: Tensor) -> Dict[str, Any]:
        return self.state.setdefault(p, {})

    def _state_with(self, p: Tensor, *names: str) -> Dict[str, Any]:
        """p's state, made at its first update: a 0-d "step" of scalar_dtype() and zeros of p's
        shape for each of `names` (PyTorch's entries, in its order)."""
        st = self._state_for(p)
        if not st:
            st["step"] = self._zeros_state(p, "step", dtype=scalar_dtype(), shape=[])
            for name in names:
                st[name] = self._zeros_state(p, name)
        return st

    def _state_shape(self, p: Tensor, name: str) -> Tuple[int, ...]:
        """The shape of p's state entry `name` (p's; Adafactor's factored entries differ)."""
        return tuple(p.shape)

    # ---- checkpoints ----
    def state_dict(self) -> Dict[str, Any]:
        """The optimizer's state as PyTorch's, key for key: parameters are numbered across the
        groups in order, state is keyed by that number, and each group lists its numbers under
        'params' next to its hyperparameters; the state entries are the optimizer's own tensors,
        as PyTorch's (copy.deepcopy(optimizer.state_dict()) keeps a snapshot):

            {"state": {0: {"step": tensor(3.), "exp_avg": tensor, "exp_avg_sq": tensor}, 1: ...},
             "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), ..., "params": [0, 1, ...]}]}

        "step" is a float32 0-d tensor (float64 under a float64 default dtype), as PyTorch's; SGD keeps "momentum_buffer" per parameter (none
        without momentum); Adam keeps both moments (and "max_exp_avg_sq" with amsgrad); RMSprop
        "square_avg" (and "momentum_buffer", "grad_avg"). Parameters that never had an update
        have no entry, or an empty one once optimizer.state[p] was read (state is a defaultdict).
        torch.optim's load_state_dict reads it, and load_state_dict reads PyTorch's."""
        state, groups, index = {}, [], 0
        for g in self.param_groups:
            numbers = []
            for p in g["params"]:
                st = self.state.get(p)
                if st is not None:   # an empty entry too (a read of optimizer.state[p]), as PyTorch's
                    state[index] = dict(st)
                numbers.append(index)
                index += 1
            saved = {k: v for k, v in g.items() if k != "params"}
            saved["params"] = numbers
            groups.append(saved)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restores what state_dict() returned (e.g. from glassgrad.load, or a PyTorch optimizer's
        state_dict, tensors or NumPy arrays): hyperparameters group by group, and the state of each
        parameter by position. The optimizer must be of the same class and built over parameters
        of the same shapes, in the same groups and order."""
        name = type(self).__name__
        saved = state_dict.get("optimizer", name)  # files of earlier glassgrad versions name the class
        if saved != name:
            raise _C.InvalidArgumentError(
                f"{name}.load_state_dict: the state was saved from a {saved} optimizer\n"
                f"  fix: build the optimizer as {saved}(model.parameters(), ...) before loading, or start "
                f"this {name} from scratch")
        groups = list(state_dict.get("param_groups") or [])
        self._check_saved_hyperparameters(groups)
        saved_sizes = [len(g.get("params", [])) for g in groups]
        own_sizes = [len(g["params"]) for g in self.param_groups]
        if saved_sizes != own_sizes:
            n_saved, n_own = sum(saved_sizes), sum(own_sizes)
            raise _C.InvalidArgumentError(
                f"{name}.load_state_dict: the state is for {n_saved} parameters in {len(groups)} group(s) "
                f"{saved_sizes}, this optimizer has {n_own} parameters in {len(own_sizes)} group(s) {own_sizes}\n"
                f"  cause: a different model, or an optimizer built over other parameter groups\n"
                f"  fix: build the optimizer over the same groups, e.g. {name}(model.parameters(), ...)")
        params = self.params
        # Saved numbers -> this optimizer's parameters, group by group.
        position = {}
        for g_saved, g_own in zip(groups, self.param_groups):
            for k, p in zip(g_saved["params"], g_own["params"]):
                position[k] = p
        per_param = state_dict.get("state", {})
        new_state: Dict[Tensor, Dict[str, Any]] = {}
        counts: List[Tuple[Tensor, int]] = []  # (p, its int step: _INT_STEP)
        if not isinstance(per_param, dict):
            raise _C.InvalidArgumentError(f"{name}.load_state_dict: 'state' must be a dict of per-parameter states, "
                                          f"got {type(per_param).__name__}")
        for k, st in per_param.items():
            try:
                key = int(k)
            except (TypeError, ValueError):
                raise _C.InvalidArgumentError(f"{name}.load_state_dict: the state has an entry {k!r}; entries are "
                                              f"numbered by parameter position (0, 1, ...)") from None
            if key not in position or not st:
                continue
            p = position[key]
            arrays = {}
            for sname, arr in st.items():
                if arr is None:
                    continue
                arr = arr._values() if isinstance(arr, Tensor) else np.asarray(arr)
                if sname == "step" and self._INT_STEP:  # stored as it is, after the checks below
                    counts.append((p, int(arr)))
                    continue
                if sname == "step":  # kept as saved (PyTorch's), a float32 count unless float64
                    arr = arr.astype(arr.dtype if arr.dtype in (np.float32, np.float64) else scalar_dtype())
                elif arr.ndim == 0 and arr.dtype.kind in "iu":
                    arr = np.asarray(arr, dtype=np.int64)
                elif sname in self._SCALAR_STATE and arr.size == 1:  # PyTorch's: the parameter's dtype
                    arr = arr.reshape(()).astype(p.dtype)
                elif tuple(arr.shape) != self._state_shape(p, sname):
                    want = self._state_shape(p, sname)
                    raise _C.ShapeError(
                        f"{name}.load_state_dict: '{sname}' of parameter {params.index(p)} ('{p.name}') has shape "
                        f"{list(arr.shape)} in the state but the parameter has shape {list(p.shape)}"
                        + (f" (so '{sname}' must have shape {list(want)})" if want != tuple(p.shape) else "") +
                        "\n  fix: load the state saved together with this model's weights")
                else:
                    arr = arr.astype(p.dtype)
                arrays[sname] = arr
            new_state[p] = arrays
        # All or nothing: every group is checked on a copy and every state tensor made before the
        # optimizer changes at all.
        group_values = []
        for g_saved, g_own in zip(groups, self.param_groups):
            values = {k: v for k, v in g_saved.items() if k not in ("params", "param_names")}
            candidate = dict(g_own)
            candidate.update(values)
            try:
                self._check_group(candidate)
            except (KeyError, TypeError, ValueError) as e:
                if isinstance(e, _C.GlassgradError):
                    raise
                raise _C.InvalidArgumentError(f"{name}.load_state_dict: a saved parameter group is not valid for "
                                              f"{name} ({type(e).__name__}: {e})\n  fix: load the state saved from "
                                              f"this optimizer") from None
            group_values.append((g_own, values))
        leaves = []  # (p, key, new leaf)
        for p, arrays in new_state.items():
            for key, arr in arrays.items():
                label = f"{p.name}.{key}" if p.name else key
                leaves.append((p, key, _wrap(_C.lazy_leaf(_C.Tensor.from_numpy(np.asarray(arr), p.device, label),
                                                          "state", False, label))))
        existing = [(self.state[p][key], leaf) for p, key, leaf in leaves if key in self.state.get(p, {})]
        _C.lazy_reset_all([t._h for t, _ in existing], [leaf._h for _, leaf in existing])
        for p, count in counts:
            self._state_for(p)["step"] = count
        for p, key, leaf in leaves:
            self._state_for(p).setdefault(key, leaf)
        for g_own, values in group_values:
            dict.update(g_own, values)
            self._group_changed(g_own)

    def _check_saved_hyperparameters(self, groups: List[Dict[str, Any]]) -> None:
        """Refuses groups of another optimizer class: PyTorch's state names no class, so a group
        that lacks hyperparameters this optimizer's groups have and has others they do not (SGD's
        momentum where Adam's betas are) was saved from another optimizer. (A group of another
        PyTorch version lacks some or adds some, not both.)"""
        if not groups or not self.param_groups:
            return
        ignored = {"params", "param_names", "initial_lr"}
        own = set(self.param_groups[0]) - ignored
        theirs = set(groups[0]) - ignored
        lacking, extra = sorted(own - theirs), sorted(theirs - own)
        if lacking and extra:
            name = type(self).__name__
            raise _C.InvalidArgumentError(
                f"{name}.load_state_dict: the state was saved from another optimizer: its parameter groups have "
                f"{', '.join(extra)} where {name}'s have {', '.join(lacking)}\n"
                f"  fix: build the optimizer of the same class the state was saved from before loading, or start "
                f"this {name} from scratch")

    def __repr__(self) -> str:
        # PyTorch's layout: a blank line before every group after the first, each key but params.
        groups = ["".join([f"\nParameter Group {i}\n"] + [f"    {k}: {g[k]}\n" for k in sorted(g) if k != "params"])
                  for i, g in enumerate(self.param_groups)]
        return f"{type(self).__name__} (" + "".join(groups) + ")"


def register_optimizer_step_pre_hook(hook: Callable) -> Any:
    """hook(optimizer, args, kwargs) before every optimizer's step(), before its own pre-hooks; it
    may return (new_args, new_kwargs). Returns a RemovableHandle."""
    return _hooks.register_global(_hooks.GLOBAL_STEP_PRE, hook)


def register_optimizer_step_post_hook(hook: Callable) -> Any:
    """hook(optimizer, args, kwargs) after every optimizer's step(), after its own post-hooks."""
    return _hooks.register_global(_hooks.GLOBAL_STEP_POST, hook)


__all__ = ["Optimizer", "ParamGroup", "static_version", "refuse_differentiable", "refuse_fused_with_foreach",
           "_op_multi", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


wrap_hooked_methods(Optimizer)
