"""Rank, world size and local rank from the environment that launchers set: torchrun and
glassgrad.distributed.run (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), Open MPI's
mpirun (OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK) and MPICH's mpiexec (PMI_RANK, PMI_SIZE,
MPI_LOCALRANKID)."""
from __future__ import annotations

import os
from typing import NamedTuple, Optional

_CANDIDATES = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"),
)


class LaunchEnv(NamedTuple):
    rank: int
    world_size: int
    local_rank: int
    source: str          # which variables said so, for messages
    under_mpi: bool      # started by mpirun/mpiexec (MPI is then the way to talk)


def from_environment(env: Optional[dict] = None) -> Optional[LaunchEnv]:
    """The launch environment, or None when no launcher set one (a plain `python script.py`)."""
    env = os.environ if env is None else env
    for rank_var, size_var, local_var in _CANDIDATES:
        if rank_var in env and size_var in env:
            try:
                rank, size = int(env[rank_var]), int(env[size_var])
                local = int(env.get(local_var, rank))
            except ValueError as e:
                raise ValueError(f"glassgrad.distributed: {rank_var}={env[rank_var]!r} / {size_var}={env[size_var]!r} "
                                 f"are not integers") from e
            if not 0 <= rank < size:
                raise ValueError(f"glassgrad.distributed: {rank_var}={rank} is not in [0, {size_var}={size})")
            return LaunchEnv(rank, size, local, f"{rank_var}/{size_var}", rank_var != "RANK")
    return None


# The launcher (glassgrad.distributed.run) names a folder here for the ranks' last words.
FAILURE_DIR_ENV = "GLASSGRAD_DISTRIBUTED_FAILURE_DIR"


def report_to_launcher(rank: int, line: str) -> None:
    """Under MPI_Abort, mpiexec may end before it forwards what a rank wrote last to stderr:
    a rank that stops the job (it raised, or its watchdog fired) also leaves its one-line report
    in a file of the launcher's folder, which the launcher prints once mpiexec has returned.
    Without a launcher (mpiexec started directly) the stderr line is the only report."""
    folder = os.environ.get(FAILURE_DIR_ENV)
    if not folder:
        return
    try:
        with open(os.path.join(folder, f"rank-{rank}.txt"), "w") as f:
            f.write(line.rstrip("\n") + "\n")
    except OSError:
        pass  # the stderr line is then the only report
