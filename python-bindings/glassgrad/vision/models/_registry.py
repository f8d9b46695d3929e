"""torchvision.models' registry functions (list_models, get_model, get_model_builder,
get_model_weights, get_weight) over glassgrad.vision.models' builders: every function of the
model files whose keyword-only arguments include `weights` (resnet18, vit_b_16, ...). Weight
enums do not exist here (nothing is bundled or downloaded), so the weight look-ups raise and say
how to load a file."""
from __future__ import annotations

import fnmatch
import inspect
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ... import _C, nn

__all__ = ["list_models", "get_model", "get_model_builder", "get_model_weights", "get_weight"]


def _builders() -> Dict[str, Callable[..., nn.Module]]:
    from . import _MODEL_FILES
    found: Dict[str, Callable[..., nn.Module]] = {}
    for module in _MODEL_FILES:
        for name in module.__all__:
            fn: Callable[..., nn.Module] = getattr(module, name)
            if inspect.isfunction(fn) and "weights" in inspect.signature(fn).parameters:
                found[name] = fn
    return found


def list_models(module: Optional[ModuleType] = None, include: Union[Iterable[str], str, None] = None,
                exclude: Union[Iterable[str], str, None] = None) -> List[str]:
    """The sorted builder names, from `module` only where given (glassgrad.vision.models holds
    them all); include / exclude are fnmatch patterns (a union of includes, then every exclude
    removed)."""
    every = {k for k, v in _builders().items() if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__}
    chosen = every
    if include:
        chosen = set()
        for pattern in [include] if isinstance(include, str) else include:
            chosen |= set(fnmatch.filter(every, pattern))
    if exclude:
        for pattern in [exclude] if isinstance(exclude, str) else exclude:
            chosen -= set(fnmatch.filter(every, pattern))
    return sorted(chosen)


def get_model_builder(name: str) -> Callable[..., nn.Module]:
    """The builder registered under name (case-insensitive)."""
    builders = _builders()
    key = name.lower()
    if key not in builders:
        close = fnmatch.filter(builders, f"*{key[:4]}*")[:5]
        raise _C.InvalidArgumentError(f"Unknown model {key}\n  fix: one of glassgrad.vision.models.list_models()"
                                      + (f", e.g. {', '.join(close)}" if close else ""))
    return builders[key]


def get_model(name: str, **config: Any) -> nn.Module:
    """get_model_builder(name)(**config), e.g. get_model("resnet50", weights=None, num_classes=10)."""
    return get_model_builder(name)(**config)


def _no_weights(call: str, name: str) -> _C.UnsupportedError:
    return _C.UnsupportedError(
        f"{call}({name!r}): glassgrad bundles no pretrained weights and downloads nothing, so there is no weights "
        f"enum\n  fix: build with weights=None and load a state_dict saved from torchvision: "
        f"model.load_state_dict(glassgrad.load('model.pth'))")


def get_model_weights(name: Union[Callable, str]) -> Any:
    """Raises: there are no weight enums (see the module's doc)."""
    raise _no_weights("get_model_weights", name if isinstance(name, str) else getattr(name, "__name__", str(name)))


def get_weight(name: str) -> Any:
    """Raises: there are no weight enums (see the module's doc)."""
    raise _no_weights("get_weight", name)
