"""torch.nn.parameter's names: Parameter, Buffer, the uninitialized tensors of lazy layers
(docs/lazy.md) and is_lazy."""
from .lazy import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin, is_lazy
from .module import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "UninitializedTensorMixin", "is_lazy"]
