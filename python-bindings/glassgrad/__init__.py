"""glassgrad: a small deep-learning framework built from first principles.

Static graphs recorded by define-by-run tracing, explicit backward graphs, a memory planner,
and hand-written CPU and CUDA kernels you can read, print and check by hand.

    import glassgrad
    model = SimpleCNN()                      # a glassgrad.Module
    opt = glassgrad.SGD(model.parameters(), lr=0.01)
    loss = glassgrad.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
"""
from . import _C
from ._C import (  # the error hierarchy
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

from ._args import InvalidArgumentTypeError  # InvalidArgumentError and TypeError

__version__ = _C.__version__

from ._device import default_device, device, get_default_device, set_default_device
from ._dtypes import can_cast, dtype, promote_types, result_type
from ._type_info import finfo, iinfo
from ._size import Size
from ._random import (default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state)
from ._tensor import Tensor, bool_, float32, float64, int64, tensor, uint8
# PyTorch's dtype names (glassgrad.float32 is torch.float32; the short spellings are its aliases).
from ._dtypes import DTYPES as _DTYPES
bool = _DTYPES["bool"]
int8, int16, int32 = _DTYPES["int8"], _DTYPES["int16"], _DTYPES["int32"]
float16, bfloat16 = _DTYPES["float16"], _DTYPES["bfloat16"]
float, double, half = float32, float64, float16
long, int, short = int64, int32, int16
# PyTorch's torch.<function> names: each is also the Tensor method of the same name (_methods.py).
from ._math import *
from ._math import conj, imag, real  # torch.conj, torch.imag, torch.real (functions; x.conj(), x.imag and x.real are Tensor's own)
from ._inplace_functions import *
from ._reductions import *
from ._scans import *
from ._shapes import *
from ._einsum import einsum
from ._factories import *
from ._spatial import cat
from ._counting import *
from ._indexed_reductions import *
from ._indexing import index_copy, masked_scatter, put, take
from ._arranging import *
from ._searching import *
from ._statistics import *
from ._factories import inclusive_range as range  # torch.range (inclusive of end; deprecated there)
from . import _methods  # binds the functions above as Tensor methods
from . import _legacy_members  # binds Tensor.as_subclass, Tensor.volatile
from . import linalg
from ._linalg_names import *  # torch.det, torch.inverse, ...: also Tensor methods
from ._deprecated_linalg import *  # torch.lu, lu_solve, triangular_solve, qr; the removed torch.solve, ...
from ._special import *  # torch.lgamma, digamma, polygamma, ...: also Tensor methods
from ._special_more import *  # torch.i0 (and Tensor.i0)
from . import special
from . import random  # torch.random (manual_seed, fork_rng)
nan_to_num_ = Tensor.nan_to_num_
from .nn.functional import relu_  # torch.relu_
concat = concatenate = cat
from .functional import (adaptive_avg_pool2d, avg_pool2d, batch_norm, conv2d, cross_entropy, dropout,
                         elu, flatten, gelu, interpolate, layer_norm, leaky_relu, linear, log_softmax, max_pool2d,
                         mse_loss, nll_loss, one_hot, pad, reshape, silu, softmax, softplus, where)
from .functional import (gather, index_add, index_fill, index_put, index_select, masked_fill,
                         masked_select, scatter, scatter_add, take_along_dim)
from .nn import (AdaptiveAvgPool2D, AvgPool2D, BatchNorm1D, BatchNorm2D, Conv2D, Dropout, Flatten, LayerNorm,
                 LeakyReLU, Linear, MaxPool2D, Module, ModuleDict, ModuleList, Parameter, ReLU, Sequential)
from .optim import SGD, Adam, AdamW, Optimizer, RMSprop
from . import optim
from ._runtime import (cache_stats, clear_plan_cache, get_num_threads, is_grad_enabled, no_grad, enable_grad,
                       set_fusion, set_grad_enabled, reset_cache_stats, set_num_threads, realize,
                       backward_in_micro_batches)
from ._runtime import (are_deterministic_algorithms_enabled, get_deterministic_debug_mode,
                       is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                       use_deterministic_algorithms)
from ._runtime import inference_mode, is_inference_mode_enabled
from ._runtime import (get_num_interop_threads, is_warn_always_enabled, set_flush_denormal, set_num_interop_threads,
                       set_warn_always)
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from ._dtypes import get_default_dtype, set_default_dtype
from ._predicates import (cudnn_is_acceptable, get_device, is_complex, is_distributed, is_floating_point, is_inference,
                          is_nonzero, is_storage, is_tensor, numel, typename)
from ._runtime import get_float32_matmul_precision, set_float32_matmul_precision
from ._printing import set_printoptions
from math import e, inf, nan, pi  # torch.pi, torch.e, torch.inf, torch.nan
from .memory import allocation_log, memory_report, memory_stats, plan_only, reset_peak_memory, set_memory_limit
from . import cuda, data, kernels, models, testing
from .compile import compile
from .serialization import CheckpointError, load, save
from .storage import TypedStorage, UntypedStorage
# torch.FloatStorage and the other legacy storage classes (CPU TypedStorages; from_buffer)
from ._cuda_storages import CPU_STORAGES as _CPU_STORAGES
FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, LongStorage, IntStorage, ShortStorage, CharStorage, \
    ByteStorage, BoolStorage = (_CPU_STORAGES[n] for n in ("FloatStorage", "DoubleStorage", "HalfStorage",
                                                           "BFloat16Storage", "LongStorage", "IntStorage",
                                                           "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage"))
from .pytorch_checkpoint import load_pytorch
from . import debug
from . import accelerator, amp, autograd, backends, cpu, distributions, multiprocessing, utils, version, xpu
from . import func, hub, profiler, return_types
from . import compiler, futures, jit
from . import _dynamo, _inductor  # torch._dynamo.config, torch._inductor.config: settings scripts set
from .futures import Future
from .jit import ScriptFunction, ScriptModule
from .jit import run_forked as fork, wait_forked as wait  # torch.fork / torch.wait (no deprecation warning)
from .func import vmap  # torch.vmap
from .amp import GradScaler, autocast, get_autocast_dtype, is_autocast_enabled
from .amp.autocast_mode import (clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                is_autocast_cache_enabled, is_autocast_cpu_enabled, set_autocast_cache_enabled,
                                set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype,
                                set_autocast_enabled, set_autocast_gpu_dtype)
from ._generator import Generator
from . import sparse
from .sparse import sparse_coo, sparse_coo_tensor, spmm, strided
from ._layouts import (channels_last, channels_last_3d, contiguous_format, layout, legacy_contiguous_format,
                       memory_format, preserve_format)
from . import onnx  # torch.onnx's place; imports the onnx package only when used
from . import _left_out_modules
_left_out_modules.install()  # `import glassgrad.fx` (torch.fx ported) names why and the fix
from . import _einops_backend
_einops_backend.install()  # einops' functions take glassgrad tensors (docs/porting.md, "einops")
from .debug import check_nan_gradients, clip_grad_norm_, print_tensor_stats
from ._namespace_out import add_out as _add_out
_add_out(globals())  # torch.*'s out= on the functions above (their Tensor methods stay unwrapped)
del _add_out
# torch.<name> spellings of F functions whose torch.* signature is F's (tests/test_signature_parity.py)
from .nn.functional import (adaptive_avg_pool1d, avg_pool1d, bilinear, celu, celu_, channel_shuffle, conv1d, conv3d,
                            conv_tbc, conv_transpose1d, conv_transpose2d, conv_transpose3d, cosine_similarity,
                            group_norm, hardshrink, max_pool1d, max_pool3d, pairwise_distance, pixel_shuffle,
                            pixel_unshuffle, prelu, rms_norm, selu_, threshold, threshold_)


# torch.relu and torch.selu take the input alone (their F spellings add inplace): a second argument
# is PyTorch's TypeError, where F's inplace reads any number by its truth value.
from .functional import relu as _f_relu
from .nn.functional import selu as _f_selu


def relu(input):
    """max(x, 0), elementwise (torch.relu: the input alone; F.relu(x, inplace) writes in place)."""
    return _f_relu(input)


def selu(input):
    """scale * elu(x, alpha) with SELU's constants (torch.selu: the input alone; F.selu(x, inplace))."""
    return _f_selu(input)
from ._float_parts import frexp
from ._windows import *  # torch.hann_window, ...
from ._strided import *  # torch.as_strided, as_strided_copy, as_strided_scatter
from ._view_copies import *  # torch.view_copy, permute_copy, ...
from ._sampling import binomial, poisson
from ._from_buffers import asarray, frombuffer
from ._gradient import gradient
from ._lowrank import frobenius_norm, norm_except_dim, nuclear_norm, pca_lowrank, svd_lowrank
from ._build_info import *  # torch.has_lapack, compiled_with_cxx11_abi, ...
newaxis = None  # torch.newaxis: x[:, torch.newaxis] adds an axis, as x[:, None]
from ._factories import fill
from ._shapes import nonzero_static, unsafe_split_with_sizes
from ._rnn_cells import *  # torch.lstm_cell, gru_cell, rnn_tanh_cell, rnn_relu_cell
from . import signal  # torch.signal.windows
from ._aten_functional import *  # torch.kl_div, torch.embedding, ...: F's jobs in ATen's signatures
# torch.<name> spellings of Tensor methods (the tensor is their first, positional argument)
for _name in ("detach", "is_same_size", "is_signed", "split_with_sizes", "unsafe_chunk", "unsafe_split", "is_conj",
              "is_neg", "resolve_conj", "resolve_neg", "gcd_", "lcm_", "ldexp_", "i0_"):
    globals()[_name] = getattr(Tensor, _name)
del _name
from . import _tensor_arguments
# torch's TypeError for a number where only a Tensor is taken (torch.exp(2.0)); sparse tensors count as tensors
_tensor_arguments.install(globals(), (Tensor, sparse.SparseTensor))
del _tensor_arguments
from . import _deprecated_coefficients
# torch.addmm(beta, M, alpha, mat1, mat2) and the like, PyTorch's deprecated overloads (outside the checks above)
_deprecated_coefficients.install(globals())
del _deprecated_coefficients
from . import _view_base
# Tensor._base: the view functions record a view's root (last: they wrap the final functions)
from ._tensor import _op as _view_op
_view_base.install(Tensor, globals(), _view_op)
del _view_op
del _view_base
from . import _absent_dtypes


def __getattr__(name: str):
    """Names glassgrad leaves out on purpose (torch.complex64, torch.uint16, ...) raise an
    AttributeError that says so and what to use (docs/dtypes.md); any other is the usual one."""
    absent = _absent_dtypes.error("glassgrad", name)
    if absent is not None:
        raise absent
    raise AttributeError(f"module 'glassgrad' has no attribute {name!r}")
