"""torch.layout and torch.memory_format: the two small enum types PyTorch scripts pass around.

A layout says how a tensor's elements are stored at all (strided, or glassgrad.sparse's COO); a
memory format says in which order a strided tensor's dims are laid out (row-major, channels-last).
Each value is one object (compared by identity, as torch's are), printed as `torch.<name>`, and
pickled by name (unpickled as the same object)."""
from __future__ import annotations


class _OneOfAFew:
    """A value of a small fixed set: made only at import; repr torch.<name>; copies and pickles
    are the object itself."""
    _made = False
    _fix = ""

    def __new__(cls, name: str = ""):
        if cls._made:
            raise TypeError(f"cannot create 'torch.{cls.__name__}' instances\n  fix: use {cls._fix}")
        return super().__new__(cls)

    def __init__(self, name: str = "") -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name  # pickled as the module-level name, restored as the same object

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class layout(_OneOfAFew):
    """torch.layout: glassgrad.strided (every Tensor) or glassgrad.sparse_coo (glassgrad.sparse)."""
    _fix = "glassgrad.strided or glassgrad.sparse_coo"


class memory_format(_OneOfAFew):
    """torch.memory_format: the dim order a strided tensor's elements are dense in.
    contiguous_format (row-major), channels_last (NCHW sizes, NHWC order: a 4-d tensor's
    channels are adjacent), channels_last_3d (NCDHW sizes, NDHWC order) and preserve_format
    (keep the input's order: the default of clone and the *_like factories)."""
    _fix = "glassgrad.contiguous_format, channels_last, channels_last_3d or preserve_format"


strided, sparse_coo = layout("strided"), layout("sparse_coo")
layout._made = True
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
memory_format._made = True
legacy_contiguous_format = contiguous_format  # torch's alias: it prints torch.contiguous_format
