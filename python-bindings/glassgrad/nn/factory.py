"""torch.nn.factory_kwargs: a layer's **kwargs checked and canonicalized into the arguments of a
factory call (device, dtype, memory_format), with a `factory_kwargs` dict for names that clash
with the layer's own arguments."""
from __future__ import annotations

from typing import Any, Dict, Optional

_SIMPLE = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """{device, dtype, memory_format} given in kwargs or in kwargs['factory_kwargs'] (a copy);
    TypeError for any other key, or for one given both ways."""
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - set(_SIMPLE) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}\n  fix: only device, dtype, memory_format and "
                        f"factory_kwargs are factory arguments")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE:
        if key in kwargs:
            if key in out:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            out[key] = kwargs[key]
    return out
