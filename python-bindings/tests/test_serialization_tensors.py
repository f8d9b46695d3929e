"""state_dict(), glassgrad.save/load and optimizer state hold tensors, as PyTorch's: state_dict
entries are detached tensors sharing memory with the model, load returns the saved tree (tensors
as tensors of their dtypes, NumPy arrays as arrays, placed by map_location), and files round-trip
through torch.save/torch.load both ways (checked against the installed torch)."""
import collections
import copy
import io
import pickle

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn


def _model():
    gg.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))


def _buffer(obj, **save_args):
    buf = io.BytesIO()
    gg.save(obj, buf, **save_args)
    buf.seek(0)
    return buf


def test_state_dict_entries_are_detached_tensors_sharing_the_parameters_memory():
    m = _model()
    sd = m.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                        "1.num_batches_tracked", "2.weight", "2.bias"]
    w = sd["0.weight"]
    assert type(w) is gg.Tensor and not w.requires_grad and w.is_leaf
    assert w.shape == (4, 3) and w.dtype == gg.float32 and w.numel() == 12
    assert sd["1.num_batches_tracked"].dtype == gg.int64
    values = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    w.copy_(gg.tensor(values))  # writes the parameter, as PyTorch's
    np.testing.assert_array_equal(m[0].weight.detach().numpy(), values)
    snapshot = copy.deepcopy(m.state_dict())
    with gg.no_grad():
        m[0].weight.mul_(2.0)  # an in-place update shows in the earlier state_dict, not in the deep copy
    np.testing.assert_array_equal(sd["0.weight"].numpy(), 2 * values)
    np.testing.assert_array_equal(snapshot["0.weight"].numpy(), values)
    np.testing.assert_array_equal(sd["0.weight"].clone().numpy(), 2 * values)
    assert gg.equal(m.state_dict()["2.bias"], sd["2.bias"])
    assert repr(sd["2.bias"]).startswith("tensor([")
    assert m.state_dict(keep_vars=True)["0.weight"] is m[0].weight


def test_state_dict_matches_torch_and_loads_both_ways(torch):
    m = _model()
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    assert list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in m.state_dict().items()})
    for (k, a), (_, b) in zip(m.state_dict().items(), t.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1], k
    m2 = _model()
    m2.load_state_dict(t.state_dict())  # CPU torch tensors, as before
    m2.load_state_dict(m.state_dict())  # glassgrad tensors
    m2.load_state_dict({k: v.numpy() for k, v in m.state_dict().items()})  # NumPy arrays
    assert all(gg.equal(a, b) for a, b in zip(m2.state_dict().values(), m.state_dict().values()))


def test_bfloat16_state_dict_stays_bfloat16_through_save_and_load(torch, tmp_path):
    m = nn.Linear(3, 2).bfloat16()
    sd = m.state_dict()
    assert sd["weight"].dtype == gg.bfloat16
    gg.save(sd, tmp_path / "bf.pt")
    theirs = torch.load(tmp_path / "bf.pt", map_location="cpu")  # saved where the model is
    assert theirs["weight"].dtype == torch.bfloat16
    np.testing.assert_array_equal(theirs["weight"].float().numpy(), sd["weight"].float().numpy())
    back = gg.load(tmp_path / "bf.pt")
    assert back["weight"].dtype == gg.bfloat16 and gg.equal(back["weight"], sd["weight"])
    m2 = nn.Linear(3, 2).bfloat16()
    m2.load_state_dict(back)
    assert gg.equal(m2.weight.detach(), m.weight.detach())


