"""Views of one memory in a checkpoint, as torch.save and torch.load keep them (torch.save docs,
"Saving and loading tensors preserves views"): glassgrad.save writes the tensors of a tree that
lie on one buffer as one storage record with each tensor's offset and strides over it, and
glassgrad.load gives tensors on one storage record back as views of one memory, so a write
through one is seen through the others; torch.load reads glassgrad's files so, and glassgrad.load
reads torch.save's so."""
import io
import zipfile

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import pytorch_checkpoint
from glassgrad._storage_views import StorageSpan


def _saved(tree) -> bytes:
    buf = io.BytesIO()
    gg.save(tree, buf)
    return buf.getvalue()


def _storage_records(raw: bytes):
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        return sorted(n for n in z.namelist() if "/data/" in n and not n.endswith(".pkl"))


def _views():
    t = gg.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    return {"a": t, "b": t[1:], "c": t.t(), "col": t[:, 1], "s": t[2, 3], "other": gg.ones(2)}


def test_views_are_written_as_one_storage_with_their_layouts():
    raw = _saved(_views())
    assert len(_storage_records(raw)) == 2  # t's buffer once, "other" once
    back = gg.load(io.BytesIO(raw))
    expected = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for name, values, stride, offset in (("a", expected, (4, 1), 0), ("b", expected[1:], (4, 1), 4),
                                         ("c", expected.T, (1, 4), 0), ("col", expected[:, 1], (4,), 1),
                                         ("s", expected[2, 3], (), 11)):
        np.testing.assert_array_equal(back[name].numpy(), values, err_msg=name)
        assert back[name].stride() == stride and back[name].storage_offset() == offset, name


def test_loaded_views_share_their_memory():
    back = gg.load(io.BytesIO(_saved(_views())))
    with gg.no_grad():
        back["a"][1, 1] = 100.0
        back["col"][2] = -9.0  # element (2, 1)
    assert back["b"][0, 1].item() == back["c"][1, 1].item() == back["col"][1].item() == 100.0
    assert back["a"][2, 1].item() == back["b"][1, 1].item() == -9.0
    assert back["other"].tolist() == [1.0, 1.0]


def test_views_that_do_not_start_the_buffer_share_a_span_of_it():
    t = gg.tensor(np.arange(10.0, dtype=np.float32))
    raw = _saved({"mid": t[3:6], "step": t[4:9:2]})  # elements 3..8 are written, not the whole buffer
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        (record,) = _storage_records(raw)
        assert len(z.read(record)) == 6 * 4
    back = gg.load(io.BytesIO(raw))
    assert back["mid"].tolist() == [3.0, 4.0, 5.0] and back["step"].tolist() == [4.0, 6.0, 8.0]
    with gg.no_grad():
        back["step"][0] = -1.0
    assert back["mid"].tolist() == [3.0, -1.0, 5.0]


def test_a_lone_view_is_written_as_its_own_elements():
    t = gg.tensor(np.arange(1000.0, dtype=np.float32))
    raw = _saved({"v": t[10:12]})
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        (record,) = _storage_records(raw)
        assert len(z.read(record)) == 2 * 4
    assert gg.load(io.BytesIO(raw))["v"].tolist() == [10.0, 11.0]


def test_bfloat16_views_keep_their_dtype_and_share():
    t = gg.tensor([0.5, 1.5, 2.5, 3.5]).bfloat16()
    back = gg.load(io.BytesIO(_saved({"t": t, "tail": t[2:]})))
    assert back["tail"].dtype == gg.bfloat16 and back["tail"].float().tolist() == [2.5, 3.5]
    with gg.no_grad():
        back["t"][3] = 8.0
    assert back["tail"].float().tolist() == [2.5, 8.0]


def test_tensors_of_one_buffer_read_as_other_dtypes_are_written_apart():
    t = gg.tensor(np.arange(4, dtype=np.int32))
    back = gg.load(io.BytesIO(_saved({"t": t, "f": t.view(gg.float32)})))
    assert back["t"].tolist() == [0, 1, 2, 3] and back["f"].dtype == gg.float32
    np.testing.assert_array_equal(back["f"].numpy().view(np.int32), np.arange(4, dtype=np.int32))


