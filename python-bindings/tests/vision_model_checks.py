"""Checks the glassgrad.vision.models test files share."""
import pytest

import glassgrad as gg
from glassgrad.vision import models


def count(model):
    """The number of parameter values."""
    return sum(p.numel() for p in model.parameters())


def assert_pretrained_refused(name):
    """weights= and pretrained=True raise (nothing downloads), naming weights=None as the fix."""
    with pytest.raises(gg.GlassgradError, match="downloads nothing"):
        getattr(models, name)(weights="IMAGENET1K_V1")
    with pytest.raises(gg.GlassgradError, match=f"(?s){name}\\(pretrained=True\\).*weights=None"):
        getattr(models, name)(pretrained=True)
