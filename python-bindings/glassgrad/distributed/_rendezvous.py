"""Rendezvous for the NCCL backend: rank 0 hands NCCL's 128-byte unique id to the other ranks
over one TCP connection each, at MASTER_ADDR:MASTER_PORT (what torchrun's env:// does). Only
this id travels here; tensors go through NCCL. Bounded by the timeout on both sides."""
from __future__ import annotations

import socket
import time


def share_bytes(payload: bytes, rank: int, world_size: int, addr: str, port: int, timeout: float) -> bytes:
    """Rank 0 sends `payload` to every other rank; each returns rank 0's payload."""
    deadline = time.monotonic() + timeout
    if rank == 0:
        with socket.create_server((addr, port), reuse_port=False) as server:
            server.settimeout(timeout)
            for _ in range(world_size - 1):
                try:
                    conn, _ = server.accept()
                except socket.timeout as e:
                    raise TimeoutError(f"glassgrad.distributed: rank 0 waited {timeout:g} s at {addr}:{port} for "
                                       f"{world_size - 1} other ranks to connect; some never started or died\n"
                                       f"  fix: start every rank with the same MASTER_ADDR/MASTER_PORT and "
                                       f"WORLD_SIZE={world_size}") from e
                with conn:
                    conn.sendall(len(payload).to_bytes(4, "little") + payload)
        return payload
    last = None
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((addr, port), timeout=max(0.1, deadline - time.monotonic())) as conn:
                n = int.from_bytes(_recv(conn, 4), "little")
                return _recv(conn, n)
        except OSError as e:  # rank 0 not listening yet
            last = e
            time.sleep(0.1)
    raise TimeoutError(f"glassgrad.distributed: rank {rank} could not reach rank 0 at {addr}:{port} within "
                       f"{timeout:g} s ({last})\n  fix: check that rank 0 started and MASTER_ADDR/MASTER_PORT "
                       f"point at it")


def _recv(conn: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = conn.recv(n - len(out))
        if not chunk:
            raise ConnectionError("glassgrad.distributed: rank 0 closed the rendezvous connection early")
        out += chunk
    return out
