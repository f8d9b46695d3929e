"""One table of constructed torch.nn layers, written once for both libraries: each case is a
function of the `nn` namespace (glassgrad.torch.nn or torch.nn), so the same construction runs
in glassgrad and in PyTorch, as a ported script does. test_torch_nn_layer_surface.py builds every
case in both and compares what a script sees of the module: print(model) text, state_dict keys,
shapes and dtypes, parameter and buffer names, and which buffers are persistent.
"""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

Case = Tuple[str, Callable[[Any], Any]]


def _cases() -> List[Case]:
    c: List[Case] = []

    def add(name: str, make: Callable[[Any], Any]) -> None:
        c.append((name, make))

    # activations
    for n in ("ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish", "Sigmoid",
              "Tanh", "Tanhshrink", "Softsign", "LogSigmoid", "Softmax2d", "Identity"):
        add(n, lambda nn, n=n: getattr(nn, n)())
    for n in ("ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardsigmoid", "Hardswish"):
        add(n + "-inplace", lambda nn, n=n: getattr(nn, n)(inplace=True))
    add("ELU", lambda nn: nn.ELU())
    add("ELU-args", lambda nn: nn.ELU(alpha=0.5, inplace=True))
    add("CELU", lambda nn: nn.CELU(2.0))
    add("CELU-inplace", lambda nn: nn.CELU(inplace=True))
    add("GELU", lambda nn: nn.GELU())
    add("GELU-tanh", lambda nn: nn.GELU(approximate="tanh"))
    add("GLU", lambda nn: nn.GLU())
    add("GLU-dim", lambda nn: nn.GLU(dim=1))
    add("Hardshrink", lambda nn: nn.Hardshrink())
    add("Softshrink", lambda nn: nn.Softshrink(0.25))
    add("Hardtanh", lambda nn: nn.Hardtanh())
    add("Hardtanh-args", lambda nn: nn.Hardtanh(-2.0, 3.0, inplace=True))
    add("LeakyReLU", lambda nn: nn.LeakyReLU())
    add("LeakyReLU-args", lambda nn: nn.LeakyReLU(0.2, inplace=True))
    add("PReLU", lambda nn: nn.PReLU())
    add("PReLU-args", lambda nn: nn.PReLU(3, init=0.1))
    add("RReLU", lambda nn: nn.RReLU())
    add("RReLU-args", lambda nn: nn.RReLU(0.1, 0.3, inplace=True))
    add("Softplus", lambda nn: nn.Softplus())
    add("Softplus-args", lambda nn: nn.Softplus(beta=2, threshold=10))
    add("Threshold", lambda nn: nn.Threshold(0.1, 20))
    add("Threshold-inplace", lambda nn: nn.Threshold(0.1, 20.0, inplace=True))
    for n in ("Softmax", "LogSoftmax", "Softmin"):
        add(n, lambda nn, n=n: getattr(nn, n)())
        add(n + "-dim", lambda nn, n=n: getattr(nn, n)(dim=1))
    add("MultiheadAttention", lambda nn: nn.MultiheadAttention(8, 2))
    add("MultiheadAttention-kv", lambda nn: nn.MultiheadAttention(8, 2, kdim=4, vdim=6, batch_first=True))
    add("MultiheadAttention-bias-kv", lambda nn: nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, dropout=0.1))
    # linear, bilinear, embedding
    add("Linear", lambda nn: nn.Linear(3, 4))
    add("Linear-nobias", lambda nn: nn.Linear(3, 4, bias=False))
    add("Bilinear", lambda nn: nn.Bilinear(2, 3, 4))
    add("Bilinear-nobias", lambda nn: nn.Bilinear(2, 3, 4, bias=False))
    add("LazyLinear", lambda nn: nn.LazyLinear(4))
    add("Embedding", lambda nn: nn.Embedding(10, 3))
    add("Embedding-args", lambda nn: nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=1.0,
                                                   scale_grad_by_freq=True, sparse=True))
    add("Embedding-negpad", lambda nn: nn.Embedding(10, 3, padding_idx=-1))
    add("EmbeddingBag", lambda nn: nn.EmbeddingBag(10, 3))
    add("EmbeddingBag-args", lambda nn: nn.EmbeddingBag(10, 3, mode="sum", max_norm=2.0, padding_idx=1,
                                                         include_last_offset=True))
    # convolutions
    add("Conv1d", lambda nn: nn.Conv1d(2, 4, 3))
    add("Conv2d", lambda nn: nn.Conv2d(1, 16, 3))
    add("Conv2d-args", lambda nn: nn.Conv2d(4, 8, (3, 5), stride=2, padding=1, dilation=2, groups=2,
                                             bias=False, padding_mode="reflect"))
    add("Conv2d-same", lambda nn: nn.Conv2d(2, 2, 3, padding="same"))
    add("Conv2d-valid", lambda nn: nn.Conv2d(2, 2, 3, padding="valid"))
    add("Conv2d-circular", lambda nn: nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular"))
    add("Conv3d", lambda nn: nn.Conv3d(2, 3, 3, stride=(1, 2, 1)))
    add("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(2, 4, 3))
    add("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1))
    add("ConvTranspose2d-args", lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1,
                                                               groups=2, bias=False, dilation=1))
    add("ConvTranspose3d", lambda nn: nn.ConvTranspose3d(2, 3, 2, dilation=2))
    add("LazyConv1d", lambda nn: nn.LazyConv1d(4, 3))
    add("LazyConv2d", lambda nn: nn.LazyConv2d(4, 3, stride=2))
    add("LazyConv3d", lambda nn: nn.LazyConv3d(4, 3))
    add("LazyConvTranspose1d", lambda nn: nn.LazyConvTranspose1d(4, 3))
    add("LazyConvTranspose2d", lambda nn: nn.LazyConvTranspose2d(4, 3))
    add("LazyConvTranspose3d", lambda nn: nn.LazyConvTranspose3d(4, 3))
    add("Fold", lambda nn: nn.Fold(output_size=(4, 5), kernel_size=2))
    add("Unfold", lambda nn: nn.Unfold(kernel_size=(2, 3), padding=1, stride=2))
    # normalization
    for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"):
        add(n, lambda nn, n=n: getattr(nn, n)(4))
        add(n + "-args", lambda nn, n=n: getattr(nn, n)(4, eps=1e-3, momentum=None, affine=False))
        add(n + "-nostats", lambda nn, n=n: getattr(nn, n)(4, track_running_stats=False))
    for n in ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
        add(n, lambda nn, n=n: getattr(nn, n)(4))
        add(n + "-affine", lambda nn, n=n: getattr(nn, n)(4, affine=True, track_running_stats=True))
    for n in ("LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
              "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"):
        add(n, lambda nn, n=n: getattr(nn, n)())
    add("LayerNorm", lambda nn: nn.LayerNorm(4))
    add("LayerNorm-args", lambda nn: nn.LayerNorm([2, 3], eps=1e-6, elementwise_affine=False))
    add("LayerNorm-nobias", lambda nn: nn.LayerNorm((2, 3), bias=False))
    add("GroupNorm", lambda nn: nn.GroupNorm(2, 4))
    add("GroupNorm-noaffine", lambda nn: nn.GroupNorm(2, 4, affine=False))
    add("RMSNorm", lambda nn: nn.RMSNorm(4))
    add("RMSNorm-args", lambda nn: nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False))
    add("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(2))
    add("LocalResponseNorm-args", lambda nn: nn.LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0))
    add("CrossMapLRN2d", lambda nn: nn.CrossMapLRN2d(5, alpha=0.001, beta=0.5, k=2))
    # pooling
    for n, k in (("MaxPool1d", 3), ("MaxPool2d", 3), ("MaxPool3d", 2)):
        add(n, lambda nn, n=n, k=k: getattr(nn, n)(k))
        add(n + "-args", lambda nn, n=n, k=k: getattr(nn, n)(k, stride=1, padding=1, dilation=1,
                                                             return_indices=True, ceil_mode=True))
    for n, k in (("AvgPool1d", 3), ("AvgPool2d", 3), ("AvgPool3d", 2)):
        add(n, lambda nn, n=n, k=k: getattr(nn, n)(k))
        add(n + "-args", lambda nn, n=n, k=k: getattr(nn, n)(k, stride=2, padding=1, ceil_mode=True,
                                                             count_include_pad=False))
    add("AvgPool2d-divisor", lambda nn: nn.AvgPool2d(2, divisor_override=3))
    for n in ("AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
              "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"):
        add(n, lambda nn, n=n: getattr(nn, n)(2))
    add("AdaptiveAvgPool2d-tuple", lambda nn: nn.AdaptiveAvgPool2d((None, 7)))
    add("AdaptiveMaxPool2d-idx", lambda nn: nn.AdaptiveMaxPool2d((2, 3), return_indices=True))
    add("LPPool1d", lambda nn: nn.LPPool1d(2, 3))
    add("LPPool2d", lambda nn: nn.LPPool2d(2.0, (2, 3), stride=1, ceil_mode=True))
    add("LPPool3d", lambda nn: nn.LPPool3d(1, 2))
    add("FractionalMaxPool2d", lambda nn: nn.FractionalMaxPool2d(2, output_size=3))
    add("FractionalMaxPool2d-ratio", lambda nn: nn.FractionalMaxPool2d(2, output_ratio=0.5, return_indices=True))
    add("FractionalMaxPool3d", lambda nn: nn.FractionalMaxPool3d(2, output_size=(3, 3, 3)))
    add("MaxUnpool1d", lambda nn: nn.MaxUnpool1d(2))
    add("MaxUnpool2d", lambda nn: nn.MaxUnpool2d(2, stride=2, padding=1))
    add("MaxUnpool3d", lambda nn: nn.MaxUnpool3d(2))
    # padding
    for d, p in (("1d", 1), ("2d", (1, 2, 0, 1)), ("3d", 2)):
        for n in ("ReflectionPad", "ReplicationPad", "ZeroPad", "CircularPad"):
            add(n + d, lambda nn, n=n, d=d, p=p: getattr(nn, n + d)(p))
        add("ConstantPad" + d, lambda nn, d=d, p=p: getattr(nn, "ConstantPad" + d)(p, 3.5))
    # dropout
    for n in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        add(n, lambda nn, n=n: getattr(nn, n)())
        add(n + "-args", lambda nn, n=n: getattr(nn, n)(0.2, inplace=True))
    # shapes, pixels, distances
    add("Flatten", lambda nn: nn.Flatten())
    add("Flatten-args", lambda nn: nn.Flatten(0, 2))
    add("Unflatten", lambda nn: nn.Unflatten(1, (2, 3)))
    add("PixelShuffle", lambda nn: nn.PixelShuffle(2))
    add("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(3))
    add("ChannelShuffle", lambda nn: nn.ChannelShuffle(2))
    add("Upsample", lambda nn: nn.Upsample(scale_factor=2))
    add("Upsample-bilinear", lambda nn: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True))
    add("Upsample-size", lambda nn: nn.Upsample(size=(4, 5), mode="nearest"))
    add("Upsample-float", lambda nn: nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=False))
    add("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(scale_factor=2))
    add("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(size=(3, 4)))
    add("CosineSimilarity", lambda nn: nn.CosineSimilarity())
    add("CosineSimilarity-args", lambda nn: nn.CosineSimilarity(dim=0, eps=1e-6))
    add("PairwiseDistance", lambda nn: nn.PairwiseDistance())
    add("PairwiseDistance-args", lambda nn: nn.PairwiseDistance(p=1.0, keepdim=True))
    # recurrent
    add("RNN", lambda nn: nn.RNN(3, 4))
    add("RNN-args", lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False, batch_first=True,
                                       dropout=0.5, bidirectional=True))
    add("LSTM", lambda nn: nn.LSTM(3, 4))
    add("LSTM-args", lambda nn: nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True))
    add("LSTM-proj", lambda nn: nn.LSTM(3, 4, proj_size=2))
    add("GRU", lambda nn: nn.GRU(3, 4))
    add("GRU-args", lambda nn: nn.GRU(3, 4, num_layers=3, dropout=0.1))
    add("RNNCell", lambda nn: nn.RNNCell(3, 4))
    add("RNNCell-relu", lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"))
    add("LSTMCell", lambda nn: nn.LSTMCell(3, 4))
    add("GRUCell", lambda nn: nn.GRUCell(3, 4, bias=False))
    # transformer
    add("TransformerEncoderLayer", lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16))
    add("TransformerEncoderLayer-args", lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation="gelu", batch_first=True, norm_first=True, bias=False))
    add("TransformerDecoderLayer", lambda nn: nn.TransformerDecoderLayer(8, 2, dim_feedforward=16))
    add("TransformerEncoder", lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2, norm=nn.LayerNorm(8),
        enable_nested_tensor=False))
    add("TransformerDecoder", lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2))
    add("Transformer", lambda nn: nn.Transformer(8, 2, 1, 1, 16))
    # losses
    for n in ("L1Loss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "NLLLoss",
              "NLLLoss2d", "KLDivLoss", "HuberLoss", "SmoothL1Loss", "SoftMarginLoss", "CTCLoss",
              "CosineEmbeddingLoss", "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
              "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
              "TripletMarginLoss", "TripletMarginWithDistanceLoss"):
        add(n, lambda nn, n=n: getattr(nn, n)())
    add("CrossEntropyLoss-weight", lambda nn: nn.CrossEntropyLoss(
        weight=_ones(nn, 3), ignore_index=1, label_smoothing=0.1, reduction="sum"))
    add("NLLLoss-weight", lambda nn: nn.NLLLoss(weight=_ones(nn, 3)))
    add("BCEWithLogitsLoss-pos", lambda nn: nn.BCEWithLogitsLoss(weight=_ones(nn, 3), pos_weight=_ones(nn, 3)))
    add("BCELoss-weight", lambda nn: nn.BCELoss(weight=_ones(nn, 3)))
    add("MultiMarginLoss-weight", lambda nn: nn.MultiMarginLoss(p=2, margin=0.5, weight=_ones(nn, 3)))
    add("MultiLabelSoftMarginLoss-weight", lambda nn: nn.MultiLabelSoftMarginLoss(weight=_ones(nn, 3)))
    add("AdaptiveLogSoftmaxWithLoss", lambda nn: nn.AdaptiveLogSoftmaxWithLoss(16, 10, [4, 8]))
    add("AdaptiveLogSoftmaxWithLoss-empty-projection", lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8]))
    add("Linear-zero", lambda nn: nn.Linear(3, 0))
    add("AdaptiveLogSoftmaxWithLoss-bias", lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4], div_value=2.0,
                                                                                    head_bias=True))
    # numbers written as ints print as ints (PyTorch keeps the arguments as given)
    for text in ("Dropout(0)", "Dropout2d(p=1)", "AlphaDropout(0)", "LeakyReLU(1)", "ELU(2)", "CELU(2)",
                 "Hardtanh(-2, 2)", "Softshrink(1)", "Hardshrink(1)", "RReLU(0, 1)", "Softplus(2, 10)",
                 "BatchNorm2d(3, eps=1, momentum=1)", "InstanceNorm1d(3, eps=1)", "LayerNorm(3, eps=1)",
                 "GroupNorm(1, 2, eps=1)", "LocalResponseNorm(2, alpha=1, beta=1, k=2)", "RMSNorm(3, eps=1)",
                 "ConstantPad1d((1, 2), 0)", "Unflatten(-1, [2, 2])", "Threshold(1, 2)", "PReLU(init=1)",
                 "CosineSimilarity(eps=1)", "PairwiseDistance(p=1, eps=1)", "LPPool1d(1, 2)",
                 "HuberLoss(delta=2)", "SmoothL1Loss(beta=2)", "TripletMarginLoss(margin=2, p=1)",
                 "Upsample(scale_factor=2.0)", "Upsample(scale_factor=(2, 3))", "Embedding(3, 2, max_norm=1)"):
        add("ints-" + text, lambda nn, text=text: eval("nn." + text, {"nn": nn}))
    return c


def _ones(nn: Any, n: int) -> Any:
    # nn.Parameter's module is the library's own (glassgrad or torch): a weight tensor made through it
    mod = __import__(nn.Parameter.__module__.split(".")[0])
    return mod.ones(n)


CASES = _cases()


def containers(nn: Any) -> List[Case]:
    """Nested containers as scripts print them."""
    def seq():
        return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Sequential(nn.Flatten(), nn.Linear(4, 2)))

    return [
        ("Sequential", seq),
        ("Sequential-empty", lambda: nn.Sequential()),
        ("ModuleList", lambda: nn.ModuleList([nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])),
        ("ModuleList-repeat", lambda: nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])),
        ("ModuleList-empty", lambda: nn.ModuleList()),
        ("ModuleDict", lambda: nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.Sequential(nn.ReLU(), nn.Tanh())})),
        ("ParameterList", lambda: nn.ParameterList([nn.Parameter(_ones(nn, 2)), nn.Parameter(_ones(nn, 3))])),
        ("ParameterDict", lambda: nn.ParameterDict({"w": nn.Parameter(_ones(nn, 2))})),
    ]
