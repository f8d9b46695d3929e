"""Collective communication (autodiff-engine/src/ops/collective.cpp) belongs to data-parallel
training and has no ONNX form."""
from .._registry import cannot

_WHY = ("a collective of data-parallel training (gradients averaged across processes); an exported model runs "
        "in one process")
for _op in ("AllReduce", "AllReduceWait", "BucketPack"):
    cannot(_op, _WHY, "export the model inside the DistributedDataParallel wrapper (ddp.module), in evaluation mode")
