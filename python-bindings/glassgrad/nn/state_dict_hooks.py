"""Module.register_state_dict_pre_hook / register_state_dict_post_hook and
register_load_state_dict_pre_hook / register_load_state_dict_post_hook with PyTorch's arguments:

- state_dict pre-hook(module, prefix, keep_vars) runs before the entries are gathered;
- state_dict post-hook(module, state_dict, prefix, local_metadata) runs after, and may change the
  dict in place (its return value must be None, as PyTorch's public hook's; one registered by the
  private _register_state_dict_hook may return the dict to use instead);
- load pre-hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
  unexpected_keys, error_msgs) runs before the names are matched, on a copy of the caller's dict
  it may edit (rename old keys, ...);
- load post-hook(module, incompatible_keys) runs after loading and may remove entries from
  incompatible_keys.missing_keys / unexpected_keys in place; strict=True then raises on what is
  left, as PyTorch does.

prefix is the module's path in the state_dict with a trailing dot ("" for the model itself).
Each module runs its own hooks during the walk (Module.state_dict, nn/state_dict_load.py)."""
from __future__ import annotations

from typing import Callable

from ..utils.hooks import RemovableHandle
from . import forward_hooks as _fh

SAVE_PRE, SAVE_POST = "_state_dict_pre_hooks", "_state_dict_hooks"
LOAD_PRE, LOAD_POST = "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"


# Post-hooks registered through the public register_state_dict_post_hook (by handle id): they
# must return None; the private _register_state_dict_hook's may return a dict to use instead.
_PUBLIC = "_state_dict_hooks_public"


def register(module, kind: str, hook: Callable, public: bool = True) -> RemovableHandle:
    handle = _fh.register(module, kind, hook, False)
    if kind == SAVE_POST and public:
        _fh._table(module, _PUBLIC)[handle.id] = True
    return handle


def has_own(module, kind: str) -> bool:
    return bool(module.__dict__.get(kind))


def before_save(module, prefix: str, keep_vars: bool) -> None:
    for hook in list(module.__dict__.get(SAVE_PRE, {}).values()):
        hook(module, prefix, keep_vars)


def after_save(module, out, prefix: str, local_metadata):
    """The module's post-hooks in order; returns the dict to go on with."""
    public = module.__dict__.get(_PUBLIC, {})
    for i, hook in list(module.__dict__.get(SAVE_POST, {}).items()):
        result = hook(module, out, prefix, local_metadata)
        if result is None:
            continue
        if i in public:
            raise RuntimeError("state_dict post-hook must return None\n  fix: change the state_dict it is given "
                               "in place")
        out = result
    return out


def before_load(module, state, prefix: str, local_metadata, strict: bool, missing: list, unexpected: list,
                errors: list) -> None:
    for hook in list(module.__dict__.get(LOAD_PRE, {}).values()):
        hook(module, state, prefix, local_metadata, strict, missing, unexpected, errors)


def after_load(module, result) -> None:
    for hook in list(module.__dict__.get(LOAD_POST, {}).values()):
        if hook(module, result) is not None:  # PyTorch asserts it
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                                 "return new values\n  fix: edit incompatible_keys.missing_keys / unexpected_keys "
                                 "in place")


class without_module:
    """A load pre-hook of the private _register_load_state_dict_pre_hook(with_module=False): called
    as hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    (a class, so a model holding it still pickles)."""

    def __init__(self, hook: Callable):
        self.hook = hook

    def __call__(self, module, *args):
        return self.hook(*args)
