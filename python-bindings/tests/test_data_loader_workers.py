"""DataLoader worker processes: ordered results, per-worker seeds and WorkerInfo,
worker_init_fn, persistent workers, iterable data sets, and the bad cases: a worker that raises,
one that is killed, one that hangs past `timeout`, and Ctrl-C: clear errors naming the worker and
the index, no hang, no process or shared-memory block left behind."""
import gc
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import glassgrad as gg
from glassgrad.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

HERE = os.path.dirname(os.path.abspath(__file__))
# The glassgrad this test imported (the installed package in CI, the working tree with
# PYTHONPATH in development): child interpreters must import the same one.
BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))


class Numbered(Dataset):
    """Sample i: an image-sized array filled with i (so batches travel through shared memory),
    the label i, which worker made it and draws from its generators."""

    def __init__(self, n=24, size=(3, 48, 48)):
        self.n, self.size = n, size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = get_worker_info()
        return {"x": np.full(self.size, i, np.float32), "y": i, "worker": -1 if info is None else info.id,
                "np": np.random.randint(1 << 30), "py": random.randrange(1 << 30),
                "gg": int(gg._random.generator().integers(1 << 30))}


class Failing(Dataset):
    def __init__(self, mode, bad=9):
        self.mode, self.bad = mode, bad

    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == self.bad:
            if self.mode == "raise":
                raise ValueError(f"sample {i} is damaged")
            if self.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "hang":
                time.sleep(600)
            if self.mode == "shape":
                return np.zeros((3, 5), np.float32)
            if self.mode == "cuda":
                return gg.zeros(3, device="cuda")
        return np.zeros((3, 4), np.float32)


def _children():
    """PIDs of this process's live children (Linux /proc), but multiprocessing's helpers (the
    resource tracker and the fork server: one each for the whole run)."""
    me, out = str(os.getpid()), []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z" and b"resource_tracker" not in cmd and b"forkserver" not in cmd:
            out.append(int(pid))
    return out


def _blocks():
    return [n for n in os.listdir("/dev/shm") if n.startswith("gg_dl_")] if os.path.isdir("/dev/shm") else []


@pytest.fixture
def no_leftovers():
    before = set(_children())
    blocks_before = set(_blocks())  # a block an earlier, killed run left behind is not this test's
    yield
    gc.collect()  # an exception kept by pytest.raises holds the iterator, as it would in any program
    for _ in range(50):  # workers end within a moment of the loop's end
        if set(_children()) <= before:
            break
        time.sleep(0.1)
    assert set(_children()) <= before, "DataLoader workers outlived their loop"
    assert not [b for b in _blocks() if b.startswith("gg_dl_") and b not in blocks_before
                and int(b.split("_")[2]) not in before and not os.path.exists(f"/proc/{b.split('_')[2]}")]


def test_batches_arrive_in_order_from_round_robin_workers(no_leftovers):
    loader = DataLoader(Numbered(22), batch_size=4, num_workers=2)
    got = list(loader)
    assert [b["y"].numpy().tolist() for b in got] == [list(range(i, min(i + 4, 22))) for i in range(0, 22, 4)]
    assert [int(b["worker"].numpy()[0]) for b in got] == [0, 1, 0, 1, 0, 1]
    for b in got:
        np.testing.assert_array_equal(b["x"].numpy()[:, 0, 0, 0], b["y"].numpy().astype(np.float32))
        assert isinstance(b["x"], gg.Tensor) and b["x"].shape[1:] == (3, 48, 48)


