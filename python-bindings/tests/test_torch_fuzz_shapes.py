"""Shape ops against PyTorch (tests/torch_fuzz.py): reshape/view and their errors, expand, repeat,
tile, flip, roll, narrow, unbind, chunk/split sizes, squeeze with a dim tuple, movedim, permute
errors, unfold, tril/triu offsets, and stack/cat dtype promotion, on random, empty and 0-d inputs."""
import itertools

import numpy as np
import pytest

from torch_fuzz import DTYPES, array, same

CALLS = {
    "reshape(-1, 4)": lambda lib, t: t.reshape(-1, 4), "reshape(5, -1)": lambda lib, t: t.reshape(5, -1),
    "reshape(-1, -1)": lambda lib, t: t.reshape(-1, -1), "reshape((4, 6))": lambda lib, t: t.reshape((4, 6)),
    "view(6, 4)": lambda lib, t: t.view(6, 4), "transpose then view": lambda lib, t: t.transpose(0, 2).view(-1),
    "expand": lambda lib, t: t[:, :1].expand(2, 5, 4), "expand(3, -1, -1, -1)": lambda lib, t: t.expand(3, -1, -1, -1),
    "expand(2, 3, 5)": lambda lib, t: t.expand(2, 3, 5), "expand(3, 4)": lambda lib, t: t.expand(3, 4),
    "expand(-1, 2, 3, 4)": lambda lib, t: t.expand(-1, 2, 3, 4), "expand_as": lambda lib, t: t[:1].expand_as(t),
    "repeat(2, 1, 1)": lambda lib, t: t.repeat(2, 1, 1), "repeat(2, 1, 1, 2)": lambda lib, t: t.repeat(2, 1, 1, 2),
    "repeat(2, 2)": lambda lib, t: t.repeat(2, 2), "repeat(0, 1, 1)": lambda lib, t: t.repeat(0, 1, 1),
    "tile((2,))": lambda lib, t: t.tile((2,)), "tile((2, 1, 1, 1))": lambda lib, t: t.tile((2, 1, 1, 1)),
    "flip(0, 2)": lambda lib, t: t.flip(0, 2), "flip((0, 2))": lambda lib, t: t.flip((0, 2)),
    "flip(dims=[-1])": lambda lib, t: t.flip(dims=[-1]), "flip(0, 0)": lambda lib, t: t.flip(0, 0),
    "torch.flip(t, [1])": lambda lib, t: lib.flip(t, [1]), "fliplr": lambda lib, t: lib.fliplr(t),
    "roll(1)": lambda lib, t: t.roll(1), "roll(-5, 2)": lambda lib, t: t.roll(-5, 2),
    "roll((1, 2), (0, 2))": lambda lib, t: t.roll((1, 2), (0, 2)), "roll((1, 2), 0)": lambda lib, t: t.roll((1, 2), 0),
    "narrow(2, 1, 2)": lambda lib, t: t.narrow(2, 1, 2), "narrow(-1, -2, 2)": lambda lib, t: t.narrow(-1, -2, 2),
    "narrow(0, 1, 2)": lambda lib, t: t.narrow(0, 1, 2), "unbind(1)": lambda lib, t: t.unbind(1),
    "unbind(-1)": lambda lib, t: lib.unbind(t, -1), "chunk(3, 2)": lambda lib, t: t.chunk(3, 2),
    "chunk(5, 1)": lambda lib, t: t.chunk(5, 1), "chunk(10, 2)": lambda lib, t: t.chunk(10, 2),
    "chunk(0, 2)": lambda lib, t: t.chunk(0, 2), "split(3, 2)": lambda lib, t: t.split(3, 2),
    "split([1, 3], 2)": lambda lib, t: t.split([1, 3], 2), "split([1, 2], 2)": lambda lib, t: t.split([1, 2], 2),
    "split([0, 4], 2)": lambda lib, t: t.split([0, 4], 2), "split(10, 2)": lambda lib, t: t.split(10, 2),
    "tensor_split(3, 2)": lambda lib, t: lib.tensor_split(t, 3, 2), "tensor_split((1, 3), 2)": lambda lib, t: lib.tensor_split(t, (1, 3), 2),
    "squeeze((1, 2))": lambda lib, t: t[:, :1, :1].squeeze((1, 2)), "squeeze((0, 1))": lambda lib, t: t[:, :1].squeeze((0, 1)),
    "squeeze()": lambda lib, t: t[:1].squeeze(), "squeeze(-1)": lambda lib, t: t[:, :, :1].squeeze(-1),
    "unsqueeze(3)": lambda lib, t: t.unsqueeze(3), "unsqueeze(4)": lambda lib, t: t.unsqueeze(4), "unsqueeze(-4)": lambda lib, t: t.unsqueeze(-4),
    "movedim(0, -1)": lambda lib, t: t.movedim(0, -1), "movedim((0, 1), (2, 0))": lambda lib, t: lib.movedim(t, (0, 1), (2, 0)),
    "movedim((0, 0), (1, 2))": lambda lib, t: t.movedim((0, 0), (1, 2)), "permute(2, 0, 1)": lambda lib, t: t.permute(2, 0, 1),
    "permute(-1, 0, 1)": lambda lib, t: t.permute(-1, 0, 1), "permute(0, 0, 1)": lambda lib, t: t.permute(0, 0, 1),
    "permute(0, 1)": lambda lib, t: t.permute(0, 1), "transpose(-1, 0)": lambda lib, t: t.transpose(-1, 0), "mT": lambda lib, t: t.mT,
    "unfold(2, 2, 1)": lambda lib, t: t.unfold(2, 2, 1), "unfold(2, 3, 2)": lambda lib, t: t.unfold(2, 3, 2),
    "unfold(2, 5, 1)": lambda lib, t: t.unfold(2, 5, 1), "flatten(1)": lambda lib, t: t.flatten(1),
    "flatten(2, 1)": lambda lib, t: t.flatten(2, 1), "unflatten(2, (2, -1))": lambda lib, t: t.unflatten(2, (2, -1)),
    "tril(-1)": lambda lib, t: t.tril(-1), "triu(2)": lambda lib, t: t.triu(2), "tril(10)": lambda lib, t: t.tril(10),
    "triu(-5)": lambda lib, t: lib.triu(t, -5), "diagonal(1, 1, 2)": lambda lib, t: t.diagonal(1, 1, 2),
    "broadcast_to": lambda lib, t: lib.broadcast_to(t, (3, 2, 3, 4)), "rot90": lambda lib, t: lib.rot90(t, -3, (0, 2)),
}
EMPTY = {
    "reshape(-1, 0)": lambda lib, t: t.reshape(-1, 0), "reshape(3, -1)": lambda lib, t: t.reshape(3, -1),
    "flip(0)": lambda lib, t: t.flip(0), "roll(1, 1)": lambda lib, t: t.roll(1, 1), "chunk(2, 0)": lambda lib, t: t.chunk(2, 0),
    "split(2, 1)": lambda lib, t: t.split(2, 1), "unbind(0)": lambda lib, t: t.unbind(0), "repeat(2, 2)": lambda lib, t: t.repeat(2, 2),
    "expand(2, 0, 3)": lambda lib, t: t.expand(2, 0, 3), "cat": lambda lib, t: lib.cat([t, t]), "stack(dim=2)": lambda lib, t: lib.stack([t, t], 2),
    "squeeze(0)": lambda lib, t: t.squeeze(0), "movedim(0, 1)": lambda lib, t: t.movedim(0, 1), "unfold(1, 2, 1)": lambda lib, t: t.unfold(1, 2, 1),
    "narrow(1, 3, 0)": lambda lib, t: t.narrow(1, 3, 0),
}
SCALAR = {
    "reshape(1, 1)": lambda lib, t: t.reshape(1, 1), "flip(0)": lambda lib, t: t.flip(0), "roll(1)": lambda lib, t: t.roll(1),
    "roll(1, 0)": lambda lib, t: t.roll(1, 0), "expand(3)": lambda lib, t: t.expand(3), "repeat(2)": lambda lib, t: t.repeat(2),
    "unsqueeze(-1)": lambda lib, t: t.unsqueeze(-1), "squeeze(0)": lambda lib, t: t.squeeze(0), "squeeze(1)": lambda lib, t: t.squeeze(1),
    "movedim(0, 0)": lambda lib, t: t.movedim(0, 0), "movedim(0, 1)": lambda lib, t: t.movedim(0, 1), "T": lambda lib, t: t.T,
    "flatten": lambda lib, t: t.flatten(), "chunk(1)": lambda lib, t: t.chunk(1), "narrow(0, 0, 1)": lambda lib, t: t.narrow(0, 0, 1),
    "transpose(0, -1)": lambda lib, t: t.transpose(0, -1), "transpose(0, 1)": lambda lib, t: t.transpose(0, 1),
    "unfold(0, 1, 1)": lambda lib, t: t.unfold(0, 1, 1), "unfold(0, 0, 1)": lambda lib, t: t.unfold(0, 0, 1),
    "unfold(0, 2, 1)": lambda lib, t: t.unfold(0, 2, 1), "tile((2, 2))": lambda lib, t: t.tile((2, 2)), "view(-1)": lambda lib, t: t.view(-1),
    "stack": lambda lib, t: lib.stack([t, t]), "cat": lambda lib, t: lib.cat([t, t]),
}


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_shape_ops_as_torch(dtype):
    x = array(np.random.default_rng(DTYPES.index(dtype)), dtype, (2, 3, 4))
    for where, fn in CALLS.items():
        same(fn, x, where=f"{where} of {dtype}")
    for where, fn in EMPTY.items():
        same(fn, np.zeros((0, 3), dtype), where=f"{where} of an empty {dtype}")
    for where, fn in SCALAR.items():
        same(fn, np.array(1, dtype), where=f"{where} of a 0-d {dtype}")