def test_a_view_outside_its_storage_is_refused():
    saved = pytorch_checkpoint.SavedTensor(np.zeros(2, np.float32), "cpu")
    saved.view = (StorageSpan(np.arange(3, dtype=np.float32)), 5, (1,))  # elements 5 and 6 of 3
    buf = io.BytesIO()
    pytorch_checkpoint.write_torch_zip(buf, {"v": saved})
    buf.seek(0)
    with pytest.raises(gg.CheckpointError, match="reaches element 6 of a storage of 3 elements"):
        gg.load(buf)


def test_torch_load_reads_the_views_as_views(tmp_path):
    torch = pytest.importorskip("torch")
    gg.save(_views(), tmp_path / "v.pt")
    back = torch.load(tmp_path / "v.pt", weights_only=True)
    assert len({back[k].untyped_storage().data_ptr() for k in ("a", "b", "c", "col", "s")}) == 1
    assert back["b"].storage_offset() == 4 and back["c"].stride() == (1, 4)
    back["a"][1, 1] = 100.0
    assert back["b"][0, 1].item() == back["c"][1, 1].item() == 100.0


def test_load_reads_torch_save_views_as_views(tmp_path):
    torch = pytest.importorskip("torch")
    x = torch.arange(10.0)
    torch.save({"v": x[2:5], "w": x[::3], "x": x, "m": x.view(2, 5).t()}, tmp_path / "t.pt")
    back = gg.load(tmp_path / "t.pt")
    assert back["v"].tolist() == [2.0, 3.0, 4.0] and back["w"].tolist() == [0.0, 3.0, 6.0, 9.0]
    assert back["m"].stride() == (1, 5) and back["m"].tolist() == x.view(2, 5).t().tolist()
    with gg.no_grad():
        back["x"][3] = -1.0
        back["w"][0] = -7.0
    assert back["v"].tolist() == [2.0, -1.0, 4.0] and back["x"][0].item() == -7.0
    assert back["m"][0, 0].item() == -7.0 and back["m"][3, 0].item() == -1.0


def _strided(lib):
    t = lib.arange(12.0).reshape(3, 4).t()                                          # strides (1, 4)
    c = lib.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)  # (60, 1, 15, 3)
    return {"t": t, "c": c, "p": lib.nn.Parameter(lib.arange(6.0).reshape(2, 3).t())}


def _through(lib, how, tree):
    import copy
    import pickle
    if how == "deepcopy":
        return copy.deepcopy(tree)
    if how == "pickle":
        return pickle.loads(pickle.dumps(tree))
    buf = io.BytesIO()
    lib.save(tree, buf)
    buf.seek(0)
    return lib.load(buf, weights_only=False) if how == "save" else lib.load(buf)


@pytest.mark.parametrize("how", ["save", "deepcopy", "pickle"])
def test_a_lone_tensor_dense_in_another_order_keeps_its_strides(how):
    tree = _strided(gg)
    back = _through(gg, how, tree)
    for k, t in tree.items():
        assert back[k].stride() == t.stride() and back[k].tolist() == t.tolist(), k
        assert type(back[k]) is type(t) and back[k].requires_grad == t.requires_grad
    assert back["p"].is_leaf and back["p"].requires_grad
    with gg.no_grad():
        back["t"][0, 1] = -5.0
    assert tree["t"][0, 1].item() == 4.0  # a copy of its own
    torch = pytest.importorskip("torch")
    theirs = _through(torch, how, _strided(torch))
    assert {k: back[k].stride() for k in back} == {k: theirs[k].stride() for k in theirs}


def test_torch_load_reads_a_lone_transposed_tensor_with_its_strides(tmp_path):
    torch = pytest.importorskip("torch")
    gg.save({k: v.detach() for k, v in _strided(gg).items()}, tmp_path / "s.pt")
    back = torch.load(tmp_path / "s.pt", weights_only=True)
    mine = _strided(torch)
    for k, t in mine.items():
        assert back[k].stride() == t.stride() and torch.equal(back[k], t.detach()), k
