"""torch.distributed's collectives, object collectives, point-to-point calls and small types
(docs/distributed.md, "Collectives"): over 2 and 3 MPI ranks (distributed_collectives_worker.py
checks every call's documented result on its rank), and in one process without MPI, where
PyTorch's world of one leaves every value as it is."""
import datetime
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributed as dist
from test_distributed import ENV, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))


@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_every_collective_gives_its_documented_result_on_every_rank(ranks):
    cmd = [sys.executable, "-m", "glassgrad.distributed.run", "--backend", "mpi", "--nproc-per-node", str(ranks),
           os.path.join(HERE, "distributed_collectives_worker.py")]
    r = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in range(ranks):
        assert f"collectives ok on rank {rank} of {ranks}" in r.stdout, r.stdout + r.stderr


@pytest.fixture
def one_process():
    """A job of one CPU process, as `init_process_group("gloo", rank=0, world_size=1)` makes it."""
    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=30), rank=0,
                            world_size=1)
    try:
        yield dist
    finally:
        dist.destroy_process_group()


def test_one_process_needs_no_mpi_and_every_collective_keeps_the_values(one_process):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
    assert dist.get_rank(dist.group.WORLD) == 0 and dist.get_process_group_ranks(dist.group.WORLD) == [0]
    t = gg.tensor([1.5, -2.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MIN, dist.ReduceOp.MAX, dist.ReduceOp.PRODUCT):
        assert dist.all_reduce(t, op=op) is None
        np.testing.assert_array_equal(t.numpy(), [1.5, -2.0])
    dist.broadcast(t, src=0)
    dist.reduce(t, dst=0)
    out = [gg.zeros(2)]
    dist.all_gather(out, t)
    np.testing.assert_array_equal(out[0].numpy(), [1.5, -2.0])
    whole = gg.zeros(2)
    dist.all_gather_into_tensor(whole, t)
    np.testing.assert_array_equal(whole.numpy(), [1.5, -2.0])
    s = gg.zeros(2)
    dist.scatter(s, [gg.tensor([3.0, 4.0])], src=0)
    np.testing.assert_array_equal(s.numpy(), [3.0, 4.0])
    g = [gg.zeros(2)]
    dist.gather(t, g, dst=0)
    np.testing.assert_array_equal(g[0].numpy(), [1.5, -2.0])
    piece = gg.zeros(2)
    dist.reduce_scatter_tensor(piece, gg.tensor([5.0, 6.0]))
    np.testing.assert_array_equal(piece.numpy(), [5.0, 6.0])
    objs = [None]
    dist.all_gather_object(objs, {"a": [1, 2]})
    assert objs == [{"a": [1, 2]}]
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed() and work.is_success()
    assert work.get_future().wait() == [t]
    dist.barrier()
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=5))


def test_all_reduce_writes_into_the_tensor_and_through_a_view(one_process):
    base = gg.zeros(2, 3)
    view = base[1]
    view.fill_(2.0)
    dist.all_reduce(view)  # world of one: the values stay; the write goes through the view
    np.testing.assert_array_equal(base.numpy(), [[0, 0, 0], [2, 2, 2]])
    leaf = gg.ones(3, requires_grad=True)
    dist.all_reduce(leaf)  # a parameter's data, outside autograd, as PyTorch's
    assert leaf.requires_grad and leaf.grad_fn is None


def test_bad_arguments_are_refused_with_the_reason(one_process):
    with pytest.raises(ValueError, match="world_size = 1"):
        dist.all_gather([gg.zeros(2), gg.zeros(2)], gg.zeros(2))
    with pytest.raises(ValueError, match="not a rank"):
        dist.broadcast(gg.zeros(1), src=1)
    with pytest.raises(ValueError, match="Can not specify both src and group_src"):
        dist.broadcast(gg.zeros(1), src=0, group_src=0)
    with pytest.raises(gg.InvalidArgumentError, match="op must be a ReduceOp"):
        dist.all_reduce(gg.zeros(1), op="median")
    with pytest.raises(gg.UnsupportedError, match="PREMUL_SUM"):
        dist.all_reduce(gg.zeros(1), op=dist.ReduceOp.PREMUL_SUM)
    with pytest.raises(gg.UnsupportedError, match="only the default group"):
        dist.all_reduce(gg.zeros(1), group=object())
    with pytest.raises(gg.UnsupportedError, match="point-to-point messages need the MPI backend"):
        dist.send(gg.zeros(1), dst=0)
    with pytest.raises(gg.ShapeError, match=r"shape \[3\]"):
        dist.all_gather([gg.zeros(3)], gg.zeros(2))


