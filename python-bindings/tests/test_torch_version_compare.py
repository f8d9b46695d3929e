"""`torch.__version__` in version checks: course helpers branch on it (`if torch.__version__ <=
LooseVersion("1.7"): torch.set_deterministic(True) else: torch.use_deterministic_algorithms(True)`).
glassgrad.torch's reads as glassgrad's version and compares as the PyTorch API it follows, so a
check answers as PyTorch's own __version__ does."""
import warnings

import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from glassgrad.torch_version import API_VERSION, TorchVersion

# (operator, other side): what a script compares torch.__version__ with
CHECKS = [("<=", "1.7"), (">=", "1.8"), (">", "1.10"), ("<", "3.0"), (">=", "2.0.0a0"), ("<", "2.0"),
          (">", (2, 0)), ("<", (1, 12, 1)), (">=", [2]), (">", "v1.13"), ("<", "2.1.0+cu118")]
OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def test_reads_as_glassgrads_version():
    assert gtorch.__version__ == gg.__version__ and str(gtorch.__version__) == gg.__version__
    assert isinstance(gtorch.__version__, str) and hash(gtorch.__version__) == hash(gg.__version__)
    assert gtorch.torch_version.TorchVersion is TorchVersion


@pytest.mark.parametrize("op,other", CHECKS)
def test_compares_as_pytorch_does(op, other):
    torch = pytest.importorskip("torch")
    release = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if not (2, 1) <= release < (3, 0) or not API_VERSION.startswith("2."):
        pytest.skip(f"the checks straddle PyTorch 2.1 to 2.x; this is {torch.__version__}")
    assert OPS[op](gtorch.__version__, other) == OPS[op](torch.__version__, other), (op, other)


def test_the_reflected_order():
    assert (1, 7) < gtorch.__version__ and not ((3, 0) < gtorch.__version__)
    assert "1.7" < gtorch.__version__


def test_version_objects():
    version = pytest.importorskip("packaging.version")
    assert gtorch.__version__ >= version.Version("1.8") and gtorch.__version__ < version.Version("9")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loose = pytest.importorskip("distutils.version").LooseVersion("1.7")
    # the course helper's check: the branch written for PyTorch 1.8 and later is taken
    assert not gtorch.__version__ <= loose and gtorch.__version__ > loose


def test_a_value_that_is_no_version_compares_as_text():
    torch = pytest.importorskip("torch")
    assert (gtorch.__version__ < "parrot") == (torch.__version__ < "parrot") == (gg.__version__ < "parrot")
    assert (gtorch.__version__ >= "") == (torch.__version__ >= "")
