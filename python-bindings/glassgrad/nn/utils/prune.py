"""torch.nn.utils.prune with its names (docs/porting.md, the pruning row): pruning a
parameter `name` moves it to `name_orig`, adds the buffer `name_mask` and a forward pre-hook
(the pruning method itself) that sets `module.name = name_orig * name_mask` before each call.
Pruning a parameter again prunes among the entries still unpruned (unstructured methods);
remove() makes the pruned values the parameter again.

    amount: an int (that many entries or channels) or a float in [0, 1] (that fraction,
            rounded), counted among the entries still unpruned
    l1_unstructured:  the entries of smallest |value|
    random_unstructured: entries drawn from glassgrad's generator (not PyTorch's masks)
    ln_structured / random_structured: whole slices along `dim` (smallest n-norm / random)
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np

from ... import _C, _random
from ..._runtime import no_grad
from ..._tensor import Tensor, tensor
from ..forward_hooks import PRE, register

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
           "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured",
           "random_structured", "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _count(amount, n: int) -> int:
    if isinstance(amount, bool) or not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        amount = int(amount)
        if amount < 0:
            raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
                             "integer")
        if amount > n:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={n}")
        return amount
    fraction = float(amount)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")
    return int(round(fraction * n))


class BasePruningMethod:
    """A pruning method: compute_mask(t, default_mask) gives the new mask (tensors, as PyTorch
    passes them; the built-in methods compute in NumPy);
    apply(module, name, ...) prunes a parameter with it; the instance is the module's pre-hook."""

    PRUNING_TYPE = "unstructured"

    def __init__(self):
        self._tensor_name = ""

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError

    def apply_mask(self, module) -> Tensor:
        return getattr(module, self._tensor_name + "_orig") * getattr(module, self._tensor_name + "_mask")

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Optional[Tensor] = None, **kwargs):
        method = cls(*args, **kwargs)
        method._tensor_name = name
        prior = _hook_of(module, name)
        if prior is None:
            orig = getattr(module, name)
            if name not in module._parameters:
                raise _C.InvalidArgumentError(f"prune: '{name}' is not a parameter of {type(module).__name__}\n"
                                              f"  fix: one of {list(module._parameters)}")
            scores = (importance_scores if importance_scores is not None else orig).numpy(force=True)
            default = np.ones(scores.shape, dtype=scores.dtype)
        else:
            before = list(prior[1]) if isinstance(prior[1], PruningContainer) else [prior[1]]
            if cls.PRUNING_TYPE != "unstructured" and any(m.PRUNING_TYPE != "unstructured" for m in before):
                raise _C.UnsupportedError(f"prune: '{name}' is pruned already and a second structured pruning "
                                          "is not supported\n  fix: prune.remove(module, name) first")
            orig = getattr(module, name + "_orig")
            scores = (importance_scores if importance_scores is not None else orig).numpy(force=True)
            default = getattr(module, name + "_mask").numpy(force=True)
        mask = _combine(method, scores, default)
        if prior is None:
            del module._parameters[name]
            module.register_parameter(name + "_orig", orig)
            module.register_buffer(name + "_mask", tensor(mask, dtype=orig.dtype, device=orig.device))
            register(module, PRE, method, prepend=False, with_kwargs=False)
        else:  # a PruningContainer of the methods so far takes the old hook's place
            setattr(module, name + "_mask", tensor(mask, dtype=orig.dtype, device=orig.device))
            container = prior[1] if isinstance(prior[1], PruningContainer) else PruningContainer(prior[1])
            container.add_pruning_method(method)
            module._forward_pre_hooks[prior[0]] = container
        setattr(module, name, method.apply_mask(module))
        return method

    def remove(self, module) -> None:
        """The pruned values become the parameter again: the same Parameter object as
        name_orig (an optimizer holding it keeps training it), under the old name."""
        weight = self.apply_mask(module).detach()
        delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        del module._buffers[self._tensor_name + "_mask"]
        with no_grad():
            orig.copy_(weight)
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied to one parameter so far, in order (iterate, index, len): the
    parameter's pre-hook once it was pruned twice."""

    def __init__(self, *methods: BasePruningMethod):
        super().__init__()
        self._pruning_methods: tuple = ()
        for m in methods:
            self.add_pruning_method(m)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if self._pruning_methods and method._tensor_name != self._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer. Found '{method._tensor_name}'")
        self._tensor_name = method._tensor_name
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]


def _combine(method: BasePruningMethod, scores: np.ndarray, default: np.ndarray) -> np.ndarray:
    """The new mask: the method applied among the entries the default mask keeps."""
    mask = default.copy()
    if method.PRUNING_TYPE == "unstructured":
        keep = default == 1
        mask[keep] = _compute(method, scores[keep], default[keep])
        return mask
    # structured: among the slices along dim that are not pruned away entirely
    dim = getattr(method, "dim") % scores.ndim
    alive = np.nonzero(np.moveaxis(default, dim, 0).reshape(default.shape[dim], -1).sum(axis=1) != 0)[0]
    index = [slice(None)] * scores.ndim
    index[dim] = alive
    mask[tuple(index)] = _compute(method, scores[tuple(index)], default[tuple(index)])
    return mask


