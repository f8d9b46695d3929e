"""Checks the glassgrad.vision.models test files share."""
import numpy as np
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


def assert_sgd_step_moves(model, watched, x, labels, lr=0.1):
    """One cross-entropy SGD step: the loss is finite and the watched parameter changes."""
    opt = gg.optim.SGD(model.parameters(), lr=lr)
    before = watched.detach().numpy().copy()
    loss = gg.nn.functional.cross_entropy(model(x), gg.tensor(labels))
    loss.backward()
    opt.step()
    assert np.isfinite(loss.item()) and not np.array_equal(before, watched.detach().numpy())
