"""The communicator of a job of one CPU process (init_process_group() run as a plain script, or
rank=0, world_size=1): every collective over one rank leaves the data as it is, so no MPI is
needed. It touches no memory, so it serves CUDA tensors too."""
from __future__ import annotations

from .. import _C


class SingleProcessCommunicator(_C.Communicator):
    def __init__(self, backend: str):
        super().__init__()
        self._backend = backend

    def rank(self) -> int:
        return 0

    def size(self) -> int:
        return 1

    def backend(self) -> str:
        return self._backend

    def all_reduce(self, address, count, dtype, op, stream):
        """Sum and average over one rank: the values themselves."""

    def broadcast(self, address, count, dtype, root, stream):
        """Rank 0's data is this rank's."""
