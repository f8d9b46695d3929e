"""Dense elementwise ops and optimizer updates on the CPU split one long row into pieces shared by
the threads (docs/cpu-threads.md, "Elementwise rows cut into pieces"): the values are the same bits
on 1, 2 and 3 threads, and NumPy's, for sizes around the piece boundaries (multiples of 64
elements) and the parallel threshold (65,536 elements), dense, transposed and broadcast."""
import numpy as np
import pytest

import glassgrad as gg

SIZES = [65535, 65536, 65537, 131072 + 63, 200003]


@pytest.fixture
def threads():
    before = gg.get_num_threads()
    yield gg.set_num_threads
    gg.set_num_threads(before)


def _on_threads(threads, fn):
    out = []
    for n in (1, 2, 3):
        threads(n)
        out.append(fn())
    return out


def _same_bits(results, expected):
    for r in results:
        np.testing.assert_array_equal(r, results[0])
    np.testing.assert_array_equal(results[0], expected)


@pytest.mark.parametrize("n", SIZES)
def test_dense_maps_give_numpys_values_on_any_thread_count(threads, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    ga, gb = gg.tensor(a), gg.tensor(b)
    _same_bits(_on_threads(threads, lambda: gg.relu(ga).numpy()), np.maximum(a, 0))
    _same_bits(_on_threads(threads, lambda: (ga * gb).numpy()), a * b)
    _same_bits(_on_threads(threads, lambda: (ga + 2.5).numpy()), a + np.float32(2.5))
    _same_bits(_on_threads(threads, lambda: ga.to(gg.float64).numpy()), a.astype(np.float64))


def test_transposed_and_broadcast_operands_on_any_thread_count(threads):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 70001)).astype(np.float32)
    t = rng.standard_normal((70001, 3)).astype(np.float32)
    row = rng.standard_normal(70001).astype(np.float32)
    ga, gt, grow = gg.tensor(a), gg.tensor(t), gg.tensor(row)
    _same_bits(_on_threads(threads, lambda: (ga + gt.t()).numpy()), a + t.T)
    _same_bits(_on_threads(threads, lambda: (ga * grow).numpy()), a * row)
    _same_bits(_on_threads(threads, lambda: gt.t().contiguous().numpy()), np.ascontiguousarray(t.T))


def _relu_grad(threads, a):
    def run():
        x = gg.tensor(a, requires_grad=True)
        gg.relu(x).sum().backward()
        return x.grad.numpy()
    return _on_threads(threads, run)


def test_relu_backward_on_any_thread_count(threads):
    a = np.random.default_rng(1).standard_normal(200003).astype(np.float32)
    _same_bits(_relu_grad(threads, a), (a > 0).astype(np.float32))


@pytest.mark.parametrize("make", [
    lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=1e-4),
    lambda ps: gg.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    lambda ps: gg.optim.Adam(ps, lr=1e-3),
    lambda ps: gg.optim.AdamW(ps, lr=1e-3, weight_decay=0.01),
], ids=["sgd-momentum", "sgd-nesterov", "adam", "adamw"])
def test_optimizer_updates_of_a_large_parameter_are_the_same_bits_on_any_thread_count(threads, make):
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal((512, 256, 3, 3)).astype(np.float32)  # ResNet-18's layer4.0.conv1 weight
    gw = rng.standard_normal(w0.shape).astype(np.float32)

    def run():
        p = gg.Parameter(w0.copy())
        opt = make([p])
        for _ in range(3):
            opt.zero_grad()
            (p * gg.tensor(gw)).sum().backward()
            opt.step()
        return p.detach().numpy()
    results = _on_threads(threads, run)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