@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
def test_same_batches_as_num_workers_zero(no_leftovers):
    ds = Numbered(13, size=(2, 5))
    plain = [(b["x"].numpy(), b["y"].numpy()) for b in DataLoader(ds, batch_size=3)]
    parallel = [(b["x"].numpy(), b["y"].numpy()) for b in DataLoader(ds, batch_size=3, num_workers=3)]
    for (a, b), (c, d) in zip(plain, parallel):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_each_worker_is_seeded_with_base_seed_plus_its_id(no_leftovers):
    seeds = []

    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 2 and isinstance(info.dataset, Numbered)

    gg.manual_seed(7)
    a = list(DataLoader(Numbered(8, (1,)), batch_size=2, num_workers=2, worker_init_fn=init))
    gg.manual_seed(7)
    b = list(DataLoader(Numbered(8, (1,)), batch_size=2, num_workers=2))
    for key in ("np", "py", "gg"):
        first = [v for batch in a for v in batch[key].numpy().tolist()]
        assert first == [v for batch in b for v in batch[key].numpy().tolist()]  # manual_seed repeats the run
        worker0, worker1 = first[0:2] + first[4:6], first[2:4] + first[6:8]
        assert worker0 != worker1  # the two workers draw different numbers
        seeds.append(first)
    gg.manual_seed(8)
    c = list(DataLoader(Numbered(8, (1,)), batch_size=2, num_workers=2))
    assert [v for batch in c for v in batch["np"].numpy().tolist()] != seeds[0]


