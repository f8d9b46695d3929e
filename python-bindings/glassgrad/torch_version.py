"""torch.torch_version: `torch.__version__` as a string that compares as a version.

Scripts test the PyTorch they run under before taking a branch (`if torch.__version__ <=
LooseVersion("1.7"): torch.set_deterministic(True) else: torch.use_deterministic_algorithms(True)`,
`torch.__version__ >= "1.8"`, `torch.__version__ > (2, 0)`). glassgrad.torch answers the API it
offers: its `__version__` reads as glassgrad's own version (what a course prints first), and its
order comparisons (<, <=, >, >=) answer as PyTorch API_VERSION, the release whose names,
signatures and warnings glassgrad.torch follows (docs/porting.md, the `torch.__version__` row). `==` and hashing
stay the string's, so `torch.__version__ == glassgrad.__version__`.

The other side of a comparison may be a string ('1.7', '2.0.0a0', '2.1.0+cu118'), a tuple of
numbers, or a version object (packaging's Version, distutils' LooseVersion/StrictVersion), read
through its text. Only the release numbers count: '2.0.0a0' compares as 2.0.0; a value that
holds no version ('parrot') compares as text, as PyTorch's does."""
from __future__ import annotations

import re
from typing import Any, Optional, Tuple

from . import _C

__all__ = ["TorchVersion", "API_VERSION", "__version__"]

# The PyTorch release glassgrad.torch mirrors (tests/torch_versions.py lists the conventions of the
# differential tests' versions).
API_VERSION = "2.14.1"

_RELEASE = re.compile(r"\s*v?(\d+(?:\.\d+)*)")


def _release(value: Any) -> Optional[Tuple[int, ...]]:
    """The release numbers of a version given as text, a tuple or a version object, or None when
    it holds none."""
    if isinstance(value, (tuple, list)) and value and all(isinstance(p, int) for p in value):
        return tuple(value)
    text = value if isinstance(value, str) else getattr(value, "vstring", None) or str(value)
    match = _RELEASE.match(text)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _compare(version: str, other: Any, method: str) -> bool:
    """version <method> other as versions: API_VERSION against other's release numbers, padded
    with zeros; a value that holds no version compares as text, as PyTorch's TorchVersion does."""
    theirs = _release(other)
    if theirs is None:
        return getattr(str, method)(version, other)
    ours = _release(API_VERSION) or ()
    n = max(len(ours), len(theirs))
    return getattr((ours + (0,) * (n - len(ours))), method)(theirs + (0,) * (n - len(theirs)))


class TorchVersion(str):
    """A version string (str(v) is its text) whose order comparisons answer as API_VERSION."""

    __slots__ = ()

    def __lt__(self, other: Any) -> bool:
        return _compare(self, other, "__lt__")

    def __le__(self, other: Any) -> bool:
        return _compare(self, other, "__le__")

    def __gt__(self, other: Any) -> bool:
        return _compare(self, other, "__gt__")

    def __ge__(self, other: Any) -> bool:
        return _compare(self, other, "__ge__")

    __eq__ = str.__eq__
    __hash__ = str.__hash__


__version__ = TorchVersion(_C.__version__)