def _compute(method: BasePruningMethod, scores: np.ndarray, default: np.ndarray) -> np.ndarray:
    """method.compute_mask on tensors, as PyTorch calls it (a method of one's own may use tensor
    ops), back as an array."""
    out = method.compute_mask(tensor(scores), tensor(default))
    return out.numpy(force=True) if isinstance(out, Tensor) else np.asarray(out)


def _arrays(t, default_mask):
    """The built-in methods compute their masks in NumPy."""
    return (t.numpy(force=True) if isinstance(t, Tensor) else np.asarray(t),
            default_mask.numpy(force=True) if isinstance(default_mask, Tensor) else np.asarray(default_mask))


def _hook_of(module, name: str):
    for i, hook in module.__dict__.get(PRE, {}).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            return i, hook
    return None


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones)."""

    def compute_mask(self, t, default_mask):
        return _arrays(t, default_mask)[1].copy()


class _Unstructured(BasePruningMethod):
    """Prunes the `amount` entries that come first in _order(t)."""

    def __init__(self, amount):
        super().__init__()
        self.amount = amount

    def _order(self, t: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        t, default_mask = _arrays(t, default_mask)
        k = _count(self.amount, t.size)
        mask = default_mask.copy().reshape(-1)
        mask[self._order(t)[:k]] = 0
        return mask.reshape(t.shape)


class RandomUnstructured(_Unstructured):
    def _order(self, t):
        return np.argsort(-_random.generator().random(t.size), kind="stable")


class L1Unstructured(_Unstructured):
    def _order(self, t):
        return np.argsort(np.abs(t).reshape(-1), kind="stable")


class _Structured(BasePruningMethod):
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1):
        super().__init__()
        self.amount, self.dim = amount, dim

    def _scores(self, t: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def compute_mask(self, t, default_mask):
        t, default_mask = _arrays(t, default_mask)
        dim = self.dim % t.ndim
        n = t.shape[dim]
        k = _count(self.amount, n)
        if k == 0:
            return default_mask.copy()
        keep = np.argsort(-self._scores(t), kind="stable")[:n - k]
        channels = np.zeros(n, dtype=t.dtype)
        channels[keep] = 1
        shape = [1] * t.ndim
        shape[dim] = n
        return default_mask * channels.reshape(shape)


class RandomStructured(_Structured):
    def _scores(self, t):
        return _random.generator().random(t.shape[self.dim % t.ndim])


class LnStructured(_Structured):
    def __init__(self, amount, n, dim: int = -1):
        super().__init__(amount, dim)
        self.n = n

    def _scores(self, t):
        dim = self.dim % t.ndim
        moved = np.moveaxis(t, dim, 0).reshape(t.shape[dim], -1).astype(np.float64)
        if self.n in ("fro", 2):
            return np.sqrt((moved ** 2).sum(axis=1))
        if self.n == float("inf"):
            return np.abs(moved).max(axis=1)
        return (np.abs(moved) ** self.n).sum(axis=1) ** (1.0 / self.n)


class CustomFromMask(BasePruningMethod):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def compute_mask(self, t, default_mask):
        t, default_mask = _arrays(t, default_mask)
        return default_mask * np.asarray(self.mask, dtype=default_mask.dtype).reshape(default_mask.shape)


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    mask = mask.numpy(force=True) if isinstance(mask, Tensor) else np.asarray(mask)
    hook = _hook_of(module, name)
    if hook is None:
        CustomFromMask.apply(module, name, mask=mask)
        return module
    prior = getattr(module, name + "_mask")  # pruned already: both masks apply
    setattr(module, name + "_mask", tensor(prior.numpy(force=True) * mask.astype(prior.numpy(force=True).dtype).reshape(prior.shape),
                                           dtype=prior.dtype, device=prior.device))
    setattr(module, name, hook[1].apply_mask(module))
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the (module, name) pairs together: the amount counts over all their entries."""
    parameters = list(parameters)
    importance_scores = importance_scores or {}
    scores, masks = [], []
    for module, name in parameters:
        s = importance_scores.get((module, name), getattr(module, name))
        scores.append(s.numpy(force=True).reshape(-1))
        m = getattr(module, name + "_mask", None) if _hook_of(module, name) else None
        masks.append(m.numpy(force=True).reshape(-1) if m is not None else np.ones(scores[-1].size, scores[-1].dtype))
    method = pruning_method(**kwargs)
    flat = _compute(method, np.concatenate(scores), np.concatenate(masks))
    at = 0
    for (module, name), s in zip(parameters, scores):
        part = flat[at:at + s.size]
        at += s.size
        shape = getattr(module, name).shape
        custom_from_mask(module, name, part.reshape(tuple(shape)))


def remove(module, name):
    hook = _hook_of(module, name)
    if hook is None:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    hook[1].remove(module)
    module._forward_pre_hooks.pop(hook[0])
    return module


def is_pruned(module) -> bool:
    return any(isinstance(h, BasePruningMethod) for m in module.modules() for h in m.__dict__.get(PRE, {}).values())
