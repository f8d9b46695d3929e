"""glassgrad.distributed: the sampler and launch environment in-process; DistributedDataParallel
over 2 MPI processes (started by the launcher) against one process with the concatenated batch;
a failing rank that must stop every rank within the timeout; the launcher's supervision."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import glassgrad

from glassgrad.distributed import DistributedSampler
from glassgrad.distributed._env import from_environment

HERE = os.path.dirname(os.path.abspath(__file__))
# The glassgrad this test imported (installed, or the in-tree build), for the ranks too.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(glassgrad.__file__)))
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")) if p))


def _mpi_missing():
    try:
        import mpi4py  # noqa: F401
    except ImportError as e:
        return f"mpi4py is not installed ({e}); pip install 'glassgrad[distributed]'"
    here = os.path.dirname(sys.executable)
    if not (shutil.which("mpiexec", path=here) or shutil.which("mpiexec") or shutil.which("mpirun")):
        return "no mpiexec on PATH"
    return None


needs_mpi = pytest.mark.skipif(_mpi_missing() is not None, reason=str(_mpi_missing()))


def launch(nproc, *args, backend="mpi", timeout=120):
    cmd = [sys.executable, "-m", "glassgrad.distributed.run", "--backend", backend, "--nproc-per-node", str(nproc),
           *args]
    return subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=timeout)


def test_sampler_shards_are_disjoint_cover_the_dataset_and_reshuffle_per_epoch():
    data = list(range(10))
    shards = [list(DistributedSampler(data, num_replicas=3, rank=r, seed=5)) for r in range(3)]
    assert all(len(s) == 4 for s in shards)  # padded to 12
    assert set(sum(shards, [])) == set(data)
    s = DistributedSampler(data, num_replicas=2, rank=0, seed=5)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first
    s.set_epoch(0)
    assert list(s) == first
    unshuffled = DistributedSampler(data, num_replicas=3, rank=1, shuffle=False, drop_last=True)
    assert list(unshuffled) == [1, 4, 7]


def test_launch_environment_of_torchrun_open_mpi_and_mpich():
    assert from_environment({"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1"})[:3] == (1, 4, 1)
    assert from_environment({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3",
                             "OMPI_COMM_WORLD_LOCAL_RANK": "0"})[:4] == (2, 3, 0, "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE")
    assert from_environment({"PMI_RANK": "0", "PMI_SIZE": "2"}).under_mpi
    assert from_environment({}) is None
    with pytest.raises(ValueError, match="not in"):
        from_environment({"RANK": "4", "WORLD_SIZE": "4"})


def test_launcher_stops_every_rank_when_one_fails(tmp_path):
    # The other ranks would sleep a minute and then leave a file. launch() returns once every rank
    # has ended, so a rank it did not stop when rank 1 failed would have left its file (a fact of
    # the run, not a duration: the test had bounded the run's seconds, which a loaded machine broke)
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, time
        if os.environ["RANK"] == "1":
            sys.exit(3)
        time.sleep(60)
        open(os.path.join({str(tmp_path)!r}, "rank" + os.environ["RANK"] + "_finished"), "w").close()
    """))
    r = launch(3, str(script), backend="nccl", timeout=120)  # plain processes: no NCCL is touched
    assert r.returncode == 3
    assert "rank 1 exited with code 3" in r.stderr
    assert not list(tmp_path.glob("rank*_finished"))


@needs_mpi
def test_ddp_gradient_and_losses_match_one_process_with_the_concatenated_batch():
    r = launch(2, os.path.join(HERE, "distributed_worker.py"), "grad")
    assert r.returncode == 0, r.stdout + r.stderr
    values = dict(line.split(" ", 1) for line in r.stdout.splitlines() if line.startswith("max_"))
    assert float(values["max_grad_diff"]) <= 1e-5, r.stdout
    assert float(values["max_loss_diff"]) <= 1e-5, r.stdout


