"""`torch.__version__` in version checks: course helpers branch on it (`if torch.__version__ <=
LooseVersion("1.7"): torch.set_deterministic(True) else: torch.use_deterministic_algorithms(True)`).
glassgrad.torch's is the PyTorch release it follows (docs/porting.md, "Which PyTorch and
torchvision"), a TorchVersion, so a check answers as PyTorch's own __version__ does."""
import warnings

import pytest

import glassgrad as gg
import glassgrad.torch as gtorch
from glassgrad.torch_version import API_VERSION, TorchVersion

# (operator, other side): what a script compares torch.__version__ with
CHECKS = [("<=", "1.7"), (">=", "1.8"), (">", "1.10"), ("<", "3.0"), (">=", "2.0.0a0"), ("<", "2.0"),
          (">", (2, 0)), ("<", (1, 12, 1)), (">=", [2]), (">", "v1.13"), ("<", "2.1.0+cu118")]
OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def test_reads_as_the_pytorch_release_followed():
    assert str(gtorch.__version__) == API_VERSION == gtorch.version.__version__ == "2.14.1"
    assert type(gtorch.__version__) is TorchVersion and hash(gtorch.__version__) == hash(API_VERSION)
    assert gtorch.torch_version.TorchVersion is TorchVersion
    assert gg.__version__ == gg._C.__version__ != API_VERSION  # glassgrad's own stays its own
    # what scripts do with the string (DETR, timm, course helpers)
    assert gtorch.__version__.startswith("2.") and int(gtorch.__version__.split(".")[1]) >= 14
    version = pytest.importorskip("packaging.version")
    assert version.parse(gtorch.__version__) >= version.parse("1.10")
    assert version.parse(gtorch.version.__version__.split("+")[0]) >= version.parse("2.0")


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
    assert (gtorch.__version__ < "parrot") == (torch.__version__ < "parrot") == ("2.14.1" < "parrot")
    assert (gtorch.__version__ >= "") == (torch.__version__ >= "")
    assert gtorch.__version__ != "parrot" and TorchVersion("parrot") == "parrot"


# PEP 440's order, as packaging.version.Version (what PyTorch's TorchVersion compares with)
VERSIONS = ["1.0", "1.0.0", "1.0a0", "1.0a1", "1.0b2", "1.0rc1", "1.0.dev0", "1.0a1.dev2", "1.0.post1", "1.0-1",
            "1.0.post1.dev3", "1.0+cu118", "1.0+cpu", "1.0+1.2", "1.0+abc.5", "2!0.1", "v1.13", "2.1.0+cu118",
            "0.9", "1.10", "1.9.1"]


@pytest.mark.parametrize("a", VERSIONS)
def test_order_and_equality_follow_pep_440(a):
    version = pytest.importorskip("packaging.version")
    for b in VERSIONS:
        for op in ("__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"):
            assert getattr(TorchVersion(a), op)(b) == getattr(version.Version(a), op)(version.Version(b)), (a, op, b)


def test_equality_as_versions():
    # torch.__version__ == "2.14" and == (2, 14, 1), as PyTorch's TorchVersion answers
    assert gtorch.__version__ == "2.14.1" and gtorch.__version__ == "2.14.1.0" and gtorch.__version__ == (2, 14, 1)
    assert gtorch.__version__ != "2.14.0" and gtorch.__version__ != (2, 14)
    assert {gtorch.__version__: 1}["2.14.1"] == 1
