"""A stand-in for tiktoken (whose "gpt2" encoding is downloaded on first use): get_encoding("gpt2")
gives a word-level encoding with tiktoken's interface and GPT-2's vocabulary size. A piece (a word
with its leading space, a number, a run of punctuation or of spaces) maps to an id below 50256
from its CRC-32 (the next free one on a collision); <|endoftext|> is 50256, as in GPT-2. Ids never encoded decode to a placeholder."""
import re
import zlib

_PIECES = re.compile(r"'(?:s|t|re|ve|m|ll|d)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")
_END = "<|endoftext|>"
_IDS = {}  # piece -> id, and back: shared by every Encoding of the process
_TEXT = {50256: _END}


class Encoding:
    name = "gpt2"
    n_vocab = 50257
    eot_token = 50256

    def _piece_id(self, piece):
        if piece not in _IDS:  # the next free id from the piece's CRC-32 on
            i = zlib.crc32(piece.encode("utf-8")) % self.eot_token
            while i in _TEXT:
                i = (i + 1) % self.eot_token
            _IDS[piece], _TEXT[i] = i, piece
        return _IDS[piece]

    def encode(self, text, *, allowed_special=frozenset(), disallowed_special="all"):
        ids = []
        for k, part in enumerate(text.split(_END)):
            if k:
                if _END not in allowed_special and allowed_special != "all":
                    raise ValueError(f"Encountered text corresponding to disallowed special token {_END!r}")
                ids.append(self.eot_token)
            ids.extend(self._piece_id(p) for p in _PIECES.findall(part))
        return ids

    def decode(self, tokens):
        return "".join(_TEXT.get(int(t), f" <{int(t)}>") for t in tokens)


def get_encoding(name):
    if name != "gpt2":
        raise ValueError(f"Unknown encoding {name}")
    return Encoding()
