"""Tensor.grad_fn of glassgrad's composed functions named as PyTorch 2.14's node (norm's
LinalgVectorNormBackward0, prod's ProdBackward0/1, logsumexp's LogsumexpBackward0, std_mean's and
var_mean's one node for both results, soft-target cross_entropy's DivBackward1, embedding's
EmbeddingBackward0, hypot's, fmax's, remainder's of two tensors RemainderBackward1, tril's, cummax's,
repeat's, split's, 2 ** x's PowBackward2, median's, kthvalue's, mode's, nextafter's...), one table
decided by torch; and each one's value and float64 gradient as PyTorch's (the naming changed which
op a composite ends with). Skipped without torch."""
import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(21)
_X = _RNG.standard_normal((3, 5))
_X3 = _RNG.standard_normal((2, 3, 5))
_P = _RNG.dirichlet(np.ones(5), size=3)

# name: f(L, x, x3) with x (3, 5) and x3 (2, 3, 5) float64 leaves that require grad -> a tensor
_CASES = {
    "norm": lambda L, x, x3: x.norm(),
    "norm(dim=1)": lambda L, x, x3: x.norm(dim=1),
    "norm(p=1)": lambda L, x, x3: x.norm(p=1),
    "norm(p=3, dim=0, keepdim)": lambda L, x, x3: x.norm(p=3, dim=0, keepdim=True),
    "linalg.vector_norm": lambda L, x, x3: L.linalg.vector_norm(x3, dim=(1, 2)),
    "linalg.matrix_norm fro": lambda L, x, x3: L.linalg.matrix_norm(x3),
    "dist": lambda L, x, x3: L.dist(x, x3[0]),
    "prod": lambda L, x, x3: x.prod(),
    "prod(1)": lambda L, x, x3: x.prod(1),
    "prod(0, keepdim)": lambda L, x, x3: x3.prod(0, keepdim=True),
    "logsumexp(1)": lambda L, x, x3: x.logsumexp(1),
    "logsumexp((0, 2), keepdim)": lambda L, x, x3: x3.logsumexp((0, 2), keepdim=True),
    "std_mean std": lambda L, x, x3: L.std_mean(x)[0],
    "std_mean mean": lambda L, x, x3: L.std_mean(x, dim=1)[1],
    "var_mean var": lambda L, x, x3: L.var_mean(x3, dim=(0, 1))[0],
    "var_mean mean": lambda L, x, x3: L.var_mean(x)[1],
    "kl_div batchmean": lambda L, x, x3: L.nn.functional.kl_div(x.log_softmax(1), L.tensor(_P), reduction="batchmean"),
    "cross_entropy soft": lambda L, x, x3: L.nn.functional.cross_entropy(x, L.tensor(_P)),
    "cross_entropy soft sum": lambda L, x, x3: L.nn.functional.cross_entropy(x, L.tensor(_P), reduction="sum"),
    "cross_entropy soft none": lambda L, x, x3: L.nn.functional.cross_entropy(x, L.tensor(_P), reduction="none"),
    "cross_entropy soft smoothing": lambda L, x, x3: L.nn.functional.cross_entropy(x, L.tensor(_P),
                                                                                  label_smoothing=0.2),
    "cross_entropy soft 3-D": lambda L, x, x3: L.nn.functional.cross_entropy(x3.permute(0, 2, 1),
                                                                            L.tensor(_P.T[None].repeat(2, 0))),
    "embedding": lambda L, x, x3: L.nn.functional.embedding(L.tensor([[0, 2], [1, 1]]), x),
    "embedding 1-d": lambda L, x, x3: L.nn.functional.embedding(L.tensor([2, 0, 2]), x),
    "masked_fill": lambda L, x, x3: x.masked_fill(L.tensor(_X > 0), 0.5),
    "x[0]": lambda L, x, x3: x[0],
    "x % y": lambda L, x, x3: x % (x3[0].abs() + 0.5),
    "x % 2": lambda L, x, x3: x % 2,
    "fmod(x, y)": lambda L, x, x3: L.fmod(x, x3[0].abs() + 0.5),
    "frac": lambda L, x, x3: (x * 3).frac(),
    "hypot": lambda L, x, x3: L.hypot(x, x3[0]),
    "logaddexp": lambda L, x, x3: L.logaddexp(x, x3[0]),
    "xlogy": lambda L, x, x3: L.xlogy(x, x3[0].abs() + 0.1),
    "sinc": lambda L, x, x3: L.sinc(x),
    "copysign": lambda L, x, x3: L.copysign(x, x3[0]),
    "fmax": lambda L, x, x3: L.fmax(x, x3[0]),
    "fmin": lambda L, x, x3: L.fmin(x, x3[0]),
    "tril": lambda L, x, x3: x.tril(),
    "triu(1)": lambda L, x, x3: x3.triu(1),
    "diag_embed": lambda L, x, x3: L.diag_embed(x),
    "trace": lambda L, x, x3: x[:, :3].trace(),
    "bmm": lambda L, x, x3: L.bmm(x3, x3.transpose(1, 2)),
    "addmm": lambda L, x, x3: L.addmm(x[:, :3], x, x3[0].T),
    "addmm broadcast alpha beta": lambda L, x, x3: L.addmm(x[0, :3], x, x3[1].T, beta=0.5, alpha=2),
    "addmm beta 0": lambda L, x, x3: L.addmm(x[:, :3], x, x3[0].T, beta=0),
    "baddbmm": lambda L, x, x3: L.baddbmm(x3[:, :, :3], x3, x3.transpose(1, 2)),
    "sort": lambda L, x, x3: x.sort(1)[0],
    "sort descending along 0": lambda L, x, x3: x3.sort(0, descending=True).values,
    "msort": lambda L, x, x3: x.msort(),
    "topk": lambda L, x, x3: x.topk(2)[0],
    "topk smallest along 1": lambda L, x, x3: x3.topk(2, dim=1, largest=False).values,
    "Linear weight on 3-D input": lambda L, x, x3: L.nn.functional.linear(x3, x, x[0, :3]),
    "cummax": lambda L, x, x3: L.cummax(x, 1)[0],
    "cummin along 0": lambda L, x, x3: x3.cummin(0).values,
    "repeat": lambda L, x, x3: x.repeat(2, 1),
    "repeat new dims": lambda L, x, x3: x[0].repeat(2, 1, 2),
    "tile": lambda L, x, x3: x.tile(2),
    "chunk": lambda L, x, x3: x.chunk(2, 1)[0],
    "chunk last": lambda L, x, x3: x3.chunk(2, 2)[1],
    "split": lambda L, x, x3: x.split(2, 1)[2],
    "split sizes": lambda L, x, x3: x.split([1, 4], 1)[1],
    "unbind": lambda L, x, x3: x3.unbind(1)[2],
    "2 ** x": lambda L, x, x3: 2 ** x,
    "pow(1.5, x)": lambda L, x, x3: L.pow(1.5, x),
    "x ** y": lambda L, x, x3: x.abs() ** x3[0],
    "median": lambda L, x, x3: x.median(),
    "median(1)": lambda L, x, x3: x.median(1)[0],
    "median(0, keepdim)": lambda L, x, x3: x3.median(0, keepdim=True).values,
    "nanmedian": lambda L, x, x3: x.nanmedian(),
    "nanmedian(1)": lambda L, x, x3: x.nanmedian(1)[0],
    "kthvalue": lambda L, x, x3: x.kthvalue(2, 1)[0],
    "kthvalue keepdim": lambda L, x, x3: x3.kthvalue(3, 2, keepdim=True).values,
    "mode": lambda L, x, x3: L.cat([x, x[:, :2]], 1).mode(1)[0],
    "nextafter": lambda L, x, x3: L.nextafter(x, x3[0]),
    "nextafter broadcast": lambda L, x, x3: L.nextafter(x[0], x3),
}


def _run(L, name):
    x = L.tensor(_X, requires_grad=True)
    x3 = L.tensor(_X3, requires_grad=True)
    y = _CASES[name](L, x, x3)
    node = type(y.grad_fn).__name__
    (y * L.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))).sum().backward()
    grads = [np.zeros_like(a) if t.grad is None else t.grad.numpy() for t, a in ((x, _X), (x3, _X3))]
    return node, y.detach().numpy(), grads


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_composite_is_named_and_differentiated_as_torch(name):
    want_node, want_value, want_grads = _run(torch, name)
    node, value, grads = _run(gt, name)
    assert node == want_node
    np.testing.assert_allclose(value, want_value, rtol=1e-12, atol=1e-12)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_without_grad_the_composites_record_no_name():
    x = gt.tensor(_X)
    for y in (x.norm(), x.prod(1), x.logsumexp(1), gt.std_mean(x)[1], x.cummax(1)[0], x.repeat(2, 1), x.chunk(2)[0],
              x.median(), x.kthvalue(2)[0], x.mode()[0], gt.nextafter(x, x), 2 ** x):
        assert y.grad_fn is None and not y.requires_grad
