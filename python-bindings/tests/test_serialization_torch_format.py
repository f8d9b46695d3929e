"""glassgrad.save writes PyTorch's zip format whenever the tree fits it (torch.load(f,
weights_only=True) reads it, checked with the installed torch), glassgrad.load reads its own
files, torch.save's and the earlier glassgrad formats, and the guarantees stay: CRC-checked
bytes, atomic writes, nothing executed on load."""
import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import pytorch_checkpoint, serialization


def _tree():
    rng = np.random.default_rng(0)
    return {
        "model": collections.OrderedDict([("conv.weight", rng.standard_normal((4, 1, 3, 3)).astype(np.float32)),
                                          ("bn.num_batches_tracked", np.array(7, np.int64))]),
        "optimizer": {"state": {0: {"step": np.float32(3.0), "exp_avg": np.zeros((2, 2), np.float64)}},
                      "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0, 1], "amsgrad": False}]},
        "epoch": 12, "best": float("inf"), "note": "ünïcode \x00 key", "none": None, "big": 2 ** 80, "neg": -(2 ** 40),
        "dtypes": [np.arange(3, dtype=d) for d in (np.int8, np.int16, np.int32, np.uint8, np.float16)],
        "flags": np.array([True, False]), "empty": np.zeros((0, 5), np.float32), "": "empty key", 3: "int key",
    }


def _same(a, b, dict_types=True):
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert (type(a) is type(b) and list(a) == list(b)) if dict_types else sorted(map(str, a)) == sorted(map(str, b))
        for k in a:
            _same(a[k], b[k], dict_types)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, dict_types)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b)
    else:
        assert a == b and type(a) is type(b)


def _expected(tree):
    """What load returns: NumPy scalars come back as 0-d arrays."""
    return serialization._plain(tree)


def test_default_format_is_torch_and_round_trips(tmp_path):
    path = tmp_path / "ckpt.pt"
    gg.save(_tree(), path)
    assert zipfile.is_zipfile(path)
    assert "ckpt/data.pkl" in zipfile.ZipFile(path).namelist()
    _same(_expected(_tree()), gg.load(path))


def test_torch_load_weights_only_reads_glassgrad_files(torch, tmp_path):
    path = tmp_path / "ckpt.pt"
    gg.save(_tree(), path)
    back = torch.load(path, weights_only=True)
    want = _expected(_tree())
    assert list(back) == list(want)
    np.testing.assert_array_equal(back["model"]["conv.weight"].numpy(), want["model"]["conv.weight"])
    assert isinstance(back["model"], collections.OrderedDict)
    assert back["model"]["bn.num_batches_tracked"].dtype == torch.int64
    assert back["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999) and back[3] == "int key"
    assert [t.dtype for t in back["dtypes"]] == [torch.int8, torch.int16, torch.int32, torch.uint8, torch.float16]
    assert back["empty"].shape == (0, 5) and back["big"] == 2 ** 80 and back["note"] == want["note"]
    assert torch.load(path, weights_only=True, mmap=True)["model"]["conv.weight"].shape == (4, 1, 3, 3)


def test_a_model_saved_by_glassgrad_loads_into_torch_and_back(torch, tmp_path):
    gg.manual_seed(0)
    layer = gg.nn.Linear(4, 3)
    gg.save(layer.state_dict(), tmp_path / "layer.pt")
    tl = torch.nn.Linear(4, 3)
    tl.load_state_dict(torch.load(tmp_path / "layer.pt", weights_only=True, map_location="cpu"))
    np.testing.assert_array_equal(tl.weight.detach().numpy(), layer.weight.detach().numpy())
    torch.save(tl.state_dict(), tmp_path / "back.pt")
    layer2 = gg.nn.Linear(4, 3)
    layer2.load_state_dict(gg.load(tmp_path / "back.pt"))
    np.testing.assert_array_equal(layer2.bias.detach().numpy(), layer.bias.detach().numpy())


def test_load_reads_torch_save_files(torch, tmp_path):
    torch.save({"w": torch.arange(6.0).view(2, 3).t(), "h": torch.ones(2, dtype=torch.bfloat16), "n": 3},
               tmp_path / "t.pt")
    back = gg.load(tmp_path / "t.pt")
    assert isinstance(back["w"], gg.Tensor) and isinstance(back["h"], gg.Tensor)
    np.testing.assert_array_equal(back["w"].numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3).T)
    assert back["h"].dtype == gg.bfloat16 and back["n"] == 3


