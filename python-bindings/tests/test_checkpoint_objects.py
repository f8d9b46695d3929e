"""Whole objects in checkpoints, as torch.save(model, f) / torch.load(f) under
torch.serialization.safe_globals: what word_language_model/main.py does with its best model."""
import os
import pickle
import pickletools
import zipfile

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import serialization


class TiedNet(gg.nn.Module):
    """A model of a script's own class, with a tied weight, a buffer and plain attributes."""

    def __init__(self):
        super().__init__()
        self.enc = gg.nn.Linear(3, 4)
        self.bn = gg.nn.BatchNorm1d(4)
        self.dec = gg.nn.Linear(4, 3)
        self.head = gg.nn.Linear(4, 3)
        self.head.weight = self.dec.weight
        self.config = {"sizes": (3, 4), "name": "tied"}

    def forward(self, x):
        h = self.bn(self.enc(x))
        return self.dec(h) + self.head(h)


ALLOWED = [TiedNet, gg.nn.Linear, gg.nn.BatchNorm1d]


def _edit_pickle(src, dst, old: bytes, new: bytes):
    """A copy of the checkpoint src with `old` replaced by `new` in its pickle (the archive is
    rewritten: an edit in place would fail the zip's CRC)."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename.endswith("data.pkl"):
                assert old in data
                data = data.replace(old, new)
            out.writestr(info.filename, data)


@pytest.fixture
def trained(tmp_path):
    gg.manual_seed(0)
    model = TiedNet()
    x = gg.tensor(np.random.default_rng(0).random((6, 3), dtype=np.float32))
    opt = gg.optim.SGD(list(model.enc.parameters()) + list(model.dec.parameters()), lr=0.1)
    model(x).sum().backward()
    opt.step()
    model.eval()
    path = tmp_path / "model.pt"
    gg.save(model, path)
    return model, x, path


def test_a_whole_model_round_trips_under_safe_globals(trained):
    model, x, path = trained
    with serialization.safe_globals(ALLOWED):
        back = gg.load(path)
    assert type(back) is TiedNet and back is not model and not back.training
    np.testing.assert_allclose(back(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    assert back.head.weight is back.dec.weight  # a tied weight stays one Parameter
    assert isinstance(back.enc.weight, gg.nn.Parameter) and back.enc.weight.requires_grad
    np.testing.assert_array_equal(back.bn.running_mean.numpy(), model.bn.running_mean.numpy())
    assert back.config == {"sizes": (3, 4), "name": "tied"}
    assert list(back.state_dict()) == list(model.state_dict())


def test_a_loaded_model_trains_and_updates_its_buffers(trained):
    _, x, path = trained
    back = gg.load(path, weights_only=False)
    back.train()
    before = back.bn.running_mean.numpy().copy()
    opt = gg.optim.SGD(list(back.enc.parameters()) + list(back.dec.parameters()), lr=0.1)
    w = back.enc.weight.detach().numpy().copy()
    back(x).sum().backward()
    opt.step()
    assert not np.array_equal(back.enc.weight.detach().numpy(), w)
    assert not np.array_equal(back.bn.running_mean.numpy(), before)


def test_weights_only_default_refuses_classes_not_allowlisted_with_the_fix(trained):
    _, _, path = trained
    with pytest.raises(gg.CheckpointError) as e:
        gg.load(path)
    msg = str(e.value)
    assert "Weights only load failed" in msg and "TiedNet" in msg and "safe_globals([TiedNet])" in msg
    assert "weights_only=False" in msg
    with serialization.safe_globals([TiedNet]):  # the layers inside must be allowed too, as in PyTorch
        with pytest.raises(gg.CheckpointError, match="glassgrad.nn.layers.Linear"):
            gg.load(path)
    with pytest.raises(gg.CheckpointError):  # the context ended: nothing stays allowed
        gg.load(path, weights_only=True)


def test_add_safe_globals_get_and_clear(trained):
    _, _, path = trained
    try:
        serialization.add_safe_globals(ALLOWED)
        assert set(serialization.get_safe_globals()) >= set(ALLOWED)
        assert type(gg.load(path)) is TiedNet
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(TypeError, match="pass the class itself"):
        serialization.add_safe_globals([3])


def test_weights_only_false_needs_the_class_module_imported(tmp_path, trained):
    _, _, path = trained
    _edit_pickle(path, tmp_path / "moved.pt", b"test_checkpoint_objects", b"not_imported_module_xx")
    with pytest.raises(gg.CheckpointError, match="not_imported_module_xx.*not imported"):
        gg.load(tmp_path / "moved.pt", weights_only=False)


def test_torch_reads_a_glassgrad_file_of_plain_objects_and_refuses_glassgrad_classes(tmp_path, trained):
    torch = pytest.importorskip("torch")
    p = tmp_path / "plain.pt"
    obj = {"s": {1, 2}, (1, 2): gg.tensor(np.arange(3)), "dev": gg.device("cuda", 0), "dt": gg.int64,
           "size": gg.Size([2, 3]), "p": gg.nn.Parameter(gg.tensor(np.ones(2, np.float32)))}
    gg.save(obj, p)
    t = torch.load(p, weights_only=True)
    assert t["s"] == {1, 2} and t[(1, 2)].tolist() == [0, 1, 2] and t[(1, 2)].dtype == torch.int64
    assert t["dev"] == torch.device("cuda", 0) and t["dt"] is torch.int64 and t["size"] == torch.Size([2, 3])
    assert isinstance(t["p"], torch.nn.Parameter) and t["p"].requires_grad
    back = gg.load(p)
    assert back["s"] == {1, 2} and back[(1, 2)].tolist() == [0, 1, 2] and back["dev"] == "cuda:0"
    assert back["dt"] == gg.int64 and back["size"] == gg.Size([2, 3]) and isinstance(back["p"], gg.nn.Parameter)
    with pytest.raises(Exception, match="TiedNet|glassgrad"):  # PyTorch cannot build glassgrad's classes
        torch.load(trained[2], weights_only=True)


def test_the_file_is_torch_saves_zip_with_tensor_records_and_the_objects_marker(trained):
    _, _, path = trained
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        pkl = z.read("model/data.pkl")
    assert "model/.data/glassgrad_objects" in names and "model/data/0" in names
    globals_ = {arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"}
    assert {"torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_parameter", "torch FloatStorage",
            "test_checkpoint_objects TiedNet", "glassgrad.nn.layers Linear"} <= globals_


def test_map_location_moves_tensors_and_a_cuda_file_without_a_gpu_says_so(tmp_path):
    p = tmp_path / "t.pt"
    gg.save({"t": gg.tensor(np.arange(3.0), device="cpu"), "k": {1}}, p)
    for where in (None, "cpu", gg.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        assert gg.load(p, map_location=where)["t"].device == "cpu"
    if not gg.cuda.is_available():
        _edit_pickle(p, tmp_path / "cuda.pt", b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
        with pytest.raises(gg.CheckpointError, match="map_location='cpu'"):
            gg.load(tmp_path / "cuda.pt")
        assert gg.load(tmp_path / "cuda.pt", map_location="cpu")["t"].device == "cpu"


def test_what_python_cannot_pickle_is_refused_before_the_file_is_touched(tmp_path):
    p = tmp_path / "m.pt"
    p.write_bytes(b"old")
    model = gg.nn.Linear(2, 2)
    model.hook = lambda x: x
    with pytest.raises(TypeError, match="(?s)cannot save this Linear.*lambda.*fix:"):
        gg.save(model, p)
    assert p.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.pt"]


def test_nn_modules_paths_name_the_layers():
    assert gg.nn.modules.linear.Linear is gg.nn.Linear
    assert gg.nn.modules.rnn.LSTM is gg.nn.LSTM and gg.nn.modules.dropout.Dropout is gg.nn.Dropout
    assert gg.nn.modules.container.ModuleList is gg.nn.ModuleList
    assert gg.nn.modules.linear.NonDynamicallyQuantizableLinear.__name__ == "NonDynamicallyQuantizableLinear"
    assert gg.nn.modules.Linear is gg.nn.Linear and gg.nn.modules.module.Module is gg.nn.Module
    from glassgrad.nn.modules.utils import _pair
    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2)
    assert "Linear" in gg.nn.modules.linear.__all__
    assert gg.nn.modules.pooling.LPPool3d is gg.nn.LPPool3d
    assert gg.nn.modules.loss.LinearCrossEntropyLoss is gg.nn.LinearCrossEntropyLoss
    assert gg.nn.modules.container.Container is gg.nn.Container
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchLayer'"):
        _ = gg.nn.modules.container.NoSuchLayer
    with pytest.raises(AttributeError):
        _ = gg.nn.modules.linear.Conv2d  # PyTorch's layout: Conv2d lives in .conv


def test_nn_modules_names_match_torch():
    torch = pytest.importorskip("torch")
    import importlib
    for sub in ("activation", "batchnorm", "container", "conv", "dropout", "linear", "loss", "normalization",
                "pooling", "rnn", "sparse", "transformer"):
        theirs = set(getattr(importlib.import_module(f"torch.nn.modules.{sub}"), "__all__", []))
        ours = set(dir(getattr(gg.nn.modules, sub)))
        assert theirs <= ours, (sub, theirs - ours)
    assert torch.nn.modules.linear.Linear.__name__ == gg.nn.modules.linear.Linear.__name__


@pytest.mark.cuda
def test_a_model_saved_on_the_gpu_loads_there_or_where_map_location_says(tmp_path):
    model = gg.nn.Sequential(gg.nn.Linear(3, 4), gg.nn.BatchNorm1d(4)).to("cuda")
    x = gg.tensor(np.random.default_rng(0).random((5, 3), dtype=np.float32), device="cuda")
    model.eval()
    want = model(x).detach().cpu().numpy()
    gg.save(model, tmp_path / "m.pt")
    back = gg.load(tmp_path / "m.pt", weights_only=False)
    assert back[0].weight.device == "cuda:0" and back[1].running_mean.device == "cuda:0"
    np.testing.assert_allclose(back(x).detach().cpu().numpy(), want, rtol=1e-5, atol=1e-6)
    cpu = gg.load(tmp_path / "m.pt", weights_only=False, map_location="cpu")
    assert cpu[0].weight.device == "cpu"
    np.testing.assert_allclose(cpu(x.to("cpu")).detach().cpu().numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls,kwargs", [("Adam", dict(lr=0.1, amsgrad=True)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                        ("Rprop", {}), ("ASGD", dict(t0=1))])
def test_a_whole_optimizer_saved_with_its_model_resumes_the_same_steps(tmp_path, cls, kwargs):
    model = gg.nn.Linear(3, 2)
    opt = getattr(gg.optim, cls)(model.parameters(), **kwargs)
    x = gg.tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32))

    def steps(m, o, n):
        for _ in range(n):
            o.zero_grad()
            (m(x) ** 2).sum().backward()
            o.step()
            o.param_groups[0]["lr"] *= 0.5  # a schedule's write reaches the resumed group's tensors too
    steps(model, opt, 2)
    path = os.path.join(tmp_path, "whole.pt")
    gg.save({"model": model, "optimizer": opt}, path)
    back = gg.load(path, weights_only=False)
    assert back["optimizer"].param_groups[0]["params"][0] is back["model"].weight
    steps(model, opt, 3)
    steps(back["model"], back["optimizer"], 3)
    for a, b in zip(model.parameters(), back["model"].parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def _pickle_error(obj):
    """The exception type pickle raises for obj (torch.save pickles with pickle and lets it through)."""
    try:
        pickle.dumps(obj)
    except Exception as e:  # whichever pickle raises on this Python
        return type(e)
    raise AssertionError("picklable")


def test_unpicklable_objects_raise_pickles_own_error_type(tmp_path):
    # thorough-pytorch's Fashion-MNIST notebook saves a model whose class __main__ cannot name
    # and PyTorch raises pickle.PicklingError there; a TypeError still catches glassgrad's
    unnamed = type("Net", (), {"__module__": "__main__"})  # a class __main__ does not hold
    with open(os.devnull) as handle:
        for thing in (unnamed(), handle):
            expected = _pickle_error(thing)
            with pytest.raises(expected, match="cannot save this") as info:
                gg.save({"thing": thing}, tmp_path / "x.pt")
            assert isinstance(info.value, TypeError)
