"""torch.autograd.graph's names for glassgrad's graph (docs/autograd.md):

- Node: the abstract class of backward nodes; Tensor.grad_fn objects and AccumulateGrad nodes
  are instances (isinstance checks, as PyTorch's C++ nodes register with it);
- GradientEdge(node, output_nr) and get_gradient_edge(tensor): where a tensor's gradient is
  computed; autograd.grad and backward(inputs=) take an edge wherever they take the tensor;
- increment_version(tensor or tensors): bumps the version counter as an in-place write would, so
  a backward that needs the value saved before raises PyTorch's error;
- register_multi_grad_hook(tensors, fn, mode): fn once per backward, with every tensor's gradient
  ("all": None for those the backward did not reach; called as that backward() or grad() call
  ends, where PyTorch calls it right after the last of them is computed) or with the first one
  ("any").

- saved_tensors_hooks(pack_hook, unpack_hook), save_on_cpu, disable_saved_tensors_hooks: the hooks
  run on the tensors PyTorch's nodes save, packing as the forward records an op and unpacking as a
  backward reaches it; where the unpack hook returns other values than those saved, the gradient
  is computed from them for the common ops (_unpacked_gradients.py);
- allow_mutation_on_saved_tensors(): inside it, a saved tensor may be written in place before
  backward() reads it (_saved_mutation.py)."""
from __future__ import annotations

import abc
from typing import Any, Callable, Iterable, List, NamedTuple, Optional, Sequence, Union

from .. import _backward_end, _inplace, _saved_tensor_hooks

from .._tensor import Tensor, _AccumulateGrad, _GradFn
from ._saved_mutation import _AllowMutationOnSavedContext, allow_mutation_on_saved_tensors  # noqa: F401  (PyTorch's names)

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors"]


class Node(abc.ABC):
    """A backward node (Tensor.grad_fn, AccumulateGrad): name(), next_functions."""

    @abc.abstractmethod
    def name(self) -> str:
        raise NotImplementedError

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        raise NotImplementedError

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the node's input gradients are computed (a
        grad_fn's, _node_hooks.py)."""
        raise NotImplementedError(f"{type(self).__name__}.register_hook: not available on this node")

    def register_prehook(self, fn):
        """fn(grad_outputs) before the node runs (a grad_fn's, _node_hooks.py)."""
        raise NotImplementedError(f"{type(self).__name__}.register_prehook: not available on this node")

    @classmethod
    def __subclasshook__(cls, C):
        from .function import BackwardCFunction
        if cls is Node and issubclass(C, (_GradFn, _AccumulateGrad, BackwardCFunction)):
            return True
        return NotImplemented


class GradientEdge(NamedTuple):
    """A tensor's place in the graph: its node (grad_fn, or AccumulateGrad for a leaf) and the
    output of that node it is."""

    node: Any
    output_nr: int
    ownership_token: Optional[Any] = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge where tensor's gradient is computed: grad(loss, get_gradient_edge(x)) is
    grad(loss, x)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients"
                           "\n  fix: get the edge of a tensor computed from one that requires grad")
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, 0)
    accumulate = _AccumulateGrad(tensor._h)
    accumulate._variable = tensor  # the leaf object itself, as PyTorch's node holds it
    return GradientEdge(accumulate, 0)


def edge_tensor(edge: GradientEdge) -> Tensor:
    """The tensor whose gradient the edge stands for (autograd.grad's inputs)."""
    from .._tensor import _wrap
    node = edge.node
    if isinstance(node, _AccumulateGrad):
        return node.variable  # the leaf itself
    if isinstance(node, _GradFn) and node._h is not None:
        return _wrap(node._h)
    raise TypeError(f"GradientEdge: expected the edge of a glassgrad tensor (get_gradient_edge), got a node of type "
                    f"{type(node).__name__}\n  fix: edge = torch.autograd.graph.get_gradient_edge(tensor)")


def increment_version(tensor: Union[Tensor, Iterable[Tensor]]) -> None:
    """Counts an in-place write the library did not see (a custom kernel's) on each tensor: a
    backward that reads what was saved before raises PyTorch's error; the tensor's later uses do
    not (_inplace.count_write)."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        _inplace.count_write(t, "increment_version")


class _MultiHandle:
    """The handle register_multi_grad_hook returns: remove() unregisters every tensor's hook."""

    def __init__(self, handles: tuple):
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> "_MultiHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *, mode: str = "all") -> _MultiHandle:
    """fn(grads) once per backward after the gradients of tensors are computed (mode "all": a
    list in tensors' order, None where the backward computed none), or fn(grad) with the first
    of them (mode "any"). Returns a handle whose remove() unregisters it."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = tuple(tensors)
    collected: List[Optional[List[Any]]] = [None]  # this backward's gradients, once one arrived
    fired = [False]

    def flush() -> None:
        grads, collected[0] = collected[0], None
        fn(grads)

    def rearm() -> None:
        fired[0] = False

    def hook_for(i: int):
        def inner(grad):
            if mode == "all":
                if collected[0] is None:
                    collected[0] = [None] * len(tensors)
                    _backward_end.PENDING.append(flush)
                collected[0][i] = grad
            elif not fired[0]:
                fired[0] = True
                _backward_end.PENDING.append(rearm)
                fn(grad)
        return inner

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) runs for each tensor an op recorded inside saves for
    backward, unpack_hook(packed) when a backward reaches the op (_saved_tensor_hooks.py: when
    glassgrad calls them, and that the gradient reads the forward values)."""

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> "saved_tensors_hooks":
        _saved_tensor_hooks.push(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc) -> None:
        _saved_tensor_hooks.STACK.pop()


class save_on_cpu(saved_tensors_hooks):
    """saved_tensors_hooks whose pack hook copies each saved tensor to the CPU (pinned when
    pin_memory) and whose unpack hook moves it back to its device."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(tensor: Tensor):
            if not pin_memory or str(tensor.device) != "cpu":
                return tensor.device, tensor.to("cpu")
            return tensor.device, tensor.pin_memory()

        def unpack(packed) -> Tensor:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        setattr(unpack, "returns_saved_values", True)  # (not compared with what was saved: _unpacked_gradients)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Context manager inside which saved_tensors_hooks raises RuntimeError(error_message), and
    the hooks entered outside pack nothing."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self) -> "disable_saved_tensors_hooks":
        _saved_tensor_hooks.STACK.append((None, self.error_message))
        return self

    def __exit__(self, *exc) -> None:
        _saved_tensor_hooks.STACK.pop()
