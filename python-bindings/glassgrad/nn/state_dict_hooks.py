"""Module.register_state_dict_pre_hook / register_state_dict_post_hook and
register_load_state_dict_pre_hook / register_load_state_dict_post_hook with PyTorch's arguments:

- state_dict pre-hook(module, prefix, keep_vars) runs before the entries are gathered;
- state_dict post-hook(module, state_dict, prefix, local_metadata) runs after, and may change the
  dict in place (its return value must be None, as PyTorch's public hook's);
- load pre-hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
  unexpected_keys, error_msgs) runs before the names are matched, on a copy of the caller's dict
  it may edit (rename old keys, ...);
- load post-hook(module, incompatible_keys) runs after loading and may remove entries from
  incompatible_keys.missing_keys / unexpected_keys in place; strict=True then raises on what is
  left, as PyTorch does.

prefix is the module's path in the state_dict with a trailing dot ("" for the model itself)."""
from __future__ import annotations

from typing import Callable

from ..utils.hooks import RemovableHandle
from . import forward_hooks as _fh

SAVE_PRE, SAVE_POST = "_state_dict_pre_hooks", "_state_dict_hooks"
LOAD_PRE, LOAD_POST = "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"


def register(module, kind: str, hook: Callable) -> RemovableHandle:
    return _fh.register(module, kind, hook, False)


def _each(root, kind: str, prefix: str = ""):
    """(module, its prefix, hook) for every module of root's tree with hooks of `kind`."""
    for name, m in root.named_modules(remove_duplicate=False):
        for hook in list(m.__dict__.get(kind, {}).values()):
            yield m, prefix + (f"{name}." if name else ""), hook


def has(root, kind: str) -> bool:
    return any(True for _ in _each(root, kind))


def before_save(root, prefix: str, keep_vars: bool) -> None:
    for m, p, hook in _each(root, SAVE_PRE, prefix):
        hook(m, p, keep_vars)


def after_save(root, out, prefix: str) -> None:
    for m, p, hook in _each(root, SAVE_POST, prefix):
        if hook(m, out, p, {}) is not None:
            raise RuntimeError("state_dict post-hook must return None\n  fix: change the state_dict it is given "
                               "in place")


def before_load(root, state, strict: bool, missing: list, unexpected: list, errors: list) -> None:
    for m, p, hook in _each(root, LOAD_PRE):
        hook(m, state, p, {}, strict, missing, unexpected, errors)


def after_load(root, result) -> None:
    for m, _, hook in _each(root, LOAD_POST):
        if hook(m, result) is not None:  # PyTorch asserts it
            raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected to "
                                 "return new values\n  fix: edit incompatible_keys.missing_keys / unexpected_keys "
                                 "in place")
