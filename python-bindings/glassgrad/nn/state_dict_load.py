"""Module.load_state_dict walked as PyTorch walks it: each module's _load_from_state_dict gets the
entries under its prefix (a filtered copy: a module's pre-hooks and overrides may rename or add
keys for itself and its children), PyTorch's shared missing_keys / unexpected_keys / error_msgs
lists and its local_metadata ({"version": n} from the state_dict's _metadata); then its children;
then its load post-hooks. Overriding _load_from_state_dict (old checkpoint formats) works as in
PyTorch, and errors are PyTorch's "Error(s) in loading state_dict for X:" with every message.

All or nothing: the default _load_from_state_dict of a module that does not override it only
checks and converts its entries; they are put in place together once the walk found no error
(an error leaves the model unchanged). A module that overrides it, or has load post-hooks, may
read its tensors afterwards, so what is pending is put in place before those run."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, List, Optional

from .._size import Size

_local = threading.local()


class _Walk:
    """One load_state_dict call: the checked entries not yet in place, the exception class of each
    error message (the first entry error decides what is raised) and the fixes to print."""

    def __init__(self, assign: bool):
        self.assign = assign
        self.defer = True
        self.pairs: List[Any] = []  # (tensor, new leaf), or with assign (module, tensor, name, array, dtype)
        self.extras: List[Any] = []  # (module, value) for set_extra_state
        self.kinds: List[type] = []
        self.fixes: List[str] = []

    def flush(self) -> None:
        from .module import _assign_entries, load_all
        pairs, extras, self.pairs, self.extras = self.pairs, self.extras, [], []
        if self.assign:
            _assign_entries(pairs)
        else:
            load_all(pairs)
        for m, value in extras:
            m.set_extra_state(value)


def _current() -> Optional[_Walk]:
    stack = getattr(_local, "walks", None)
    return stack[-1] if stack else None


def _overrides_load(module) -> bool:
    from .module import Module
    return type(module)._load_from_state_dict is not Module._load_from_state_dict


def load(root, state_dict, strict: bool, assign: bool):
    from . import state_dict_hooks as _sd
    from .module import IncompatibleKeys, _refuse
    metadata = getattr(state_dict, "_metadata", None)
    state = OrderedDict(state_dict)  # the hooks and overrides edit a copy, as PyTorch's
    if metadata is not None:
        state._metadata = metadata  # type: ignore[attr-defined]
    missing: List[str] = []
    unexpected: List[str] = []
    errors: List[str] = []
    walk = _Walk(assign)
    stack = _local.__dict__.setdefault("walks", [])
    stack.append(walk)
    try:
        def visit(module, local_state, prefix: str) -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            walk.defer = not _overrides_load(module)
            if not walk.defer:
                walk.flush()
            module._load_from_state_dict(local_state, prefix, local_metadata, True, missing, unexpected, errors)
            walk.defer = True
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    visit(child, {k: v for k, v in local_state.items() if k.startswith(child_prefix)}, child_prefix)
            if _sd.has_own(module, _sd.LOAD_POST):
                walk.flush()  # the hooks may read the loaded tensors
                _sd.after_load(module, IncompatibleKeys(missing, unexpected))

        visit(root, state, "")
    finally:
        stack.pop()
    names = []
    if strict:
        if missing:
            names.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if unexpected:
            names.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if names:
            walk.fixes.append("load a state_dict saved from the same model class, or pass strict=False")
    if names or errors:
        _refuse(root, names + errors, walk.kinds, walk.fixes)
    walk.flush()
    return IncompatibleKeys(missing, unexpected)


def load_own(module, state_dict, prefix: str, local_metadata, strict: bool, missing: list, unexpected: list,
             errors: list) -> None:
    """Module._load_from_state_dict: the module's own parameters, persistent buffers and extra
    state from state_dict's `prefix + name` entries, after its load pre-hooks."""
    from . import state_dict_hooks as _sd
    from .lazy import is_lazy
    from .module import Module, _check_entry, _entry_dtype, _new_data
    walk = _current()
    if walk is None:  # called outside load_state_dict (a script's own loader): put in place now
        walk = _Walk(bool(local_metadata.get("assign_to_params_buffers", False)))
        walk.defer = False
    lazy = getattr(module, "_lazy_load", None)
    if lazy is not None:  # an uninitialized lazy layer takes its sizes from the entries (PyTorch's pre-hook)
        lazy(prefix, state_dict)
    _sd.before_load(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
    skip = module.__dict__.get("_non_persistent", ())
    local = OrderedDict((k, v) for table in (module._parameters, module._buffers)
                        for k, v in table.items() if v is not None and k not in skip)
    own_missing, pairs = [], []
    for name, t in local.items():
        key = prefix + name
        if key not in state_dict:
            own_missing.append(key)
            continue
        value = state_dict[key]
        if is_lazy(t) and is_lazy(value):
            continue  # a lazy layer's entry saved before its first forward: both stay uninitialized
        arr, error = _check_entry(key, value, t, read=not walk.assign)
        if error is not None:
            walk.kinds.append(error[0])
            errors.append(error[1])
            walk.fixes.append(error[2])
            continue
        pairs.append((module, t, name, arr, _entry_dtype(value)) if walk.assign else (t, _new_data(t, arr)))
    fix_missing = getattr(module, "_load_missing", None)
    if fix_missing is not None:
        own_missing = fix_missing(prefix, own_missing, local_metadata.get("version"))
    if strict:
        missing.extend(own_missing)
    walk.pairs.extend(pairs)
    extra_key = prefix + "_extra_state"
    if type(module).set_extra_state is not Module.set_extra_state:
        if extra_key in state_dict:
            walk.extras.append((module, state_dict[extra_key]))
        elif strict:
            missing.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head, dot, _ = key[len(prefix):].partition(".")
                if (head not in module._modules) if dot else (head not in local):
                    unexpected.append(key)
    if not walk.defer:
        if errors:
            return  # nothing of this module is put in place; load_state_dict raises
        walk.flush()


def shape_text(shape) -> str:
    return repr(Size(tuple(shape)))
