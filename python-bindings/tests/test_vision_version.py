"""`torchvision.__version__` after `import glassgrad.vision as torchvision` (course notebooks print
it beside torch.__version__): glassgrad's version, a string of dotted numbers."""
import re

import glassgrad
import glassgrad.vision as torchvision


def test_vision_has_glassgrads_version():
    assert torchvision.__version__ == glassgrad.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", torchvision.__version__)
    assert "__version__" in torchvision.__all__
