"""load_state_dict(sd, assign=True) puts the given tensors in place, as PyTorch's does: a tensor
entry of a buffer becomes the buffer itself; of a Parameter, a Parameter entry becomes the
parameter itself (its requires_grad set to the old parameter's) and any other tensor is wrapped
in a Parameter sharing its memory (so training the model writes the entry and the model it came
from); NumPy entries have no memory to share and become new tensors of their values. Nothing is
put in place when an entry is refused."""
import numpy as np
import pytest

import glassgrad as gg


def test_a_tensor_entry_of_a_parameter_is_wrapped_sharing_its_memory():
    m = gg.nn.Linear(2, 3)
    w, b = gg.ones(3, 2), gg.zeros(3)
    m.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert type(m.weight) is gg.nn.Parameter and m.weight.requires_grad and m.weight is not w
    assert m.weight.data_ptr() == w.data_ptr()
    with gg.no_grad():
        m.weight.mul_(2.0)
    np.testing.assert_array_equal(w.numpy(), np.full((3, 2), 2.0, np.float32))
    assert not w.requires_grad  # the entry itself is left as it was


def test_a_parameter_entry_becomes_the_parameter_with_the_old_requires_grad():
    m = gg.nn.Linear(2, 3)
    m.weight.requires_grad_(False)
    p, q = gg.nn.Parameter(gg.ones(3, 2)), gg.nn.Parameter(gg.zeros(3))
    m.load_state_dict({"weight": p, "bias": q}, assign=True)
    assert m.weight is p and m.bias is q
    assert not p.requires_grad and q.requires_grad


def test_a_buffer_entry_is_the_buffer_itself_and_training_updates_it():
    bn = gg.nn.BatchNorm1d(3)
    sd = bn.state_dict()
    rm = gg.ones(3)
    sd["running_mean"] = rm
    bn.load_state_dict(sd, assign=True)
    assert bn.running_mean is rm and bn.num_batches_tracked is sd["num_batches_tracked"]
    x = np.array([[1.0, 2.0, 3.0], [3.0, 6.0, 5.0]], np.float32)
    bn(gg.tensor(x))
    np.testing.assert_allclose(rm.numpy(), 0.9 * 1.0 + 0.1 * x.mean(0), rtol=1e-6)
    assert int(sd["num_batches_tracked"].item()) == 1


def test_training_after_assign_writes_the_source_model():
    src, m = gg.nn.Linear(2, 1), gg.nn.Linear(2, 1)
    before = src.weight.detach().numpy().copy()
    m.load_state_dict(src.state_dict(), assign=True)
    opt = gg.optim.SGD(m.parameters(), lr=0.5)
    m(gg.ones(1, 2)).sum().backward()
    opt.step()
    np.testing.assert_allclose(src.weight.detach().numpy(), before - 0.5, rtol=1e-6)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())


def test_an_old_one_element_entry_of_a_0d_buffer_is_its_element():
    bn = gg.nn.BatchNorm1d(2)
    sd = dict(bn.state_dict())
    sd["num_batches_tracked"] = gg.tensor([7])
    bn.load_state_dict(sd, assign=True)
    assert bn.num_batches_tracked.shape == () and int(bn.num_batches_tracked.item()) == 7


def test_numpy_entries_are_new_tensors_in_their_dtype():
    m = gg.nn.Linear(2, 3)
    w = np.ones((3, 2), np.float64)
    m.load_state_dict({"weight": w, "bias": np.zeros(3, np.float32)}, assign=True)
    assert type(m.weight) is gg.nn.Parameter and m.weight.dtype == gg.float64
    w[0, 0] = 5.0
    assert m.weight[0, 0].item() == 1.0


def test_a_refused_entry_leaves_the_model_and_the_entries_unchanged():
    m = gg.nn.Linear(2, 3)
    old_w, old_rg = m.weight, m.weight.requires_grad
    p = gg.nn.Parameter(gg.ones(3, 2), requires_grad=True)
    m.weight.requires_grad_(False)
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        m.load_state_dict({"weight": p, "bias": gg.zeros(4)}, assign=True)
    assert m.weight is old_w and p.requires_grad and old_rg


def test_an_integer_tensor_for_a_trainable_parameter_is_refused():
    m = gg.nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match="floating point"):
        m.load_state_dict({"weight": gg.ones(3, 2, dtype=gg.int64), "bias": gg.zeros(3)}, assign=True)


def test_as_torch():
    """Which entries are the model's tensors, and whether a training step on the loaded model
    moves the source model's weight, running mean and count: PyTorch's answers."""
    torch = pytest.importorskip("torch")
    log = {}
    for lib in (torch, gg):
        src = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        sd = src.state_dict()
        before = [np.array(t.detach().tolist()) for t in (src[0].weight, src[1].running_mean)]
        m.load_state_dict(sd, assign=True)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        m(lib.tensor([[1.0, 2.0], [3.0, 5.0]])).pow(2).sum().backward()
        opt.step()
        after = [np.array(t.detach().tolist()) for t in (src[0].weight, src[1].running_mean)]
        log[lib.__name__] = ([m[0].weight is sd["0.weight"], m[1].running_mean is sd["1.running_mean"],
                              type(m[0].weight).__name__, m[0].weight.requires_grad],
                             [not np.array_equal(a, b) for a, b in zip(before, after)],
                             int(src[1].num_batches_tracked.item()))
    assert log["glassgrad"] == log["torch"] == ([False, True, "Parameter", True], [True, True], 1)
