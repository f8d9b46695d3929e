"""glassgrad.save / glassgrad.load and the optimizers' state_dict / load_state_dict: round trips in
both formats, atomic writes (a failure mid-write leaves the old checkpoint and no temporary
file), clear errors, and training that resumes from a checkpoint exactly where it stopped."""
import os

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import serialization

FORMATS = ["npz", pytest.param("safetensors", marks=pytest.mark.skipif(
    not serialization._have_safetensors(), reason="the safetensors package is not installed"))]


class Net(gg.Module):
    def __init__(self):
        super().__init__()
        self.conv = gg.Conv2D(1, 4, 3, padding=1)
        self.bn = gg.BatchNorm2D(4)
        self.fc = gg.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(gg.flatten(gg.max_pool2d(gg.relu(self.bn(self.conv(x))), 2)))


def _data(seed=0, n=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 1, 8, 8)).astype(np.float32), rng.integers(0, 3, n)


def _train(model, optimizer, steps, start=0):
    losses = []
    for s in range(start, start + steps):
        x, y = _data(seed=s)
        loss = gg.cross_entropy(model(gg.tensor(x)), gg.tensor(y))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def _optimizer(kind, model):
    if kind == "sgd":
        return gg.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3, nesterov=True)
    if kind == "sgd-plain":
        return gg.SGD(model.parameters(), lr=0.05)
    return gg.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99), eps=1e-7, weight_decay=1e-4)


@pytest.mark.parametrize("fmt", FORMATS)
def test_save_load_round_trips_nested_trees_of_arrays_tensors_and_values(tmp_path, fmt):
    rng = np.random.default_rng(0)
    tree = {
        "weights": {"conv1.weight": rng.standard_normal((2, 3, 3, 3)).astype(np.float32),
                    "fc.bias": np.arange(3, dtype=np.float64)},
        "state": {0: {"step": np.array(7, dtype=np.int64)}, 3: {"mask": np.array([True, False])}},
        "tensor": gg.tensor(np.ones((2, 2), np.float32)),
        "bytes": np.arange(5, dtype=np.uint8),
        "list": [1, 2.5, "three", None, True],
        "tuple": (np.float32(1.5), -4),
        "big_int": 2 ** 100 + 3,   # NumPy generator states hold 128-bit integers
        "empty": {},
    }
    path = tmp_path / "ckpt.gg"
    gg.save(tree, path, format=fmt)
    back = gg.load(path)
    assert list(back) == list(tree)
    np.testing.assert_array_equal(back["weights"]["conv1.weight"], tree["weights"]["conv1.weight"])
    assert back["weights"]["conv1.weight"].dtype == np.float32
    assert back["weights"]["fc.bias"].dtype == np.float64
    assert back["state"][0]["step"].shape == () and back["state"][0]["step"].dtype == np.int64
    assert int(back["state"][0]["step"]) == 7
    assert set(back["state"]) == {0, 3}  # int keys stay ints
    np.testing.assert_array_equal(back["state"][3]["mask"], [True, False])
    np.testing.assert_array_equal(back["tensor"], np.ones((2, 2), np.float32))
    assert back["bytes"].dtype == np.uint8
    assert back["list"] == [1, 2.5, "three", None, True]
    assert isinstance(back["tuple"], tuple) and float(back["tuple"][0]) == 1.5 and back["tuple"][1] == -4
    assert back["big_int"] == 2 ** 100 + 3
    assert back["empty"] == {}


def test_load_detects_the_format_from_the_bytes_not_the_name(tmp_path):
    a = {"x": np.arange(4, dtype=np.float32)}
    gg.save(a, tmp_path / "looks_like.safetensors", format="npz")
    with open(tmp_path / "looks_like.safetensors", "rb") as f:
        assert f.read(4) == b"PK\x03\x04"
    np.testing.assert_array_equal(gg.load(tmp_path / "looks_like.safetensors")["x"], a["x"])


@pytest.mark.skipif(not serialization._have_safetensors(), reason="the safetensors package is not installed")
def test_safetensors_files_are_readable_by_the_safetensors_package(tmp_path):
    from safetensors.numpy import load_file, save_file
    model = Net()
    gg.save({"model": model.state_dict()}, tmp_path / "m.safetensors", format="safetensors")
    arrays = load_file(str(tmp_path / "m.safetensors"))
    np.testing.assert_array_equal(arrays["model/conv.weight"], model.conv.weight.detach().numpy())
    # ... and a plain safetensors file from elsewhere loads as a flat dict
    save_file({"w": np.ones(3, np.float32)}, str(tmp_path / "other.safetensors"))
    np.testing.assert_array_equal(gg.load(tmp_path / "other.safetensors")["w"], np.ones(3, np.float32))