@pytest.mark.parametrize("source", ["glassgrad", "torch", "file"])
def test_load_state_dict_assign_keeps_bfloat16_as_torch(torch, tmp_path, source):
    """load_state_dict(sd, assign=True) with bfloat16 entries (a float32 model): the new
    parameters and buffers are bfloat16, as PyTorch's, with the entries' values; without assign
    the model's float32 keeps them exactly. The entries: glassgrad tensors, CPU PyTorch tensors,
    or a torch.save file read by glassgrad.load."""
    def bn(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        m.train()
        m(lib.randn(5, 3))  # running statistics that are not the initial ones
        return m

    t = bn(torch)
    theirs = {k: (v.bfloat16() if v.is_floating_point() else v) for k, v in t.state_dict().items()}
    if source == "glassgrad":
        entries = {k: gg.tensor(v.float().numpy()).bfloat16() if v.is_floating_point() else gg.tensor(v.numpy())
                   for k, v in theirs.items()}
    elif source == "torch":
        entries = theirs
    else:
        torch.save(theirs, tmp_path / "bf.pt")
        entries = gg.load(tmp_path / "bf.pt")
    t.load_state_dict(theirs, assign=True)
    ours = bn(gg)
    ours.load_state_dict(entries, assign=True)
    for (name, a), (_, b) in zip(ours.state_dict().items(), t.state_dict().items()):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], name
        np.testing.assert_array_equal(a.float().numpy() if a.dtype == gg.bfloat16 else a.numpy(),
                                      b.float().numpy() if b.dtype == torch.bfloat16 else b.numpy(), err_msg=name)
    assert type(ours[0].weight).__name__ == "Parameter" and ours[0].weight.requires_grad
    assert type(gg.nn.Parameter(entries["0.weight"])).__name__ == "Parameter"  # nn.Parameter of bfloat16
    kept = bn(gg)
    kept.load_state_dict(entries)  # copied into the model's float32: the bfloat16 values exactly
    assert kept[0].weight.dtype == gg.float32
    np.testing.assert_array_equal(kept[0].weight.detach().numpy(), theirs["0.weight"].float().numpy())


def test_torch_save_to_glassgrad_and_back_to_torch_keeps_the_tree(torch, tmp_path):
    tree = {"model": collections.OrderedDict([("w", torch.randn(3, 4)), ("n", torch.tensor(5))]),
            "h": torch.arange(6, dtype=torch.float16).reshape(2, 3).t(), "b": torch.tensor([1.5], dtype=torch.bfloat16),
            "flags": torch.tensor([True, False]), "nested": [(torch.ones(2, dtype=torch.int32), 3.5), {"k": None}],
            "epoch": 7, "scalar": torch.tensor(2.5, dtype=torch.float64)}
    torch.save(tree, tmp_path / "a.pt")
    ours = gg.load(tmp_path / "a.pt")
    assert isinstance(ours["model"], collections.OrderedDict) and ours["epoch"] == 7 and ours["nested"][1] == {"k": None}
    for path, a, b in (("w", ours["model"]["w"], tree["model"]["w"]), ("h", ours["h"], tree["h"]),
                       ("b", ours["b"], tree["b"]), ("flags", ours["flags"], tree["flags"]),
                       ("i32", ours["nested"][0][0], tree["nested"][0][0]), ("scalar", ours["scalar"], tree["scalar"])):
        assert isinstance(a, gg.Tensor), path
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1] and tuple(a.shape) == tuple(b.shape), path
        np.testing.assert_array_equal(a.float().numpy() if a.dtype == gg.bfloat16 else a.numpy(),
                                      b.float().numpy() if b.dtype == torch.bfloat16 else b.numpy(), err_msg=path)
    assert ours["nested"][0][1] == 3.5 and isinstance(ours["nested"][0], tuple)
    gg.save(ours, tmp_path / "b.pt")
    again = torch.load(tmp_path / "b.pt", map_location="cpu")
    assert list(again) == list(tree) and isinstance(again["model"], collections.OrderedDict)
    for k in ("h", "b", "flags", "scalar"):
        assert again[k].dtype == tree[k].dtype and torch.equal(again[k], tree[k]), k
    assert torch.equal(again["model"]["w"], tree["model"]["w"]) and again["nested"][0][1] == 3.5


def test_a_bare_tensor_round_trips_both_ways(torch, tmp_path):
    x = gg.tensor(np.random.default_rng(2).standard_normal((2, 5)))
    gg.save(x, tmp_path / "x.pt")
    back = gg.load(tmp_path / "x.pt")
    assert type(back) is gg.Tensor and back.dtype == gg.float64 and gg.equal(back, x)
    assert torch.equal(torch.load(tmp_path / "x.pt", map_location="cpu"), torch.from_numpy(x.numpy()))
    torch.save(torch.arange(4), tmp_path / "y.pt")
    y = gg.load(tmp_path / "y.pt")
    assert type(y) is gg.Tensor and y.dtype == gg.int64 and y.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("fmt", ["torch", "npz", pytest.param("safetensors", marks=pytest.mark.skipif(
    not gg.serialization._have_safetensors(), reason="the safetensors package is not installed"))])
