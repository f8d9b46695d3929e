"""torch.nn.functional's losses, activations, softmax family, dropout family and attention
forward against PyTorch over their argument forms: reductions, class weights, ignore_index,
label_smoothing, probability targets, legacy size_average/reduce, batched/unbatched and 0-d
inputs, float64/float16/bfloat16, softmax's dtype=, inplace variants, fractional max pooling with
given samples, integer inputs where PyTorch takes them, and their errors' classes
(functional_sweep.py compares values, gradients and error kinds). Skipped when torch is not
importable."""
import numpy as np
import pytest

from functional_sweep import F, NoGrad, check, collector, integers, uniform

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # both libraries warn alike (deprecations)

CASES: list = []
C = collector(CASES)


R = ("mean", "sum", "none")
W5 = np.array([0.5, 1.0, 2.0, 0.25, 1.5], np.float32)
for red in R:
    for shp, tshp in (((4, 5), (4,)), ((5,), ()), ((2, 5, 3), (2, 3)), ((2, 5, 3, 2), (2, 3, 2))):
        tgt = integers(5, *tshp) if tshp else np.array(2, np.int64)
        for kw in ({}, {"weight": "W"}, {"ignore_index": 1}, {"label_smoothing": 0.2}, {"weight": "W", "ignore_index": 1, "label_smoothing": 0.3}, {"ignore_index": -100}):
            def f(t, x, y, w, kw=kw, red=red):
                kw2 = {k: (w if v == "W" else v) for k, v in kw.items()}
                return F(t).cross_entropy(x, y, reduction=red, **kw2)
            C(f"cross_entropy {shp} {red} {kw}", f, [uniform(*shp), tgt, NoGrad(W5)], tol=1e-5)
            def f2(t, x, y, w, kw=kw, red=red):
                kw2 = {k: (w if v == "W" else v) for k, v in kw.items() if k != "label_smoothing"}
                return F(t).nll_loss(F(t).log_softmax(x, 1 if x.ndim > 1 else 0), y, reduction=red, **kw2)
            if "label_smoothing" not in kw:
                C(f"nll_loss {shp} {red} {kw}", f2, [uniform(*shp), tgt, NoGrad(W5)])
        # probability targets
        for kw in ({}, {"weight": "W"}, {"label_smoothing": 0.2}, {"weight": "W", "label_smoothing": 0.1}):
            def f3(t, x, p, w, kw=kw, red=red):
                kw2 = {k: (w if v == "W" else v) for k, v in kw.items()}
                return F(t).cross_entropy(x, p.softmax(1 if x.ndim > 1 else 0), reduction=red, **kw2)
            C(f"cross_entropy prob {shp} {red} {kw}", f3, [uniform(*shp), uniform(*shp, seed=1), NoGrad(W5)])
