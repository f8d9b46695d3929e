"""One gradient reaching several leaves (w + b: both get the same values; an LSTM's bias_ih and
bias_hh) gives each leaf a .grad of its own, as PyTorch's AccumulateGrad copies a gradient that is
held elsewhere: an in-place update of one .grad changes no other, and per-parameter updates in one
step (the sequence-labeling tutorial's clip_gradient, `p.grad.data.clamp_(-c, c)` for each
parameter, then optimizer.step()) run, where they were refused as a read after an in-place write
of the one shared value."""
import numpy as np

import glassgrad as gg

SCALE = [1.0, 2.0, 3.0, 10.0]


def _shared():
    w = gg.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
    b = gg.tensor([1.0, 1.0, -3.0, 4.0], requires_grad=True)
    ((w + b) * gg.tensor(SCALE)).sum().backward()
    return w, b


def test_each_leaf_holds_its_own_gradient():
    w, b = _shared()
    np.testing.assert_array_equal(w.grad.numpy(), SCALE)
    np.testing.assert_array_equal(b.grad.numpy(), SCALE)
    assert w.grad.data_ptr() != b.grad.data_ptr()
    w.grad.mul_(2)
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0, 6.0, 20.0])
    np.testing.assert_array_equal(b.grad.numpy(), SCALE)


def test_in_place_updates_of_both_gradients_in_one_step_after_reading_them():
    w, b = _shared()
    w.grad.numpy(), b.grad.numpy()  # realized before the updates, as a script printing them
    optimizer = gg.optim.SGD([w, b], lr=0.1, momentum=0.9)
    for p in (w, b):
        p.grad.data.clamp_(-5, 5)
    optimizer.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.4, -1.2, 1.7, -0.5], rtol=1e-6)
    np.testing.assert_allclose(b.detach().numpy(), [0.9, 0.8, -3.3, 3.5], rtol=1e-6)


def test_lstm_biases_clipped_one_by_one_then_stepped():
    gg.manual_seed(0)
    lstm = gg.nn.LSTM(3, 4, batch_first=True)
    out, _ = lstm(gg.randn(2, 5, 3))
    (out * 10).sum().backward()
    before = {n: p.grad.numpy().copy() for n, p in lstm.named_parameters()}
    np.testing.assert_array_equal(before["bias_ih_l0"], before["bias_hh_l0"])
    start = {n: p.detach().numpy().copy() for n, p in lstm.named_parameters()}
    optimizer = gg.optim.SGD(lstm.parameters(), lr=0.5)
    for p in lstm.parameters():
        p.grad.data.clamp_(-0.25, 0.25)
    optimizer.step()
    for name, p in lstm.named_parameters():
        expected = start[name] - 0.5 * np.clip(before[name], -0.25, 0.25)
        np.testing.assert_allclose(p.detach().numpy(), expected, rtol=1e-5, atol=1e-7, err_msg=name)