@pytest.mark.cuda
def test_nccl_ddp_on_the_gpus_matches_one_process_inside_the_whole_step_cuda_graph():
    """NCCL with as many ranks as GPUs (one rank on a one-GPU machine): gradients, no_sync and 6
    steps' losses against one process; steps 3+ replay the captured graph with the all-reduces."""
    import glassgrad
    from glassgrad.distributed._group import _preload_nccl_wheel
    _preload_nccl_wheel()
    ok, why = glassgrad._C.nccl_available()
    if not ok:
        pytest.skip(why)
    r = launch(glassgrad.cuda.device_count(), os.path.join(HERE, "distributed_worker.py"), "nccl", backend="nccl")
    assert r.returncode == 0, r.stdout + r.stderr
    values = dict(line.split(" ", 1) for line in r.stdout.splitlines() if line.startswith("max_"))
    assert float(values["max_grad_diff"]) <= 1e-5, r.stdout
    assert float(values["max_loss_diff"]) <= 1e-5, r.stdout


@needs_mpi
def test_sync_batchnorm_over_2_ranks_equals_batchnorm_of_the_concatenated_batch():
    r = launch(2, os.path.join(HERE, "distributed_worker.py"), "syncbn")
    assert r.returncode == 0, r.stdout + r.stderr
    values = dict(line.split(" ", 1) for line in r.stdout.splitlines() if line.startswith("max_"))
    assert float(values["max_grad_diff"]) <= 1e-5, r.stdout
    assert float(values["max_stat_diff"]) <= 1e-6, r.stdout


@needs_mpi
def test_a_rank_that_raises_stops_every_rank_with_a_message_naming_it():
    # A hang shows as subprocess.TimeoutExpired (launch's timeout), not as a duration compared here.
    r = launch(2, os.path.join(HERE, "distributed_worker.py"), "raise", "20", timeout=90)
    assert r.returncode != 0
    assert "rank 1 fails on purpose" in r.stderr
    assert "rank 1 of 2 raised RuntimeError" in r.stderr


@needs_mpi
def test_a_rank_that_stops_answering_ends_the_job_at_the_timeout_naming_the_rank_that_waited():
    # Rank 1 sleeps 600 s: only the 3 s watchdog ends the job before launch's timeout raises.
    r = launch(2, os.path.join(HERE, "distributed_worker.py"), "hang", "3", timeout=120)
    assert r.returncode != 0
    assert "rank 0: all_reduce of" in r.stderr and "did not finish within 3 s" in r.stderr, r.stderr


@pytest.fixture
def mirror_group():
    """A process group of 2 ranks that hold this process's data (glassgrad.testing), so DDP's
    averaged gradients must equal the plain ones; no second process is needed."""
    import glassgrad.distributed as dist
    from glassgrad import _device
    from glassgrad.testing import MirrorCommunicator
    before = _device.default_device()
    _device.set_default_device("cpu")  # the mirror reads host memory, also on a GPU machine
    dist.init_process_group(MirrorCommunicator(2))
    try:
        yield dist
    finally:
        dist.destroy_process_group()
        _device.set_default_device(before)


def _mlp_step(dist, wrap, cap_mb=0.001):
    import glassgrad as gg
    gg.manual_seed(3)
    model = gg.nn.Sequential(gg.nn.Linear(6, 32), gg.nn.ReLU(), gg.nn.Linear(32, 32), gg.nn.ReLU(),
                             gg.nn.Linear(32, 4))
    net = dist.DistributedDataParallel(model, bucket_cap_mb=cap_mb) if wrap else model
    x = gg.Tensor(np.random.default_rng(0).standard_normal((8, 6)).astype(np.float32))
    y = gg.tensor(np.arange(8) % 4)
    return model, net, x, y


