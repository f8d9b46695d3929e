"""Variable-length sequences, as torch.nn.utils.rnn: PackedSequence, pack_padded_sequence,
pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence, unpack_sequence.

A PackedSequence holds the steps of sequences sorted by decreasing length, time-major: data
[N, *] has the batch_sizes[t] rows of step t one after another (recurrent_geometry.h). Packing
and unpacking are one op each (PackSequence, PadPackedSequence), each the other's gradient; the
sorting of enforce_sorted=False is part of them (sorted_indices), and the recurrent layers run
packed data directly. batch_sizes, sorted_indices and unsorted_indices are int64 tensors on the
CPU, as PyTorch keeps them: they shape the plan (static attributes), they are not data on the
device.
"""
from __future__ import annotations

from collections import namedtuple
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ... import _C, _args
from ..._spatial import cat
from ..._factories import full
from ..._tensor import Tensor, _op, tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


def _int_list(v) -> Optional[List[int]]:
    if v is None:
        return None
    if isinstance(v, Tensor):
        return [int(a) for a in v.numpy(force=True).reshape(-1).tolist()]
    return [int(a) for a in np.asarray(v).reshape(-1).tolist()]


def _index_tensor(values) -> Optional[Tensor]:
    return None if values is None else tensor(np.asarray(values, dtype=np.int64), device="cpu")


def invert_permutation(permutation) -> Optional[Tensor]:
    """The inverse of a permutation (int64 CPU tensor), or None for None."""
    p = _int_list(permutation)
    if p is None:
        return None
    inv = np.empty(len(p), dtype=np.int64)
    inv[np.asarray(p, dtype=np.int64)] = np.arange(len(p), dtype=np.int64)
    return tensor(inv, device="cpu")


_PackedSequenceBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """Packed steps of variable-length sequences (PyTorch's PackedSequence): data [N, *],
    batch_sizes [T] (int64, CPU), sorted_indices and unsorted_indices ([B] int64, or None when
    the batch was already sorted). Build it with pack_padded_sequence or pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise _C.InvalidArgumentError("PackedSequence: batch_sizes is required\n  fix: build packed sequences "
                                          "with glassgrad.nn.utils.rnn.pack_padded_sequence")
        if not isinstance(batch_sizes, Tensor):
            batch_sizes = _index_tensor(_int_list(batch_sizes))
        if sorted_indices is not None and not isinstance(sorted_indices, Tensor):
            sorted_indices = _index_tensor(_int_list(sorted_indices))
        if unsorted_indices is not None and not isinstance(unsorted_indices, Tensor):
            unsorted_indices = _index_tensor(_int_list(unsorted_indices))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data: Tensor) -> "PackedSequence":
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """The data moved or converted (the index tensors stay on the CPU)."""
        return self._with_data(self.data.to(*args, **kwargs))

    def cuda(self, index: int = 0) -> "PackedSequence":
        return self._with_data(self.data.cuda(index))

    def cpu(self) -> "PackedSequence":
        return self._with_data(self.data.cpu())

    def double(self) -> "PackedSequence":
        return self._with_data(self.data.double())

    def float(self) -> "PackedSequence":
        return self._with_data(self.data.float())

    def long(self) -> "PackedSequence":
        return self._with_data(self.data.long())

    @property
    def is_cuda(self) -> bool:
        return self.data.device.startswith("cuda")

    def is_pinned(self) -> bool:
        return False


def _batch_sizes_of(lengths: List[int]) -> List[int]:
    """Rows of each step of sequences of these (decreasing) lengths."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0] if lengths else 0)]


