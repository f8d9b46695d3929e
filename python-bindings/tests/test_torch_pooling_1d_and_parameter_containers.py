"""1-D and adaptive max pooling (glassgrad/_pooling_1d.py) and ParameterList/ParameterDict against
PyTorch: values, gradients, printed layers, state_dict names and optimizer updates. Skipped
when torch is not importable."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

X1 = np.random.default_rng(0).standard_normal((2, 3, 11))
X2 = np.random.default_rng(1).standard_normal((2, 3, 7, 9))
CASES = [("max_pool1d", X1, (3,), {}), ("max_pool1d", X1, (3, 2, 1), {"ceil_mode": True}),
         ("max_pool1d", X1[0], (4,), {}), ("avg_pool1d", X1, (4, 2, 2), {}),
         ("avg_pool1d", X1, (3,), {"padding": 1, "count_include_pad": False, "ceil_mode": True}),
         ("adaptive_avg_pool1d", X1, (4,), {}), ("adaptive_max_pool1d", X1, (4,), {}),
         ("adaptive_max_pool1d", X1[0], (11,), {}), ("adaptive_max_pool2d", X2, ((3, None),), {}),
         ("adaptive_max_pool2d", X2[0], (4,), {}), ("adaptive_max_pool2d", X2, (1,), {})]


@pytest.mark.parametrize("name,x,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_pooling_values_and_gradients_match_torch(name, x, args, kwargs):
    a, b = gg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = getattr(F, name)(a, *args, **kwargs), getattr(TF, name)(b, *args, **kwargs)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-14)
    w = np.random.default_rng(2).standard_normal(tuple(yb.shape))
    (ya * gg.tensor(w)).sum().backward()
    (yb * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_pooling_modules_print_as_torchs_and_refuse_what_torch_refuses():
    pairs = [(nn.MaxPool1d(3), torch.nn.MaxPool1d(3)), (nn.MaxPool1d(3, 1, 1), torch.nn.MaxPool1d(3, 1, 1)),
             (nn.AvgPool1d(3), torch.nn.AvgPool1d(3)), (nn.AdaptiveAvgPool1d(4), torch.nn.AdaptiveAvgPool1d(4)),
             (nn.AdaptiveMaxPool1d(2), torch.nn.AdaptiveMaxPool1d(2)),
             (nn.AdaptiveMaxPool2d((3, None)), torch.nn.AdaptiveMaxPool2d((3, None)))]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        x = X1 if "2d" not in repr(ours) else X2
        np.testing.assert_allclose(ours(gg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-12)
    values, indices = nn.AdaptiveMaxPool2d(2, return_indices=True)(gg.tensor(X2))
    want_values, want_indices = torch.nn.AdaptiveMaxPool2d(2, return_indices=True)(torch.tensor(X2))
    np.testing.assert_array_equal(indices.numpy(), want_indices.numpy())
    np.testing.assert_allclose(values.numpy(), want_values.numpy(), rtol=1e-12)
    layer, theirs = nn.MaxPool1d(2, padding=2), torch.nn.MaxPool1d(2, padding=2)  # both build; the call refuses
    with pytest.raises(RuntimeError, match="padding should be at most half"):
        theirs(torch.tensor(X1))
    with pytest.raises(ValueError, match="pad should be at most half"):
        layer(gg.tensor(X1))


def _models():
    class Ours(nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList([nn.Parameter(gg.tensor(np.ones((2, 2)))) for _ in range(2)])
            self.d = nn.ParameterDict({"a": nn.Parameter(gg.tensor(np.zeros(3))), "b": gg.tensor(np.ones(1))})

    class Theirs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 2, dtype=torch.float64))
                                              for _ in range(2)])
            self.d = torch.nn.ParameterDict({"a": torch.nn.Parameter(torch.zeros(3, dtype=torch.float64)),
                                             "b": torch.ones(1, dtype=torch.float64)})
    return Ours(), Theirs()


def test_parameter_containers_register_name_and_train_as_torchs():
    ours, theirs = _models()
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["ws.0", "ws.1", "d.a", "d.b"]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert isinstance(ours.d["b"], nn.Parameter) and len(ours.ws) == 2 and "a" in ours.d
    assert list(ours.d.keys()) == ["a", "b"] and [tuple(p.shape) for p in ours.ws] == [(2, 2), (2, 2)]
    for m, lib in ((ours, gg), (theirs, torch)):
        opt = lib.optim.SGD(m.parameters(), lr=0.5)
        loss = sum((p * p).sum() for p in m.ws) + (m.d["a"] + 1).pow(2).sum() + m.d["b"].sum()
        loss.backward()
        opt.step()
    for k in theirs.state_dict():
        np.testing.assert_allclose(ours.state_dict()[k], theirs.state_dict()[k].numpy())
    ours.ws.append(gg.tensor(np.ones(1)))
    ours.ws[0] = gg.tensor(np.zeros((1,)))
    assert len(ours.ws) == 3 and tuple(ours.ws[0].shape) == (1,) and isinstance(ours.ws[0], nn.Parameter)
    assert ours.d.pop("b") is not None and list(ours.d) == ["a"] and "d.b" not in ours.state_dict()
    with pytest.raises(IndexError):
        ours.ws[3]


def test_parameter_containers_print_in_torchs_layout():
    ours, theirs = _models()
    # PyTorch's lines with glassgrad's type names in place of torch's
    want = repr(theirs).replace("torch.float64", "glassgrad.float64").replace("torch.DoubleTensor",
                                                                            "glassgrad.DoubleTensor")
    assert repr(ours).replace("Ours", "Theirs") == want
