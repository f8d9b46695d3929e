"""torch.onnx.export(..., opset_version=11 or 12), as many export scripts and tests pass (DETR's
test_all.py exports at 12): PyTorch's exporter exports at the oldest opset it has, with a warning,
when onnx cannot convert the model down; glassgrad exports at MIN_OPSET (13) with a UserWarning
instead of refusing the argument (docs/export.md)."""
import io

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.onnx as go
from glassgrad import nn

onnx = pytest.importorskip("onnx")


def _model():
    gg.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(4, 2), nn.Softmax(dim=1)).eval()


@pytest.mark.parametrize("opset", [7, 9, 11, 12])
def test_an_older_opset_exports_at_the_oldest_glassgrad_has_with_a_warning(opset):
    model, x = _model(), gg.tensor(np.random.default_rng(0).standard_normal((1, 3, 8, 8)).astype(np.float32))
    buffer = io.BytesIO()
    with pytest.warns(UserWarning, match=f"requested opset_version {opset} is a lower version than we have "
                                         f"implementations for.*opset {go.MIN_OPSET}"):
        go.export(model, (x,), buffer, opset_version=opset, input_names=["x"], output_names=["y"])
    proto = onnx.load_from_string(buffer.getvalue())
    assert [(o.domain, o.version) for o in proto.opset_import] == [("", go.MIN_OPSET)]
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(buffer.getvalue())
    (y,) = session.run(None, {"x": x.numpy()})
    np.testing.assert_allclose(y, model(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_the_torch_alias_takes_it_too():
    import glassgrad.torch as torch
    with pytest.warns(UserWarning, match="opset_version 12 is a lower version"):
        proto = torch.onnx.export(_model(), (torch.randn(1, 3, 8, 8),), None, opset_version=12)
    assert proto.opset_import[0].version == go.MIN_OPSET