# all ignored
C("cross_entropy all ignored mean", lambda t, x, y: F(t).cross_entropy(x, y, ignore_index=1), [uniform(3, 5), np.array([1, 1, 1])])
C("nll all ignored mean", lambda t, x, y: F(t).nll_loss(x, y, ignore_index=1), [uniform(3, 5), np.array([1, 1, 1])])
C("ce target out of range", lambda t, x, y: F(t).cross_entropy(x, y), [uniform(3, 5), np.array([1, 5, 1])])
C("ce float target wrong shape", lambda t, x, y: F(t).cross_entropy(x, y), [uniform(3, 5), uniform(3, 4)])
C("ce f64", lambda t, x, y: F(t).cross_entropy(x, y, label_smoothing=0.1), [uniform(3, 5, dtype="float64"), np.array([1, 4, 0])], tol=1e-10)
C("ce f16", lambda t, x, y: F(t).cross_entropy(x, y), [uniform(3, 5), np.array([1, 4, 0])], dtype="float16", tol=2e-3)
C("ce bf16", lambda t, x, y: F(t).cross_entropy(x, y, reduction="none"), [uniform(3, 5), np.array([1, 4, 0])], dtype="bfloat16", tol=2e-2)
C("ce int32 target", lambda t, x, y: F(t).cross_entropy(x, y.int()), [uniform(3, 5), np.array([1, 4, 0])])
C("ce uint8 target", lambda t, x, y: F(t).cross_entropy(x, y.to(t.uint8)), [uniform(3, 5), np.array([1, 4, 0])])
C("nll 2d input 1d weight wrong", lambda t, x, y: F(t).nll_loss(x, y, weight=t.ones(3)), [uniform(3, 5), np.array([1, 4, 0])])
for red in R:
    C(f"bce {red}", lambda t, x, y, w, red=red: F(t).binary_cross_entropy(x.sigmoid(), y, weight=w, reduction=red), [uniform(4, 3), uniform(4, 3, lo=0, hi=1), NoGrad(uniform(4, 3, lo=0, hi=1, seed=2))])
    C(f"bce_logits {red}", lambda t, x, y, w, red=red: F(t).binary_cross_entropy_with_logits(x, y, weight=w, reduction=red), [uniform(4, 3), uniform(4, 3, lo=0, hi=1), NoGrad(uniform(4, 3, lo=0, hi=1, seed=2))])
    C(f"bce_logits pos_weight {red}", lambda t, x, y, w, red=red: F(t).binary_cross_entropy_with_logits(x, y, pos_weight=w, reduction=red), [uniform(4, 3), uniform(4, 3, lo=0, hi=1), NoGrad(uniform(3, lo=0, hi=3, seed=2))])
    C(f"mse {red}", lambda t, x, y, red=red: F(t).mse_loss(x, y, reduction=red), [uniform(4, 3), uniform(4, 3, seed=1)])
    C(f"mse bcast {red}", lambda t, x, y, red=red: F(t).mse_loss(x, y, reduction=red), [uniform(4, 3), uniform(3, seed=1)])
    C(f"l1 {red}", lambda t, x, y, red=red: F(t).l1_loss(x, y, reduction=red), [uniform(4, 3), uniform(4, 3, seed=1)])
    for beta in (1.0, 0.5, 0.0):
        C(f"smooth_l1 {red} {beta}", lambda t, x, y, red=red, beta=beta: F(t).smooth_l1_loss(x, y, reduction=red, beta=beta), [uniform(4, 3), uniform(4, 3, seed=1)])
        C(f"huber {red} {beta}", lambda t, x, y, red=red, beta=beta: F(t).huber_loss(x, y, reduction=red, delta=beta or 2.0), [uniform(4, 3), uniform(4, 3, seed=1)])
    for li, full in ((True, False), (False, False), (True, True), (False, True)):
        C(f"poisson {red} log{li} full{full}", lambda t, x, y, red=red, li=li, full=full: F(t).poisson_nll_loss(x, y, log_input=li, full=full, reduction=red), [uniform(4, 3, lo=0.1, hi=2), uniform(4, 3, lo=0, hi=4, seed=1)])
    C(f"gaussian_nll {red}", lambda t, x, y, v, red=red: F(t).gaussian_nll_loss(x, y, v, reduction=red), [uniform(4, 3), uniform(4, 3, seed=1), uniform(4, 3, lo=0.1, hi=2, seed=2)])
    C(f"gaussian_nll full var1 {red}", lambda t, x, y, v, red=red: F(t).gaussian_nll_loss(x, y, v, full=True, reduction=red), [uniform(4, 3), uniform(4, 3, seed=1), uniform(4, 1, lo=0.1, hi=2, seed=2)])
    C(f"gaussian_nll var vec {red}", lambda t, x, y, v, red=red: F(t).gaussian_nll_loss(x, y, v, reduction=red), [uniform(4, 3), uniform(4, 3, seed=1), uniform(4, lo=0.1, hi=2, seed=2)])
    C(f"kl_div {red}", lambda t, x, y, red=red: F(t).kl_div(x.log_softmax(1), y.softmax(1), reduction=red), [uniform(4, 3), uniform(4, 3, seed=1)])
    C(f"kl_div log_target {red}", lambda t, x, y, red=red: F(t).kl_div(x.log_softmax(1), y.log_softmax(1), reduction=red, log_target=True), [uniform(4, 3), uniform(4, 3, seed=1)])
    C(f"margin_ranking {red}", lambda t, a, b, y, red=red: F(t).margin_ranking_loss(a, b, y.sign(), margin=0.3, reduction=red), [uniform(5), uniform(5, seed=1), uniform(5, seed=2)])
    C(f"hinge_embedding {red}", lambda t, a, y, red=red: F(t).hinge_embedding_loss(a, y.sign(), margin=0.7, reduction=red), [uniform(5, 3), uniform(5, 3, seed=2)])
    C(f"soft_margin {red}", lambda t, a, y, red=red: F(t).soft_margin_loss(a, y.sign(), reduction=red), [uniform(5, 3), NoGrad(uniform(5, 3, seed=2))])
    C(f"multilabel_soft_margin {red}", lambda t, a, y, w, red=red: F(t).multilabel_soft_margin_loss(a, (y > 0).float(), weight=w, reduction=red), [uniform(5, 3), uniform(5, 3, seed=2), uniform(3, lo=0, hi=2, seed=3)])
    C(f"multilabel_margin {red}", lambda t, a, y, red=red: F(t).multilabel_margin_loss(a, y, reduction=red), [uniform(3, 4), np.array([[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 0, 0]])])
    C(f"multi_margin {red}", lambda t, a, y, w, red=red: F(t).multi_margin_loss(a, y, p=1, margin=0.8, weight=w, reduction=red), [uniform(4, 5), np.array([1, 0, 4, 2]), NoGrad(W5)])
    C(f"multi_margin p2 {red}", lambda t, a, y, red=red: F(t).multi_margin_loss(a, y, p=2, reduction=red), [uniform(4, 5), np.array([1, 0, 4, 2])])
    C(f"cosine_embedding {red}", lambda t, a, b, y, red=red: F(t).cosine_embedding_loss(a, b, y.sign(), margin=0.2, reduction=red), [uniform(5, 3), uniform(5, 3, seed=1), uniform(5, seed=2)])
    C(f"triplet {red}", lambda t, a, b, c, red=red: F(t).triplet_margin_loss(a, b, c, margin=0.5, p=1.5, swap=True, reduction=red), [uniform(5, 3), uniform(5, 3, seed=1), uniform(5, 3, seed=2)])
    C(f"triplet distance {red}", lambda t, a, b, c, red=red: F(t).triplet_margin_with_distance_loss(a, b, c, margin=0.5, swap=True, reduction=red), [uniform(5, 3), uniform(5, 3, seed=1), uniform(5, 3, seed=2)])