def test_numpy_arrays_saved_stay_arrays_and_tensors_stay_tensors(fmt):
    arr, t = np.arange(6, dtype=np.int32).reshape(2, 3), gg.tensor([1.0, -2.0])
    back = gg.load(_buffer({"arr": arr, "t": t, "bf": gg.tensor([0.5], dtype=gg.bfloat16)}, format=fmt))
    assert type(back["arr"]) is np.ndarray and back["arr"].dtype == np.int32
    np.testing.assert_array_equal(back["arr"], arr)
    assert type(back["t"]) is gg.Tensor and gg.equal(back["t"], t)
    assert back["bf"].dtype == gg.bfloat16 and back["bf"].tolist() == [0.5]


def test_glassgrad_numpy_arrays_are_tensors_to_torch(torch):
    back = torch.load(_buffer({"arr": np.arange(3.0), "t": gg.ones(2)}), weights_only=True, map_location="cpu")
    assert torch.equal(back["arr"], torch.arange(3.0, dtype=torch.float64)) and torch.equal(back["t"], torch.ones(2))


@pytest.mark.parametrize("map_location", ["cpu", gg.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage,
                                          lambda storage, loc: None])
def test_map_location_forms_as_torch_load(map_location):
    sd = {k: v.cpu() for k, v in _model().state_dict().items()}  # saved on the CPU
    for fmt in ("torch", "npz"):
        back = gg.load(_buffer(sd, format=fmt), map_location=map_location)
        assert all(str(v.device) == "cpu" for v in back.values())
        assert all(gg.equal(a, b) for a, b in zip(back.values(), sd.values()))


def test_map_location_function_gets_a_storage_and_the_saved_location():
    seen = []
    gg.load(_buffer({"w": gg.ones(2, 3)}), map_location=lambda storage, loc: seen.append((storage, loc)))
    (storage, loc), = seen
    assert loc == "cpu" and gg.is_storage(storage) and storage.size() == 24  # UntypedStorage: bytes


def test_a_cuda_location_without_a_gpu_asks_for_map_location(tmp_path):
    if gg.cuda.is_available():
        pytest.skip("a GPU is visible: the tensor loads onto it")
    path = tmp_path / "gpu.pt"
    gg.pytorch_checkpoint.write_torch_zip(open(path, "wb"), {"w": gg.pytorch_checkpoint.SavedTensor(
        np.ones(3, np.float32), "cuda:0")})
    with pytest.raises(gg.GlassgradError, match="map_location='cpu'"):
        gg.load(path)
    assert gg.load(path, map_location="cpu")["w"].tolist() == [1.0, 1.0, 1.0]
    assert str(gg.load(path, map_location={"cuda:0": "cpu"})["w"].device) == "cpu"


def test_optimizer_state_holds_tensors_as_torch(torch):
    m = _model()
    opt = gg.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    m(gg.randn(5, 3)).sum().backward()
    opt.step()
    state = opt.state_dict()["state"]
    assert set(state[0]) == {"momentum_buffer"} and type(state[0]["momentum_buffer"]) is gg.Tensor
    back = gg.load(_buffer(opt.state_dict()))
    assert type(back["state"][0]["momentum_buffer"]) is gg.Tensor
    opt2 = gg.optim.SGD(_model().parameters(), lr=0.5, momentum=0.1)
    opt2.load_state_dict(back)
    assert opt2.param_groups[0]["lr"] == 0.1
    assert gg.equal(opt2.state_dict()["state"][0]["momentum_buffer"], state[0]["momentum_buffer"])
    theirs = torch.load(_buffer(opt.state_dict()), weights_only=True, map_location="cpu")
    np.testing.assert_array_equal(theirs["state"][0]["momentum_buffer"].numpy(),
                                  state[0]["momentum_buffer"].numpy())
    adam = gg.optim.Adam(m.parameters())
    m(gg.randn(5, 3)).sum().backward()
    adam.step()
    entry = copy.deepcopy(adam.state_dict())["state"][0]
    assert list(entry) == ["step", "exp_avg", "exp_avg_sq"] and all(type(v) is gg.Tensor for v in entry.values())


def test_tensors_and_state_dicts_pickle_and_deepcopy():
    m = _model()
    sd = m.state_dict()
    for copied in (pickle.loads(pickle.dumps(sd)), copy.deepcopy(sd)):
        assert list(copied) == list(sd)
        assert all(type(v) is gg.Tensor and gg.equal(v, sd[k]) for k, v in copied.items())
    twin = copy.deepcopy(m)
    with gg.no_grad():
        twin[0].weight.add_(1.0)
    assert not gg.equal(twin.state_dict()["0.weight"], m.state_dict()["0.weight"])
