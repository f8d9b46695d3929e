"""SyncBatchNorm and convert_sync_batchnorm, also at glassgrad.distributed (defined in
glassgrad.nn.sync_batchnorm, as torch.nn.SyncBatchNorm)."""
from ..nn.sync_batchnorm import SyncBatchNorm, convert_sync_batchnorm

__all__ = ["SyncBatchNorm", "convert_sync_batchnorm"]