def test_stack_and_cat_promote_as_torch():
    rng = np.random.default_rng(7)
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        a, b = array(rng, d1, (2, 3)), array(rng, d2, (2, 3))
        same(lambda lib, x, y: lib.cat([x, y], 1), a, b, where=f"cat {d1} {d2}")
        same(lambda lib, x, y: lib.stack([x, y], -1), a, b, where=f"stack {d1} {d2}")
        same(lambda lib, x, y: lib.cat([x, y[:0, :0].reshape(0)]), a, b, where=f"cat with a legacy empty {d2}")
        same(lambda lib, x, y: lib.hstack([x, y]), a, b, where=f"hstack {d1} {d2}")


ARGUMENTS = {
    "roll(7, 2)": lambda lib, t: t.roll(7, 2), "roll(-9, -1)": lambda lib, t: t.roll(-9, -1),
    "roll((1, -1), (-1, -3))": lambda lib, t: t.roll((1, -1), (-1, -3)), "roll((), ())": lambda lib, t: t.roll((), ()),
    "narrow(2, 4, 0)": lambda lib, t: t.narrow(2, 4, 0), "narrow(2, 5, 0)": lambda lib, t: t.narrow(2, 5, 0),
    "narrow(2, 0, -1)": lambda lib, t: t.narrow(2, 0, -1), "narrow(2, -4, 4)": lambda lib, t: t.narrow(2, -4, 4),
    "narrow(2, -5, 1)": lambda lib, t: t.narrow(2, -5, 1), "chunk(-1)": lambda lib, t: t.chunk(-1),
    "split(0, 2)": lambda lib, t: t.split(0, 2), "split(-1, 2)": lambda lib, t: t.split(-1, 2),
    "split((1, 1, 2), -1)": lambda lib, t: t.split((1, 1, 2), -1), "movedim((0, 1), (2, 2))": lambda lib, t: t.movedim((0, 1), (2, 2)),
    "movedim((0, 1), (2,))": lambda lib, t: t.movedim((0, 1), (2,)), "movedim(3, 0)": lambda lib, t: t.movedim(3, 0),
    "unfold(2, 2, 0)": lambda lib, t: t.unfold(2, 2, 0), "unfold(2, 0, 1)": lambda lib, t: t.unfold(2, 0, 1),
    "unfold(2, -1, 1)": lambda lib, t: t.unfold(2, -1, 1), "repeat(1, -1, 1)": lambda lib, t: t.repeat(1, -1, 1),
    "expand(2, 0, 4)": lambda lib, t: t[:, :1].expand(2, 0, 4), "expand(-1, -1, 4)": lambda lib, t: t[:, :1].expand(-1, -1, 4),
    "expand(2, 3, -2)": lambda lib, t: t.expand(2, 3, -2), "squeeze((0, 5))": lambda lib, t: t.squeeze((0, 5)),
    "squeeze(1)": lambda lib, t: t.squeeze(1), "squeeze([0, 0])": lambda lib, t: t[:1].squeeze([0, 0]),
    "unbind of 0-d": lambda lib, t: t.sum().unbind(0), "flip([])": lambda lib, t: t.flip([]),
    "view(-1, 5)": lambda lib, t: t.view(-1, 5), "reshape(-3, 8)": lambda lib, t: t.reshape(-3, 8),
    "permute(0, 1, 3)": lambda lib, t: t.permute(0, 1, 3), "transpose(1, 1)": lambda lib, t: t.transpose(1, 1),
    "tile((-1,))": lambda lib, t: t.tile((-1,)), "tril of 0-d": lambda lib, t: t.sum().tril(),
    "diagonal(5)": lambda lib, t: t.diagonal(5), "diagonal(0, 1, 1)": lambda lib, t: t.diagonal(0, 1, 1),
    "gather with fewer dims": lambda lib, t: t.gather(0, lib.tensor([[0]])),
    "index_select 2-d index": lambda lib, t: t.index_select(0, lib.tensor([[0]])),
    "index_select float index": lambda lib, t: t.index_select(0, lib.tensor([0.0])),
    "scatter src too small": lambda lib, t: t.scatter(0, lib.zeros(1, 3, 4, dtype=lib.int64), lib.ones(1, 2, 4)),
    "scatter src of another dtype": lambda lib, t: t.scatter(0, lib.zeros(1, 3, 4, dtype=lib.int64), lib.ones(1, 3, 4)),
    "masked_fill larger mask": lambda lib, t: t.masked_fill(lib.ones(3, 3, 4, dtype=lib.bool), 0),
    "masked_fill 1-d value": lambda lib, t: t.masked_fill(lib.tensor(True), lib.tensor([2.5])),
    "cat dim 3": lambda lib, t: lib.cat([t, t], 3), "cat mismatch": lambda lib, t: lib.cat([t, t[:, :2]], 0),
    "cat of 0-d": lambda lib, t: lib.cat([t.sum(), t.sum()]), "stack mismatch": lambda lib, t: lib.stack([t, t[:1]]),
    "stack(-4)": lambda lib, t: lib.stack([t, t], -4), "stack(4)": lambda lib, t: lib.stack([t, t], 4),
    "cat([])": lambda lib, t: lib.cat([]), "stack([])": lambda lib, t: lib.stack([]),
    "linspace(0, 1, tensor(3))": lambda lib, t: lib.linspace(0, 1, lib.tensor(3)),
    "linspace(dtype=bool)": lambda lib, t: lib.linspace(0, 1, 3, dtype=lib.bool),
    "eye(2, -1)": lambda lib, t: lib.eye(2, -1), "tril_indices(3, 3, 5)": lambda lib, t: lib.tril_indices(3, 3, 5),
    "triu_indices(3, 3, -5)": lambda lib, t: lib.triu_indices(3, 3, -5),
}


