"""torch.nn.modules.module's names, resolved from glassgrad.nn (see _names.py), and its global
module hooks: register_module_forward_pre_hook, register_module_forward_hook,
register_module_full_backward_pre_hook and register_module_full_backward_hook run for every
module, before the module's own hooks of that kind (glassgrad/nn/forward_hooks.py);
register_module_backward_hook is the deprecated non-full form (nn/legacy_backward_hooks.py);
the registration hooks run when a parameter, buffer or submodule is registered
(nn/registration_hooks.py)."""
from .. import backward_hooks as _bw
from .. import forward_hooks as _fh
from .. import legacy_backward_hooks as _legacy
from .. import registration_hooks as _reg
from ._names import forward_names

_all, __getattr__, _dir = forward_names(__name__, ["Module"])
_HOOKS = ["register_module_forward_pre_hook", "register_module_forward_hook", "register_module_full_backward_pre_hook",
          "register_module_full_backward_hook", "register_module_backward_hook",
          "register_module_parameter_registration_hook", "register_module_buffer_registration_hook",
          "register_module_module_registration_hook"]
__all__ = _all + _HOOKS


def __dir__():
    return sorted(set(_dir()) | set(_HOOKS))


def register_module_forward_pre_hook(hook):
    """hook(module, args) before every module's forward (may return new args); a RemovableHandle."""
    return _fh.register(_fh.GLOBAL, _fh.PRE, hook, False)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False):
    """hook(module, args, output) after every module's forward (may return a new output)."""
    return _fh.register(_fh.GLOBAL, _fh.POST, hook, False, with_kwargs, always_call)


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) for every module, as Module.register_full_backward_pre_hook."""
    return _fh.register(_fh.GLOBAL, _bw.PRE, hook, False)


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) for every module, as Module.register_full_backward_hook."""
    _legacy.mark(None, full=True)
    return _fh.register(_fh.GLOBAL, _bw.FULL, hook, False)


def register_module_backward_hook(hook):
    """The deprecated global backward hook: hook(module, grad_input, grad_output) for every module,
    as Module.register_backward_hook. The global hooks are all full ones or all not."""
    _legacy.mark(None, full=False)
    return _fh.register(_fh.GLOBAL, _bw.FULL, hook, False)


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) whenever a module registers a parameter; may return a new one."""
    return _reg.register(_reg.PARAMETER, hook)


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) whenever a module registers a buffer; may return a new one."""
    return _reg.register(_reg.BUFFER, hook)


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) whenever a module registers a submodule; may return a new one."""
    return _reg.register(_reg.MODULE, hook)
