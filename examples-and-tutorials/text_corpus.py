"""Public-domain text for the language-model examples, from a Debian package, so nothing downloads:
the fortune cookies of Debian's `fortunes` package (BSD fortune's data files, quotations,
definitions, songs and jokes; `apt-get install fortunes`, which tools/setup.sh does), read as
characters.

    text = load_fortunes()                       # every cookie file, about 2.4 MB of text
    vocab = CharVocab(text)
    ids = vocab.encode(text)                     # np.int64 [len(text)]
"""
from __future__ import annotations

import os
import sys
from typing import Iterable, Optional, Sequence

import numpy as np

FORTUNES_DIR = "/usr/share/games/fortunes"
# Files of drawings made of characters (art, ascii-art) would teach a model to draw, not to write.
SKIPPED = ("art", "ascii-art")


def fortune_files(directory: str = FORTUNES_DIR) -> list:
    """The cookie files of a fortunes directory: the plain files, not their .dat indexes or .u8 twins."""
    if not os.path.isdir(directory):
        sys.exit(f"no fortune files in {directory}: install Debian's fortunes package "
                 f"(sudo apt-get install fortunes, which bash tools/setup.sh does), or pass --data DIR")
    names = sorted(n for n in os.listdir(directory)
                   if "." not in n and n not in SKIPPED and os.path.isfile(os.path.join(directory, n)))
    return [os.path.join(directory, n) for n in names]


def load_fortunes(directory: str = FORTUNES_DIR, files: Optional[Iterable[str]] = None) -> str:
    """The cookies of every file (or of `files`, names in the directory), one after another: each
    cookie ends with a blank line instead of the files' '%' separator lines."""
    paths = [os.path.join(directory, f) for f in files] if files is not None else fortune_files(directory)
    cookies = []
    for path in paths:
        with open(path, encoding="latin-1") as fh:  # a few files hold 8-bit characters
            cookies += [c.strip("\n") for c in fh.read().split("\n%\n") if c.strip()]
    return "\n\n".join(cookies) + "\n"


class CharVocab:
    """The characters of a text, sorted: encode() maps a string to int64 ids, decode() back."""

    def __init__(self, text: str):
        self.chars: Sequence[str] = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> np.ndarray:
        return np.fromiter((self.index[c] for c in s), dtype=np.int64, count=len(s))

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)