def _pack(padded: Tensor, lengths: List[int], sorted_indices: Optional[List[int]], batch_first: bool) -> Tensor:
    attrs = {"batch_sizes": _batch_sizes_of(lengths), "batch_first": bool(batch_first)}
    if sorted_indices is not None:
        attrs["sorted_indices"] = list(sorted_indices)
    return _op("PackSequence", [padded], attrs)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch [T, B, *] ([B, T, *] with batch_first) of sequences of the given
    lengths (a list or an int64 CPU tensor, each >= 1). enforce_sorted=True expects them sorted by
    decreasing length; False sorts them (stably), and the layers and pad_packed_sequence undo the
    order."""
    where = "pack_padded_sequence"
    batch_first = _args.flag(batch_first, "batch_first", where)
    enforce_sorted = _args.flag(enforce_sorted, "enforce_sorted", where)
    if not isinstance(input, Tensor):
        raise _C.InvalidArgumentError(f"{where}: input must be a glassgrad.Tensor, got {type(input).__name__}")
    if isinstance(lengths, Tensor) and lengths.device != "cpu":
        raise _C.InvalidArgumentError(f"{where}: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D "
                                      f"{lengths.device} {lengths.dtype} tensor\n  fix: lengths.cpu()")
    lens = _int_list(lengths)
    if input.ndim < 2:
        raise _C.ShapeError(f"{where}: input must have at least 2 axes ([T, B, *] or [B, T, *]), got "
                            f"{list(input.shape)}")
    batch = input.shape[0 if batch_first else 1]
    steps = input.shape[1 if batch_first else 0]
    if len(lens) != batch:
        raise _C.ShapeError(f"{where}: Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                            f"(batch_size={batch})\n  fix: give one length per sequence of the batch")
    if any(n <= 0 for n in lens):
        raise _C.ShapeError(f"{where}: Length of all samples has to be greater than 0, but found an element in "
                            f"'lengths' that is <= 0 ({lens})\n  fix: drop the empty sequences from the batch")
    if max(lens) > steps:
        raise _C.ShapeError(f"{where}: a length of {max(lens)} exceeds the {steps} steps of the padded input "
                            f"{list(input.shape)}\n  fix: lengths count the steps of each sequence, at most {steps}")
    sorted_indices = None
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise _C.InvalidArgumentError(
                f"{where}: `lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                f"pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                f"requirement if you do not need ONNX exportability.\n  lengths: {lens}")
        order = lens
    else:
        sorted_indices = [int(i) for i in np.argsort(-np.asarray(lens), kind="stable")]
        order = [lens[i] for i in sorted_indices]
    data = _pack(input, order, sorted_indices, batch_first)
    return PackedSequence(data, _index_tensor(_batch_sizes_of(order)), _index_tensor(sorted_indices), None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """The inverse of pack_padded_sequence: (padded [T, B, *] ([B, T, *] with batch_first) in the
    original batch order, lengths as an int64 CPU tensor). total_length pads to that many steps
    (at least the longest sequence's)."""
    where = "pad_packed_sequence"
    batch_first = _args.flag(batch_first, "batch_first", where)
    padding_value = _args.real(padding_value, "padding_value", where)
    bs = _int_list(sequence.batch_sizes)
    max_len = len(bs)
    if total_length is not None:
        total_length = _args.integer(total_length, "total_length", where)
        if total_length < max_len:
            raise _C.InvalidArgumentError(
                f"{where}: Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {max_len}\n  fix: total_length={max_len}")
    else:
        total_length = max_len
    attrs = {"batch_sizes": bs, "total_length": total_length, "batch_first": batch_first,
             "padding_value": padding_value}
    sorted_indices = _int_list(sequence.sorted_indices)
    if sorted_indices is not None:
        attrs["sorted_indices"] = sorted_indices
    padded = _op("PadPackedSequence", [sequence.data], attrs)
    batch = bs[0] if bs else 0
    lengths = np.array([sum(1 for b in bs if b > j) for j in range(batch)], dtype=np.int64)
    if sorted_indices is not None:
        original = np.empty_like(lengths)
        original[np.asarray(sorted_indices)] = lengths
        lengths = original
    return padded, tensor(lengths, device="cpu")


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stacks sequences [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padded with
    padding_value at the end (padding_side='right') or the start ('left')."""
    where = "pad_sequence"
    batch_first = _args.flag(batch_first, "batch_first", where)
    padding_value = _args.real(padding_value, "padding_value", where)
    _args.choice(padding_side, "padding_side", where, ("right", "left"))
    sequences = list(sequences)
    if not sequences:
        raise _C.InvalidArgumentError(f"{where}: received an empty list of sequences\n  fix: pass at least one")
    trailing = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise _C.InvalidArgumentError(f"{where}: sequence {i} is a {type(s).__name__}, not a glassgrad.Tensor")
        if s.ndim < 1 or tuple(s.shape[1:]) != trailing:
            raise _C.ShapeError(f"{where}: sequence {i} has shape {list(s.shape)} but sequence 0 has "
                                f"{list(sequences[0].shape)}; they may differ in their first axis only")
    longest = max(s.shape[0] for s in sequences)
    # PyTorch fills a tensor of the first sequence's dtype and copies each sequence into it: the
    # padding value and the other sequences take that dtype (an int64 batch padded with 1 stays int64)
    dtype = sequences[0].dtype
    columns = []
    for s in sequences:
        if s.dtype != dtype:
            s = s.to(dtype)
        missing = longest - s.shape[0]
        if missing:
            fill = full((missing, *trailing), padding_value, dtype=dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        columns.append(s.unsqueeze(0 if batch_first else 1))
    return cat(columns, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of sequences [L_i, *] (sorted by decreasing length unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> List[Tensor]:
    """The list of sequences [L_i, *] of a padded batch (the inverse of pad_sequence)."""
    lens = _int_list(lengths)
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :n] for i, n in enumerate(lens)]


def unpack_sequence(packed_sequences: PackedSequence) -> List[Tensor]:
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def select_batch(states: Optional[Tensor], order) -> Optional[Tensor]:
    """states [K, B, *] with its batch axis (1) in `order` (None: unchanged): the recurrent layers'
    permute_hidden for sorted packed sequences, as one PackSequence op (K steps of B rows)."""
    if states is None or order is None:
        return states
    idx = _int_list(order)
    k, b = states.shape[0], states.shape[1]
    packed = _op("PackSequence", [states], {"batch_sizes": [b] * k, "sorted_indices": idx})
    return packed.reshape(k, b, *states.shape[2:])
