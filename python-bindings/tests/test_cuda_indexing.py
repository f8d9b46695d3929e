"""The CUDA indexing kernels beyond the op table's parity (test_cuda_ops.py): shapes that take the
three-axis and the general walks, many repeated indices accumulated with atomics (equal to the
CPU's in-order sums up to rounding) and in deterministic mode (the same bits every run), bounds
errors naming the value, and in-place writes of parameters in a compiled step on the GPU. Runs
on the GPU machine: pytest -m cuda."""
import numpy as np
import pytest

import glassgrad as gg
from glassgrad.testing import run_kernel

pytestmark = pytest.mark.cuda


@pytest.fixture
def deterministic():
    gg.use_deterministic_algorithms(True)
    yield
    gg.use_deterministic_algorithms(False)


def _cases(rng):
    x = rng.standard_normal((64, 300)).astype(np.float32)
    hot = rng.integers(0, 5, (64, 4000)).astype(np.int64)  # few targets, many repeats
    src = rng.standard_normal((64, 4000)).astype(np.float32)
    rows = rng.integers(0, 64, 5000).astype(np.int64)
    return [
        ("Scatter", [x, hot, src], {"dim": 1, "reduce": "add"}),
        ("Scatter", [x[:, :5].copy(), hot, src], {"dim": 1, "reduce": "add"}),
        ("IndexAdd", [x, rows, rng.standard_normal((5000, 300)).astype(np.float32)], {"dim": 0}),
        ("IndexPut", [x, rng.standard_normal((5000, 300)).astype(np.float32), rows], {"dims": [0], "accumulate": True}),
        ("Gather", [x, hot[:, :299] % 300], {"dim": 1}),
        ("IndexSelect", [x, rows], {"dim": 0}),
        ("Index", [x, rows, rows % 300], {"dims": [0, 1]}),
    ]


@pytest.mark.parametrize("k", range(7))
def test_cuda_accumulation_with_many_repeats_matches_the_cpu(k):
    op, arrays, attrs = _cases(np.random.default_rng(0))[k]
    (cpu,) = run_kernel(op, arrays, attrs, device="cpu")
    (gpu,) = run_kernel(op, arrays, attrs, device="cuda")
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(cpu).max())))


@pytest.mark.parametrize("k", range(4))
def test_deterministic_mode_gives_the_same_bits_every_run_and_the_cpus_sums(k, deterministic):
    op, arrays, attrs = _cases(np.random.default_rng(1))[k]
    (first,) = run_kernel(op, arrays, attrs, device="cuda")
    for _ in range(3):
        (again,) = run_kernel(op, arrays, attrs, device="cuda")
        np.testing.assert_array_equal(again, first)
    (cpu,) = run_kernel(op, arrays, attrs, device="cpu")  # the same order: the same float32 sums
    np.testing.assert_array_equal(first, cpu)


def test_cuda_bounds_error_names_the_value_and_the_dimension():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError, match=r"Gather: index 9 is out of bounds for dimension 1 with size 4"):
        run_kernel("Gather", [x, np.array([[0, 9], [1, 1], [2, 2]])], {"dim": 1}, device="cuda")
    with pytest.raises(IndexError, match=r"index -5 is out of bounds for dimension 0 with size 3"):
        run_kernel("Index", [x, np.array([0, -5])], {"dims": [0]}, device="cuda")


def test_compiled_handwritten_update_on_cuda_writes_parameters_in_place():
    """A hand-written SGD update (p.add_(p.grad, alpha=-lr)) in a compiled CUDA step updates the
    parameters in place, replay after replay: the same losses as the eager loop on the CPU, on one
    batch whose loss the updates lower."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    y = rng.integers(0, 4, 8)

    def run(device, compiled):
        gg.manual_seed(0)
        lin = gg.Linear(16, 4).to(device)
        ptr = lin.weight._raw().storage_ptr

        def step(xt, yt):
            loss = gg.cross_entropy(lin(xt), yt)
            loss.backward()
            with gg.no_grad():
                for p in lin.parameters():
                    p.add_(p.grad, alpha=-0.1)
                    p.grad = None
            return loss

        fn = gg.compile(step) if compiled else step
        losses = [float(fn(gg.tensor(x, device=device), gg.tensor(y, device=device))) for _ in range(6)]
        return losses, fn, lin.weight._raw().storage_ptr == ptr

    losses, step, same_storage = run("cuda", compiled=True)
    assert step.replays == 4 and same_storage
    cpu_losses, _, _ = run("cpu", compiled=False)
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-5)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("shape,dim", [((50, 7, 16), 0), ((4, 50, 32), 1), ((33, 64), 0), ((50, 3), 0), ((6, 5, 3), 1)])
def test_cuda_index_select_of_whole_rows_matches_the_cpu_bit_for_bit(dtype, shape, dim):
    """IndexSelect moves 16 bytes a thread when the rows it copies are a multiple of 16 bytes and
    both tensors are aligned (gather3_rows16), element by element otherwise; both copy exactly."""
    rng = np.random.default_rng(len(shape) * 10 + dim)
    x = (rng.standard_normal(shape) if dtype.startswith("float") else rng.integers(0, 250, shape)).astype(dtype)
    rows = rng.integers(0, shape[dim], 41).astype(np.int64)  # repeats and every order
    (cpu,) = run_kernel("IndexSelect", [x, rows], {"dim": dim}, device="cpu")
    (gpu,) = run_kernel("IndexSelect", [x, rows], {"dim": dim}, device="cuda")
    np.testing.assert_array_equal(gpu, cpu)


def test_cuda_index_select_of_whole_rows_reports_a_bad_row():
    x = np.arange(5 * 32, dtype=np.float32).reshape(5, 32)  # 128-byte rows: the 16-byte kernel
    with pytest.raises(IndexError, match=r"IndexSelect: index 7 is out of bounds for dimension 0 with size 5"):
        run_kernel("IndexSelect", [x, np.array([0, 7, 2])], {"dim": 0}, device="cuda")


def test_more_launches_than_deferred_check_slots_report_the_first_bad_index_then_rearm():
    """Each indexing launch records into a slot of the device's deferred-check arena (docs/cuda.md,
    "Deferred checks"); past its 64 slots a launch synchronizes first. The bad index of launch 70
    of 100 is reported, by value, at the synchronization, and the slots are clean after it."""
    x = gg.tensor(np.arange(40, dtype=np.float32).reshape(5, 8), device="cuda")
    good = gg.tensor(np.array([0, 4]), device="cuda")
    bad = gg.tensor(np.array([1, 6]), device="cuda")
    with pytest.raises(IndexError, match=r"index 6 is out of bounds for dimension 0 with size 5"):
        outs = [gg.index_select(x, 0, bad if i == 70 else good) for i in range(100)]
        total = outs[0]
        for o in outs[1:]:
            total = total + o
        total.cpu().numpy()
    again = gg.index_select(x, 0, good).cpu().numpy()
    np.testing.assert_array_equal(again, np.arange(40, dtype=np.float32).reshape(5, 8)[[0, 4]])
    gg.cuda.synchronize()