def test_barrier_and_the_all_reduce_of_a_number_run_on_the_group(mirror_group):
    """barrier() and the all-reduce of a Python number (metrics) are collectives of _ops.py, over
    the group's communicator: the mirror's two ranks sum 1.5 to 3.0."""
    from glassgrad.distributed import _ops
    mirror_group.barrier()
    assert _ops.all_reduce_numpy_scalar(1.5) == 3.0
    assert _ops.all_reduce_numpy_scalar(1.5, "average") == 1.5


def test_ddp_in_one_process_gives_the_plain_gradients_and_accumulates_under_no_sync(mirror_group):
    import glassgrad as gg
    dist = mirror_group
    plain, _, x, y = _mlp_step(dist, wrap=False)
    gg.cross_entropy(plain(x), y).backward()
    want = [p.grad.numpy() for p in plain.parameters()]
    model, ddp, x, y = _mlp_step(dist, wrap=True)
    gg.cross_entropy(ddp(x), y).backward()
    got = [p.grad.numpy() for p in model.parameters()]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    with ddp.no_sync():
        gg.cross_entropy(ddp(x), y).backward()
    gg.cross_entropy(ddp(x), y).backward()
    for p, b in zip(model.parameters(), want):
        np.testing.assert_allclose(p.grad.numpy(), 3 * b, rtol=1e-5, atol=1e-6)


def test_buckets_appear_in_memory_report_and_the_step_compiles_under_a_budget(mirror_group):
    import glassgrad as gg
    dist = mirror_group
    model, ddp, x, y = _mlp_step(dist, wrap=True)
    opt = gg.SGD(model.parameters(), lr=0.1)

    def step(x, y):
        loss = gg.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    step(x, y)
    report = gg.memory_report(step, x, y)
    names = {b["name"] for b in report.buffers} | {b["layer"] for b in report.buffers}
    assert any(n.startswith("ddp.bucket") for n in names), sorted(names)
    compiled = gg.compile(step, memory_limit="64MB")
    losses = [compiled(x, y).item() for _ in range(4)]
    assert losses[-1] < losses[0]


def test_missing_mpi4py_and_missing_nccl_are_clear_errors_with_a_fix(tmp_path):
    script = tmp_path / "no_mpi.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        sys.modules["mpi4py"] = None  # as if it were not installed
        os.environ.update(RANK="0", WORLD_SIZE="2")  # two ranks need MPI (one runs without)
        import glassgrad, glassgrad.distributed as dist
        try:
            dist.init_process_group("mpi")
        except glassgrad.UnsupportedError as e:
            print("ERROR", e)
    """))
    r = subprocess.run([sys.executable, str(script)], env=ENV, capture_output=True, text=True, timeout=120)
    assert "needs mpi4py" in r.stdout and "fix: pip install 'glassgrad[distributed]'" in r.stdout, r.stdout + r.stderr
    ok, why = glassgrad._C.nccl_available()
    if ok:
        pytest.skip("NCCL is installed here: its missing-library message cannot be shown")
    import glassgrad.distributed as dist
    with pytest.raises(glassgrad.UnsupportedError, match="libnccl.so.2"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


@pytest.mark.parametrize("where, expected", [("cuda", "nccl"), ("cuda:1", "nccl"), ("cpu", "mpi")])
def test_default_backend_for_a_device_is_one_init_process_group_takes(where, expected):
    """PyTorch's names (nccl for CUDA), with glassgrad's CPU backend (mpi) where PyTorch names gloo."""
    dist = glassgrad.distributed
    assert dist.get_default_backend_for_device(where) == expected
    assert dist.get_default_backend_for_device(glassgrad.device(where)) == expected
    torch = pytest.importorskip("torch")
    theirs = torch.distributed.get_default_backend_for_device(where)
    assert theirs == (expected if expected != "mpi" else "gloo")


def test_default_backend_for_an_unknown_device_raises_pytorchs_value_error():
    with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
        glassgrad.distributed.get_default_backend_for_device("meta")
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
        torch.distributed.get_default_backend_for_device("meta")
