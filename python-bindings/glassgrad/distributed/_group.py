"""The process group: which rank this process is, how many there are, and the communicator that
AllReduce nodes use (NCCL for CUDA tensors, MPI for CPU tensors)."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Optional

from .. import _C, _device
from . import _env
from ._types import ProcessGroup

DEFAULT_TIMEOUT = 1800.0  # seconds, as torch.distributed


@dataclass
class _Group:
    rank: int
    world_size: int
    local_rank: int
    backend: str
    device: str
    gid: int            # the registered communicator's id (AllReduce's `group`)
    comm: object        # keeps the Python communicator alive while it is registered
    handle: Optional[ProcessGroup] = None  # group.WORLD while this group exists


_group: Optional[_Group] = None


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _group is not None


def _require() -> _Group:
    if _group is None:
        raise _C.CommunicationError("glassgrad.distributed: no process group\n"
                                    "  fix: call glassgrad.distributed.init_process_group() first")
    return _group


def world_handle() -> Optional[ProcessGroup]:
    """group.WORLD: the default group's handle, None before init_process_group()."""
    if _group is None:
        return None
    if _group.handle is None:
        _group.handle = ProcessGroup(list(range(_group.world_size)), _group.backend)
    return _group.handle


def _check_group(group) -> None:
    if group is not None and group is not world_handle():
        raise _C.UnsupportedError(f"glassgrad.distributed: only the default group (group=None or group.WORLD) "
                                  f"exists, got {group!r}\n  fix: leave out group=")


def get_rank(group=None) -> int:
    _check_group(group)
    return _group.rank if _group else 0


def get_world_size(group=None) -> int:
    _check_group(group)
    return _group.world_size if _group else 1


def get_local_rank() -> int:
    return _group.local_rank if _group else 0


def get_backend(group=None) -> str:
    _check_group(group)
    return _require().backend


# device type -> the backend that carries its tensors (init_process_group's backend=)
_BACKEND_FOR = {"cuda": "nccl", "cpu": "mpi"}


def get_default_backend_for_device(device) -> str:
    """torch.distributed.get_default_backend_for_device: the backend name for tensors on `device`
    (a string or glassgrad.device), "nccl" for CUDA; for the CPU glassgrad's CPU backend, "mpi",
    where PyTorch names gloo (docs/distributed.md), so the name given to init_process_group works."""
    kind = _device.device(device).type
    if kind not in _BACKEND_FOR:
        raise ValueError(f"Default backend not registered for device : {kind}\n"
                         f"  fix: glassgrad.distributed runs on 'cuda' (nccl) or 'cpu' (mpi)")
    return _BACKEND_FOR[kind]


def group_id() -> int:
    return _require().gid


def device() -> str:
    """The device of this rank's tensors: cuda:<local_rank> with NCCL, cpu with MPI."""
    return _require().device


