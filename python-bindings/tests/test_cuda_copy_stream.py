"""Host-to-device copies of NumPy data on the copy stream (core-runtime/src/cuda/copy_stream.cpp):
the data staged in pinned memory is copied while the GPU still runs earlier work, and every
tensor holds its own values whatever is queued, however many copies are in flight and whatever
their sizes. These tests run on a GPU machine."""
import numpy as np
import pytest

import glassgrad as gg

pytestmark = pytest.mark.cuda


def _busy(n=1024, rounds=8):
    """Queues a chain of matmuls on the GPU (realized: launched, and nothing waits for it) and
    returns its result."""
    a = gg.tensor(np.full((n, n), 1e-3, np.float32), device="cuda")
    for _ in range(rounds):
        a = a @ a
    gg._C.lazy_realize([a._h])
    return a


def test_many_copies_in_flight_each_keep_their_values():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((64, 3, 32, 32)).astype(np.float32) for _ in range(7)]
    busy = _busy()
    tensors = [gg.tensor(a, device="cuda") for a in arrays]  # more copies than landing buffers
    sums = [(t * 2.0).sum() for t in tensors]  # queued work reading each copy
    for a, t, s in zip(arrays, tensors, sums):
        np.testing.assert_array_equal(t.cpu().numpy(), a)
        assert s.item() == pytest.approx(float((a.astype(np.float64) * 2).sum()), rel=1e-4, abs=1e-2)
    busy.cpu().numpy()


def test_copies_of_growing_and_shrinking_sizes():
    rng = np.random.default_rng(1)
    busy = _busy()
    arrays = [rng.integers(0, 1000, size=n).astype(np.int64) for n in (10, 100_000, 3, 1_000_000, 7, 250_000)]
    tensors = [gg.tensor(a, device="cuda") for a in arrays]
    for a, t in zip(arrays, tensors):
        np.testing.assert_array_equal(t.cpu().numpy(), a)
    busy.cpu().numpy()


def test_the_source_array_may_change_right_after_the_copy():
    busy = _busy()
    a = np.arange(4096, dtype=np.float32)
    t = gg.tensor(a, device="cuda")
    a[:] = -1.0  # the data was staged when the tensor was made
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(4096, dtype=np.float32))
    busy.cpu().numpy()


def test_a_plain_loop_with_new_numpy_batches_each_step_matches_the_cpu():
    rng = np.random.default_rng(2)
    batches = [(rng.standard_normal((16, 8)).astype(np.float32), rng.integers(0, 3, 16)) for _ in range(6)]
    losses = {}
    for device in ("cpu", "cuda"):
        gg.manual_seed(0)
        model = gg.Sequential(gg.Linear(8, 32), gg.ReLU(), gg.Linear(32, 3)).to(device)
        opt = gg.SGD(model.parameters(), lr=0.1, momentum=0.9)
        out = []
        for x, y in batches:
            loss = gg.cross_entropy(model(gg.tensor(x, device=device)), gg.tensor(y, device=device))
            loss.backward()
            opt.step()
            opt.zero_grad()
            out.append(loss)  # read at the end: the steps queue up behind each other
        losses[device] = [loss.item() for loss in out]
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-4, atol=1e-5)