def test_file_objects_and_torch_signature(tmp_path):
    buf = io.BytesIO()
    gg.save({"a": np.arange(4)}, buf, pickle_protocol=2)
    buf.seek(0)
    assert gg.load(buf, map_location="cpu", weights_only=True)["a"].tolist() == [0, 1, 2, 3]
    with open(tmp_path / "f.pt", "wb") as f:
        gg.save({"b": 1}, f)
    with open(tmp_path / "f.pt", "rb") as f:
        assert gg.load(f) == {"b": 1}
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        gg.save({}, buf, foo=1)


def test_arrays_torch_cannot_store_fall_back_to_glassgrad_format(tmp_path):
    path = tmp_path / "u.ckpt"
    gg.save({"u": np.arange(3, dtype=np.uint32)}, path)
    assert not (zipfile.is_zipfile(path) and "u/data.pkl" in zipfile.ZipFile(path).namelist())
    assert gg.load(path)["u"].dtype == np.uint32
    with pytest.raises(TypeError, match="format='torch' cannot hold an array of dtype uint32"):
        gg.save({"u": np.arange(3, dtype=np.uint32)}, path, format="torch")


@pytest.mark.parametrize("fmt", ["npz", pytest.param("safetensors", marks=pytest.mark.skipif(
    not serialization._have_safetensors(), reason="safetensors not installed"))])
def test_earlier_formats_still_write_and_load(tmp_path, fmt):
    path = tmp_path / f"old.{fmt}"
    tree = {k: v for k, v in _tree().items() if k not in ("big", "neg", "dtypes")}
    gg.save(tree, path, format=fmt)
    _same(_expected(tree), gg.load(path), dict_types=False)  # these formats keep dicts as dicts


def test_a_changed_byte_in_a_tensor_record_is_caught_by_its_crc(tmp_path):
    path = tmp_path / "c.pt"
    gg.save({"w": np.arange(64, dtype=np.float32)}, path)
    z = zipfile.ZipFile(path)
    info = z.getinfo("c/data/0")
    raw = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start + 17] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(gg.CheckpointError, match="c.pt.*(CRC|damaged)"):
        gg.load(path)


@pytest.mark.parametrize("cut", [10, 200, -30])
def test_truncated_torch_files_raise_checkpoint_errors(tmp_path, cut):
    path = tmp_path / "t.pt"
    gg.save({"w": np.ones((8, 8), np.float32)}, path)
    raw = path.read_bytes()
    path.write_bytes(raw[:cut])
    with pytest.raises(gg.CheckpointError, match="t.pt"):
        gg.load(path)


def test_code_in_a_torch_file_is_refused(tmp_path):
    path = tmp_path / "evil.pt"
    payload = b"\x80\x02cos\nsystem\n(X\x04\x00\x00\x00trueltR."
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("evil/data.pkl", payload)
        z.writestr("evil/version", b"3\n")
    for weights_only in (None, True, False):  # weights_only=False loads models, never functions
        with pytest.raises(gg.CheckpointError, match="os.system.*never runs code"):
            gg.load(path, weights_only=weights_only)


def test_bare_pickle_files_are_named_as_such(tmp_path):
    path = tmp_path / "bare.pt"
    path.write_bytes(pickle.dumps({"step": 1}, protocol=2))
    with pytest.raises(gg.CheckpointError, match="bare pickle"):
        gg.load(path)


