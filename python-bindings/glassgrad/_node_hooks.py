"""Node.register_prehook and Node.register_hook on a tensor's grad_fn (PyTorch's
torch.autograd.graph.Node hooks). glassgrad's nodes are the recorded forward ops (docs/autograd.md),
so both are hooks on the gradient of the op's output value:

- prehook(grad_outputs) -> None or new grad_outputs: runs when the gradient reaching the node is
  complete, and what it returns replaces it;
- hook(grad_inputs, grad_outputs) -> None or new grad_inputs: grad_inputs are the node's own
  gradients of its inputs, one per next_functions entry (None where that entry is None), computed
  from the gradient reaching it; a returned tuple replaces them, the difference being added to each
  input's gradient in the same backward (gradients add up over an input's uses).

Where the node's gradient is undefined (docs/architecture.md, "Undefined gradients"), as PyTorch's,
prehook gets (None,) and hook None for every gradient; a tensor returned for one raises.

Both return a handle whose remove() unregisters the hook."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from . import _C

# > 0 while a post hook computes its node's input gradients: the hooks that gradient pass reaches
# (the hooked node's own, the inputs' tensor hooks) run in the real backward only.
INNER = [0]


def _count_error(hook: Callable, got: int, expected: int) -> RuntimeError:
    name = getattr(hook, "__name__", type(hook).__name__)
    return _C.TensorStateError(f"hook '{name}' has returned an incorrect number of values (got {got}, but expected "
                               f"{expected})\n  fix: return a tuple with one entry per gradient (None to keep one), "
                               f"or return None to keep them all")


def check_result(hook: Callable, grad_handle, out) -> None:
    """PyTorch's check of a gradient a hook returned against the one it was given (python_hook.cpp)."""
    oh = out._h
    if oh.dtype == grad_handle.dtype and oh.device == grad_handle.device and oh.shape == grad_handle.shape:
        return
    from ._tensor import _wrap
    name = getattr(hook, "__name__", type(hook).__name__)
    given = _wrap(grad_handle)
    if oh.dtype != grad_handle.dtype:
        what = f"the type of value (was {given.type()} got {out.type()})"
    elif oh.device != grad_handle.device:
        kind = {True: "CUDA tensor", False: "CPU tensor"}
        what = f"the type of value (was {kind[given.is_cuda]} got {kind[out.is_cuda]})"
    else:
        what = "the size of value"
    raise _C.TensorStateError(f"hook '{name}' has changed {what}\n  the gradient {list(given.shape)} {given.dtype} "
                              f"{given.device} was replaced by {list(out.shape)} {out.dtype} {out.device}\n"
                              f"  fix: return a gradient of the shape, dtype and device it was given")


def _returned(hook: Callable, out, expected: int) -> Optional[list]:
    """The hook's result as a list of `expected` entries (None: keep the gradients)."""
    if out is None:
        return None
    entries = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(entries) != expected:
        raise _count_error(hook, len(entries), expected)
    return entries


def _replaced_none(call: str) -> RuntimeError:
    return _C.TensorStateError(f"can't replace a None gradient with a non-None value\n  {call}: the node's gradient is "
                               "undefined (an autograd.Function's backward returned None for it) and the hook "
                               "returned a Tensor for it\n  fix: return None when the gradient is None")


def _checked(hook: Callable) -> None:
    if not callable(hook):
        raise TypeError(f"register_hook: the hook must be callable, got {type(hook).__name__}\n"
                        f"  fix: pass a function, e.g. node.register_hook(lambda grad_inputs, grad_outputs: None)")


def register_prehook(node, hook: Callable):
    from ._tensor import Tensor, _wrap
    _checked(hook)

    def call(grad_handle):  # None: the gradient is undefined (docs/architecture.md, "Undefined gradients")
        entries = _returned(hook, hook((None if grad_handle is None else _wrap(grad_handle),)), 1)
        if entries is None or entries[0] is None:
            return None
        if grad_handle is None:
            raise _replaced_none("register_prehook")
        if not isinstance(entries[0], Tensor):
            raise TypeError(f"register_prehook: the hook returned {type(entries[0]).__name__} for a gradient; it "
                            f"must be a Tensor or None")
        check_result(hook, grad_handle, entries[0])
        return entries[0]._h

    return _add(node._h, 0, call, [])


# value identity -> [pin on the value, key of its runtime hook, prehooks, post hooks]: one runtime
# hook per node runs its prehooks, then its post hooks, after the tensor hooks of its output
# (PyTorch's order, docs/autograd.md "Hooks"); Tensor.register_hook moves it back behind a new one.
_NODES: Dict[int, list] = {}


def _dispatch(identity: int):
    def run(grad_handle):
        if INNER[0]:
            return None
        entry = _NODES.get(identity)
        if entry is None:
            return None
        replaced = None
        for call in list(entry[2]):
            out = call(grad_handle if replaced is None else replaced)
            replaced = out if out is not None else replaced
        for call in list(entry[3]):
            call(grad_handle if replaced is None else replaced)
        return replaced
    return run