def test_worker_info_seed_and_main_process_none(no_leftovers):
    assert get_worker_info() is None

    class Seeds(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = get_worker_info()
            return info.seed - info.id, info.id

    base = [b[0].numpy().tolist() for b in DataLoader(Seeds(), batch_size=1, num_workers=2)]
    assert len(set(v[0] for v in base)) == 1  # seed = base_seed + worker id


def test_worker_info_is_read_only():
    info = gg.utils.data.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    with pytest.raises(RuntimeError, match="Cannot assign attributes"):
        info.id = 2
    # PyTorch 2.14's WorkerInfo is a frozen dataclass: dataclasses.FrozenInstanceError (AttributeError)
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.seed = 4
    with pytest.raises(AttributeError):
        info.dataset = []
    assert info.id == 0 and info.seed == 3


def test_iterable_dataset_split_by_worker_info(no_leftovers):
    class Shards(IterableDataset):
        def __iter__(self):
            info = get_worker_info()
            return iter(range(info.id, 10, info.num_workers))

    values = sorted(v for b in DataLoader(Shards(), batch_size=2, num_workers=2) for v in b.numpy().tolist())
    assert values == list(range(10))


def test_iterable_dataset_without_split_is_duplicated_per_worker(no_leftovers):
    class Same(IterableDataset):
        def __iter__(self):
            return iter(range(3))
    values = sorted(v for b in DataLoader(Same(), batch_size=None, num_workers=2) for v in [int(b)])
    assert values == [0, 0, 1, 1, 2, 2]


def test_persistent_workers_serve_several_epochs_with_the_same_processes(no_leftovers):
    class Pid(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return os.getpid(), i
    loader = DataLoader(Pid(), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b[0].numpy().tolist() for b in loader]
    second = [b[0].numpy().tolist() for b in loader]
    assert first == second
    partial = iter(loader)
    next(partial)  # an abandoned epoch: the next one starts clean
    assert [b[1].numpy().tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    del loader, partial


def test_a_worker_exception_is_raised_naming_worker_and_index(no_leftovers):
    with pytest.raises(ValueError, match=r"Caught ValueError in DataLoader worker process 0 while fetching index 9"
                                         r"[\s\S]*sample 9 is damaged"):
        list(DataLoader(Failing("raise"), batch_size=4, num_workers=2))


def test_an_exception_class_that_cannot_be_pickled_arrives_as_runtime_error(no_leftovers):
    """A data set's own exception class defined inside a function cannot travel between
    processes: the training process raises RuntimeError with the worker's message instead."""
    class LocalError(Exception):
        pass

    class Raising(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            if i == 5:
                raise LocalError(f"sample {i} is unreadable")
            return np.zeros(2, np.float32)

    with pytest.raises(RuntimeError, match=r"Caught LocalError in DataLoader worker process 1 while fetching "
                                           r"index 5[\s\S]*sample 5 is unreadable"):
        list(DataLoader(Raising(), batch_size=4, num_workers=2))


def test_breaking_out_of_an_epoch_of_large_inline_batches_stops_the_workers(no_leftovers):
    """Batches just under the shared-memory threshold travel inside the messages, and more of
    them wait than the result pipe holds (40 x 60 KiB): leaving the loop still stops every worker."""
    class Big(Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            return np.full(15 * 1024, i, np.float32)  # 60 KiB a sample, a batch of one each

    loader = DataLoader(Big(), batch_size=1, num_workers=2, prefetch_factor=20)
    for k, batch in enumerate(loader):
        assert batch.numpy()[0, 0] == k
        if k == 1:
            time.sleep(0.5)  # the workers fill their prefetch while the loop is busy
        if k == 2:
            break


def test_a_worker_error_in_worker_init_fn_is_raised(no_leftovers):
    def init(worker_id):
        raise OSError("cannot open the data base")
    with pytest.raises(OSError, match=r"worker process \d while starting it[\s\S]*cannot open the data base"):
        list(DataLoader(Numbered(4), batch_size=2, num_workers=2, worker_init_fn=init))


def test_mismatched_shapes_in_a_worker_name_the_index(no_leftovers):
    with pytest.raises(gg.ShapeError, match=r"worker process 0 while fetching index 9 \(entry 1 of the batch "
                                            r"\[8, 9, 10, 11\]\)"):
        list(DataLoader(Failing("shape"), batch_size=4, num_workers=2))


def test_a_killed_worker_ends_the_loop_with_a_clear_error(no_leftovers):
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly: worker 0 "
                                           r"\(pid \d+, killed by signal 9\)"):
        list(DataLoader(Failing("kill"), batch_size=4, num_workers=2))


def test_a_hung_worker_times_out_naming_the_worker_and_indices(no_leftovers):
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 1.5 seconds waiting for batch 2 from worker 0 "
                                           r"\(pid \d+\)[\s\S]*\[8, 9, 10, 11\]"):
        list(DataLoader(Failing("hang"), batch_size=4, num_workers=2, timeout=1.5))


def test_cuda_in_a_worker_is_refused_with_the_fix(no_leftovers):
    with pytest.raises(gg.DeviceError, match=r"DataLoader worker \d may not use CUDA[\s\S]*x.to\(device\)"):
        list(DataLoader(Failing("cuda"), batch_size=4, num_workers=2))


def test_workers_fork_safely_after_the_thread_pool_started(no_leftovers):
    """The training process ran multi-threaded kernels first; workers then run glassgrad ops on
    their own thread (no deadlock on the parent's OpenMP threads)."""
    x = gg.tensor(np.random.default_rng(0).random((256, 256)).astype(np.float32), device="cpu")
    (x @ x).numpy()

    class Ops(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            t = gg.tensor(np.full((64, 64), float(i), np.float32), device="cpu")
            return (t @ t).numpy()[0, 0], gg._C.get_num_threads()

    got = list(DataLoader(Ops(), batch_size=2, num_workers=2, timeout=60))
    assert [b[0].numpy().tolist() for b in got] == [[0.0, 64.0], [256.0, 576.0]]
    assert all(b[1].numpy().tolist() == [1, 1] for b in got)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_spawn_and_forkserver_contexts_work(method, no_leftovers):
    loader = DataLoader(gg.utils.data.TensorDataset(np.arange(10)), batch_size=4, num_workers=2,
                        multiprocessing_context=method)
    assert [b[0].numpy().tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


_INTERRUPTED = textwrap.dedent("""
    import os, signal, sys, time
    import numpy as np
    # Ctrl-C as a terminal delivers it: a test suite started in the background by a shell without
    # job control (`pytest ... &`) passes SIGINT on as ignored, and Python then keeps it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from glassgrad.utils.data import DataLoader, Dataset

    class Slow(Dataset):
        def __len__(self):
            return 1000
        def __getitem__(self, i):
            time.sleep(0.05)
            return np.zeros(4, np.float32)

    loader = DataLoader(Slow(), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    try:  # the line tells the test to send SIGINT: it may arrive as soon as the line is written
        print("workers", " ".join(str(w.pid) for w in it._workers), flush=True)
        for _ in it:
            pass
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise
""")


def _wait_gone(pids, seconds=20.0):
    deadline = time.time() + seconds
    while time.time() < deadline:
        alive = [p for p in pids if os.path.exists(f"/proc/{p}") and "Z" not in open(f"/proc/{p}/stat").read().split()[2]]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["sigint", "sigkill"])
def test_ctrl_c_or_a_killed_main_process_leaves_no_orphans(how):
    env = dict(os.environ, PYTHONPATH=BINDINGS + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, "-c", _INTERRUPTED], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, start_new_session=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("workers"), line + p.stderr.read()
        workers = [int(x) for x in line.split()[1:]]
        if how == "sigint":
            os.killpg(p.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
        else:
            p.kill()
        p.wait(timeout=60)
        assert not _wait_gone(workers), "workers outlived the training process"
        if how == "sigint":
            assert p.returncode != 0 and "interrupted" in p.stdout.read()
    finally:
        if p.poll() is None:
            p.kill()
    assert not [b for b in _blocks() if b.split("_")[2] in map(str, workers)]


@pytest.mark.cuda
def test_a_tensor_dataset_on_the_gpu_is_refused_in_workers_and_loads_without(no_leftovers):
    x = gg.tensor(np.arange(12, dtype=np.float32).reshape(6, 2), device="cuda")
    ds = gg.utils.data.TensorDataset(x)
    with pytest.raises(gg.DeviceError, match=r"TensorDataset holds a tensor on cuda:0[\s\S]*num_workers=0"):
        list(DataLoader(ds, batch_size=2, num_workers=2))
    batches = list(DataLoader(ds, batch_size=4))
    assert batches[0][0].device == "cuda:0" and batches[1][0].cpu().numpy().tolist() == [[8.0, 9.0], [10.0, 11.0]]


class _TVSamples(gg.utils.data.Dataset):
    def __getitem__(self, i):
        from glassgrad.vision import tv_tensors
        return (tv_tensors.Image(gg.full((3, 2, 2), float(i))),
                tv_tensors.BoundingBoxes([[0, 0, i + 1, 1]], format="XYXY", canvas_size=(2, 5)))

    def __len__(self):
        return 3


def test_tensor_subclasses_keep_their_type_and_metadata_through_workers():
    """A worker's tv_tensors come back as themselves (type, format, canvas_size), as PyTorch's
    pickling keeps tensor subclasses; plain tensors still travel as raw bytes."""
    from glassgrad.vision import tv_tensors
    for loader in (DataLoader(_TVSamples(), batch_size=None, num_workers=2),
                   DataLoader(_TVSamples(), batch_size=2, num_workers=1, collate_fn=lambda b: list(zip(*b)))):
        seen = []
        for sample in loader:
            images, boxes = ([sample[0]], [sample[1]]) if loader.batch_size is None else sample
            for img, box in zip(images, boxes):
                assert type(img) is tv_tensors.Image and type(box) is tv_tensors.BoundingBoxes
                assert tuple(box.canvas_size) == (2, 5) and "XYXY" in str(box.format)
                seen.append((float(img.numpy()[0, 0, 0]), box.tolist()[0][2]))
        assert sorted(seen) == [(0.0, 1), (1.0, 2), (2.0, 3)]
    plain = next(iter(DataLoader(_TVSamples(), batch_size=3, num_workers=1)))
    assert type(plain[0]) is gg.Tensor and tuple(plain[0].shape) == (3, 3, 2, 2)  # default_collate stacks plainly
