"""torchvision.models.feature_extraction.create_feature_extractor, with nodes named as torchvision's
fx tracer names them: a submodule's qualified name (its output; a container's is its last node's),
and '<name>_k' for the k-th further call of a module (BasicBlock's second ReLU is
'layer1.0.relu_1'). Without torch: the outputs against the model's layers run by hand, the early
stop, train/eval nodes and the errors. With torchvision installed: the same outputs, names and
order as torchvision's extractor from the same weights."""
from collections import OrderedDict

import numpy as np
import pytest

import glassgrad as gg
from glassgrad import nn
from glassgrad.vision import models
from glassgrad.vision.models.feature_extraction import create_feature_extractor


def _image(seed=0, side=64):
    return gg.tensor(np.random.RandomState(seed).randn(2, 3, side, side).astype(np.float32))


def test_module_nodes_and_numbered_calls():
    gg.manual_seed(0)
    model = models.resnet18().eval()
    extractor = create_feature_extractor(model, {"layer2": "feat2", "layer1.0.relu_1": "block", "maxpool": "stem"})
    x = _image()
    with gg.no_grad():
        out = extractor(x)
        stem = model.maxpool(model.relu(model.bn1(model.conv1(x))))
        block = model.layer1[0](stem)  # its second ReLU is the block's output
        feat2 = model.layer2(model.layer1(stem))
    assert isinstance(out, OrderedDict) and list(out) == ["stem", "block", "feat2"]  # the model's order
    for name, want in (("stem", stem), ("block", block), ("feat2", feat2)):
        np.testing.assert_array_equal(out[name].numpy(), want.numpy())
    # a list names the outputs by the nodes; the extractor shares the model's layers
    assert list(create_feature_extractor(model, ["layer1", "avgpool"])(x)) == ["layer1", "avgpool"]
    assert extractor.layer1 is model.layer1 and extractor.conv1.weight is model.conv1.weight


def test_the_layers_after_the_last_node_do_not_run():
    ran = []

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 2)
            self.b.register_forward_pre_hook(lambda *args: ran.append("b"))

        def forward(self, x):
            return self.b(self.a(x).relu())

    extractor = create_feature_extractor(Net(), ["a"])
    assert tuple(extractor(gg.randn(3, 4))["a"].shape) == (3, 4) and ran == []


def test_train_and_eval_nodes():
    model = models.resnet18()
    extractor = create_feature_extractor(model, train_return_nodes=["layer1"], eval_return_nodes=["layer2"])
    assert list(extractor(_image(side=32))) == ["layer1"] and model.training
    extractor.eval()
    assert not model.training and not model.layer1.training
    assert list(extractor(_image(side=32))) == ["layer2"]


def test_errors():
    model = models.resnet18()
    with pytest.raises(ValueError, match="(?s)node: 'layer1.0.add' is not present in model.*functional calls"):
        create_feature_extractor(model, ["layer1.0.add"])
    with pytest.raises(ValueError, match="not present"):
        create_feature_extractor(model, ["layer9"])
    with pytest.raises(ValueError, match="Either `return_nodes`"):
        create_feature_extractor(model)
    with pytest.raises(ValueError, match="both should be specified"):
        create_feature_extractor(model, train_return_nodes=["layer1"])
    extractor = create_feature_extractor(model, ["layer1.0.relu_5"])  # a module, called fewer times
    with pytest.raises(ValueError, match=r"\['layer1.0.relu_5'\] were not reached"):
        extractor(_image(side=32))


@pytest.mark.parametrize("name,nodes", [
    ("resnet18", {"layer1": "f1", "layer3": "f3", "layer2.0.relu_1": "r", "maxpool": "m"}),
    ("resnet50", ["layer4.2.relu_2", "layer2", "fc"]),
    ("mobilenet_v3_small", ["features.3", "avgpool", "features.12", "classifier.0"]),
])
def test_matches_torchvision(name, nodes):
    torch = pytest.importorskip("torch")
    tv_models = pytest.importorskip("torchvision.models")
    tv_extraction = pytest.importorskip("torchvision.models.feature_extraction")
    torch.manual_seed(0)
    theirs = getattr(tv_models, name)().eval()
    ours = getattr(models, name)().eval()
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.RandomState(0).randn(1, 3, 64, 64).astype(np.float32)
    with torch.no_grad():
        expected = tv_extraction.create_feature_extractor(theirs, nodes)(torch.from_numpy(x))
    with gg.no_grad():
        got = create_feature_extractor(ours, nodes)(gg.tensor(x))
    assert list(got) == list(expected)
    for k in expected:
        e = expected[k].numpy()
        assert np.abs(got[k].numpy() - e).max() <= 1e-5 * max(np.abs(e).max(), 1e-6), k
