"""PyTorch's autocast op lists (https://pytorch.org/docs/stable/amp.html, "Autocast Op
Reference"), for the ops glassgrad has: per device type, which ops run in the region's lower
dtype, which in float32, and which promote their floating inputs to the widest of them. An op in
no list runs in its inputs' dtypes (type promotion as outside autocast). Keys are the names the
functions are decorated with (_autocast.op)."""
from __future__ import annotations

from typing import Optional

LOWER = "lower"  # inputs cast to the region's dtype (float16/bfloat16)
FLOAT32 = "float32"  # half inputs cast to float32
FLOAT32_UNLESS_DTYPE = "float32_unless_dtype"  # float32 unless the call names dtype= (softmax, sum, ...)
PROMOTE = "promote"  # floating inputs cast to the widest of them
REFUSED = "refused"  # PyTorch raises inside a CUDA region (binary_cross_entropy)
COMPOSITE = "composite"  # no cast, but the ops it is made of cast as theirs say (PyTorch's decomposition)

_CPU_LOWER = ("conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "bmm", "mm",
              "baddbmm", "addmm", "addbmm", "linear", "matmul", "prelu", "scaled_dot_product_attention",
              "vecdot", "multi_dot", "chain_matmul", "lstm", "rnn_tanh", "rnn_relu", "rnn_tanh_cell", "rnn_relu_cell")
# in no CPU list, but made of listed ops in PyTorch: multi_dot and chain_matmul of mm,
# nn.RNN and nn.RNNCell of linear; nn.LSTM is its mkldnn_rnn_layer (GRU, LSTMCell and GRUCell stay
# in their inputs' dtype on CPU, as PyTorch's)
_CPU_FLOAT32 = ("reflection_pad", "replication_pad", "avg_pool3d", "binary_cross_entropy", "grid_sample", "prod",
                "quantile", "nanquantile", "cdist",
                "trace", "cholesky", "inverse", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
                "adaptive_avg_pool3d", "mse_loss", "cosine_embedding_loss",
                "nll_loss", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy",
                "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss",
                "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss",
                "binary_cross_entropy_with_logits", "fractional_max_pool2d", "fractional_max_pool3d",
                "adaptive_max_pool3d")
_CPU_PROMOTE = ("cat", "stack", "index_copy")
_CPU_COMPOSITE = ("tensordot", "einsum")  # PyTorch's are made of mm and bmm (einsum's pairs with a contraction)

_CUDA_LOWER = ("conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
               "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "linear", "addbmm", "baddbmm", "bmm",
               "chain_matmul", "multi_dot", "vecdot", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
               "lstm", "gru", "rnn_tanh", "rnn_relu", "scaled_dot_product_attention")
_CUDA_FLOAT32 = ("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
                 "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "cosine_similarity",
                 "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "kl_div",
                 "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
                 "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
                 "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp")
_CUDA_FLOAT32_UNLESS_DTYPE = ("prod", "softmax", "log_softmax", "cumprod", "cumsum", "sum", "vector_norm",
                              "matrix_norm")
_CUDA_PROMOTE = ("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sample", "index_put",
                 "scatter_add", "tensordot")


def _table(*groups):
    return {name: policy for names, policy in groups for name in names}


_POLICIES = {
    "cpu": _table((_CPU_LOWER, LOWER), (_CPU_FLOAT32, FLOAT32), (_CPU_PROMOTE, PROMOTE), (_CPU_COMPOSITE, COMPOSITE)),
    "cuda": _table((_CUDA_LOWER, LOWER), (_CUDA_FLOAT32, FLOAT32), (_CUDA_FLOAT32_UNLESS_DTYPE, FLOAT32_UNLESS_DTYPE),
                   (_CUDA_PROMOTE, PROMOTE), (("binary_cross_entropy",), REFUSED)),
}

# Every name some device lists: the names the op functions may be decorated with.
NAMES = frozenset(name for table in _POLICIES.values() for name in table)


def policy(device_type: str, name: str) -> Optional[str]:
    """What autocast does to op `name` on device_type's tensors (None: nothing)."""
    table = _POLICIES.get(device_type)
    return None if table is None else table.get(name)


def refusal(name: str) -> str:
    return (f"{name}: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast "
            f"(their inputs, probabilities, lose precision in float16).\n"
            f"  fix: torch.nn.functional.binary_cross_entropy_with_logits or torch.nn.BCEWithLogitsLoss, "
            f"which combine the sigmoid and the loss and are safe to autocast")
