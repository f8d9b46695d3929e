"""End to end on the CPU: a tiny CNN's whole-model gradients against float64 finite differences,
and a short training run on real data (Fashion-MNIST) whose loss falls and whose accuracy is far
above chance."""
import os

import numpy as np
import pytest

import glassgrad as gg


class TinyCNN(gg.Module):
    """[N, 1, 6, 6] -> conv 3x3 pad 1 -> BN -> relu -> max pool 2 -> [N, 3, 3, 3] -> conv 2x2 ->
    relu -> avg pool 1 -> [N, 4, 2, 2] -> flatten -> linear -> [N, 3]."""

    def __init__(self):
        super().__init__()
        self.conv1 = gg.Conv2D(1, 3, 3, padding=1)
        self.bn1 = gg.BatchNorm2D(3)
        self.conv2 = gg.Conv2D(3, 4, 2)
        self.fc = gg.Linear(4 * 2 * 2, 3)

    def forward(self, x):
        x = gg.max_pool2d(gg.relu(self.bn1(self.conv1(x))), 2)
        x = gg.avg_pool2d(gg.relu(self.conv2(x)), 1)
        return self.fc(gg.flatten(x))


def _tiny_model_and_data():
    gg.manual_seed(5)
    model = TinyCNN().double()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 1, 6, 6))
    y = np.array([0, 2, 1, 2], dtype=np.int64)
    return model, x, y


def _loss(model, x, y):
    return gg.cross_entropy(model(gg.tensor(x)), gg.tensor(y))


def test_whole_model_gradients_match_finite_differences():
    model, x, y = _tiny_model_and_data()
    _loss(model, x, y).backward()
    eps = 1e-6
    for name, p in model.named_parameters():
        analytic = p.grad.numpy()
        base = p.detach().numpy().copy()
        numeric = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            for sign in (1, -1):
                w = base.copy()
                w[idx] += sign * eps
                model.load_state_dict({name: w}, strict=False)
                numeric[idx] += sign * _loss(model, x, y).item() / (2 * eps)
        model.load_state_dict({name: base}, strict=False)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7, err_msg=name)


def test_backward_graph_has_explicit_conv_backward_nodes():
    model, x, y = _tiny_model_and_data()
    loss = _loss(model, x, y)
    loss.backward()
    text = model.conv1.weight.grad._h.pending_graph()
    lines = text.splitlines()
    assert any("Conv2DBackwardWeight" in l and "# conv1 (backward)" in l for l in lines), text
    # conv2's input leads back to conv1, so its gradient is a node ...
    assert any("Conv2DBackwardInput" in l and "# conv2 (backward)" in l for l in lines), text
    # ... but the image fed to conv1 needs none: no Conv2DBackwardInput for conv1.
    assert not any("Conv2DBackwardInput" in l and "# conv1 " in l for l in lines), text


FASHION = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(not os.path.isdir(FASHION), reason="Debian's dataset-fashion-mnist is not installed")
def test_short_real_data_run_learns():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "train_mnist", os.path.join(os.path.dirname(__file__), "..", "..", "examples-and-tutorials", "train_mnist.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    gg.manual_seed(0)
    X, y, X_test, y_test = gg.data.load_fashion_mnist()
    model = mod.SimpleCNN()
    opt = gg.SGD(model.parameters(), lr=0.01)
    Xt = gg.tensor(X[:9600].astype(np.float32) / 255.0)
    yt = gg.tensor(y[:9600])
    losses = []
    for i in range(0, 9600, 32):   # 300 steps
        loss = gg.cross_entropy(model(Xt[i:i + 32]), yt[i:i + 32])
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    acc = mod.evaluate(model, gg.tensor(X_test[:2000].astype(np.float32) / 255.0), gg.tensor(y_test[:2000]))
    assert np.mean(losses[-30:]) < 0.7 * np.mean(losses[:30])
    assert acc > 0.6, acc   # chance is 0.1
