"""glassgrad.multiprocessing: torch.multiprocessing's names, and spawn/start_processes raising a
child's error in the parent with the process named."""
import os

import pytest

import glassgrad.multiprocessing as mp


def _write_rank(i, folder, scale):
    with open(os.path.join(folder, f"{i}.txt"), "w") as f:
        f.write(str(i * scale))


def _raise_in_one(i):
    if i == 1:
        raise ValueError("bad shard 1")


def _exit_in_one(i):
    if i == 0:
        os._exit(3)


def test_python_multiprocessing_names_are_there():
    import multiprocessing
    for name in ("Process", "Queue", "Pool", "set_start_method", "get_context", "cpu_count", "Event", "Lock"):
        assert getattr(mp, name) is getattr(multiprocessing, name)
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("carrier_pigeon")


def test_names_match_torch():
    torch_mp = pytest.importorskip("torch.multiprocessing")
    public = {n for n in dir(torch_mp) if not n.startswith("_") and n not in ("torch", "sys", "multiprocessing",
                                                                              "reductions", "init_reductions",
                                                                              "reducer", "ENV_VAR_PARALLEL_START",
                                                                              "SpawnContext")}
    assert public <= set(dir(mp)), public - set(dir(mp))


@pytest.mark.parametrize("method", ["fork", pytest.param("spawn", marks=pytest.mark.slow)])
def test_start_processes_runs_fn_with_its_index(tmp_path, method):
    if method not in mp.get_all_start_methods():
        pytest.skip(f"no {method} here")
    mp.start_processes(_write_rank, args=(str(tmp_path), 10), nprocs=2, start_method=method)
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == ["0", "10"]


@pytest.mark.slow  # spawn starts fresh interpreters that import glassgrad: seconds each
def test_spawn_returns_a_context_without_join(tmp_path):
    ctx = mp.spawn(_write_rank, args=(str(tmp_path), 1), nprocs=2, join=False)
    assert len(ctx.pids()) == 2
    while not ctx.join():
        pass
    assert len(list(tmp_path.iterdir())) == 2


def test_a_childs_exception_is_raised_in_the_parent_naming_the_process():
    with pytest.raises(mp.ProcessRaisedException) as e:
        mp.start_processes(_raise_in_one, nprocs=2, start_method="fork")
    assert e.value.error_index == 1 and "Process 1 terminated" in str(e.value) and "bad shard 1" in str(e.value)


def test_a_child_that_exits_is_reported_with_its_exit_code():
    with pytest.raises(mp.ProcessExitedException) as e:
        mp.start_processes(_exit_in_one, nprocs=2, start_method="fork")
    assert e.value.error_index == 0 and e.value.exit_code == 3 and "exit code 3" in str(e.value)


def test_spawn_with_another_start_method_warns_as_pytorch(tmp_path):
    with pytest.warns(FutureWarning, match="start_processes"):
        mp.spawn(_write_rank, args=(str(tmp_path), 1), nprocs=1, start_method="fork")