def _add(h, kind: int, call: Callable, extra_keys: list):
    """Registers call as a prehook (kind 0) or post hook (kind 1) of the node of value h."""
    from .utils.hooks import RemovableHandle
    identity = h.identity
    entry = _NODES.get(identity)
    if entry is None:
        pin = h.pin()
        entry = _NODES[identity] = [pin, pin.add_grad_hook(_dispatch(identity)), [], []]
    entry[2 + kind].append(call)

    def remove() -> None:
        for owner, key in extra_keys:
            owner.remove_grad_hook(key)
        found = _NODES.get(identity)
        if found is None or call not in found[2 + kind]:
            return
        found[2 + kind].remove(call)
        if not found[2] and not found[3]:
            found[0].remove_grad_hook(found[1])
            del _NODES[identity]
    return RemovableHandle(remove)


def keep_last(h) -> None:
    """After a tensor hook is added to value h: its node's hooks run after it (Tensor.register_hook)."""
    entry = _NODES.get(h.identity)
    if entry is not None:
        entry[0].remove_grad_hook(entry[1])
        entry[1] = entry[0].add_grad_hook(_dispatch(h.identity))


def _operands(node) -> List:
    """The handles of the node's inputs, one per next_functions entry (None where it is None)."""
    entries = node.next_functions
    if node._below is not None or not node._h.producer_inputs:
        return [None] * len(entries)
    operands = list(node._composite_inputs()) if node._h.producer_attr("torch_operands") else None
    if operands is None:
        from . import _node_inputs
        operands = list(_node_inputs.listed(node._op, node.name(), node._h.producer_inputs))
    operands = operands[:len(entries)] + [None] * (len(entries) - len(operands))
    return [h if e[0] is not None else None for h, e in zip(operands, entries)]


def _local_gradients(node, operands: list, grad_handle) -> list:
    """The node's own gradient of each operand handle (None where there is none): its op
    recorded again on leaves of its inputs' values and differentiated alone (Lazy.replay), or,
    for a node standing for several ops, the engine's gradient (of every path from the node)."""
    from ._runtime import enable_grad
    from ._tensor import _wrap
    h = node._h
    inputs = h.producer_inputs
    position = {x.identity: i for i, x in enumerate(inputs)}
    wanted = [o for o in operands if o is not None and o.requires_grad]
    if not wanted:
        return [None] * len(operands)
    if node._below is None and not h.producer_attr("torch_operands") and all(o.identity in position for o in wanted):
        with enable_grad():
            leaves = [_wrap(x).detach() for x in inputs]
            for x, leaf in zip(inputs, leaves):
                if x.requires_grad:
                    leaf.requires_grad_(True)
            out = h.replay([leaf._h for leaf in leaves])
        found = out.gradients(grad_handle, [leaves[position[o.identity]]._h for o in wanted], True, False)
    else:
        INNER[0] += 1
        try:
            found = h.gradients(grad_handle, wanted, True, False)
        finally:
            INNER[0] -= 1
    by_identity = dict(zip([o.identity for o in wanted], found))
    return [None if o is None or by_identity.get(o.identity) is None else _wrap(by_identity[o.identity])
            for o in operands]


def register_hook(node, hook: Callable):
    from ._tensor import Tensor, _wrap
    _checked(hook)
    handle = node._h
    operands = _operands(node)
    pending: dict = {}  # operand position -> what the hook's replacement adds to its gradient, this backward

    def call(grad_handle):
        if grad_handle is None:  # an undefined gradient: so are the node's own gradients of its inputs
            entries = _returned(hook, hook((None,) * len(operands), (None,)), len(operands))
            if entries is not None and any(e is not None for e in entries):
                raise _replaced_none("register_hook")
            return None
        grad_inputs = tuple(_local_gradients(node, operands, grad_handle))
        entries = _returned(hook, hook(grad_inputs, (_wrap(grad_handle),)), len(grad_inputs))
        for i, (old, new) in enumerate(zip(grad_inputs, entries or ())):
            if new is old or old is None or operands[i] is None:
                continue
            if new is not None and not isinstance(new, Tensor):
                raise TypeError(f"register_hook: the hook returned {type(new).__name__} for a gradient; it must be "
                                f"a Tensor or None")
            pending[i] = -old if new is None else new - old
        return None

    def receiver(i: int):
        def receive(grad_handle):
            delta = pending.pop(i, None)
            return None if delta is None or grad_handle is None else (_wrap(grad_handle) + delta)._h
        return receive

    # the receivers are registered now: a hook added while a backward runs would not be called in it
    keys = [(h, h.add_grad_hook(receiver(i))) for i, h in enumerate(operands) if h is not None and h.requires_grad]
    return _add(handle, 1, call, keys)