def test_a_legacy_checkpoint_cut_after_its_magic_number_is_damaged(tmp_path):
    path = tmp_path / "legacy.pt"  # test_legacy_torch_checkpoint.py reads whole ones
    path.write_bytes(b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19.")
    with pytest.raises(gg.CheckpointError, match="damaged.*EOFError"):
        gg.load(path)


def test_a_failed_torch_format_save_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "keep.pt"
    gg.save({"step": 1}, path)

    def crash(f, tree, archive, depth):
        f.write(b"PK\x03\x04 half a zip")
        raise OSError("disk full")
    monkeypatch.setattr(serialization, "write_torch_zip", crash)
    with pytest.raises(OSError, match="disk full"):
        gg.save({"step": 2}, path)
    assert gg.load(path) == {"step": 1}
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []


def test_records_are_aligned_like_torch_save(tmp_path):
    path = tmp_path / "a.pt"
    gg.save({"a": np.ones(3, np.float32), "b": np.zeros(5, np.int64)}, path)
    raw = path.read_bytes()
    for info in zipfile.ZipFile(path).infolist():
        name_len = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], "little")
        extra_len = int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
        assert info.compress_type == zipfile.ZIP_STORED


def test_hand_written_pickle_is_what_pickle_reads():
    data, storages, numpy_keys = pytorch_checkpoint.torch_pickle({"x": [1, (2.5, None)], 7: "s"})
    assert storages == [] and numpy_keys == []
    import pickle
    assert pickle.loads(data) == {"x": [1, (2.5, None)], 7: "s"}


def _shared_tree():
    t = gg.arange(6.0)
    return t, {"a": t, "b": t, "nested": [t, (t, {"c": t})], "other": gg.arange(6.0)}


def test_a_tensor_saved_twice_loads_as_one_tensor_written_once():
    # torch.save's pickle memo: a tensor the tree holds twice is one tensor after torch.load
    # (torch.save docs, "Saving and loading tensors preserves views"); equal values are not enough
    _, tree = _shared_tree()
    buf = io.BytesIO()
    gg.save(tree, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        storages = [n for n in z.namelist() if "/data/" in n and not n.endswith(".pkl")]
    assert len(storages) == 2  # t once, "other" once
    buf.seek(0)
    back = gg.load(buf)
    a = back["a"]
    assert back["b"] is a and back["nested"][0] is a and back["nested"][1][0] is a and back["nested"][1][1]["c"] is a
    assert back["other"] is not a and back["other"].tolist() == a.tolist() == list(range(6))


def test_many_shared_tensors_use_the_long_memo_slots():
    ts = [gg.full((2,), float(i)) for i in range(300)]  # slots past 255: LONG_BINPUT / LONG_BINGET
    buf = io.BytesIO()
    gg.save({"first": ts, "again": ts[::-1]}, buf)
    buf.seek(0)
    back = gg.load(buf)
    assert all(x is y for x, y in zip(back["first"], back["again"][::-1]))
    assert [float(x[0]) for x in back["first"]] == [float(i) for i in range(300)]


def test_torch_load_sees_the_shared_tensor_as_one():
    torch = pytest.importorskip("torch")
    _, tree = _shared_tree()
    buf = io.BytesIO()
    gg.save(tree, buf)
    buf.seek(0)
    back = torch.load(buf, weights_only=True)
    assert back["b"] is back["a"] and back["nested"][1][1]["c"] is back["a"] and back["other"] is not back["a"]


def test_a_tensor_that_requires_grad_loads_requiring_grad_as_torchs():
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, gg):
        x = lib.ones(3, requires_grad=True)
        tree = {"leaf": x, "computed": x * 2, "view": x[:2], "plain": lib.ones(2)}
        buf = io.BytesIO()
        lib.save(tree, buf)
        for reader in (torch, gg):
            buf.seek(0)
            back = reader.load(buf)
            seen.append({k: (v.requires_grad, v.is_leaf, v.grad_fn is None, v.tolist()) for k, v in back.items()})
    assert all(s == seen[0] for s in seen)
    assert seen[0]["leaf"][:3] == seen[0]["computed"][:3] == (True, True, True)


def test_mmap_needs_a_path_as_torchs(tmp_path):
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        buf = io.BytesIO()
        lib.save({"w": lib.ones(2)}, buf)
        buf.seek(0)
        with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
            lib.load(buf, mmap=True)
        lib.save({"w": lib.ones(2)}, tmp_path / "w.pt")
        assert lib.load(tmp_path / "w.pt", mmap=True)["w"].tolist() == [1.0, 1.0]
