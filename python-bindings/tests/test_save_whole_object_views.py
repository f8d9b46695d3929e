"""glassgrad.save of a whole object (a model, a tuple-keyed dict, a set) writes tensors that share
one memory as views of one storage record, as torch.save does and as glassgrad.save does for a
tree of tensors, so after glassgrad.load a write through one is seen through the others; a
Parameter that such views lie on stays a Parameter, the views over its memory."""
import io
import zipfile

import numpy as np
import pytest

import glassgrad as gg


class Holder(gg.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = gg.nn.Linear(3, 2)
        self.extra = []


def _round_trip(obj):
    f = io.BytesIO()
    gg.save(obj, f)
    f.seek(0)
    return gg.load(f, weights_only=False), f.getvalue()


def _storage_records(raw: bytes):
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        return [n for n in z.namelist() if "/data/" in n]


def test_a_models_attribute_views_share_after_load():
    m = Holder()
    t = gg.arange(6.0)
    m.extra = [t, t[1:3], t[::2]]
    loaded, _ = _round_trip(m)
    with gg.no_grad():
        loaded.extra[0][2] = 100.0
    assert loaded.extra[1].tolist() == [1.0, 100.0] and loaded.extra[2].tolist() == [0.0, 100.0, 4.0]


def test_one_storage_record_for_views_of_one_memory():
    t, other = gg.arange(6.0), gg.ones(2)
    loaded, raw = _round_trip({(0, 1): t, "view": t[2:5], "set": {other}})
    assert len(_storage_records(raw)) == 2  # t's memory once, other's once
    np.testing.assert_array_equal(loaded["view"].numpy(), [2.0, 3.0, 4.0])
    with gg.no_grad():
        loaded["view"][0] = -1.0
    assert loaded[(0, 1)].tolist() == [0.0, 1.0, -1.0, 3.0, 4.0, 5.0]


def test_tensors_of_their_own_memory_stay_apart():
    a, b = gg.zeros(2), gg.zeros(2)
    loaded, raw = _round_trip({(0,): a, (1,): b})
    assert len(_storage_records(raw)) == 2
    with gg.no_grad():
        loaded[(0,)][0] = 1.0
    assert loaded[(1,)].tolist() == [0.0, 0.0]


def test_views_of_a_parameter_follow_its_updates():
    m = Holder()
    m.extra = [m.lin.weight[0].detach()]
    loaded, _ = _round_trip(m)
    w, row = loaded.lin.weight, loaded.extra[0]
    assert isinstance(w, gg.nn.Parameter) and w.is_leaf and w.requires_grad and not row.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), m.lin.weight.detach().numpy())
    loaded.lin(gg.ones(1, 3)).sum().backward()
    gg.optim.SGD(loaded.parameters(), lr=1.0).step()
    np.testing.assert_allclose(row.numpy(), m.lin.weight[0].detach().numpy() - 1.0, rtol=1e-6)


def test_a_parameter_met_after_its_view_shares_its_memory():
    lin = gg.nn.Linear(3, 2)
    loaded, _ = _round_trip({(0,): lin.weight[1].detach(), (1,): lin})  # the view is pickled first
    w = loaded[(1,)].weight
    assert isinstance(w, gg.nn.Parameter) and w.is_leaf and w.requires_grad
    with gg.no_grad():
        w.mul_(0.0)
    assert loaded[(0,)].tolist() == [0.0, 0.0, 0.0]
    (w * 2.0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 2.0, np.float32))


def test_torch_reads_the_views_as_views():
    torch = pytest.importorskip("torch")
    t = gg.arange(6.0)
    _, raw = _round_trip({(0,): t, "view": t[1:4]})
    theirs = torch.load(io.BytesIO(raw), weights_only=False)
    theirs[(0,)][2] = 100.0
    assert theirs["view"].tolist() == [1.0, 100.0, 3.0]