C("multi_margin 1d", lambda t, a, y: F(t).multi_margin_loss(a, y), [uniform(5), np.array(2)])
C("multilabel_margin 1d", lambda t, a, y: F(t).multilabel_margin_loss(a, y), [uniform(4), np.array([3, 0, -1, 1])])
C("bce target out of range", lambda t, x, y: F(t).binary_cross_entropy(x.sigmoid(), y), [uniform(4, 3), uniform(4, 3, lo=1.5, hi=2)])
C("bce shape mismatch", lambda t, x, y: F(t).binary_cross_entropy(x.sigmoid(), y), [uniform(4, 3), uniform(4, 1, lo=0, hi=1)])
C("bce_logits shape mismatch", lambda t, x, y: F(t).binary_cross_entropy_with_logits(x, y), [uniform(4, 3), uniform(4, 1, lo=0, hi=1)])
C("mse f64", lambda t, x, y: F(t).mse_loss(x, y), [uniform(4, 3, dtype="float64"), uniform(4, 3, seed=1, dtype="float64")], tol=1e-10)
C("l1 f16", lambda t, x, y: F(t).l1_loss(x, y), [uniform(4, 3), uniform(4, 3, seed=1)], dtype="float16", tol=1e-3)
C("kl_div batchmean", lambda t, x, y: F(t).kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean"), [uniform(4, 3), uniform(4, 3, seed=1)])
C("reduction bad", lambda t, x, y: F(t).mse_loss(x, y, reduction="avg"), [uniform(4, 3), uniform(4, 3, seed=1)])
C("size_average legacy", lambda t, x, y: F(t).mse_loss(x, y, size_average=False), [uniform(4, 3), uniform(4, 3, seed=1)])
C("reduce legacy", lambda t, x, y: F(t).l1_loss(x, y, reduce=False), [uniform(4, 3), uniform(4, 3, seed=1)])
C("ctc", lambda t, lp, tg: F(t).ctc_loss(lp.log_softmax(2), tg, [6, 5], [3, 2]), [uniform(6, 2, 4), np.array([[1, 2, 1], [3, 1, 0]])], tol=1e-4)
C("ctc none zero_inf", lambda t, lp, tg: F(t).ctc_loss(lp.log_softmax(2), tg, [2, 5], [3, 2], reduction="none", zero_infinity=True), [uniform(6, 2, 4), np.array([[1, 2, 1], [3, 1, 0]])], tol=1e-4)
C("ctc sum blank", lambda t, lp, tg: F(t).ctc_loss(lp.log_softmax(2), tg, t.tensor([6, 5]), t.tensor([3, 2]), blank=3, reduction="sum"), [uniform(6, 2, 4), np.array([1, 2, 1, 0, 1])], tol=1e-4)
C("ctc unbatched", lambda t, lp, tg: F(t).ctc_loss(lp.log_softmax(1), tg, [6], [3]), [uniform(6, 4), np.array([1, 2, 1])], tol=1e-4)
ACTS = [("relu", {}), ("relu6", {}), ("elu", {"alpha": 0.7}), ("selu", {}), ("celu", {"alpha": 1.3}), ("gelu", {}), ("gelu", {"approximate": "tanh"}),
        ("silu", {}), ("mish", {}), ("hardswish", {}), ("hardsigmoid", {}), ("leaky_relu", {"negative_slope": 0.2}), ("softplus", {"beta": 2, "threshold": 1.5}),
        ("softsign", {}), ("tanhshrink", {}), ("hardtanh", {"min_val": -0.5, "max_val": 1.2}), ("hardshrink", {"lambd": 0.4}), ("softshrink", {"lambd": 0.4}),
        ("threshold", {"threshold": 0.3, "value": -2.0}), ("logsigmoid", {}), ("sigmoid", {}), ("tanh", {}), ("rrelu", {"training": False}),
        ("glu", {"dim": -1}), ("glu", {"dim": 0})]
for name, kw in ACTS:
    for dt, tol in ((None, 1e-5), ("float64", 1e-7), ("float16", 2e-3), ("bfloat16", 2e-2)):
        C(f"{name} {kw} {dt}", lambda t, a, name=name, kw=kw: getattr(F(t), name)(a, **kw), [uniform(4, 6, lo=-3, hi=3)], dtype=dt, tol=tol)
    inplace_ok = name not in ("gelu", "softsign", "tanhshrink", "logsigmoid", "sigmoid", "tanh", "glu", "mish", "softshrink", "hardshrink")
    if inplace_ok:
        C(f"{name} inplace", lambda t, a, name=name, kw=kw: (lambda y: getattr(F(t), name)(y, inplace=True, **kw))(a * 1.0), [uniform(4, 6, lo=-3, hi=3)])
    C(f"{name} 0d", lambda t, a, name=name, kw=kw: getattr(F(t), name)(a, **kw), [np.array(0.7, np.float32)]) if name != "glu" else None
    C(f"{name} empty", lambda t, a, name=name, kw=kw: getattr(F(t), name)(a, **kw), [np.zeros((0, 4), np.float32)])
    C(f"{name} int", lambda t, a, name=name, kw=kw: getattr(F(t), name)(a, **kw), [integers(5, 3, 4)], grad=False)
for name in ("softmax", "log_softmax", "softmin"):
    for dim in (0, 1, -1, None):
        C(f"{name} dim{dim}", lambda t, a, name=name, dim=dim: getattr(F(t), name)(a, dim=dim), [uniform(3, 4, 5)])
    C(f"{name} dtype", lambda t, a, name=name: getattr(F(t), name)(a, 1, dtype=t.float64), [uniform(3, 4)])
    C(f"{name} f16", lambda t, a, name=name: getattr(F(t), name)(a, 1), [uniform(3, 4)], dtype="float16", tol=2e-3)
    C(f"{name} bf16 dtype f32", lambda t, a, name=name: getattr(F(t), name)(a, 1, dtype=t.float32), [uniform(3, 4)], dtype="bfloat16", tol=2e-2)
    C(f"{name} 1d", lambda t, a, name=name: getattr(F(t), name)(a), [uniform(5)])
    C(f"{name} 0d", lambda t, a, name=name: getattr(F(t), name)(a, 0), [np.array(0.3, np.float32)])
    C(f"{name} int", lambda t, a, name=name: getattr(F(t), name)(a, 0), [integers(4, 3)], grad=False)
    C(f"{name} -inf", lambda t, a, name=name: getattr(F(t), name)(a.masked_fill(a > 0, float('-inf')), 1), [uniform(3, 4)])
    C(f"{name} stacklevel", lambda t, a, name=name: getattr(F(t), name)(a, 1, 3), [uniform(3, 4)])
C("prelu", lambda t, a, w: F(t).prelu(a, w), [uniform(2, 3, 4), uniform(3)])
C("prelu scalar", lambda t, a, w: F(t).prelu(a, w), [uniform(2, 3, 4), uniform(1)])
C("prelu 1d", lambda t, a, w: F(t).prelu(a, w), [uniform(3), uniform(1)])
C("prelu bad", lambda t, a, w: F(t).prelu(a, w), [uniform(2, 3, 4), uniform(4)])
C("rrelu train", lambda t, a: F(t).rrelu(a, 0.2, 0.2, training=True), [uniform(3, 4)])
C("gumbel hard", lambda t, a: F(t).gumbel_softmax(a, hard=True).sum(-1), [uniform(3, 4)])
C("hardtanh bad", lambda t, a: F(t).hardtanh(a, 1.0, 0.5), [uniform(3, 4)])
C("threshold inplace", lambda t, a: F(t).threshold_(a * 1.0, 0.1, 20.0), [uniform(3, 4)])
C("relu_", lambda t, a: F(t).relu_(a * 1.0), [uniform(3, 4)])
C("elu_", lambda t, a: F(t).elu_(a * 1.0), [uniform(3, 4)])
C("leaky_relu_", lambda t, a: F(t).leaky_relu_(a * 1.0, 0.3), [uniform(3, 4)])
C("hardtanh_", lambda t, a: F(t).hardtanh_(a * 1.0), [uniform(3, 4)])
C("celu_", lambda t, a: F(t).celu_(a * 1.0), [uniform(3, 4)])
C("selu_", lambda t, a: F(t).selu_(a * 1.0), [uniform(3, 4)])
C("rrelu_", lambda t, a: F(t).rrelu_(a * 1.0, training=False), [uniform(3, 4)])
C("gelu bad approx", lambda t, a: F(t).gelu(a, approximate="fast"), [uniform(3, 4)])
C("glu odd", lambda t, a: F(t).glu(a), [uniform(3, 5)])
C("glu 0d", lambda t, a: F(t).glu(a), [np.array(1.0, np.float32)])
C("silu channels_last", lambda t, a: F(t).silu(a.to(memory_format=t.channels_last)), [uniform(2, 3, 4, 5)])
for name in ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"):
    for shp in ((2, 3, 4), (3, 4), (2, 3, 4, 5), (1, 2, 3, 4, 5)):
        C(f"{name} eval {shp}", lambda t, a, name=name: getattr(F(t), name)(a, 0.5, training=False), [uniform(*shp)])
        C(f"{name} p0 {shp}", lambda t, a, name=name: getattr(F(t), name)(a, 0.0), [uniform(*shp)])
        C(f"{name} p1 {shp}", lambda t, a, name=name: getattr(F(t), name)(a, 1.0), [uniform(*shp)])
C("frac_max_pool2d samples", lambda t, a, s: F(t).fractional_max_pool2d(a, 2, output_size=(3, 4), _random_samples=s, return_indices=True), [uniform(2, 3, 7, 8), NoGrad(uniform(2, 3, 2, lo=0, hi=1))])
C("frac_max_pool3d samples", lambda t, a, s: F(t).fractional_max_pool3d(a, 2, output_size=3, _random_samples=s), [uniform(1, 2, 6, 7, 8), NoGrad(uniform(1, 2, 3, lo=0, hi=1))])
C("frac_max_pool2d unbatched", lambda t, a, s: F(t).fractional_max_pool2d(a, 2, output_size=3, _random_samples=s), [uniform(3, 7, 8), NoGrad(uniform(1, 3, 2, lo=0, hi=1))])
C("frac none", lambda t, a: F(t).fractional_max_pool2d(a, 2), [uniform(2, 3, 7, 8)])
def emb_inplace(t, i, w):
    w = w.detach().clone()
    F(t).embedding(i, w, max_norm=1.0)  # renormalizes the looked-up rows of w in place
    return w
C("embedding max_norm in place", emb_inplace, [np.array([[0, 2], [0, 1]]), uniform(5, 3)], grad=False)
def mha(t, q, k, v, w, b, ow, ob, **kw):
    return F(t).multi_head_attention_forward(q, k, v, 6, 2, w, b, None, None, False, 0.0, ow, ob, training=False, **kw)
ins = [uniform(4, 2, 6), uniform(5, 2, 6, seed=1), uniform(5, 2, 6, seed=2), uniform(18, 6, seed=3), uniform(18, seed=4), uniform(6, 6, seed=5), uniform(6, seed=6)]
C("mha_forward", lambda t, *a: mha(t, *a), ins, tol=1e-5)
C("mha_forward no avg", lambda t, *a: mha(t, *a, average_attn_weights=False), ins, tol=1e-5)
C("mha_forward kpm", lambda t, *a: mha(t, *a, key_padding_mask=t.tensor([[False, False, False, True, True], [False] * 5])), ins, tol=1e-5)
C("mha_forward attn_mask float", lambda t, *a: mha(t, *a, attn_mask=t.tensor(np.triu(np.full((4, 5), -1e9, np.float32), 1))), ins, tol=1e-5)
C("mha_forward no weights", lambda t, *a: mha(t, *a, need_weights=False), ins, tol=1e-5)
C("mha_forward unbatched", lambda t, q, k, v, *r: mha(t, q[:, 0], k[:, 0], v[:, 0], *r), ins, tol=1e-5)
C("mha_forward causal", lambda t, q, k, v, *r: mha(t, q, q, q, *r, attn_mask=t.ones(4, 4).triu(1).bool(), is_causal=True), ins, tol=1e-5)
C("interpolate size list", lambda t, a: F(t).interpolate(a, size=[5, 6], mode="bilinear"), [uniform(1, 2, 3, 4)], tol=1e-5)
C("interpolate scale list", lambda t, a: F(t).interpolate(a, scale_factor=[2.0, 1.5]), [uniform(1, 2, 3, 4)])
C("interpolate antialias nearest", lambda t, a: F(t).interpolate(a, scale_factor=0.5, antialias=True), [uniform(1, 2, 4, 4)])
C("interpolate nearest 5d size int", lambda t, a: F(t).interpolate(a, size=3), [uniform(1, 2, 4, 4, 4)])
C("interpolate area adaptive", lambda t, a: F(t).interpolate(a, size=(3, 5), mode="area"), [uniform(1, 2, 7, 9)])
C("interpolate uint8 nearest", lambda t, a: F(t).interpolate(a.to(t.uint8), scale_factor=2), [integers(200, 1, 2, 3, 4)], grad=False)
C("interpolate uint8 bilinear", lambda t, a: F(t).interpolate(a.to(t.uint8), scale_factor=2, mode="bilinear"), [integers(200, 1, 2, 3, 4)], grad=False, tol=1.01)
C("interpolate int64", lambda t, a: F(t).interpolate(a, scale_factor=2), [integers(200, 1, 2, 3, 4)], grad=False)
C("max_pool2d int", lambda t, a: F(t).max_pool2d(a, 2), [integers(200, 1, 2, 4, 4)], grad=False)
C("avg_pool2d int", lambda t, a: F(t).avg_pool2d(a, 2), [integers(200, 1, 2, 4, 4)], grad=False)
C("adaptive_avg int", lambda t, a: F(t).adaptive_avg_pool2d(a, 2), [integers(200, 1, 2, 4, 4)], grad=False)
C("adaptive_max int", lambda t, a: F(t).adaptive_max_pool2d(a, 2), [integers(200, 1, 2, 4, 4)], grad=False)
C("linear int", lambda t, a, w: F(t).linear(a, w), [integers(5, 2, 4), integers(3, 3, 4)], grad=False)
C("layer_norm int", lambda t, a: F(t).layer_norm(a, (4,)), [integers(5, 2, 4)], grad=False)
C("mse int", lambda t, a, b: F(t).mse_loss(a, b), [integers(5, 2, 4), integers(5, 2, 4, seed=2)], grad=False)
C("mse mixed dtype", lambda t, a, b: F(t).mse_loss(a, b.double()), [uniform(2, 4), uniform(2, 4, seed=2)])
C("l1 shape warn bcast", lambda t, a, b: F(t).l1_loss(a, b), [uniform(2, 4), uniform(4, seed=2)])
C("l1 f16 vs f32", lambda t, a, b: F(t).l1_loss(a.half(), b), [uniform(2, 4), uniform(2, 4, seed=2)], tol=1e-3)
C("bce f64 target f32", lambda t, a, b: F(t).binary_cross_entropy(a.sigmoid().double(), b), [uniform(2, 4), NoGrad(uniform(2, 4, lo=0, hi=1))])
C("ce f32 target prob f64", lambda t, a, b: F(t).cross_entropy(a, b.double().softmax(1)), [uniform(2, 4), NoGrad(uniform(2, 4))])
C("cosine_embedding 1d", lambda t, a, b, y: F(t).cosine_embedding_loss(a, b, y), [uniform(4), uniform(4, seed=1), np.array(-1.0, np.float32)])
C("triplet 1d", lambda t, a, b, c: F(t).triplet_margin_loss(a, b, c), [uniform(4), uniform(4, seed=1), uniform(4, seed=2)])
C("margin ranking 0d", lambda t, a, b, y: F(t).margin_ranking_loss(a, b, y), [np.array(0.5, np.float32), np.array(0.2, np.float32), NoGrad(np.array(-1.0, np.float32))])
C("kl_div default warn", lambda t, a, b: F(t).kl_div(a, b), [uniform(2, 4), uniform(2, 4, lo=0.1, hi=1)])
C("kl_div target neg", lambda t, a, b: F(t).kl_div(a, b, reduction="sum"), [uniform(2, 4), NoGrad(uniform(2, 4, lo=-1, hi=1))])
C("nll 3d input 1d target bad", lambda t, a, y: F(t).nll_loss(a, y), [uniform(2, 3, 4), np.array([0, 1])])
C("ce weight wrong size", lambda t, a, y, w: F(t).cross_entropy(a, y, weight=w), [uniform(2, 3), np.array([0, 1]), NoGrad(uniform(4))])
C("ce ignore_index out of range", lambda t, a, y: F(t).cross_entropy(a, y, ignore_index=7), [uniform(2, 3), np.array([0, 7])])
C("ce label_smoothing ignore", lambda t, a, y: F(t).cross_entropy(a, y, ignore_index=0, label_smoothing=0.4, reduction="sum"), [uniform(3, 4), np.array([0, 2, 3])])
C("huber neg delta", lambda t, a, b: F(t).huber_loss(a, b, delta=-1.0), [uniform(2, 4), uniform(2, 4, seed=1)])
C("smooth_l1 neg beta", lambda t, a, b: F(t).smooth_l1_loss(a, b, beta=-1.0), [uniform(2, 4), uniform(2, 4, seed=1)])
C("gaussian_nll neg var", lambda t, a, b, v: F(t).gaussian_nll_loss(a, b, v), [uniform(2, 4), uniform(2, 4, seed=1), NoGrad(uniform(2, 4, lo=-1, hi=0))])
C("gaussian_nll bad var shape", lambda t, a, b, v: F(t).gaussian_nll_loss(a, b, v), [uniform(2, 4), uniform(2, 4, seed=1), NoGrad(uniform(2, 3, lo=0.1, hi=1))])
C("poisson eps", lambda t, a, b: F(t).poisson_nll_loss(a, b, log_input=False, eps=0.5), [uniform(2, 4, lo=0, hi=1), uniform(2, 4, lo=0, hi=3, seed=1)])
C("multilabel_margin bad", lambda t, a, y: F(t).multilabel_margin_loss(a, y), [uniform(3, 4), np.array([[3, 0, 4, 1], [0, 1, 2, 3], [-1, 1, 0, 0]])])
C("multi_margin p3", lambda t, a, y: F(t).multi_margin_loss(a, y, p=3), [uniform(3, 4), np.array([0, 1, 3])])
C("soft_margin 1d", lambda t, a, y: F(t).soft_margin_loss(a, y), [uniform(4), NoGrad(np.array([1., -1., 1., -1.], np.float32))])


@pytest.mark.parametrize("spec", CASES)
def test_functional_matches_torch(spec):
    check(torch, spec)
