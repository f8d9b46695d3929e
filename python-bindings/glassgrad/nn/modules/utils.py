"""torch.nn.modules.utils' helpers that custom layers import: _single, _pair, _triple and
_quadruple repeat an int into a tuple (an iterable is returned as a tuple unchanged);
consume_prefix_in_state_dict_if_present strips a prefix (DataParallel's "module.") from a
state dict's keys."""
from __future__ import annotations

import collections.abc
import itertools

__all__ = ["_ntuple", "_single", "_pair", "_triple", "_quadruple", "consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def consume_prefix_in_state_dict_if_present(state_dict, prefix: str) -> None:
    """Strips `prefix` from the keys of state_dict that start with it, in place (the entry moves
    to the end, as PyTorch's pop-and-insert does), and from its _metadata keys when it has them:
    '' stays, and both 'module' and 'module.x' lose the prefix, as PyTorch's."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    for key in list(metadata.keys()):
        if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
            metadata[key[len(prefix):]] = metadata.pop(key)
