"""The pin-memory thread (_utils/loading_thread.py): with pin_memory=True and workers, a thread
takes the batches off the result pipe and copies them out of shared memory. Pinning itself needs a
GPU (test_data_pin_memory.py has the cuda tests); here the thread runs without pinning, so its
ordering, errors and shutdown are checked on any machine: the same batches as num_workers=0, in
order; worker errors, a killed worker, a timeout and a failed copy raised in the training thread;
abandoned epochs and persistent workers; no thread, process or shared-memory block left."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from glassgrad.utils.data import DataLoader, Dataset, TensorDataset
from glassgrad.utils.data import dataloader as D
from glassgrad.utils.data._utils import transport
import test_data_loader_workers as W
from test_data_loader_workers import Failing, Numbered

THREAD = "glassgrad DataLoader pin_memory"
no_leftovers = W.no_leftovers  # no worker process or shared-memory block outlives a test
pytestmark = pytest.mark.usefixtures("no_leftovers")


@pytest.fixture(autouse=True)
def in_thread(monkeypatch):
    monkeypatch.setattr(D, "_loads_in_thread", lambda pin, lock_pages=False: True)
    yield
    for t in threading.enumerate():
        if t.name == THREAD:
            t.join(timeout=5)
    assert not [t for t in threading.enumerate() if t.name == THREAD], "the pin-memory thread outlived its loop"


def _uses_thread(loader):
    it = iter(loader)
    assert isinstance(it._loading_thread, D._loading.LoadingThread)
    return it


def test_batches_arrive_in_order_and_equal_the_single_process_ones():
    x = np.random.default_rng(0).random((96, 3, 48, 48), dtype=np.float32)  # batches in shared memory
    y = np.arange(96)
    ref = [(a.numpy(), b.numpy()) for a, b in DataLoader(TensorDataset(x, y), batch_size=16)]
    loader = DataLoader(TensorDataset(x, y), batch_size=16, num_workers=2)
    got = [(a.numpy(), b.numpy()) for a, b in _uses_thread(loader)]
    assert len(got) == len(ref) == 6
    for (ga, gb), (ra, rb) in zip(got, ref):
        np.testing.assert_array_equal(ga, ra)
        np.testing.assert_array_equal(gb, rb)


def test_dict_samples_and_small_inline_batches():
    big = [b["y"].numpy().tolist() for b in _uses_thread(DataLoader(Numbered(24), batch_size=4, num_workers=2))]
    small = [b["y"].numpy().tolist() for b in _uses_thread(DataLoader(Numbered(9, (2,)), batch_size=4,
                                                                      num_workers=2))]
    assert big == [list(range(i, i + 4)) for i in range(0, 24, 4)]
    assert small == [[0, 1, 2, 3], [4, 5, 6, 7], [8]]


def test_a_worker_exception_is_raised_naming_worker_and_index():
    with pytest.raises(ValueError, match=r"Caught ValueError in DataLoader worker process 0 while fetching index 9"
                                         r"[\s\S]*sample 9 is damaged"):
        list(_uses_thread(DataLoader(Failing("raise"), batch_size=4, num_workers=2)))


def test_a_killed_worker_ends_the_loop_with_a_clear_error():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly: worker 0 "
                                           r"\(pid \d+, killed by signal 9\)"):
        list(_uses_thread(DataLoader(Failing("kill"), batch_size=4, num_workers=2)))


def test_a_hung_worker_times_out_naming_the_worker_and_indices():
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 1.5 seconds waiting for batch 2 from worker 0 "
                                           r"\(pid \d+\)[\s\S]*\[8, 9, 10, 11\]"):
        list(_uses_thread(DataLoader(Failing("hang"), batch_size=4, num_workers=2, timeout=1.5)))


def test_a_failed_copy_is_raised_in_the_training_thread_when_its_batch_comes(monkeypatch):
    load = transport.Receiver.load

    def failing_load(self, msg, pin):
        out = load(self, msg, pin)  # the slot is free again either way
        if out["y"].numpy()[0] == 8:
            raise MemoryError("no page-locked memory left")
        return out
    monkeypatch.setattr(transport.Receiver, "load", failing_load)
    seen = []
    with pytest.raises(MemoryError, match="no page-locked memory left") as info:
        for b in _uses_thread(DataLoader(Numbered(16), batch_size=4, num_workers=2)):
            seen.append(b["y"].numpy()[0])
    assert seen == [0, 4]
    assert any("pin-memory thread" in n for n in getattr(info.value, "__notes__", []))


def test_persistent_workers_and_an_abandoned_epoch():
    loader = DataLoader(Numbered(12), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b["y"].numpy().tolist() for b in _uses_thread(loader)]
    partial = iter(loader)
    next(partial)  # an abandoned epoch: its batches already loaded by the thread are dropped
    again = [b["y"].numpy().tolist() for b in loader]
    assert first == again == [[i, i + 1] for i in range(0, 12, 2)]
    del loader, partial


def test_breaking_out_of_the_loop_stops_the_thread_and_the_workers():
    class Big(Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            return np.full(64 * 1024, i, np.float32)
    it = _uses_thread(DataLoader(Big(), batch_size=2, num_workers=2, prefetch_factor=4))
    assert next(it).numpy()[1, 0] == 1
    thread = it._loading_thread._thread
    it._shutdown_workers()
    assert not thread.is_alive()
    del it


@pytest.mark.parametrize("thread", [True, False])
def test_batches_held_across_the_epoch_keep_their_values_while_slots_are_reused(thread, monkeypatch):
    """Each worker has prefetch_factor + 1 shared slots and reuses them for every later batch; a
    batch is copied out of its slot before the slot is handed back, so batches the loop still
    holds never change (with the pin-memory thread and without it)."""
    monkeypatch.setattr(D, "_loads_in_thread", lambda pin, lock_pages=False: thread)
    x = np.random.default_rng(1).random((160, 3, 32, 32), dtype=np.float32)  # 12 KiB a sample
    held = list(DataLoader(TensorDataset(x, np.arange(160)), batch_size=8, num_workers=2))
    assert len(held) == 20  # 10 batches a worker through 3 slots each
    for k, (xb, yb) in enumerate(held):
        np.testing.assert_array_equal(xb.numpy(), x[8 * k:8 * k + 8])
        np.testing.assert_array_equal(yb.numpy(), np.arange(8 * k, 8 * k + 8))


def test_a_loader_still_alive_at_interpreter_exit_stops_quietly():
    """Persistent workers and the pin-memory thread alive when the script ends: the interpreter
    exits at once, with nothing printed about the loader's shutdown."""
    script = textwrap.dedent("""
        import numpy as np
        from glassgrad.utils.data import DataLoader, TensorDataset
        from glassgrad.utils.data import dataloader as D
        D._loads_in_thread = lambda pin, lock_pages=False: True
        x = np.zeros((512, 3, 32, 32), np.float32)
        loader = DataLoader(TensorDataset(x), batch_size=64, num_workers=2, persistent_workers=True)
        for _ in range(2):
            for batch in loader:
                pass
        print("done")
    """)
    env = dict(os.environ, PYTHONPATH=W.BINDINGS)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0 and run.stdout.strip() == "done", run.stderr
    assert run.stderr == "", run.stderr
