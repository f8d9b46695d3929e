"""Tensor.share_memory_, Module.share_memory and pickling tensors, with torch.multiprocessing's
meaning: a shared model trained in child processes (forked or spawned) is the parent's model
(Hogwild), step for step as one process would; tensors that are not shared travel as
their values."""
import copy
import pickle

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.multiprocessing as mp
from glassgrad import nn


pytestmark = pytest.mark.usefixtures("on_the_cpu")


def _model():
    gg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _batch(step):
    rng = np.random.default_rng(step)
    # A spawned child starts with its own default device (the GPU on a GPU machine): say the CPU.
    return (gg.tensor(rng.random((5, 4), dtype=np.float32), device="cpu"),
            gg.tensor(rng.integers(0, 3, 5), device="cpu"))


def train_steps(model, first, steps):
    """SGD steps first..first+steps-1 on their own batches (run in a child process)."""
    opt = gg.optim.SGD(model.parameters(), lr=0.1)
    for step in range(first, first + steps):
        x, y = _batch(step)
        opt.zero_grad()
        gg.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()


def _values(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_share_memory_keeps_values_and_the_storage_across_steps():
    model = _model()
    before = _values(model)
    assert not any(p.is_shared() for p in model.parameters())
    assert model.share_memory() is model
    assert all(p.is_shared() and p.requires_grad and isinstance(p, nn.Parameter) for p in model.parameters())
    for a, p in zip(before, model.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), a)
    where = [p.data_ptr() for p in model.parameters()]
    train_steps(model, 0, 2)
    assert [p.data_ptr() for p in model.parameters()] == where  # updated in place, in shared memory
    assert model.share_memory() is model  # twice is the same


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_shared_model_trained_in_child_processes_is_the_parents(method):
    """Two children, one after the other (so the result is exact), each run steps on the shared
    model; the parent's model then equals the same steps run in one process."""
    model = _model().share_memory()
    reference = _model()
    ctx = mp.get_context(method)
    for first in (0, 3):
        p = ctx.Process(target=train_steps, args=(model, first, 3))
        p.start()
        p.join(timeout=120)
        assert p.exitcode == 0
    train_steps(reference, 0, 6)
    for got, want in zip(_values(model), _values(reference)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert not np.array_equal(_values(model)[0], _values(_model())[0])


def test_hogwild_children_at_once_train_the_shared_model():
    model = _model().share_memory()
    start = _values(model)
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=train_steps, args=(model, 10 * r, 5)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert all(not np.array_equal(a, b) for a, b in zip(start, _values(model)))


def add_one_to_what_arrives(q, done):
    """A running child: takes a tensor off a queue, adds 1 in place, says whether it is shared."""
    t = q.get()
    with gg.no_grad():
        t.add_(1)
    t.numpy()  # computed now
    done.put(t.is_shared())


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_shared_tensor_sent_through_a_queue_to_a_running_process_is_the_same_memory(method):
    ctx = mp.get_context(method)
    q, done = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=add_one_to_what_arrives, args=(q, done))
    p.start()
    t = gg.zeros(4).share_memory_()
    q.put(t)
    assert done.get(timeout=120) is True
    p.join(timeout=120)
    assert t.numpy().tolist() == [1.0] * 4


def write_in_place_and_exit(t, view):
    """A child that writes a shared tensor in place, through a view or not, and exits without
    reading it (multiprocessing ends a child without running its exit handlers)."""
    with gg.no_grad():
        if view:
            t[1:3].mul_(0).add_(7)
        else:
            t.add_(1)


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.parametrize("view", [False, True])
def test_an_in_place_write_in_a_child_is_seen_even_when_nothing_reads_it(method, view):
    t = gg.zeros(4).share_memory_()
    p = mp.get_context(method).Process(target=write_in_place_and_exit, args=(t, view))
    p.start()
    p.join(timeout=120)
    assert p.exitcode == 0
    assert t.numpy().tolist() == ([0.0, 7.0, 7.0, 0.0] if view else [1.0] * 4)


def test_a_clone_of_a_shared_tensor_holds_the_values_of_when_it_was_taken():
    # As PyTorch's copy: what another process writes afterwards does not reach the clone.
    w = gg.zeros(4).share_memory_()
    before, detached_before = w.clone(), w.detach().clone()
    p = mp.get_context("fork").Process(target=write_in_place_and_exit, args=(w, False))
    p.start()
    p.join(timeout=120)
    assert w.numpy().tolist() == [1.0] * 4
    assert before.numpy().tolist() == detached_before.numpy().tolist() == [0.0] * 4


def test_a_clone_of_a_shared_parameter_still_carries_gradients():
    w = nn.Parameter(np.arange(3, dtype=np.float32))
    w.share_memory_()
    (w.clone() * 2).sum().backward()
    assert w.grad.numpy().tolist() == [2.0, 2.0, 2.0]


def test_tensors_that_are_not_shared_pickle_as_their_values():
    p = nn.Parameter(gg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    t = gg.tensor(np.arange(3))
    p2, t2 = pickle.loads(pickle.dumps((p, t)))
    assert type(p2) is nn.Parameter and p2.requires_grad and not p2.is_shared()
    assert type(t2) is gg.Tensor and not t2.requires_grad and t2.dtype == "int64"
    np.testing.assert_array_equal(p2.detach().numpy(), p.detach().numpy())
    with gg.no_grad():
        p2.mul_(2)
    np.testing.assert_array_equal(p.detach().numpy(), np.arange(6).reshape(2, 3))  # a copy of its own
    model = _model()
    clone = pickle.loads(pickle.dumps(model))
    for a, b in zip(_values(model), _values(clone)):
        np.testing.assert_array_equal(a, b)
    assert copy.copy(t).numpy().tolist() == [0, 1, 2]


def test_a_computed_tensor_is_refused_with_the_fix():
    x = gg.ones(3, requires_grad=True) * 2
    with pytest.raises(gg._C.TensorStateError, match=r"share_memory_: .* only a leaf[\s\S]*fix: .*detach\(\)"):
        x.share_memory_()
