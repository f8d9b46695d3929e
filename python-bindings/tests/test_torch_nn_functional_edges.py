"""torch.nn.functional edge cases against PyTorch, one table run on both libraries: pad (every mode,
negative pads, 1-3 spatial dims, value with other modes), interpolate (every mode x align_corners x
size / scale_factor / recompute_scale_factor, antialias), grid_sample / affine_grid, unfold / fold,
embedding (padding_idx, max_norm), cross_entropy (class indices and probabilities, label_smoothing,
ignore_index, weight, K-d), nll_loss 1-d / K-d, pixel_shuffle / unshuffle, normalize,
cosine_similarity, pairwise_distance, one_hot, gumbel_softmax shapes, dropouts in eval and at p = 0
and 1, ctc_loss. Values, shapes and dtypes are compared, and the gradients of every float input
where the result has one; where torch raises, glassgrad raises an instance of the same class."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import glassgrad.torch as gt

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
_made: list = []


def T(lib, a, **kw):
    """A tensor of lib from the array a; float arrays require gradients (and are compared)."""
    a = np.asarray(a)
    if a.dtype.kind == "f" and "requires_grad" not in kw:
        t = lib.tensor(a, requires_grad=True)
        _made.append(t)
        return t
    return lib.tensor(a, **kw)


def C(lib, a):
    """A constant tensor (class weights: PyTorch refuses weights that require gradients)."""
    return lib.tensor(np.asarray(a))


cases: list = []
# docs/porting.md lists it: PyTorch's gradient of an impossible CTC alignment (an infinite loss) is
# nan, glassgrad's 0; the values are compared
VALUES_ONLY = {"ctc-inf"}


def add(name, f):
    cases.append((name, f))


X4 = rng.standard_normal((2, 3, 5, 6))
X3 = rng.standard_normal((2, 3, 7))
X5 = rng.standard_normal((1, 2, 3, 4, 5))
for mode in ["constant", "reflect", "replicate", "circular"]:
    for pad in [(1, 2), (2, 1, 1, 0), (0, -1), (-1, 2, 1, -2), (1, 1, 2, 2, 1, 1)]:
        for X in (X3, X4, X5):
            add(f"pad-{mode}-{pad}-{X.ndim}", lambda F, lib, mode=mode, pad=pad, X=X: F.pad(T(lib, X), pad, mode=mode))
    add(f"pad-{mode}-value", lambda F, lib, mode=mode: F.pad(T(lib, X4), (1, 1), mode=mode, value=2.5))
for mode in ["nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact"]:
    X = {"linear": X3, "bilinear": X4, "bicubic": X4, "trilinear": X5}.get(mode, X4)
    for ac in ([None] if mode in ("nearest", "area", "nearest-exact") else [None, True, False]):
        for kw in [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6), dict(size=4 if X.ndim == 3 else None),
                   dict(scale_factor=1.7, recompute_scale_factor=True), dict(scale_factor=0.45, recompute_scale_factor=False)]:
            if kw.get("size", 0) is None:
                kw = dict(size=tuple([4] * (X.ndim - 2)))
            for aa in ([False, True] if mode in ("bilinear", "bicubic") else [False]):
                add(f"interp-{mode}-{ac}-{kw}-aa{aa}", lambda F, lib, mode=mode, ac=ac, kw=kw, X=X, aa=aa:
                    F.interpolate(T(lib, X), mode=mode, align_corners=ac, antialias=aa, **kw))
    add(f"interp-{mode}-nearest-on-3d", lambda F, lib, mode=mode: F.interpolate(T(lib, X5), scale_factor=(1, 2, 0.5), mode="nearest"))
for mode in ["bilinear", "nearest", "bicubic"]:
    for pm in ["zeros", "border", "reflection"]:
        for ac in [True, False]:
            add(f"grid-{mode}-{pm}-{ac}", lambda F, lib, mode=mode, pm=pm, ac=ac: F.grid_sample(
                T(lib, X4), T(lib, rng.uniform(-1.3, 1.3, (2, 4, 3, 2))), mode=mode, padding_mode=pm, align_corners=ac))
for ac in [True, False]:
    add(f"affine_grid-{ac}", lambda F, lib, ac=ac: F.affine_grid(T(lib, rng.standard_normal((2, 2, 3))), [2, 3, 4, 5], align_corners=ac))
    add(f"affine_grid3d-{ac}", lambda F, lib, ac=ac: F.affine_grid(T(lib, rng.standard_normal((1, 3, 4))), [1, 1, 2, 3, 4], align_corners=ac))
add("unfold", lambda F, lib: F.unfold(T(lib, X4), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)))
add("fold", lambda F, lib: F.fold(T(lib, rng.standard_normal((2, 12, 12))), (5, 6), (2, 2), padding=(0, 1), stride=(1, 2)))
add("unfold-3d-input", lambda F, lib: F.unfold(T(lib, X4[0]), 2))
W = rng.standard_normal((10, 4))
idx = np.array([[0, 2, 9], [2, 2, 1]])
add("embedding", lambda F, lib: F.embedding(T(lib, idx), T(lib, W)))
add("embedding-pad", lambda F, lib: F.embedding(T(lib, idx), T(lib, W), padding_idx=2))
add("embedding-maxnorm", lambda F, lib: F.embedding(T(lib, idx), T(lib, W), max_norm=1.0))
add("embedding-maxnorm-p1", lambda F, lib: F.embedding(T(lib, idx), T(lib, W), max_norm=0.5, norm_type=1.0))
add("embedding-negpad", lambda F, lib: F.embedding(T(lib, idx), T(lib, W), padding_idx=-1))
logits = rng.standard_normal((4, 5))
tgt = np.array([1, 0, 4, 2])
probs = rng.dirichlet(np.ones(5), 4)
w5 = rng.uniform(0.5, 2, 5)
for red in ["mean", "sum", "none"]:
    add(f"ce-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, tgt), reduction=red))
    add(f"ce-probs-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, probs), reduction=red))
    add(f"ce-probs-ls-w-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, probs), weight=C(lib, w5), label_smoothing=0.2, reduction=red))
    add(f"ce-ls-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, tgt), label_smoothing=0.1, reduction=red))
    add(f"ce-ls-w-ign-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, np.array([1, -100, 4, 2])), weight=C(lib, w5), label_smoothing=0.3, reduction=red))
    add(f"ce-ign-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, tgt), ignore_index=4, reduction=red))
    add(f"ce-w-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, logits), T(lib, tgt), weight=C(lib, w5), reduction=red))
    add(f"ce-kd-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, X4), T(lib, rng.integers(0, 3, (2, 5, 6))), weight=C(lib, w5[:3]), label_smoothing=0.1, ignore_index=1, reduction=red))
    add(f"ce-kd-probs-{red}", lambda F, lib, red=red: F.cross_entropy(T(lib, X4), T(lib, np.abs(X4) / np.abs(X4).sum(1, keepdims=True)), reduction=red))
    add(f"nll-1d-{red}", lambda F, lib, red=red: F.nll_loss(T(lib, logits[0]), T(lib, np.array(3)), reduction=red))
    add(f"nll-kd-{red}", lambda F, lib, red=red: F.nll_loss(T(lib, X4), T(lib, rng.integers(0, 3, (2, 5, 6))), weight=C(lib, w5[:3]), ignore_index=2, reduction=red))
    add(f"nll-3d-{red}", lambda F, lib, red=red: F.nll_loss(T(lib, X3), T(lib, rng.integers(0, 3, (2, 7))), reduction=red))
add("ce-all-ignored", lambda F, lib: F.cross_entropy(T(lib, logits), T(lib, np.full(4, -100))))
add("ce-1d-input", lambda F, lib: F.cross_entropy(T(lib, logits[0]), T(lib, np.array(2))))
add("ce-1d-probs", lambda F, lib: F.cross_entropy(T(lib, logits[0]), T(lib, probs[0])))
add("pixel_shuffle", lambda F, lib: F.pixel_shuffle(T(lib, rng.standard_normal((2, 8, 3, 2))), 2))
add("pixel_shuffle-3d", lambda F, lib: F.pixel_shuffle(T(lib, rng.standard_normal((8, 3, 2))), 2))
add("pixel_shuffle-5d", lambda F, lib: F.pixel_shuffle(T(lib, rng.standard_normal((1, 2, 9, 3, 2))), 3))
add("pixel_unshuffle", lambda F, lib: F.pixel_unshuffle(T(lib, rng.standard_normal((2, 2, 4, 6))), 2))
add("normalize", lambda F, lib: F.normalize(T(lib, X4)))
add("normalize-p1-dim0", lambda F, lib: F.normalize(T(lib, X4), p=1, dim=0))
add("normalize-zero", lambda F, lib: F.normalize(T(lib, np.zeros((2, 3)))))
add("normalize-inf", lambda F, lib: F.normalize(T(lib, X4), p=float("inf"), dim=-1))
add("cos", lambda F, lib: F.cosine_similarity(T(lib, X4), T(lib, X4[::-1].copy())))
add("cos-bcast", lambda F, lib: F.cosine_similarity(T(lib, X4), T(lib, X4[:1]), dim=-1))
add("cos-zero", lambda F, lib: F.cosine_similarity(T(lib, np.zeros((2, 3))), T(lib, np.ones((2, 3)))))
add("cos-1d", lambda F, lib: F.cosine_similarity(T(lib, X4[0, 0, 0]), T(lib, X4[0, 0, 1]), dim=0))
add("pdist", lambda F, lib: F.pairwise_distance(T(lib, logits), T(lib, logits[::-1].copy())))
add("pdist-p1-keep", lambda F, lib: F.pairwise_distance(T(lib, logits), T(lib, logits[:1]), p=1, keepdim=True))
add("pdist-1d", lambda F, lib: F.pairwise_distance(T(lib, logits[0]), T(lib, logits[1])))
add("pdist-inf", lambda F, lib: F.pairwise_distance(T(lib, logits), T(lib, logits * 0), p=float("inf")))
add("pdist-p0", lambda F, lib: F.pairwise_distance(T(lib, logits), T(lib, logits.round()), p=0))
add("one_hot", lambda F, lib: F.one_hot(T(lib, tgt)))
add("one_hot-n", lambda F, lib: F.one_hot(T(lib, idx), 12))
add("one_hot-bad", lambda F, lib: F.one_hot(T(lib, tgt), 3))
add("one_hot-neg", lambda F, lib: F.one_hot(T(lib, np.array([-1, 2]))))
add("one_hot-empty", lambda F, lib: F.one_hot(T(lib, np.zeros((0,), np.int64)), 3))
add("gumbel-shape", lambda F, lib: tuple(F.gumbel_softmax(T(lib, logits), tau=0.5).shape))
add("gumbel-hard", lambda F, lib: F.gumbel_softmax(T(lib, logits), hard=True).sum(-1))
add("gumbel-dim", lambda F, lib: tuple(F.gumbel_softmax(T(lib, X4), dim=1, hard=True).shape))
for d in ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]:
    Xd = {"dropout1d": X3, "dropout3d": X5}.get(d, X4)
    add(f"{d}-eval", lambda F, lib, d=d, Xd=Xd: getattr(F, d)(T(lib, Xd), 0.5, training=False))
    add(f"{d}-p0", lambda F, lib, d=d, Xd=Xd: getattr(F, d)(T(lib, Xd), 0.0, training=True))
    add(f"{d}-p1", lambda F, lib, d=d, Xd=Xd: getattr(F, d)(T(lib, Xd), 1.0, training=True))
    add(f"{d}-bad-p", lambda F, lib, d=d, Xd=Xd: getattr(F, d)(T(lib, Xd), 1.5))
add("dropout1d-2d", lambda F, lib: F.dropout1d(T(lib, X3[0]), 0.5, training=False))
add("ctc", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), (6, 2)))), T(lib, np.array([[1, 2, 2], [3, 4, 0]])), [6, 5], [3, 2]))
add("ctc-sum", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), (6, 2)))), T(lib, np.array([1, 2, 2, 3, 4])), T(lib, np.array([6, 5])), T(lib, np.array([3, 2])), reduction="sum"))
add("ctc-none-blank", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), (6, 2)))), T(lib, np.array([[1, 2, 2], [3, 0, 0]])), [6, 5], [3, 2], blank=4, reduction="none"))
add("ctc-inf", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), (2, 1)))), T(lib, np.array([[1, 1, 1]])), [2], [3], reduction="none"))
add("ctc-inf-zero", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), (2, 1)))), T(lib, np.array([[1, 1, 1]])), [2], [3], zero_infinity=True))
add("ctc-unbatched", lambda F, lib: F.ctc_loss(T(lib, np.log(rng.dirichlet(np.ones(5), 6))), T(lib, np.array([1, 2])), [6], [2]))



def _run(lib, name, f):
    global rng
    rng = np.random.default_rng(len(name) * 7919 + sum(map(ord, name)))
    lib.manual_seed(0)
    _made.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = f(lib.nn.functional, lib)
        except Exception as e:  # the class is compared
            return e, []
    inputs = list(_made)
    grads: list = [None] * len(inputs)
    if hasattr(out, "requires_grad") and out.requires_grad and out.numel():
        w = np.random.default_rng(5).standard_normal(tuple(out.shape))
        (out * lib.tensor(w, dtype=out.dtype)).sum().backward()
        grads = [None if t.grad is None else np.asarray(t.grad.numpy(), np.float64) for t in inputs]
    return out, grads


NAMES = [n for n, _ in cases]


@pytest.mark.parametrize("i", range(len(cases)), ids=NAMES)
def test_functional_edge_case_matches_torch(i):
    name, f = cases[i]
    theirs, their_grads = _run(torch, name, f)
    ours, our_grads = _run(gt, name, f)
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (ours, theirs)
        return
    assert not isinstance(ours, Exception), ours
    if not hasattr(theirs, "shape"):
        assert ours == theirs
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).rpartition(".")[2] == str(theirs.dtype).rpartition(".")[2]
    np.testing.assert_allclose(np.asarray(ours.detach().numpy(), np.float64),
                               np.asarray(theirs.detach().numpy(), np.float64), rtol=1e-9, atol=1e-10)
    assert len(our_grads) == len(their_grads)
    if name in VALUES_ONLY:
        return
    for g, h in zip(our_grads, their_grads):
        if h is None or g is None:
            assert g is None or not g.any(), "torch has no gradient there"
            continue
        np.testing.assert_allclose(g, h, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("d,shape", [("dropout1d", (3, 4)), ("dropout3d", (2, 3, 4, 5))])
@pytest.mark.parametrize("p,training", [(0.0, True), (0.5, False), (0.5, True)])
def test_inplace_channel_dropout_of_unbatched_input_returns_the_input_as_torch(d, shape, p, training):
    """PyTorch's unbatched in-place channel dropout is unsqueeze_, feature_dropout_ and squeeze_:
    the input object itself, whatever p and training (nn.Dropout3d(p=0, inplace=True) too)."""
    for lib in (torch, gt):
        x = lib.ones(*shape)
        assert getattr(lib.nn.functional, d)(x, p, training, inplace=True) is x
        layer = {"dropout1d": lib.nn.Dropout1d, "dropout3d": lib.nn.Dropout3d}[d](p, inplace=True)
        assert layer.train(training)(x) is x
        assert getattr(lib.nn.functional, d)(x, p, training) is not x