def test_argument_edges_and_errors_as_torch():
    x = np.arange(24.0).reshape(2, 3, 4)
    for where, fn in ARGUMENTS.items():
        same(fn, x, where=where)


SCALAR_OPS = {
    "nonzero": lambda lib, t: t.nonzero(), "nonzero(as_tuple=True)": lambda lib, t: t.nonzero(as_tuple=True),
    "where(t != 0)": lambda lib, t: lib.where(t != 0), "argwhere": lambda lib, t: lib.argwhere(t),
    "masked_select": lambda lib, t: t.masked_select(t != 0), "t[t > 0]": lambda lib, t: t[t > 0], "t[()]": lambda lib, t: t[()],
    "t[True]": lambda lib, t: t[True], "t[False]": lambda lib, t: t[False], "sort": lambda lib, t: t.sort(),
    "topk(0)": lambda lib, t: t.topk(0), "unique": lambda lib, t: t.unique(), "expand(2, 2)": lambda lib, t: t.expand(2, 2),
    "gather": lambda lib, t: t.gather(0, lib.tensor(0)), "scatter": lambda lib, t: t.scatter(0, lib.tensor(0), t),
    "take": lambda lib, t: t.take(lib.tensor([0, 0])), "outer": lambda lib, t: lib.outer(t, t), "t @ t": lambda lib, t: t @ t,
    "max(0)": lambda lib, t: t.max(0), "median(0)": lambda lib, t: t.median(0), "prod(0)": lambda lib, t: t.prod(0),
    "chunk(2)": lambda lib, t: t.chunk(2), "split(1)": lambda lib, t: t.split(1), "len": lambda lib, t: len(t),
    "bincount": lambda lib, t: lib.bincount(t), "searchsorted": lambda lib, t: lib.searchsorted(t[None], t),
}


@pytest.mark.parametrize("value", [2.5, 0.0, 3, True, np.uint8(0)], ids=repr)
def test_zero_dim_inputs_as_torch(value):
    for where, fn in SCALAR_OPS.items():
        same(fn, np.array(value), where=f"{where} of 0-d {value!r}")
