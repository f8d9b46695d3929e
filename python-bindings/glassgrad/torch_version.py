"""torch.torch_version: `torch.__version__` as a string that compares as a version.

glassgrad.torch.__version__ is TorchVersion('2.14.1'), the PyTorch release glassgrad.torch
follows (version.py; docs/porting.md, "Which PyTorch and torchvision"). As PyTorch's TorchVersion,
it is a str (`.split(".")`, `.startswith("2.")`, printing) whose comparisons (<, <=, >, >=, ==)
read both sides as versions (PEP 440's order: 2.0.0a0 < 2.0.0 < 2.0.0+cu118 < 2.0.0.post1, and
2.0 == 2.0.0), so `torch.__version__ >= "1.8"`, `> (2, 0)`, `<= LooseVersion("1.7")` and
`>= packaging.version.Version("1.10")` answer as under PyTorch 2.14.1. The other side may be a
string, a tuple or list of numbers, or a version object (read through its text); where either side
holds no version ('parrot', ''), the comparison is the strings', as PyTorch's falls back to.
Hashing stays the string's."""
from __future__ import annotations

import re
from typing import Any, Optional

from .version import __version__ as _api_version

__all__ = ["TorchVersion", "API_VERSION", "__version__"]

# The PyTorch release glassgrad.torch mirrors (tests/torch_versions.py lists the conventions of the
# differential tests' versions).
API_VERSION = _api_version

# PEP 440's public form (packaging's), lower-cased: release, pre-release, post-release, dev, local.
_PEP440 = re.compile(r"""v?(?:(\d+)!)?(?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_implicit>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>\d+)?(?P<post>))?
    (?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?""", re.VERBOSE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF, _NEG = (float("inf"),), (float("-inf"),)


def _key(text: str) -> Optional[tuple]:
    """packaging.version.Version's sort key of text, or None where text is no version."""
    m = _PEP440.fullmatch(text.strip().lower())
    if m is None:
        return None
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 2.0 == 2.0.0
        release.pop()
    has_post = m["post_implicit"] is not None or m["post"] is not None
    pre: tuple = (_PRE[m["pre"]], int(m["pre_n"] or 0)) if m["pre"] else (_NEG if m["dev"] and not has_post
                                                                             else _INF)
    post: tuple = (int(m["post_implicit"] or m["post_n"] or 0),) if has_post else _NEG
    dev: tuple = (int(m["dev_n"] or 0),) if m["dev"] else _INF
    # no local part sorts first; numeric segments after alphanumeric ones
    local = tuple((1, int(p), "") if p.isdigit() else (0, 0, p) for p in re.split(r"[-_.]", m["local"] or "") if p)
    return (int(m.group(1) or 0), tuple(release), pre, post, dev, local)


def _text(value: Any) -> Optional[str]:
    """The version text of a string, a tuple or list of numbers, or a version object; None for a
    value PyTorch's TorchVersion cannot read as a version."""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):
        return ".".join(str(p) for p in value)
    text = getattr(value, "vstring", None)  # distutils' LooseVersion / StrictVersion
    if text is None and type(value).__name__ == "Version":  # packaging's
        text = str(value)
    return text


def _compare(version: str, other: Any, method: str) -> bool:
    ours, text = _key(version), _text(other)
    theirs = _key(text) if text is not None else None
    if ours is None or theirs is None:
        return getattr(str, method)(version, other)
    return getattr(ours, method)(theirs)


class TorchVersion(str):
    """A version string (str(v) is its text) that compares with strings, tuples and version
    objects as a version."""

    __slots__ = ()

    def __lt__(self, other: Any) -> bool:
        return _compare(self, other, "__lt__")

    def __le__(self, other: Any) -> bool:
        return _compare(self, other, "__le__")

    def __gt__(self, other: Any) -> bool:
        return _compare(self, other, "__gt__")

    def __ge__(self, other: Any) -> bool:
        return _compare(self, other, "__ge__")

    def __eq__(self, other: Any) -> bool:
        return _compare(self, other, "__eq__")

    def __ne__(self, other: Any) -> bool:
        return _compare(self, other, "__ne__")

    __hash__ = str.__hash__


__version__ = TorchVersion(API_VERSION)
