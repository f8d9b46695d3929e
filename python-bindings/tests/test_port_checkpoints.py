"""Checkpoints interchange with PyTorch: a PyTorch state_dict (as NumPy arrays) loads strictly into
the same glassgrad model and gives the same logits, glassgrad's loads into PyTorch, and
glassgrad.load_pytorch reads torch.save files without importing torch (and refuses anything but
tensors and plain containers)."""
import io
import pickle
import struct
import zipfile

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn


def _glassgrad_net():
    class Net(gg.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding="same", bias=False), nn.BatchNorm2d(8), nn.ReLU())
            self.blocks = nn.ModuleList([nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Conv2d(8, 16, 1)])
            self.pool = nn.MaxPool2d(2, ceil_mode=True)
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 12), nn.BatchNorm1d(12),
                                      nn.GELU(), nn.Dropout(0.2), nn.Linear(12, 10))

        def forward(self, x):
            x = self.stem(x)
            for b in self.blocks:
                x = nn.functional.relu(b(x))
            return self.head(self.pool(x))
    return Net()


def _torch_net(torch):
    tnn = torch.nn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.stem = tnn.Sequential(tnn.Conv2d(3, 8, 3, padding="same", bias=False), tnn.BatchNorm2d(8), tnn.ReLU())
            self.blocks = tnn.ModuleList([tnn.Conv2d(8, 8, 3, padding=1, groups=8), tnn.Conv2d(8, 16, 1)])
            self.pool = tnn.MaxPool2d(2, ceil_mode=True)
            self.head = tnn.Sequential(tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Linear(16, 12),
                                       tnn.BatchNorm1d(12), tnn.GELU(), tnn.Dropout(0.2), tnn.Linear(12, 10))

        def forward(self, x):
            x = self.stem(x)
            for b in self.blocks:
                x = torch.nn.functional.relu(b(x))
            return self.head(self.pool(x))
    return Net()


X = np.random.default_rng(0).standard_normal((6, 3, 9, 9)).astype(np.float32)
Y = np.random.default_rng(1).integers(0, 10, 6)


def _train_torch(torch, net, steps=3):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(torch.tensor(X)), torch.tensor(Y)).backward()
        opt.step()
    return opt


def test_a_pytorch_state_dict_loads_strictly_and_gives_the_same_logits(torch):
    torch.manual_seed(0)
    t = _torch_net(torch)
    _train_torch(torch, t)  # running statistics and num_batches_tracked move
    sd = {k: v.numpy() for k, v in t.state_dict().items()}
    g = _glassgrad_net()
    assert list(g.state_dict()) == list(sd)
    result = g.load_state_dict(sd)  # strict
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert int(g.head[3].num_batches_tracked.numpy()) == 3
    t.eval()
    g.eval()
    with torch.no_grad():
        want = t(torch.tensor(X)).numpy()
    np.testing.assert_allclose(g(gg.tensor(X)).detach().numpy(), want, rtol=1e-4, atol=1e-5)


def test_glassgrad_s_state_dict_loads_strictly_into_pytorch(torch):
    gg.manual_seed(0)
    g = _glassgrad_net()
    opt = gg.SGD(g.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        gg.cross_entropy(g(gg.tensor(X)), gg.tensor(Y)).backward()
        opt.step()
        opt.zero_grad()
    t = _torch_net(torch)
    t.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in g.state_dict().items()}, strict=True)
    g.eval()
    t.eval()
    with torch.no_grad():
        want = t(torch.tensor(X)).numpy()
    np.testing.assert_allclose(g(gg.tensor(X)).detach().numpy(), want, rtol=1e-4, atol=1e-5)


def test_load_pytorch_reads_a_torch_save_file(torch, tmp_path):
    torch.manual_seed(0)
    t = _torch_net(torch)
    opt = _train_torch(torch, t)
    path = tmp_path / "ckpt.pt"
    half = torch.arange(6, dtype=torch.float16).reshape(2, 3).t()  # a non-contiguous view
    torch.save({"model": t.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "half": half,
                "bf16": torch.tensor([1.5, -2.25], dtype=torch.bfloat16)}, path)
    ckpt = gg.load_pytorch(path)
    assert ckpt["epoch"] == 3
    assert ckpt["half"].dtype == gg.float16 and ckpt["bf16"].dtype == gg.bfloat16  # tensors, as torch.load's
    np.testing.assert_array_equal(ckpt["half"].numpy(), half.numpy())
    np.testing.assert_array_equal(ckpt["bf16"].float().numpy(), np.array([1.5, -2.25], np.float32))
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(ckpt["model"][k].numpy(), v.numpy(), err_msg=k)
    g = _glassgrad_net()
    g.load_state_dict(ckpt["model"])
    gopt = gg.SGD(g.parameters(), lr=1.0, momentum=0.5)
    gopt.load_state_dict(ckpt["optimizer"])
    assert gopt.param_groups[0]["lr"] == 0.1 and gopt.param_groups[0]["momentum"] == 0.9


