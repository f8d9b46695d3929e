"""glassgrad: a small deep-learning framework built from first principles.

Static graphs recorded by define-by-run tracing, explicit backward graphs, a memory planner,
and hand-written CPU and CUDA kernels you can read, print and check by hand.

    import glassgrad
    model = SimpleCNN()                      # a glassgrad.Module
    opt = glassgrad.SGD(model.parameters(), lr=0.01)
    loss = glassgrad.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
"""
from . import _C  # noqa: E402
from ._C import (  # noqa: E402  # noqa: F401  (the error hierarchy)
    CommunicationError,
    CudaError,
    DeviceError,
    DTypeError,
    GlassgradError,
    GlassgradIndexError,
    InternalError,
    InvalidArgumentError,
    OutOfMemoryError,
    ShapeError,
    UnsupportedError,
)

from ._args import InvalidArgumentTypeError  # noqa: E402  (InvalidArgumentError and TypeError)

__version__ = _C.__version__

from ._device import default_device, device, set_default_device  # noqa: E402
from ._dtypes import can_cast, dtype, promote_types, result_type  # noqa: E402
from ._type_info import finfo, iinfo  # noqa: E402
from ._size import Size  # noqa: E402
from ._random import manual_seed  # noqa: E402
from ._tensor import Tensor, bool_, float32, float64, int64, tensor, uint8  # noqa: E402
# PyTorch's dtype names (glassgrad.float32 is torch.float32; the short spellings are its aliases).
from ._dtypes import DTYPES as _DTYPES  # noqa: E402
bool = _DTYPES["bool"]  # noqa: A001
int8, int16, int32 = _DTYPES["int8"], _DTYPES["int16"], _DTYPES["int32"]
float16, bfloat16 = _DTYPES["float16"], _DTYPES["bfloat16"]
float, double, half = float32, float64, float16  # noqa: A001
long, int, short = int64, int32, int16  # noqa: A001
# PyTorch's torch.<function> names: each is also the Tensor method of the same name (_methods.py).
from ._math import *  # noqa: E402,F401,F403
from ._reductions import *  # noqa: E402,F401,F403
from ._scans import *  # noqa: E402,F401,F403
from ._shapes import *  # noqa: E402,F401,F403
from ._einsum import einsum  # noqa: E402
from ._factories import *  # noqa: E402,F401,F403
from ._spatial import cat  # noqa: E402
from ._counting import *  # noqa: E402,F401,F403
from ._indexed_reductions import *  # noqa: E402,F401,F403
from ._indexing import index_copy, masked_scatter, put, take  # noqa: E402,F401
from . import _methods  # noqa: E402,F401  (binds the functions above as Tensor methods)
nan_to_num_ = Tensor.nan_to_num_
from .nn.functional import relu_  # noqa: E402,F401  (torch.relu_)
concat = concatenate = cat
from .functional import (adaptive_avg_pool2d, avg_pool2d, batch_norm, conv2d, cross_entropy, dropout,  # noqa: E402
                         elu, flatten, gelu, interpolate, layer_norm, leaky_relu, linear, log_softmax, max_pool2d,
                         mse_loss, nll_loss, one_hot, pad, relu, reshape, silu, softmax, softplus, where)
from .functional import (gather, index_add, index_fill, index_put, index_select, masked_fill,  # noqa: E402
                         masked_select, scatter, scatter_add, take_along_dim)
from .nn import (AdaptiveAvgPool2D, AvgPool2D, BatchNorm1D, BatchNorm2D, Conv2D, Dropout, Flatten, LayerNorm,  # noqa: E402
                 LeakyReLU, Linear, MaxPool2D, Module, ModuleDict, ModuleList, Parameter, ReLU, Sequential)
from .optim import SGD, Adam, AdamW, Optimizer, RMSprop  # noqa: E402
from . import optim  # noqa: E402,F401
from ._runtime import (cache_stats, clear_plan_cache, get_num_threads, is_grad_enabled, no_grad, enable_grad,  # noqa: E402
                       set_fusion, set_grad_enabled, reset_cache_stats, set_num_threads, realize,
                       backward_in_micro_batches)
from ._runtime import are_deterministic_algorithms_enabled, use_deterministic_algorithms  # noqa: E402
from .memory import allocation_log, memory_report, memory_stats, plan_only, reset_peak_memory, set_memory_limit  # noqa: E402
from . import cuda, data, kernels, models, testing  # noqa: E402,F401
from .compile import compile  # noqa: E402
from .serialization import CheckpointError, load, save  # noqa: E402
from .pytorch_checkpoint import load_pytorch  # noqa: E402
from . import debug  # noqa: E402
from . import accelerator, backends, multiprocessing, utils  # noqa: E402,F401
from ._generator import Generator  # noqa: E402
from . import onnx  # noqa: E402,F401  (torch.onnx's place; imports the onnx package only when used)
from .debug import check_nan_gradients, clip_grad_norm_, print_tensor_stats  # noqa: E402,F401
