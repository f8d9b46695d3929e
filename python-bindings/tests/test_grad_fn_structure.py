"""Tensor.grad_fn.next_functions laid out as PyTorch's graph for the same expression (expected
graphs written from PyTorch 2's autograd; docs/autograd.md): a convolution's node lists
(input, weight, bias) with (None, 0) for an absent bias; pow with a number lists the tensor alone;
cross_entropy is NllLossBackward0 of LogSoftmaxBackward0; indexing is one view node per int,
slice and None of the key (x[1:, 0]: Select of Slice); pad is ConstantPadNdBackward0; a composite
PyTorch computes as one op is that op's node of its operands (roll: RollBackward0); reshape of a
tensor no view can give is UnsafeViewBackward0 of CloneBackward0."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F
from grad_fn_walk import walk

_X = np.arange(16, dtype=np.float64).reshape(4, 4) / 7 - 1.1

_EXPECTED = {
    "x ** 2": (lambda x: x ** 2, "PowBackward0(AccumulateGrad)"),
    "2 ** x": (lambda x: 2 ** x, "PowBackward2(AccumulateGrad)"),
    "x.pow(0.5)": (lambda x: x.abs().pow(0.5), "PowBackward0(AbsBackward0(AccumulateGrad))"),
    "x + 1": (lambda x: x + 1, "AddBackward0(AccumulateGrad, None)"),
    "1 - x": (lambda x: 1 - x, "RsubBackward1(AccumulateGrad)"),
    "x[0]": (lambda x: x[0], "SelectBackward0(AccumulateGrad)"),
    "x[:, 0]": (lambda x: x[:, 0], "SelectBackward0(AccumulateGrad)"),
    "x[1:, 0]": (lambda x: x[1:, 0], "SelectBackward0(SliceBackward0(AccumulateGrad))"),
    "x[0, 1:]": (lambda x: x[0, 1:], "SliceBackward0(SelectBackward0(AccumulateGrad))"),
    "x[0, 1]": (lambda x: x[0, 1], "SelectBackward0(SelectBackward0(AccumulateGrad))"),
    "x[:, None, 0]": (lambda x: x[:, None, 0], "SelectBackward0(UnsqueezeBackward0(AccumulateGrad))"),
    "x[None, 1:]": (lambda x: x[None, 1:], "SliceBackward0(UnsqueezeBackward0(AccumulateGrad))"),
    "cross_entropy": (lambda x: F.cross_entropy(x, gg.tensor([0, 3, 1, 1])),
                      "NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad))"),
    "cross_entropy none": (lambda x: F.cross_entropy(x, gg.tensor([0, 3, 1, 1]), reduction="none"),
                           "NllLossBackward0(LogSoftmaxBackward0(AccumulateGrad))"),
    "nll_loss": (lambda x: F.nll_loss(x, gg.tensor([0, 3, 1, 1])), "NllLossBackward0(AccumulateGrad)"),
    "nll_loss sum": (lambda x: F.nll_loss(x, gg.tensor([0, 3, 1, 1]), reduction="sum"),
                     "NllLossBackward0(AccumulateGrad)"),
    "nll_loss none": (lambda x: F.nll_loss(x, gg.tensor([0, 3, 1, 1]), reduction="none"),
                      "NllLossBackward0(AccumulateGrad)"),
    "conv2d": (lambda x: F.conv2d(x.reshape(1, 1, 4, 4), gg.ones(1, 1, 2, 2, dtype=gg.float64)),
               "ConvolutionBackward0(ViewBackward0(AccumulateGrad), None, None)"),
    "conv2d unbatched": (lambda x: F.conv2d(x.reshape(1, 4, 4), gg.ones(1, 1, 2, 2, dtype=gg.float64)),
                         "SqueezeBackward1(ConvolutionBackward0(UnsqueezeBackward0(ViewBackward0), None, None))"),
    "conv1d": (lambda x: F.conv1d(x.reshape(1, 4, 4), gg.ones(2, 4, 2, dtype=gg.float64)),
               "ConvolutionBackward0(ViewBackward0(AccumulateGrad), None, None)"),
    "conv_transpose2d": (lambda x: F.conv_transpose2d(x.reshape(1, 1, 4, 4), gg.ones(1, 2, 2, 2, dtype=gg.float64)),
                         "ConvolutionBackward0(ViewBackward0(AccumulateGrad), None, None)"),
    "conv3d": (lambda x: F.conv3d(x.reshape(1, 1, 1, 4, 4), gg.ones(1, 1, 1, 2, 2, dtype=gg.float64), padding=1),
               "ConvolutionBackward0(ViewBackward0(AccumulateGrad), None, None)"),
    "pad": (lambda x: F.pad(x, (1, 1)), "ConstantPadNdBackward0(AccumulateGrad)"),
    "pad reflect": (lambda x: F.pad(x[None], (1, 1), mode="reflect"),
                    "ReflectionPad1DBackward0(UnsqueezeBackward0(AccumulateGrad))"),
    "pad replicate 2d": (lambda x: F.pad(x[None, None], (1, 1, 1, 1), mode="replicate"),
                         "ReplicationPad2DBackward0(UnsqueezeBackward0(UnsqueezeBackward0(AccumulateGrad)))"),
    # composites named as PyTorch's one node, listing its operands
    "roll": (lambda x: x.roll(1, 0), "RollBackward0(AccumulateGrad)"),
    "roll flat": (lambda x: x.roll(3), "RollBackward0(AccumulateGrad)"),
    "diagonal": (lambda x: x.diagonal(1), "DiagonalBackward0(AccumulateGrad)"),
    "diag of a matrix": (lambda x: x.diag(), "DiagonalBackward0_copy(AccumulateGrad)"),
    "diag of a vector": (lambda x: x[0].diag(), "DiagEmbedBackward0(SelectBackward0(AccumulateGrad))"),
    "masked_select": (lambda x: x.masked_select(x > 0), "MaskedSelectBackward0(AccumulateGrad)"),
    "take": (lambda x: x.take(gg.tensor([1, 5])), "TakeBackward0(AccumulateGrad)"),
    "nansum": (lambda x: x.nansum(1), "NansumBackward0(AccumulateGrad)"),
    "logcumsumexp": (lambda x: x.logcumsumexp(0), "LogcumsumexpBackward0(AccumulateGrad)"),
    "soft_margin_loss": (lambda x: F.soft_margin_loss(x, gg.ones(4, 4, dtype=gg.float64)),
                         "SoftMarginLossBackward0(AccumulateGrad)"),
    "selu": (lambda x: F.selu(x), "EluBackward0(AccumulateGrad)"),
    "celu": (lambda x: F.celu(x, 2.0), "CeluBackward0(AccumulateGrad)"),
    "prelu": (lambda x: F.prelu(x, gg.tensor([0.25], dtype=gg.float64)), "PreluKernelBackward0(AccumulateGrad, None)"),
    "logit": (lambda x: x.sigmoid().logit(), "LogitBackward0(SigmoidBackward0(AccumulateGrad))"),
    "logit eps": (lambda x: x.sigmoid().logit(1e-3), "LogitBackward0(SigmoidBackward0(AccumulateGrad))"),
    "Tensor.unfold": (lambda x: x.unfold(0, 2, 1), "UnfoldBackward0(AccumulateGrad)"),
    "Tensor.unfold apart": (lambda x: x.unfold(1, 2, 2), "UnfoldBackward0(AccumulateGrad)"),
    "F.unfold": (lambda x: F.unfold(x[None, None], 2), "Im2ColBackward0(UnsqueezeBackward0(UnsqueezeBackward0("
                                                             "AccumulateGrad)))"),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x.reshape(1, 4, 2, 2), 2), "PixelShuffleBackward0(ViewBackward0("
                                                                             "AccumulateGrad))"),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x.reshape(1, 1, 4, 4), 2),
                        "PixelUnshuffleBackward0(ViewBackward0(AccumulateGrad))"),
    "interpolate nearest": (lambda x: F.interpolate(x.reshape(1, 1, 4, 4), scale_factor=2),
                            "UpsampleNearest2DBackward0(ViewBackward0(AccumulateGrad))"),
    "interpolate bilinear": (lambda x: F.interpolate(x.reshape(1, 1, 4, 4), scale_factor=2, mode="bilinear"),
                             "UpsampleBilinear2DBackward0(ViewBackward0(AccumulateGrad))"),
    "interpolate linear": (lambda x: F.interpolate(x[None], size=7, mode="linear"),
                           "UpsampleLinear1DBackward0(UnsqueezeBackward0(AccumulateGrad))"),
    "group_norm": (lambda x: F.group_norm(x.reshape(2, 2, 4), 2), "NativeGroupNormBackward0(ViewBackward0("
                                                                    "AccumulateGrad), None, None)"),
    "cdist": (lambda x: gg.cdist(x, gg.ones(3, 4, dtype=gg.float64)), "CdistBackward0(AccumulateGrad, None)"),
    "pairwise_distance": (lambda x: F.pairwise_distance(x, gg.ones(4, dtype=gg.float64)),
                          "NormBackward1(AddBackward1(SubBackward0(AccumulateGrad, None)))"),
    "norm": (lambda x: x.norm(), "LinalgVectorNormBackward0(AccumulateGrad)"),
    "norm(p=1, dim)": (lambda x: x.norm(1, dim=1), "LinalgVectorNormBackward0(AccumulateGrad)"),
    # products of vectors
    "v @ x": (lambda x: gg.ones(4, dtype=gg.float64) @ x, "SqueezeBackward4(MmBackward0(None, AccumulateGrad))"),
    "x @ v": (lambda x: x @ gg.ones(4, dtype=gg.float64), "MvBackward0(AccumulateGrad, None)"),
    "dot": (lambda x: gg.dot(x[0], x[1]), "DotBackward0(SelectBackward0(AccumulateGrad), SelectBackward0("
                                             "AccumulateGrad))"),
    # reshape of a tensor no view can give copies first
    "t().reshape": (lambda x: x.t().reshape(16), "UnsafeViewBackward0(CloneBackward0(TBackward0(AccumulateGrad)))"),
    "permute().flatten()": (lambda x: x.permute(1, 0).flatten(),
                            "UnsafeViewBackward0(CloneBackward0(PermuteBackward0(AccumulateGrad)))"),
    "x[:, :2].reshape": (lambda x: x[:, :2].reshape(8), "UnsafeViewBackward0(CloneBackward0(SliceBackward0("
                                                          "AccumulateGrad)))"),
    "x[:2].reshape": (lambda x: x[:2].reshape(8), "ViewBackward0(SliceBackward0(AccumulateGrad))"),
    # in-place view ops: PyTorch's nodes of the in-place forms
    "unsqueeze_": (lambda x: (x * 1).unsqueeze_(0), "UnsqueezeBackward1(MulBackward0(AccumulateGrad, None))"),
    "squeeze_()": (lambda x: (x * 1).unsqueeze(0).squeeze_(), "SqueezeBackward3(UnsqueezeBackward0(MulBackward0("
                                                                 "AccumulateGrad, None)))"),
    "squeeze_(dim)": (lambda x: (x * 1).unsqueeze(1).squeeze_(1), "SqueezeBackward4(UnsqueezeBackward0(MulBackward0("
                                                                     "AccumulateGrad, None)))"),
    "t_": (lambda x: (x * 1).t_(), "TBackward1(MulBackward0(AccumulateGrad, None))"),
    "transpose_": (lambda x: (x * 1).transpose_(0, 1), "TransposeBackward1(MulBackward0(AccumulateGrad, None))"),
    # attention on the CPU: PyTorch's flash kernel's node
    "sdpa": (lambda x: F.scaled_dot_product_attention(x[None, None], gg.ones(1, 1, 4, 4, dtype=gg.float64),
                                                      gg.ones(1, 1, 4, 4, dtype=gg.float64)),
             "ScaledDotProductFlashAttentionForCpuBackward0(UnsqueezeBackward0(UnsqueezeBackward0(AccumulateGrad)), "
             "None, None)"),
}


@pytest.mark.parametrize("name", list(_EXPECTED))
def test_next_functions_are_pytorchs(name):
    f, expected = _EXPECTED[name]
    x = gg.tensor(_X, requires_grad=True)
    assert walk(f(x).grad_fn) == expected


def test_conv_lists_weight_and_bias_that_require_grad():
    x = gg.tensor(_X.reshape(1, 1, 4, 4), requires_grad=True)
    w = gg.ones(2, 1, 2, 2, dtype=gg.float64, requires_grad=True)
    b = gg.zeros(2, dtype=gg.float64, requires_grad=True)
    node = F.conv2d(x, w, b).grad_fn
    assert [n.variable is t for (n, _), t in zip(node.next_functions, (x, w, b))] == [True, True, True]
    assert walk(F.conv2d(x, w).grad_fn) == "ConvolutionBackward0(AccumulateGrad, AccumulateGrad, None)"


def test_inner_nodes_end_at_the_input():
    # the LogSoftmax node cross_entropy shows leads to the logits' node, whose walk continues
    x = gg.tensor(_X, requires_grad=True)
    loss = F.cross_entropy(x * 2, gg.tensor([0, 3, 1, 1]))
    log_softmax = loss.grad_fn.next_functions[0][0]
    assert log_softmax.name() == "LogSoftmaxBackward0"
    assert walk(log_softmax) == "LogSoftmaxBackward0(MulBackward0(AccumulateGrad, None))"
    assert log_softmax.next_functions[0][0].next_functions[0][0].variable is x


def test_the_values_and_gradients_are_unchanged():
    # naming the nodes records attributes only: the values and gradients stay the composites'
    x = gg.tensor(_X, requires_grad=True)
    (x[1:, 0].sum() * 3 + F.pad(x, (1, 1)).sum() + (x ** 2).sum()).backward()
    want = 2 * _X + 1
    want[1:, 0] += 3
    np.testing.assert_allclose(x.grad.numpy(), want)