# ---- torch-free: a torch.save file written by hand -----------------------------------------------
def _torch_style_file(path, tensors, extra_global=None):
    """A zip checkpoint as torch.save writes one: data.pkl (protocol 2) rebuilding each tensor
    with torch._utils._rebuild_tensor_v2 from storage files data/<key>."""
    out = io.BytesIO()
    out.write(b"\x80\x02" + b"ccollections\nOrderedDict\n)R(")
    blobs = {}
    for key, (name, arr, stride) in enumerate(tensors):
        blobs[str(key)] = arr.tobytes()
        storage = {np.dtype(np.float32): b"FloatStorage", np.dtype(np.int64): b"LongStorage"}[arr.dtype]
        out.write(b"X" + struct.pack("<I", len(name)) + name.encode())
        out.write(b"ctorch._utils\n_rebuild_tensor_v2\n(")
        out.write(b"(X\x07\x00\x00\x00storagectorch\n" + storage + b"\nX" + struct.pack("<I", len(str(key)))
                  + str(key).encode() + b"X\x03\x00\x00\x00cpuJ" + struct.pack("<i", arr.size) + b"tQ")
        out.write(b"K\x00(" + b"".join(b"J" + struct.pack("<i", s) for s in arr_shape(arr, stride)) + b"t")
        out.write(b"(" + b"".join(b"J" + struct.pack("<i", s) for s in stride) + b"t")
        out.write(b"\x89ccollections\nOrderedDict\n)RtR")
    if extra_global:
        out.write(b"X\x04\x00\x00\x00evil" + extra_global + b"X\x02\x00\x00\x00hi\x85R")
    out.write(b"u.")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ckpt/data.pkl", out.getvalue())
        z.writestr("ckpt/byteorder", "little")
        for key, blob in blobs.items():
            z.writestr(f"ckpt/data/{key}", blob)


def arr_shape(arr, stride):
    return arr.shape if len(arr.shape) == len(stride) else (arr.size,)


def test_load_pytorch_reads_a_hand_written_checkpoint_without_torch(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7, 8], dtype=np.int64)
    path = tmp_path / "hand.pt"
    _torch_style_file(path, [("fc.weight", w, (3, 1)), ("fc.bias", b, (1,))])
    sd = gg.load_pytorch(path)
    assert list(sd) == ["fc.weight", "fc.bias"]
    np.testing.assert_array_equal(sd["fc.weight"], w)
    np.testing.assert_array_equal(sd["fc.bias"], b)
    # The same storage read through other strides (a view saved as it was): element (i, j) at i + 2 j.
    _torch_style_file(path, [("t", w, (1, 2))])
    np.testing.assert_array_equal(gg.load_pytorch(path)["t"], w.reshape(-1)[np.add.outer(np.arange(2), 2 * np.arange(3))])


def test_load_pytorch_refuses_code_in_the_file(tmp_path):
    path = tmp_path / "evil.pt"
    _torch_style_file(path, [("w", np.zeros(2, np.float32), (1,))], extra_global=b"cos\nsystem\n")
    with pytest.raises(gg.GlassgradError, match=r"os\.system.*never runs code"):
        gg.load_pytorch(path)
    (tmp_path / "legacy.pt").write_bytes(pickle.dumps({"w": 1}))
    with pytest.raises(gg.GlassgradError, match="not a PyTorch zip checkpoint"):
        gg.load_pytorch(tmp_path / "legacy.pt")


def test_load_pytorch_refuses_damaged_files_with_a_checkpoint_error_naming_them(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    path = tmp_path / "bad.pt"
    # A view reaching past its storage (strides from a damaged or hostile file): refused before
    # as_strided reads memory outside the 6 stored elements.
    _torch_style_file(path, [("w", w, (3, 1000))])
    with pytest.raises(gg.CheckpointError, match=r"bad\.pt.*reaches element 2003 of a storage of 6"):
        gg.load_pytorch(path)
    _torch_style_file(path, [("w", w, (3, -1))])
    with pytest.raises(gg.CheckpointError, match="not a valid view"):
        gg.load_pytorch(path)
    # A truncated pickle, a missing storage member, a missing file.
    _torch_style_file(path, [("w", w, (3, 1))])
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    for drop, what in (("pickle", "ckpt/data.pkl"), ("storage", "ckpt/data/0")):
        with zipfile.ZipFile(path, "w") as z:
            for n, data in members.items():
                if n != what:
                    z.writestr(n, data)
                elif drop == "pickle":
                    z.writestr(n, data[:len(data) // 2])
        with pytest.raises(gg.CheckpointError, match=r"bad\.pt"):
            gg.load_pytorch(path)
    with pytest.raises(gg.CheckpointError, match="no such file"):
        gg.load_pytorch(tmp_path / "missing.pt")
