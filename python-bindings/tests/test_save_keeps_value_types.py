"""glassgrad.save of a tree holding a Parameter, a glassgrad.Size, a dtype, a device or a defaultdict (beside
plain tensors) gives them back from glassgrad.load with their types, as torch.save / torch.load
do (scripts save `{'shape': x.shape, 'dtype': x.dtype, ...}` beside a state_dict): such a tree
is pickled whole; trees of plain tensors, arrays and numbers keep the plain format."""
import collections
import io

import numpy as np

import glassgrad as gg
import glassgrad.nn as nn


def _round_trip(obj, **load_args):
    buf = io.BytesIO()
    gg.save(obj, buf)
    buf.seek(0)
    return gg.load(buf, **load_args)


def test_size_dtype_device_and_parameter_keep_their_types():
    p = nn.Parameter(gg.tensor([1.0, 2.0]))
    back = _round_trip({"shape": gg.Size([2, 3]), "dtype": gg.float64, "device": gg.device("cpu"), "p": p,
                        "t": gg.ones(2), "n": 3})
    assert type(back["shape"]) is gg.Size and back["shape"] == (2, 3)
    assert type(back["dtype"]) is gg.dtype and back["dtype"] == gg.float64
    assert type(back["device"]) is gg.device and back["device"].type == "cpu"
    assert isinstance(back["p"], nn.Parameter) and back["p"].requires_grad and back["p"].tolist() == [1.0, 2.0]
    assert type(back["t"]) is gg.Tensor and back["t"].tolist() == [1.0, 1.0] and back["n"] == 3


def test_defaultdict_keeps_its_type():
    counts = collections.defaultdict(int, {"x": 2})
    back = _round_trip({"counts": counts}, weights_only=False)
    assert type(back["counts"]) is collections.defaultdict and back["counts"]["x"] == 2


def test_plain_state_dict_keeps_plain_format():
    gg.manual_seed(0)
    model = nn.Linear(2, 3)
    back = _round_trip(model.state_dict())
    assert type(back) is collections.OrderedDict and list(back) == ["weight", "bias"]
    np.testing.assert_array_equal(back["weight"].numpy(), model.weight.detach().numpy())
    assert type(back["weight"]) is gg.Tensor


def test_counter_loads_under_weights_only():
    """PyTorch's weights-only allowlist holds collections.Counter (MultiStepLR's state_dict keeps its
    milestones in one), so glassgrad.load with the default weights_only=True gives it back."""
    sched_like = {"milestones": collections.Counter({3: 1, 5: 2}), "lr": gg.tensor([0.1]), "shape": gg.Size([2])}
    back = _round_trip(sched_like)
    assert type(back["milestones"]) is collections.Counter and back["milestones"] == {3: 1, 5: 2}
    assert type(back["shape"]) is gg.Size
