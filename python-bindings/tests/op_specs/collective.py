"""Collective ops (data parallelism): AllReduce, AllReduceWait, BucketPack. The all-reduce runs
through a MirrorCommunicator (glassgrad.testing): 3 ranks that all hold this process's data, so
a sum is 3 x and an average x, and the gradient rule (AllReduce of the cotangent) is checked
against finite differences of that map. Real multi-process runs: test_distributed.py."""
import numpy as np

from glassgrad import _C
from glassgrad.testing import MirrorCommunicator, OpSpec

_MIRROR = MirrorCommunicator(3)
GROUP = _C.register_communicator(_MIRROR)  # kept registered for the whole test session
_CUDA_NOTE = "the op table's stand-in communicator reads host memory; NCCL runs CUDA all-reduces"


def all_reduce_ref(x, group, op, world_size, bucket=-1):
    return x * 3 if op == "sum" else x.copy()


def bucket_pack_ref(*grads):
    return np.concatenate([g.ravel() for g in grads])


def wait_ref(x, group, bucket):
    return x.copy()


def _one(rng, dtype, n):
    if dtype == "int64":
        return [rng.integers(-50, 50, (n, 2)).astype(np.int64)]
    return [rng.standard_normal((n, 2)).astype(dtype)]


def _bucket(rng, dtype, n):
    return [rng.standard_normal(s).astype(dtype) for s in ((n, 3), (n,), (2, n, 2), (1,))]


SPECS = [
    OpSpec("AllReduce", all_reduce_ref, _one, attrs={"group": GROUP, "op": "sum", "world_size": 3},
           dtypes=("float32", "float64", "int64"), grad=(0,), cuda_unsupported=_CUDA_NOTE, name="AllReduce-sum"),
    OpSpec("AllReduce", all_reduce_ref, _one, attrs={"group": GROUP, "op": "average", "world_size": 3, "bucket": 2},
           grad=(0,), cuda_unsupported=_CUDA_NOTE, name="AllReduce-average-bucket"),
    OpSpec("AllReduceWait", wait_ref, _one, attrs={"group": GROUP, "bucket": 0}, dtypes=("float32", "float64", "int64")),
    OpSpec("BucketPack", bucket_pack_ref, _bucket),
]