def test_plain_npz_files_load_as_a_flat_dict(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.arange(3), b=np.eye(2))
    back = gg.load(tmp_path / "plain.npz")
    assert sorted(back) == ["a", "b"]
    np.testing.assert_array_equal(back["b"], np.eye(2))


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_failure_while_writing_keeps_the_previous_checkpoint_and_leaves_no_temporary_file(
        tmp_path, monkeypatch, fmt):
    path = tmp_path / "ckpt.gg"
    gg.save({"w": np.zeros(1000, np.float32), "step": 1}, path, format=fmt)
    before = path.read_bytes()

    def crash_mid_write(f, arrays, meta):
        f.write(b"half a checkpoint")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(serialization, "_write_npz", crash_mid_write)
    monkeypatch.setattr(serialization, "_write_safetensors", crash_mid_write)
    with pytest.raises(OSError, match="disk full"):
        gg.save({"w": np.ones(1000, np.float32), "step": 2}, path, format=fmt)
    assert path.read_bytes() == before
    assert gg.load(path)["step"] == 1
    assert sorted(os.listdir(tmp_path)) == ["ckpt.gg"]


def test_save_replaces_the_file_through_a_rename_in_the_same_directory(tmp_path, monkeypatch):
    calls = []
    real_replace = os.replace

    def spy(src, dst):
        calls.append((os.path.dirname(os.path.abspath(src)), os.fspath(dst)))
        assert os.path.exists(src) and os.path.getsize(src) > 0  # complete before the rename
        real_replace(src, dst)

    monkeypatch.setattr(serialization.os, "replace", spy)
    gg.save({"a": np.ones(3)}, tmp_path / "c.gg")
    assert calls == [(str(tmp_path), str(tmp_path / "c.gg"))]
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(tmp_path / "c.gg").st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_formats_without_pickles_refuse_a_model_object_with_the_state_dict_fix(tmp_path):
    # torch.save's format pickles whole objects (test_checkpoint_objects.py); npz and safetensors
    # hold arrays only, so a model there is refused with the fix.
    with pytest.raises(TypeError) as e:
        gg.save(Net(), tmp_path / "m.gg", format="npz")
    msg = str(e.value)
    assert "model (Net)" in msg and "fix:" in msg and "state_dict()" in msg
    with pytest.raises(TypeError, match=r"optimizer \(SGD\).*state_dict"):
        gg.save({"opt": gg.SGD(Net().parameters(), lr=0.1)}, tmp_path / "o.gg", format="npz")
    with pytest.raises(TypeError, match="entry a/b is a set"):
        gg.save({"a": {"b": {1, 2}}}, tmp_path / "s.gg", format="npz")
    assert not os.listdir(tmp_path)


def test_save_into_a_missing_directory_names_it_and_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        gg.save({"a": np.ones(1)}, tmp_path / "nope" / "c.gg")
    assert str(tmp_path / "nope") in str(e.value) and "os.makedirs" in str(e.value)


@pytest.mark.parametrize("content", [b"", b"\x80\x04K\x01.", b"PK\x03\x04 truncated zip"])
def test_loading_an_empty_foreign_or_damaged_file_raises_a_glassgrad_error(tmp_path, content):
    path = tmp_path / "bad.gg"
    path.write_bytes(content)
    with pytest.raises(gg.GlassgradError) as e:
        gg.load(path)
    assert str(path) in str(e.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_truncated_checkpoint_is_refused(tmp_path, fmt):
    path = tmp_path / "c.gg"
    gg.save({"w": np.arange(1000, dtype=np.float32)}, path, format=fmt)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(gg.GlassgradError):
        gg.load(path)


# ---- optimizer state -------------------------------------------------------------------------
def test_sgd_state_dict_holds_momentum_buffers_by_parameter_position():
    model = Net()
    opt = _optimizer("sgd", model)
    _train(model, opt, 2)
    sd = opt.state_dict()
    params = list(model.parameters())
    assert list(sd) == ["state", "param_groups"]  # PyTorch's keys, no more
    assert sorted(sd["state"]) == list(range(len(params)))
    for i, p in enumerate(params):
        assert set(sd["state"][i]) == {"momentum_buffer"}
        assert sd["state"][i]["momentum_buffer"].shape == tuple(p.shape)
    assert sd["param_groups"] == [{"lr": 0.05, "momentum": 0.9, "dampening": 0.0, "weight_decay": 1e-3,
                                   "nesterov": True, "maximize": False, "foreach": None, "differentiable": False,
                                   "fused": None, "params": list(range(len(params)))}]


def test_adam_state_dict_holds_moments_and_step_counts():
    model = Net()
    opt = _optimizer("adam", model)
    _train(model, opt, 3)
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    s0 = sd["state"][0]
    assert set(s0) == {"exp_avg", "exp_avg_sq", "step"}
    assert isinstance(s0["exp_avg"], gg.Tensor) and s0["step"].shape == () and float(s0["step"]) == 3.0
    assert s0["step"].dtype == gg.float32  # as torch 2.14 stores it
    assert (s0["exp_avg_sq"] >= 0).all() and (s0["exp_avg"] != 0).any()
    g = sd["param_groups"][0]
    assert (g["lr"], tuple(g["betas"]), g["eps"], g["weight_decay"]) == (0.01, (0.8, 0.99), 1e-7, 1e-4)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["sgd", "sgd-plain", "adam"])
