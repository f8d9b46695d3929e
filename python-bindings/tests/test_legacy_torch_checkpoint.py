"""torch.load reads torch.save's format before PyTorch 1.6 (five pickles, then the storages'
bytes: glassgrad/pytorch_legacy_checkpoint.py), and so does glassgrad.load: course repositories
ship checkpoints of that age (udacity/deep-reinforcement-learning's dqn/solution/checkpoint.pth)
and load them with a plain torch.load(path). LEGACY is PyTorch 2.14's
torch.save(state, f, _use_new_zipfile_serialization=False) of

    w = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4
    OrderedDict([("fc.weight", w), ("fc.bias", torch.tensor([-1.5, 2.0])),
                 ("steps", torch.tensor([3, 4])), ("col", w[:, 1]), ("epoch", 7)])

("col" a view at offset 1, stride 3, of fc.weight's storage); torch.load gives back those values."""
import collections

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import pytorch_checkpoint

LEGACY = bytes.fromhex(
    "80028a0a6cfc9c46f9206aa850192e80024de9032e80027d710028581000000070726f746f636f6c5f76657273696f6e71014de9"
    "03580d0000006c6974746c655f656e6469616e710288580a000000747970655f73697a657371037d710428580500000073686f72"
    "7471054b025803000000696e7471064b0458040000006c6f6e6771074b0475752e800263636f6c6c656374696f6e730a4f726465"
    "726564446963740a71002952710128580900000066632e776569676874710263746f7263682e5f7574696c730a5f72656275696c"
    "645f74656e736f725f76320a71032828580700000073746f72616765710463746f7263680a466c6f617453746f726167650a7105"
    "580e00000039333837333930323038363833327106580300000063707571074b064e747108514b004b024b038671094b034b0186"
    "710a8968002952710b74710c52710d580700000066632e62696173710e6803282868046805580e00000039333837343031353937"
    "36313630710f68074b024e747110514b004b028571114b0185711289680029527113747114527115580500000073746570737116"
    "68032828680463746f7263680a4c6f6e6753746f726167650a7117580e0000003933383733393030373634363430711868074b02"
    "4e747119514b004b0285711a4b0185711b8968002952711c74711d52711e5803000000636f6c711f6803282868046805580e0000"
    "003933383733393032303836383332712068074b064e747121514b014b028571224b038571238968002952712474712552712658"
    "0500000065706f636871274b07752e80025d710028580e00000039333837333930303736343634307101580e0000003933383733"
    "3930323038363833327102580e00000039333837343031353937363136307103652e020000000000000003000000000000000400"
    "0000000000000600000000000000000000000000803e0000003f0000403f0000803f0000a03f02000000000000000000c0bf0000"
    "0040")
WEIGHT = np.arange(6, dtype=np.float32).reshape(2, 3) / 4


def _write(tmp_path, raw):
    path = tmp_path / "legacy.pth"
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize("read", [gg.load, pytorch_checkpoint.load_pytorch])
def test_a_legacy_state_dict_loads_as_torch_load_gives_it(tmp_path, read):
    state = read(_write(tmp_path, LEGACY))
    assert type(state) is collections.OrderedDict
    assert list(state) == ["fc.weight", "fc.bias", "steps", "col", "epoch"]
    assert state["epoch"] == 7
    for key, want, dtype in [("fc.weight", WEIGHT, gg.float32), ("fc.bias", [-1.5, 2.0], gg.float32),
                             ("steps", [3, 4], gg.int64), ("col", WEIGHT[:, 1], gg.float32)]:
        assert isinstance(state[key], gg.Tensor) and state[key].dtype == dtype and not state[key].requires_grad
        np.testing.assert_array_equal(state[key].numpy(), np.asarray(want))


def test_a_model_loads_a_legacy_state_dict(tmp_path):
    state = gg.load(_write(tmp_path, LEGACY))
    layer = gg.nn.Linear(3, 2)
    layer.load_state_dict({"weight": state["fc.weight"], "bias": state["fc.bias"]})
    np.testing.assert_allclose(layer(gg.ones(1, 3)).detach().numpy(), [[-0.75, 5.0]])


def test_a_truncated_legacy_checkpoint_is_named_so(tmp_path):
    with pytest.raises(gg.CheckpointError, match="truncated"):
        gg.load(_write(tmp_path, LEGACY[:-4]))


def test_a_legacy_checkpoint_never_runs_code(tmp_path):
    hostile = LEGACY.replace(b"ccollections\nOrderedDict\n", b"cos\nsystem\n")
    assert hostile != LEGACY
    for weights_only in (None, True, False):
        with pytest.raises(gg.CheckpointError, match="os.system.*never runs code"):
            gg.load(_write(tmp_path, hostile), weights_only=weights_only)


def test_torch_legacy_files_load_alike(tmp_path):
    torch = pytest.importorskip("torch")
    layer = torch.nn.Linear(4, 3)
    state = {"model": layer.state_dict(), "half": torch.tensor([1.5, -2.25], dtype=torch.float16),
             "mask": torch.tensor([True, False]), "param": torch.nn.Parameter(torch.ones(2)),
             "nested": [torch.arange(4).view(2, 2).t(), (3, "x")]}
    path = tmp_path / "old.pt"
    torch.save(state, path, _use_new_zipfile_serialization=False)
    ours = gg.load(path)
    for key, value in layer.state_dict().items():
        np.testing.assert_array_equal(ours["model"][key].numpy(), value.numpy())
    assert ours["half"].dtype == gg.float16 and ours["mask"].dtype == gg.bool
    np.testing.assert_array_equal(ours["half"].numpy(), state["half"].numpy())
    np.testing.assert_array_equal(ours["mask"].numpy(), state["mask"].numpy())
    assert isinstance(ours["param"], gg.nn.Parameter) and ours["param"].requires_grad
    np.testing.assert_array_equal(ours["nested"][0].numpy(), state["nested"][0].numpy())
    assert ours["nested"][1] == (3, "x")