def init_process_group(backend: Optional[str] = None, init_method: Optional[str] = None, timeout=None,
                       world_size: int = -1, rank: int = -1, store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Joins this process to the job its launcher started, with PyTorch's signature. The rank and
    world size come from the environment (RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/MASTER_PORT from
    torchrun or `python -m glassgrad.distributed.run`; OMPI_COMM_WORLD_* from mpirun; PMI_* from
    MPICH's mpiexec) unless rank and world_size are given. backend: "nccl" (CUDA, one GPU per rank:
    cuda:<local_rank> becomes the default device) or "mpi" (CPU processes through mpi4py; "gloo",
    PyTorch's CPU backend, names it too); default nccl when the default device is a GPU, else mpi.
    A job of one CPU process needs no MPI: its collectives are the identity. init_method:
    "env://" (the default) or "tcp://host:port" (the rendezvous address NCCL ranks meet at).
    timeout: a datetime.timedelta or seconds that a collective may wait for the other ranks
    before every rank stops with an error naming the rank that waited. backend may also be a
    glassgrad._C.Communicator object (a backend of your own, or
    glassgrad.testing.MirrorCommunicator in tests): its rank() and size() are this process's."""
    global _group
    if _group is not None:
        raise _C.CommunicationError("glassgrad.distributed: init_process_group() was already called in this process\n"
                                    "  fix: call it once, at the start of the script")
    timeout = DEFAULT_TIMEOUT if timeout is None else float(getattr(timeout, "total_seconds", lambda: timeout)())
    _use_init_method(init_method)
    env = _env.from_environment()
    if rank is not None and rank >= 0:
        size = world_size if world_size is not None and world_size > 0 else (env.world_size if env else 1)
        if not 0 <= rank < size:
            raise ValueError(f"glassgrad.distributed.init_process_group: rank={rank} is not in [0, world_size={size})")
        env = _env.LaunchEnv(rank, size, env.local_rank if env else rank, "arguments", bool(env and env.under_mpi))
    elif env is None:
        if world_size is not None and world_size > 1:
            raise ValueError(f"glassgrad.distributed.init_process_group: world_size={world_size} without a rank\n"
                             f"  fix: pass rank=, or start the ranks with a launcher (torchrun or python -m "
                             f"glassgrad.distributed.run), which sets RANK and WORLD_SIZE")
        env = _env.LaunchEnv(0, 1, 0, "no launcher", False)
    if isinstance(backend, _C.Communicator):
        comm = backend
        _group = _Group(comm.rank(), comm.size(), comm.rank(), comm.backend(), _device.default_device(),
                        _C.register_communicator(comm), comm)
        return
    if backend is None:
        # Where this process's tensors live decides: GPUs talk through NCCL, CPU processes (the
        # MPI launcher's ranks, also on a machine with a GPU) through MPI.
        backend = "nccl" if _device.default_device().startswith("cuda") else "mpi"
    backend = str(backend).lower()
    if backend in ("mpi", "gloo") and env.world_size == 1 and not env.under_mpi:
        from ._local import SingleProcessCommunicator
        comm = SingleProcessCommunicator(backend)
        _group = _Group(0, 1, 0, backend, "cpu", _C.register_communicator(comm), comm)
        return
    if backend in ("mpi", "gloo"):
        from ._mpi import MpiCommunicator
        comm = MpiCommunicator(float(timeout))
        if comm.size() != env.world_size:
            raise _C.CommunicationError(
                f"glassgrad.distributed: the launcher says {env.world_size} ranks ({env.source}) but MPI sees "
                f"{comm.size()}\n  cause: MPI processes must be started by mpirun/mpiexec, not as separate "
                f"processes\n  fix: mpiexec -n {env.world_size} python script.py, or python -m "
                f"glassgrad.distributed.run --backend mpi --nproc-per-node {env.world_size} script.py")
        dev = "cpu"
        rank_, size_ = comm.rank(), comm.size()
    elif backend == "nccl":
        _preload_nccl_wheel()
        ok, why = _C.nccl_available()
        if not ok:
            raise _C.UnsupportedError(f"glassgrad.distributed: backend 'nccl' is unavailable: {why}")
        from . import _rendezvous
        addr = os.environ.get("MASTER_ADDR", "127.0.0.1")
        port = int(os.environ.get("MASTER_PORT", "29500"))
        uid = _C.nccl_unique_id() if env.rank == 0 else b""
        uid = _rendezvous.share_bytes(uid, env.rank, env.world_size, addr, port, float(timeout))
        comm = _C.nccl_communicator(uid, env.rank, env.world_size, env.local_rank)
        dev = f"cuda:{env.local_rank}"
        _device.set_default_device(dev)
        rank_, size_ = env.rank, env.world_size
    else:
        raise _C.InvalidArgumentError(f"glassgrad.distributed: unknown backend {backend!r}\n"
                                      f"  fix: backend='nccl' (GPUs) or backend='mpi' (CPU processes)")
    gid = _C.register_communicator(comm)
    _group = _Group(rank_, size_, env.local_rank, backend, dev, gid, comm)
    _install_failure_hook()


def _use_init_method(init_method: Optional[str]) -> None:
    """env:// reads the launcher's variables; tcp://host:port sets MASTER_ADDR and MASTER_PORT."""
    if init_method is None or init_method == "env://":
        return
    if init_method.startswith("tcp://"):
        host, _, port = init_method[len("tcp://"):].rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"glassgrad.distributed.init_process_group: init_method {init_method!r} is not "
                             f"tcp://host:port")
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = host.strip("[]"), port
        return
    if init_method.startswith("file://"):
        return  # the rank and world size come from the arguments or the launcher; MPI/NCCL meet on their own
    raise ValueError(f"glassgrad.distributed.init_process_group: init_method {init_method!r} is not env://, "
                     f"tcp://host:port or file://path")


def _preload_nccl_wheel() -> None:
    """Loads the NCCL of the nvidia-nccl wheel (the `distributed` extra) when one is installed, so
    the runtime's dlopen("libnccl.so.2") finds it without LD_LIBRARY_PATH (a loaded library
    answers to its soname)."""
    import ctypes
    import glob
    try:
        import nvidia.nccl as wheel  # optional
    except ImportError:
        return
    for folder in getattr(wheel, "__path__", []):
        for lib in sorted(glob.glob(os.path.join(folder, "lib", "libnccl.so*"))):
            try:
                ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
                return
            except OSError:
                continue


def destroy_process_group() -> None:
    global _group
    if _group is not None:
        _C.unregister_communicator(_group.gid)
        _group = None


def _install_failure_hook() -> None:
    """A rank that raises says so and takes the job down: under MPI by MPI_Abort (every rank
    ends at once), under the launcher by exiting non-zero (it then stops the others)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        g = _group
        if g is None:
            return
        sys.stderr.write(f"glassgrad.distributed: rank {g.rank} of {g.world_size} raised {kind.__name__}; "
                         f"stopping every rank\n")
        sys.stderr.flush()
        _env.report_to_launcher(g.rank, f"rank {g.rank} of {g.world_size} raised {kind.__name__}: {value}")
        if g.backend == "mpi":
            g.comm.abort(1)
        os._exit(1)

    sys.excepthook = hook
