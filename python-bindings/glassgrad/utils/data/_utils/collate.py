"""default_collate and default_convert with torch.utils.data's nesting rules:

    tensors          -> stacked on a new first axis (a tensor), as torch.stack: mixed dtypes
                        promote, and tensors that require grad give a stack in their graph
    NumPy arrays     -> stacked, as a tensor (arrays of strings or objects are refused)
    NumPy scalars    -> a 1-d tensor of their dtype
    float            -> a float64 tensor;  int -> an int64 tensor;  bool -> a bool tensor
                        (as torch.tensor(batch): ints with a float among them make the default float dtype)
    str, bytes       -> the list as it is
    Mapping          -> the same mapping type, each key collated
    namedtuple       -> the same namedtuple, each field collated
    tuple            -> a list, each position collated (as PyTorch does)
    other Sequence   -> the same sequence type, each position collated (every sample of equal length)

Samples come from the data set and are collated as NumPy arrays; only the result becomes
glassgrad tensors (on the CPU; the DataLoader pins them with pin_memory=True). A sample whose
shape differs from the first one's is reported with both shapes and its position in the batch
(the DataLoader adds its index in the data set)."""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Callable, Dict, Optional, Sequence, Tuple, Type, Union

import numpy as np

from .... import _C
from ...._shapes import stack
from ...._tensor import Tensor, tensor
from . import pin_memory as _pin
from .array_tensor import host_array, sample_device_and_dtype, untouched_array

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map", "default_collate_err_msg_format",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn", "collate_float_fn",
           "collate_int_fn", "collate_str_fn"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                                  "found {}")


class CollateShapeError(_C.ShapeError):
    """Samples of one batch whose tensors or arrays differ in shape. `entry` is the position in
    the batch of the first one that differs from entry 0."""

    def __init__(self, message: str, entry: Optional[int] = None):
        super().__init__(message)
        self.entry = entry


def _stack(arrays: Sequence[np.ndarray], what: str) -> np.ndarray:
    _check_equal_shapes(arrays, what)
    return np.stack(arrays)


def _check_equal_shapes(arrays: Sequence, what: str) -> None:
    first = tuple(arrays[0].shape)
    for i, a in enumerate(arrays):
        if tuple(a.shape) != first:
            raise CollateShapeError(
                f"default_collate: stack expects each {what} to be equal size, but got {list(first)} at entry 0 and "
                f"{list(a.shape)} at entry {i}\n"
                f"  cause: the data set returns samples of different shapes (images of different sizes, sequences "
                f"of different lengths)\n"
                f"  fix: resize or crop every sample to one shape in the data set's transform (e.g. "
                f"transforms.Resize((h, w))), or pass DataLoader(collate_fn=...) that pads them", i)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    meta = [sample_device_and_dtype(t) for t in batch]  # read without making the samples' runtime values
    devices = {device for device, _ in meta}
    if len(devices) > 1:
        raise _C.DeviceError(f"default_collate: the samples' tensors are on different devices ({sorted(devices)})\n"
                             f"  fix: return every sample's tensors on one device (the CPU) from the data set")
    if len({dtype for _, dtype in meta}) > 1 or any(untouched_array(t) is None and t.requires_grad for t in batch):
        # torch.stack's result: mixed dtypes promote, and the stack of tensors that require
        # grad is part of their graph (a collate_fn over model outputs).
        _check_equal_shapes(batch, "tensor")
        return stack(batch)
    device = devices.pop()
    stacked = _stack([host_array(t) for t in batch], "tensor")
    return _pin.new_tensor(stacked, device, owned=True)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return _pin.new_tensor(_stack([np.asarray(b) for b in batch], "array"), owned=True)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _pin.new_tensor(np.array(batch), owned=True)


def collate_float_fn(batch, *, collate_fn_map=None):
    return _pin.new_tensor(np.array(batch, dtype=np.float64), owned=True)


def collate_int_fn(batch, *, collate_fn_map=None):
    # torch.tensor(batch): bools alone stay bool, ints (and bools) are int64, and a float among
    # them makes the default float dtype.
    arr = np.array(batch)
    if arr.dtype.kind == "f":
        return tensor(batch)
    return _pin.new_tensor(arr if arr.dtype == np.bool_ else arr.astype(np.int64), owned=True)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: Dict[Union[Type, Tuple[Type, ...]], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map: Optional[Dict[Union[Type, Tuple[Type, ...]], Callable]] = None):
    """Collates `batch` (a list of samples) by the nesting rules above; collate_fn_map maps an
    element type (or tuple of types) to the function that collates a list of them."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        for i, e in enumerate(batch):
            if len(e) != size:
                raise CollateShapeError(f"each element in list of batch should be of equal size: entry 0 has {size} "
                                        f"elements, entry {i} has {len(e)}", i)
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Collates a list of samples into a batch (see the module doc for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Turns NumPy arrays (not of strings or objects) and NumPy scalars into tensors, inside
    mappings, namedtuples and sequences; everything else as it is (tuples become lists). The
    DataLoader's collate_fn when batching is off (batch_size=None)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _pin.new_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


