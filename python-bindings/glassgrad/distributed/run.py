"""The launcher: python -m glassgrad.distributed.run --nproc-per-node N script.py [args...]

backend nccl (default when CUDA is usable): starts N copies of the script with RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT set (as torchrun does); rank i uses
cuda:i. backend mpi (the default on CPU): runs them under mpiexec -n N. Either way, when one
rank fails the others are stopped and the launcher exits non-zero naming the rank, so no
rank is left waiting. Each rank gets cpu_count // N OpenMP threads unless OMP_NUM_THREADS is set."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import List, Optional


def _parse(argv: Optional[List[str]]):
    p = argparse.ArgumentParser(prog="python -m glassgrad.distributed.run",
                                description="Start data-parallel training processes on this machine.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1, help="processes (ranks) to start")
    p.add_argument("--backend", choices=("auto", "nccl", "mpi"), default="auto",
                   help="nccl: one GPU per rank; mpi: CPU processes under mpiexec; auto: nccl when CUDA is usable")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--grace", type=float, default=5.0, help="seconds the other ranks get to exit after one fails")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p.parse_args(argv)


def _auto_backend() -> str:
    try:
        from .. import cuda
        return "nccl" if cuda.is_available() else "mpi"
    except Exception:  # no CUDA runtime at all
        return "mpi"


def _mpiexec() -> str:
    # The MPI wheel's mpiexec sits beside this Python (a venv's bin/), which may not be on PATH.
    here = os.path.dirname(sys.executable)
    exe = shutil.which("mpiexec", path=here) or shutil.which("mpiexec") or shutil.which("mpirun")
    if exe is None:
        sys.exit("glassgrad.distributed.run: the mpi backend needs mpiexec, which is not on PATH\n"
                 "  fix: pip install 'glassgrad[distributed]' (mpi4py with MPICH), or apt-get install openmpi-bin")
    return exe


def main(argv: Optional[List[str]] = None) -> int:
    a = _parse(argv)
    n = a.nproc_per_node
    if n < 1:
        sys.exit(f"glassgrad.distributed.run: --nproc-per-node must be >= 1, got {n}")
    backend = _auto_backend() if a.backend == "auto" else a.backend
    env = dict(os.environ, WORLD_SIZE=str(n), MASTER_ADDR=a.master_addr, MASTER_PORT=str(a.master_port))
    # The ranks share this machine's cores: without a setting of the user's, each gets its share of
    # OpenMP threads instead of all of them (oversubscribed ranks slow each other down several-fold).
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // n)))
    cmd = [sys.executable, a.script, *a.args]
    if backend == "mpi":
        # mpiexec starts the ranks and ends them all when one aborts; the ranks read PMI_*/OMPI_*.
        env.pop("WORLD_SIZE")
        # MPI ranks are CPU processes (NCCL is the GPUs' backend): their tensors stay in host
        # memory even on a machine with a GPU, unless the user chose a device.
        env.setdefault("GLASSGRAD_DEVICE", "cpu")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # Open MPI refuses to start ranks as root (the user of many containers) unless both
            # variables say so; MPICH ignores them.
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        return _run_under_mpiexec([_mpiexec(), "-n", str(n), *cmd], env)
    procs = []
    for rank in range(n):
        procs.append(subprocess.Popen(cmd, env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank))))
    return _supervise(procs, a.grace)


def _run_under_mpiexec(cmd: List[str], env: dict) -> int:
    """mpiexec ends every rank when one calls MPI_Abort, and may drop the last lines that rank
    wrote to stderr: a failing rank also writes its one-line report into a folder of ours
    (_env.report_to_launcher), and the launcher prints those lines itself."""
    from ._env import FAILURE_DIR_ENV
    with tempfile.TemporaryDirectory(prefix="glassgrad-ranks-") as folder:
        code = subprocess.call(cmd, env=dict(env, **{FAILURE_DIR_ENV: folder}))
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as f:
                sys.stderr.write(f"glassgrad.distributed.run: {f.read().strip()}; every rank was stopped\n")
        sys.stderr.flush()
    return code


def _supervise(procs, grace: float) -> int:
    """Waits for every rank; the first that fails stops the others (after `grace` seconds)."""
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                rank, code = failed[0]
                sys.stderr.write(f"glassgrad.distributed.run: rank {rank} exited with code {code}; "
                                 f"stopping the other ranks\n")
                _stop(procs, grace)
                return code if code > 0 else 1
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.1)
    except KeyboardInterrupt:
        _stop(procs, grace)
        return 130


def _stop(procs, grace: float) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


if __name__ == "__main__":
    sys.exit(main())
