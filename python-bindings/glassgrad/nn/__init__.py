"""Layers, containers, losses and the Module base class, with torch.nn's names (glassgrad's own
spellings Conv2D, BatchNorm2D, ... are the same classes as Conv2d, BatchNorm2d, ...)."""
from .activation import Hardsigmoid, Hardswish, Hardtanh, Mish, ReLU6
from .batchnorm import BatchNorm1D, BatchNorm1d, BatchNorm2D, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList
from .conv import Conv1d, ConvTranspose1d, ConvTranspose2d
from . import dropout as _dropout_layers
from .dropout import *  # its __all__: layers and functions; the layers join __all__ below
from .embedding import Embedding, EmbeddingBag
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .groupnorm import GroupNorm
from .layers import (ELU, GELU, AdaptiveAvgPool2D, AdaptiveAvgPool2d, AvgPool2D, AvgPool2d, Conv2D, Conv2d, Dropout,
                     Flatten, Identity, LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool2D, MaxPool2d, ReLU,
                     Sequential, Sigmoid, SiLU, Softmax, Softplus, Tanh, Unflatten, Upsample)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Buffer, Module, Parameter
from .rms_norm import RMSNorm
from .pooling_1d import AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from .parameter_containers import ParameterDict, ParameterList
from .extra_activation import (CELU, GLU, SELU, Hardshrink, LogSigmoid, PReLU, RReLU, Softmax2d, Softmin, Softshrink,
                               Softsign, Tanhshrink, Threshold)
from .regression_losses import (CosineEmbeddingLoss, CosineSimilarity, GaussianNLLLoss, HingeEmbeddingLoss,
                               HuberLoss, KLDivLoss, MarginRankingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                               PairwiseDistance, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from .ranking_losses import CTCLoss, MultiLabelMarginLoss, TripletMarginWithDistanceLoss
from .fold import CrossMapLRN2d, Fold, LocalResponseNorm, Unfold
from .conv import Conv3d, ConvTranspose3d
from .loss import NLLLoss2d
from .lp_pool import AdaptiveAvgPool3d, LPPool1d, LPPool2d, LPPool3d
from .pool3d import AdaptiveMaxPool3d, AvgPool3d, MaxPool3d
from .bilinear import Bilinear, ChannelShuffle
from .layers import UpsamplingBilinear2d, UpsamplingNearest2d
from .attention import MultiheadAttention
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder,
                          TransformerEncoderLayer)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from . import init
from . import utils
from . import functional
from . import parallel
from .parallel import DataParallel

__all__ = ["Module", "Parameter", "Sequential", "ModuleList", "ModuleDict",
           "Conv2D", "Conv2d", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "Linear", "BatchNorm1D", "BatchNorm1d",
           "BatchNorm2D", "BatchNorm2d", "LayerNorm", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "Dropout",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "PixelShuffle", "PixelUnshuffle",
           "MaxPool2D", "MaxPool2d", "AvgPool2D", "AvgPool2d", "AdaptiveAvgPool2D", "AdaptiveAvgPool2d",
           "Upsample", "Flatten", "Unflatten", "Identity",
           "ReLU", "ReLU6", "Hardtanh", "Hardswish", "Hardsigmoid", "Mish", "LeakyReLU", "GELU", "SiLU", "ELU",
           "Softplus", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss", "BCELoss",
           "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer",
           "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "functional", "init", "utils"]
__all__ += ["DataParallel", "parallel"]
__all__ += [n for n in _dropout_layers.__all__ if n[:1].isupper()]
__all__ += ["Embedding", "EmbeddingBag"]
__all__ += ["ParameterList", "ParameterDict", "RMSNorm"]
__all__ += ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxUnpool1d",
            "MaxUnpool2d"]
__all__ += ["LogSigmoid", "Softsign", "SELU", "CELU", "GLU", "PReLU", "RReLU", "Softmin", "Softmax2d", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink"]
__all__ += ["SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "SoftMarginLoss", "MarginRankingLoss",
            "HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "CosineSimilarity", "PairwiseDistance"]
__all__ += ["MultiLabelMarginLoss", "TripletMarginWithDistanceLoss", "Fold", "Unfold", "LocalResponseNorm", "CrossMapLRN2d",
            "UpsamplingNearest2d", "UpsamplingBilinear2d", "BatchNorm3d", "InstanceNorm3d", "Conv3d", "NLLLoss2d", "CTCLoss", "LPPool1d", "LPPool2d", "LPPool3d",
            "AdaptiveAvgPool3d", "MaxPool3d", "AvgPool3d", "AdaptiveMaxPool3d",
            "Bilinear", "ChannelShuffle", "ConvTranspose3d",
            "MaxUnpool3d"]
from .sync_batchnorm import SyncBatchNorm
__all__ += ["SyncBatchNorm"]
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss
__all__ += ["AdaptiveLogSoftmaxWithLoss"]
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
from .deprecated_container import Container
from .factory import factory_kwargs
__all__ += ["Container", "factory_kwargs"]
from . import modules  # torch.nn.modules' layout; last: it names the layers above
__all__ += ["modules"]
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
                   LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear, UninitializedBuffer, UninitializedParameter)
__all__ += ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
            "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d", "UninitializedParameter", "UninitializedBuffer"]
__all__ += ["Buffer"]
from . import parameter  # torch.nn.parameter
__all__ += ["parameter"]