def test_training_resumed_from_a_checkpoint_matches_an_uninterrupted_run_exactly(tmp_path, kind, fmt):
    gg.manual_seed(3)
    model = Net()
    straight = _train(model, _optimizer(kind, model), 6)

    gg.manual_seed(3)
    model = Net()
    opt = _optimizer(kind, model)
    first = _train(model, opt, 3)
    gg.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, tmp_path / "c.gg", format=fmt)

    gg.manual_seed(99)  # different initial weights: everything must come from the file
    model2 = Net()
    opt2 = _optimizer(kind, model2)
    ckpt = gg.load(tmp_path / "c.gg")
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    resumed = first + _train(model2, opt2, 3, start=3)
    assert resumed == straight  # bit for bit


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_resuming_without_the_optimizer_state_diverges_from_the_uninterrupted_run(kind):
    """The control for the test above: the optimizer state is what makes the losses equal."""
    gg.manual_seed(3)
    model = Net()
    straight = _train(model, _optimizer(kind, model), 6)
    gg.manual_seed(3)
    model = Net()
    first = _train(model, _optimizer(kind, model), 3)
    model2 = Net()
    model2.load_state_dict(model.state_dict())
    resumed = first + _train(model2, _optimizer(kind, model2), 3, start=3)
    assert resumed[:3] == straight[:3] and resumed[3:] != straight[3:]


def test_load_state_dict_restores_hyperparameters_and_the_learning_rate_tensor():
    model = Net()
    opt = _optimizer("adam", model)
    _train(model, opt, 1)
    opt.lr = 0.003
    sd = opt.state_dict()
    other = gg.Adam(model.parameters(), lr=0.5)
    _train(model, other, 1)  # creates its lr tensor at 0.5
    other.load_state_dict(sd)
    assert other.lr == 0.003 and other.betas == (0.8, 0.99) and other.eps == 1e-7
    hyper = dict(other._hyper_tensors())
    assert float(hyper["lr"].numpy()) == np.float32(0.003) and float(hyper["beta1"].numpy()) == np.float32(0.8)


def test_loading_state_from_another_optimizer_class_names_both():
    model = Net()
    sgd = _optimizer("sgd", model)
    _train(model, sgd, 1)
    with pytest.raises(gg.InvalidArgumentError) as e:
        gg.Adam(model.parameters()).load_state_dict(sgd.state_dict())
    assert "saved from another optimizer" in str(e.value) and "momentum" in str(e.value) \
        and "betas" in str(e.value) and "fix:" in str(e.value)
    old_file = dict(sgd.state_dict(), optimizer="SGD")  # earlier glassgrad versions named the class
    with pytest.raises(gg.InvalidArgumentError) as e:
        gg.Adam(model.parameters()).load_state_dict(old_file)
    assert "saved from a SGD optimizer" in str(e.value) and "fix:" in str(e.value)


def test_loading_state_for_a_different_model_names_the_parameter_and_shapes():
    model = Net()
    opt = _optimizer("sgd", model)
    _train(model, opt, 1)
    sd = opt.state_dict()
    with pytest.raises(gg.InvalidArgumentError, match="state is for 6 parameters.*has 2 parameters"):
        gg.SGD(gg.Linear(3, 2).parameters(), lr=0.1).load_state_dict(sd)
    wrong = [gg.Parameter(np.zeros((5,) + tuple(p.shape[1:]), np.float32)) for p in model.parameters()]
    with pytest.raises(gg.ShapeError) as e:
        gg.SGD(wrong, lr=0.1).load_state_dict(sd)
    assert "'momentum_buffer' of parameter 0" in str(e.value) and "[4, 1, 3, 3]" in str(e.value)


def test_saving_into_a_missing_directory_is_torchs_runtime_error(tmp_path):
    # torch.save raises RuntimeError("Parent directory model does not exist."); scripts catch it
    path = os.path.join(str(tmp_path), "model", "model.pth")
    with pytest.raises(RuntimeError, match=r"^Parent directory .*model does not exist\.") as info:
        gg.save({"w": gg.ones(2)}, path)
    assert isinstance(info.value, FileNotFoundError) and "fix: os.makedirs(" in str(info.value)
    assert not os.path.exists(os.path.dirname(path))