def test_bitwise_reductions_need_integers():
    from glassgrad.distributed import _collectives
    with pytest.raises(gg.DTypeError, match="BAND needs an integer or bool"):
        _collectives._reduce_arrays([np.ones(2, np.float32)] * 2, dist.ReduceOp.BAND, "all_reduce")
    got = _collectives._reduce_arrays([np.array([6, 3]), np.array([5, 1])], dist.ReduceOp.BXOR, "all_reduce")
    np.testing.assert_array_equal(got, [3, 2])
    got = _collectives._reduce_arrays([np.array([7, -7]), np.array([0, 0])], dist.ReduceOp.AVG, "all_reduce")
    np.testing.assert_array_equal(got, [3, -3])  # integers truncate toward zero, as NCCL's average


def test_init_process_group_takes_pytorchs_arguments():
    with pytest.raises(ValueError, match="rank=2 is not in"):
        dist.init_process_group("gloo", rank=2, world_size=1)
    with pytest.raises(ValueError, match="is not tcp://host:port"):
        dist.init_process_group("gloo", init_method="tcp://nowhere", rank=0, world_size=1)
    with pytest.raises(ValueError, match="world_size=2 without a rank"):
        dist.init_process_group("gloo", world_size=2)
    assert not dist.is_initialized()
    before = {k: os.environ.get(k) for k in ("MASTER_ADDR", "MASTER_PORT")}
    try:
        dist.init_process_group(backend=dist.Backend.GLOO, init_method="tcp://127.0.0.1:23456",
                                timeout=datetime.timedelta(minutes=1), world_size=1, rank=0)
        assert (os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]) == ("127.0.0.1", "23456")
        assert dist.is_initialized() and dist.get_backend() == "gloo"
    finally:
        dist.destroy_process_group()
        for k, v in before.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def test_queries_about_groups_and_backends(one_process):
    assert dist.new_group() is dist.group.WORLD is dist.GroupMember.WORLD
    assert dist.get_global_rank(dist.group.WORLD, 0) == 0 and dist.get_group_rank(dist.group.WORLD, 0) == 0
    with pytest.raises(ValueError):
        dist.get_global_rank(dist.group.WORLD, 1)
    assert dist.is_gloo_available() is False and dist.is_ucc_available() is False
    try:
        import mpi4py  # noqa: F401
        has_mpi = True
    except ImportError:
        has_mpi = False
    assert dist.is_mpi_available() is has_mpi
    assert dist.is_nccl_available() is bool(gg._C.nccl_available()[0])
    assert dist.get_node_local_rank(fallback_rank=5) == int(os.environ.get("LOCAL_RANK", 5))
    assert dist.is_torchelastic_launched() is (os.environ.get("TORCHELASTIC_RUN_ID") is not None)


def test_small_types_are_pytorchs():
    assert dist.group.WORLD is None and dist.GroupMember.NON_GROUP_MEMBER == -100
    assert [int(dist.ReduceOp.SUM), int(dist.ReduceOp.AVG), int(dist.ReduceOp.MAX), int(dist.ReduceOp.BXOR)] == \
        [0, 1, 4, 7]
    assert repr(dist.ReduceOp.SUM) == "<RedOpType.SUM: 0>" and dist.ReduceOp.SUM == dist.ReduceOp.RedOpType.SUM
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.NCCL == "nccl" and dist.Backend("MPI") == dist.Backend.MPI
    assert dist.reduce_op.MAX == dist.ReduceOp.MAX


def test_names_values_and_signatures_match_torch():
    torch = pytest.importorskip("torch")
    td = torch.distributed
    if not td.is_available():
        pytest.skip("this PyTorch build has no torch.distributed")
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        assert int(getattr(dist.ReduceOp, name)) == int(getattr(td.ReduceOp, name)), name
        assert repr(getattr(dist.ReduceOp, name)) == repr(getattr(td.ReduceOp.RedOpType, name)), name
    for name in ("GLOO", "NCCL", "MPI", "UCC", "UNDEFINED"):
        assert getattr(dist.Backend, name) == getattr(td.Backend, name)
        assert dist.Backend(name) == td.Backend(name) if name != "UNDEFINED" else True
    for name in ("all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send", "recv",
                 "isend", "irecv", "all_gather_object", "broadcast_object_list", "gather_object",
                 "scatter_object_list", "barrier", "monitored_barrier", "new_group", "get_rank", "get_world_size",
                 "get_backend", "get_node_local_rank", "get_process_group_ranks", "get_global_rank",
                 "get_group_rank", "init_process_group", "batch_isend_irecv"):
        ours = list(inspect.signature(getattr(dist, name)).parameters)
        theirs = [p for p in inspect.signature(getattr(td, name)).parameters if not p.startswith("_")]
        assert ours[:len(theirs)] == theirs[:len(ours)] and len(ours) >= len(theirs) - 1, (name, ours, theirs)
