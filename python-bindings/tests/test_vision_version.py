"""`torchvision.__version__` after `import glassgrad.vision as torchvision` (course notebooks print
it beside torch.__version__; DETR and detection code branch on it): the torchvision release
glassgrad.vision follows, paired with glassgrad.torch's (docs/porting.md, "Which PyTorch and
torchvision")."""
import re

import pytest

import glassgrad
import glassgrad.torch as torch
import glassgrad.vision as torchvision


def test_vision_reports_the_torchvision_release_followed():
    assert torchvision.__version__ == torchvision.version.__version__ == "0.29.1"
    assert re.fullmatch(r"\d+\.\d+\.\d+", torchvision.__version__)
    assert "__version__" in torchvision.__all__ and "version" in torchvision.__all__
    # torchvision 0.29 pairs with PyTorch 2.14
    assert int(torchvision.__version__.split(".")[1]) == int(torch.__version__.split(".")[1]) + 15
    assert torchvision.version.git_version == glassgrad.version.git_version
    assert torchvision.version.cuda == glassgrad.version.cuda


def test_version_checks_of_real_scripts_take_current_branches():
    # DETR's util/misc.py and older detection code
    assert not float(torchvision.__version__.split(".")[1]) < 7
    version = pytest.importorskip("packaging.version")
    assert not version.parse(torchvision.__version__) < version.parse("0.7")
