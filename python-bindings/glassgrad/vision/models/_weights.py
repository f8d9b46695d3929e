"""The refusal every constructor in glassgrad.vision.models shares: no pretrained weights are
bundled and nothing is downloaded, so `weights=None` (and the older `pretrained=False`) build a
randomly initialized network; anything else raises, naming how to load weights from a file."""
from __future__ import annotations

from typing import Any, Dict

from ... import _C


def refuse_pretrained(name: str, weights: Any, kwargs: Dict[str, Any]) -> None:
    """Raises for weights other than None or pretrained=True; removes `pretrained` from kwargs."""
    pretrained = kwargs.pop("pretrained", False)
    if weights is None and not pretrained:
        return
    given = f"weights={weights!r}" if weights is not None else f"pretrained={pretrained!r}"
    raise _C.UnsupportedError(
        f"{name}({given}): glassgrad bundles no pretrained weights and downloads nothing\n"
        f"  fix: model = {name}(weights=None); model.load_state_dict(glassgrad.load('{name}.pth')) with a "
        f"state_dict saved from torchvision (glassgrad.load reads PyTorch's files)")
