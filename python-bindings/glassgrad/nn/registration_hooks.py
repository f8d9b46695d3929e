"""torch.nn.modules.module.register_module_parameter_registration_hook,
register_module_buffer_registration_hook and register_module_module_registration_hook: global
hooks hook(module, name, value) run when any module registers a parameter (register_parameter,
or assigning a Parameter), a buffer (register_buffer, or assigning a tensor to a buffer's name)
or a submodule (add_module / register_module, or assigning a Module; None too, as PyTorch's
add_module). A hook may return a replacement, which the next hook and the module then get."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Dict

from ..utils.hooks import RemovableHandle

PARAMETER, BUFFER, MODULE = "parameter", "buffer", "module"
TABLES: Dict[str, "OrderedDict[int, Callable]"] = {PARAMETER: OrderedDict(), BUFFER: OrderedDict(),
                                                  MODULE: OrderedDict()}
# handle id -> kind, for every hook registered: empty (false) when there is none (Module.__setattr__)
ACTIVE: Dict[int, str] = {}


def register(kind: str, hook: Callable) -> RemovableHandle:
    table = TABLES[kind]

    def remove() -> None:
        table.pop(handle.id, None)
        ACTIVE.pop(handle.id, None)

    handle = RemovableHandle(remove)
    table[handle.id] = hook
    ACTIVE[handle.id] = kind
    return handle


def run(kind: str, module, name: str, value: Any) -> Any:
    """value after every hook of `kind` (the registry is empty in most programs: one dict read)."""
    table = TABLES[kind]
    if not table:
        return value
    for hook in list(table.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value
