"""torchvision.models' registry functions (list_models, get_model, get_model_builder,
get_model_weights, get_weight) over glassgrad.vision.models' builders: every function of the
model files whose keyword-only arguments include `weights` (resnet18, vit_b_16, ...). The weight
look-ups give torchvision's enums (_weight_enums.py), whose use raises: nothing is bundled or
downloaded."""
from __future__ import annotations

import fnmatch
import inspect
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ... import _C, nn

__all__ = ["list_models", "get_model", "get_model_builder", "get_model_weights", "get_weight"]


def _builders() -> Dict[str, Callable[..., nn.Module]]:
    from . import _MODEL_FILES, _TASK_FILES
    found: Dict[str, Callable[..., nn.Module]] = {}
    for module in _MODEL_FILES + _TASK_FILES:
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


def get_model_weights(name: Union[Callable, str]) -> Any:
    """The weights enum of a builder or its name (get_model_weights("resnet50") is ResNet50_Weights)."""
    from . import _ENUMS
    key = name.lower() if isinstance(name, str) else getattr(name, "__name__", "")
    if key not in _ENUMS:
        get_model_builder(key or str(name))  # an unknown name raises there, naming the known ones
    return _ENUMS[key]


def get_weight(name: str) -> Any:
    """The member that "ResNet50_Weights.IMAGENET1K_V2" names."""
    from . import _ENUMS
    enum_name, _, member = name.partition(".")
    for enum in _ENUMS.values():
        if enum.__name__ == enum_name and member in enum.__members__:
            return enum.__members__[member]
    raise _C.InvalidArgumentError(f"Unknown weight enum name {name!r}\n  fix: an enum and a member, e.g. "
                                  f"'ResNet50_Weights.IMAGENET1K_V2', or get_model_weights('resnet50')")
