"""load(f) of a whole model under weights_only=True (the default, as PyTorch's since 2.6) raises a
pickle.UnpicklingError whose message starts with PyTorch's 'Weights only load failed.', as
torch.load does: scripts catch that class to retry with weights_only=False (practical-pytorch's
predict.py and generate.py load the whole RNN their train.py saved)."""
import errno
import pickle

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(3, 4), nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def _load_or_trust(path):
    # the fallback scripts write for files they saved themselves
    try:
        return gg.load(path)
    except pickle.UnpicklingError:
        return gg.load(path, weights_only=False)


def test_a_whole_model_is_refused_as_an_unpickling_error_then_loads_when_trusted(tmp_path):
    net, path = TwoLayer(), tmp_path / "net.pt"
    gg.save(net, path)
    with pytest.raises(pickle.UnpicklingError, match=r"^Weights only load failed\. .*TwoLayer") as e:
        gg.load(path)
    assert isinstance(e.value, gg.CheckpointError) and "weights_only=False" in str(e.value)
    back = _load_or_trust(path)
    x = gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(back(x).detach().numpy(), net(x).detach().numpy())


def test_a_state_dict_still_loads_under_weights_only(tmp_path):
    net, path = TwoLayer(), tmp_path / "sd.pt"
    gg.save(net.state_dict(), path)
    assert sorted(gg.load(path)) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]


def test_other_damage_is_no_unpickling_error(tmp_path):
    path = tmp_path / "bad.pt"
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(gg.CheckpointError) as e:
        gg.load(path)
    assert not isinstance(e.value, pickle.UnpicklingError)


def test_pytorch_refuses_the_same_file_with_the_same_class(tmp_path):
    torch = pytest.importorskip("torch")
    net, path = TwoLayer(), tmp_path / "net.pt"
    gg.save(net, path)
    with pytest.raises(pickle.UnpicklingError, match=r"^Weights only load failed\."):
        torch.load(path)


def test_a_missing_file_starts_with_the_message_of_torch_loads_open(tmp_path, monkeypatch):
    # practical-pytorch's generate.py loads a model its train.py did not get to save
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        gg.load("shakespeare.pt")
    first = str(e.value).split("\n")[0]
    assert first == "[Errno 2] No such file or directory: 'shakespeare.pt'"
    assert e.value.errno == errno.ENOENT
    assert isinstance(e.value, gg.CheckpointError) and "fix: check the path" in str(e.value)


@pytest.mark.parametrize("value", [slice(1, 2), range(3), frozenset({1}), int, {"d": __import__("collections").defaultdict(int)}],
                         ids=["slice", "range", "frozenset", "type", "defaultdict"])
def test_weights_only_refuses_the_builtins_torch_refuses(value, tmp_path):
    torch = pytest.importorskip("torch")
    for lib in (torch, gg):
        lib.save({"v": value}, tmp_path / "v.pt")
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            lib.load(tmp_path / "v.pt")
        assert lib.load(tmp_path / "v.pt", weights_only=False)["v"] == value
    kept = {"s": {1, 2}, "c": 1 + 2j, "b": bytearray(b"ab"), "o": __import__("collections").OrderedDict(a=1)}
    gg.save(kept, tmp_path / "k.pt")
    assert gg.load(tmp_path / "k.pt") == kept == torch.load(tmp_path / "k.pt")
