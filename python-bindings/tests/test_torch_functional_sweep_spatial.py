"""torch.nn.functional's pooling, unpooling, interpolation, padding, convolution, normalization,
embedding, folding, grid sampling, distance and attention functions against PyTorch over their
argument forms: batched and unbatched inputs, channels_last, float64/float16/bfloat16, ceil_mode,
count_include_pad, divisor_override, return_indices, dilation, groups, padding modes and strings,
align_corners, recompute_scale_factor, antialias, and their errors' classes (functional_sweep.py
compares values, gradients and error kinds). Skipped when torch is not importable."""
import numpy as np
import pytest

from functional_sweep import F, NoGrad, check, collector, integers, uniform

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # both libraries warn alike (deprecations)

CASES: list = []
C = collector(CASES)


# max/avg pool 1d/2d/3d
for dims, shp, ushp in ((1, (2, 3, 9), (3, 9)), (2, (2, 3, 7, 8), (3, 7, 8)), (3, (1, 2, 5, 6, 7), (2, 5, 6, 7))):
    for x in (shp, ushp):
        for k, s, p, d, ceil in ((2, None, 0, 1, False), (3, 2, 1, 1, True), (3, 2, 1, 2, False), (2, 3, 1, 1, True), (3, 1, 0, 1, False), (4, 3, 2, 1, True)):
            C(f"max_pool{dims}d {x} k{k} s{s} p{p} d{d} ceil{ceil}", lambda t, a, dims=dims, k=k, s=s, p=p, d=d, ceil=ceil: getattr(F(t), f"max_pool{dims}d")(a, k, s, p, d, ceil_mode=ceil, return_indices=True), [uniform(*x)])
            C(f"avg_pool{dims}d {x} k{k} s{s} p{p} ceil{ceil} cip", lambda t, a, dims=dims, k=k, s=s, p=min(p, k//2), ceil=ceil: getattr(F(t), f"avg_pool{dims}d")(a, k, s, p, ceil, True), [uniform(*x)])
            C(f"avg_pool{dims}d {x} k{k} s{s} p{p} ceil{ceil} nocip", lambda t, a, dims=dims, k=k, s=s, p=min(p, k//2), ceil=ceil: getattr(F(t), f"avg_pool{dims}d")(a, k, s, p, ceil, False), [uniform(*x)])
            if dims > 1:
                C(f"avg_pool{dims}d {x} k{k} s{s} p{p} ceil{ceil} div3", lambda t, a, dims=dims, k=k, s=s, p=min(p, k//2), ceil=ceil: getattr(F(t), f"avg_pool{dims}d")(a, k, s, p, ceil, True, 3), [uniform(*x)])
    for os in ((1,), (3,), (4,), (None,), (5,)):
        o = os * dims if os != (None,) else tuple([None] + [2] * (dims - 1))
        for x in (shp, ushp):
            C(f"adaptive_avg_pool{dims}d {x} {o}", lambda t, a, dims=dims, o=o: getattr(F(t), f"adaptive_avg_pool{dims}d")(a, o if dims > 1 else o[0]), [uniform(*x)])
            C(f"adaptive_max_pool{dims}d {x} {o}", lambda t, a, dims=dims, o=o: getattr(F(t), f"adaptive_max_pool{dims}d")(a, o if dims > 1 else o[0], return_indices=True), [uniform(*x)])
# channels_last
C("max_pool2d channels_last", lambda t, a: F(t).max_pool2d(a.to(memory_format=t.channels_last), 3, 2, 1), [uniform(2, 3, 7, 8)])
C("avg_pool2d channels_last", lambda t, a: F(t).avg_pool2d(a.to(memory_format=t.channels_last), 3, 2, 1), [uniform(2, 3, 7, 8)])
C("max_pool2d f64", lambda t, a: F(t).max_pool2d(a, 2), [uniform(2, 3, 6, 6, dtype="float64")])
C("max_pool2d f16", lambda t, a: F(t).max_pool2d(a, 2), [uniform(2, 3, 6, 6)], dtype="float16", tol=1e-3)
C("avg_pool2d bf16", lambda t, a: F(t).avg_pool2d(a, 2), [uniform(2, 3, 6, 6)], dtype="bfloat16", tol=1e-2)
C("adaptive_avg bf16", lambda t, a: F(t).adaptive_avg_pool2d(a, 3), [uniform(2, 3, 7, 7)], dtype="bfloat16", tol=1e-2)
# errors
C("max_pool2d pad too big", lambda t, a: F(t).max_pool2d(a, 2, padding=2), [uniform(1, 1, 6, 6)])
C("avg_pool2d pad too big", lambda t, a: F(t).avg_pool2d(a, 2, padding=2), [uniform(1, 1, 6, 6)])
C("max_pool2d out too small", lambda t, a: F(t).max_pool2d(a, 5), [uniform(1, 1, 3, 3)])
C("max_pool1d 4d", lambda t, a: F(t).max_pool1d(a, 2), [uniform(1, 1, 3, 3)])
C("avg_pool2d div0", lambda t, a: F(t).avg_pool2d(a, 2, divisor_override=0), [uniform(1, 1, 4, 4)])
C("max_pool2d stride0", lambda t, a: F(t).max_pool2d(a, 2, stride=0), [uniform(1, 1, 4, 4)])
C("max_pool2d tuple k", lambda t, a: F(t).max_pool2d(a, (2, 3), (1, 2), (1, 1), (2, 1)), [uniform(2, 2, 8, 9)])
C("max_pool2d kernel list", lambda t, a: F(t).max_pool2d(a, [2, 3]), [uniform(2, 2, 8, 9)])
C("max_pool2d stride []", lambda t, a: F(t).max_pool2d(a, 2, stride=[]), [uniform(2, 2, 8, 9)])
# unpool
def unp(t, a, dims, k, s, p):
    y, i = getattr(F(t), f"max_pool{dims}d")(a, k, s, p, return_indices=True)
    return getattr(F(t), f"max_unpool{dims}d")(y, i, k, s, p)
for dims, shp in ((1, (2, 3, 9)), (2, (2, 3, 7, 8)), (3, (1, 2, 5, 6, 7)), (1, (3, 9)), (2, (3, 7, 8))):
    C(f"max_unpool{dims}d {shp}", lambda t, a, dims=dims: unp(t, a, dims, 2, 2, 0), [uniform(*shp)])
    C(f"max_unpool{dims}d {shp} k3s2p1", lambda t, a, dims=dims: unp(t, a, dims, 3, 2, 1), [uniform(*shp)])
def unp_os(t, a):
    y, i = F(t).max_pool2d(a, 2, return_indices=True)
    return F(t).max_unpool2d(y, i, 2, output_size=(7, 9))
C("max_unpool2d output_size", unp_os, [uniform(1, 2, 7, 9)])
def unp_os2(t, a):
    y, i = F(t).max_pool2d(a, 2, return_indices=True)
    return F(t).max_unpool2d(y, i, 2, output_size=(1, 2, 7, 9))
C("max_unpool2d output_size full", unp_os2, [uniform(1, 2, 7, 9)])
# lp pool
for nt in (1, 2, 3.5, float("inf")):
    C(f"lp_pool1d {nt}", lambda t, a, nt=nt: F(t).lp_pool1d(a, nt, 3, 2), [uniform(2, 3, 9, lo=0.1)])
    C(f"lp_pool2d {nt}", lambda t, a, nt=nt: F(t).lp_pool2d(a, nt, 3, 2, ceil_mode=True), [uniform(2, 3, 8, 9, lo=0.1)])
    C(f"lp_pool3d {nt}", lambda t, a, nt=nt: F(t).lp_pool3d(a, nt, 2), [uniform(1, 2, 4, 4, 4, lo=0.1)])
C("lp_pool2d neg", lambda t, a: F(t).lp_pool2d(a, 2, 2), [uniform(1, 2, 4, 4)])
C("lp_pool1d unbatched", lambda t, a: F(t).lp_pool1d(a, 2, 2), [uniform(2, 4, lo=0.1)])
for mode, shapes in (("nearest", [(2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5)]), ("nearest-exact", [(2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5)]),
                     ("linear", [(2, 3, 5)]), ("bilinear", [(2, 3, 4, 5)]), ("bicubic", [(2, 3, 4, 5)]), ("trilinear", [(1, 2, 3, 4, 5)]), ("area", [(2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5)])):
    for shp in shapes:
        nd = len(shp) - 2
        aligns = (None,) if mode in ("nearest", "nearest-exact", "area") else (False, True)
        for al in aligns:
            for sf, size, rsf in ((2, None, None), (1.7, None, None), (0.6, None, None), (1.7, None, True), (None, 7, None), (None, 3, None), (2.5, None, False)):
                size_ = None if size is None else tuple([size] * nd) if nd > 1 else size
                kw = dict(size=size_, scale_factor=sf, mode=mode)
                if al is not None:
                    kw["align_corners"] = al
                if rsf is not None:
                    kw["recompute_scale_factor"] = rsf
                C(f"interpolate {shp} {kw}", lambda t, a, kw=kw: F(t).interpolate(a, **kw), [uniform(*shp)], tol=1e-4)
C("interpolate antialias bilinear", lambda t, a: F(t).interpolate(a, size=(2, 3), mode="bilinear", antialias=True), [uniform(2, 3, 8, 9)], tol=1e-4)
C("interpolate antialias bicubic", lambda t, a: F(t).interpolate(a, scale_factor=0.4, mode="bicubic", antialias=True), [uniform(2, 3, 8, 9)], tol=1e-4)
C("interpolate tuple scale", lambda t, a: F(t).interpolate(a, scale_factor=(2, 0.5), mode="bilinear"), [uniform(2, 3, 4, 6)], tol=1e-4)
C("interpolate channels_last", lambda t, a: F(t).interpolate(a.to(memory_format=t.channels_last), scale_factor=2, mode="bilinear"), [uniform(2, 3, 4, 6)], tol=1e-4)
C("interpolate f64", lambda t, a: F(t).interpolate(a, scale_factor=2, mode="bicubic", align_corners=True), [uniform(2, 3, 4, 6, dtype="float64")], tol=1e-8)
C("interpolate f16 nearest", lambda t, a: F(t).interpolate(a, scale_factor=2), [uniform(2, 3, 4, 6)], dtype="float16", tol=1e-3)
C("interpolate bf16 bilinear", lambda t, a: F(t).interpolate(a, scale_factor=2, mode="bilinear"), [uniform(2, 3, 4, 6)], dtype="bfloat16", tol=2e-2)
C("interpolate err both", lambda t, a: F(t).interpolate(a, size=3, scale_factor=2), [uniform(2, 3, 4)])
C("interpolate err none", lambda t, a: F(t).interpolate(a), [uniform(2, 3, 4)])
C("interpolate err align nearest", lambda t, a: F(t).interpolate(a, scale_factor=2, align_corners=True), [uniform(2, 3, 4)])
C("interpolate err mode", lambda t, a: F(t).interpolate(a, scale_factor=2, mode="bilinear"), [uniform(2, 3, 4)])
C("interpolate err size len", lambda t, a: F(t).interpolate(a, size=(2, 3, 4)), [uniform(2, 3, 4, 5)])
C("interpolate 2d input", lambda t, a: F(t).interpolate(a, size=3), [uniform(3, 4)])
C("upsample_nearest", lambda t, a: F(t).upsample_nearest(a, scale_factor=2), [uniform(1, 2, 3, 3)])
C("upsample_bilinear", lambda t, a: F(t).upsample_bilinear(a, scale_factor=2), [uniform(1, 2, 3, 3)], tol=1e-4)
C("upsample", lambda t, a: F(t).upsample(a, size=5, mode="linear"), [uniform(1, 2, 3)], tol=1e-4)
# pad
for mode in ("constant", "reflect", "replicate", "circular"):
    for shp, pad in (((2, 3, 5), (1, 2)), ((3, 5), (2, 1)), ((2, 3, 4, 5), (1, 2, 2, 1)), ((3, 4, 5), (1, 1, 2, 0)), ((1, 2, 3, 4, 5), (1, 1, 1, 2, 2, 1)), ((2, 3, 4, 5), (1, 1)), ((2, 3, 5), (0, 0)), ((2, 3, 5), (-1, 2))):
        C(f"pad {mode} {shp} {pad}", lambda t, a, mode=mode, pad=pad: F(t).pad(a, pad, mode=mode), [uniform(*shp)])
C("pad constant value", lambda t, a: F(t).pad(a, (1, 1, 1, 1, 1, 1), value=3.5), [uniform(2, 3, 4)])
C("pad constant 8 pads", lambda t, a: F(t).pad(a, (1, 1, 1, 1, 1, 1, 1, 1)), [uniform(2, 3, 4, 2)])
C("pad reflect too big", lambda t, a: F(t).pad(a, (5, 5), mode="reflect"), [uniform(2, 3, 4)])
C("pad circular too big", lambda t, a: F(t).pad(a, (5, 5), mode="circular"), [uniform(2, 3, 4)])
C("pad odd len", lambda t, a: F(t).pad(a, (1,)), [uniform(2, 3, 4)])
C("pad bad mode", lambda t, a: F(t).pad(a, (1, 1), mode="zeros"), [uniform(2, 3, 4)])
C("pad reflect 4 pads 3d", lambda t, a: F(t).pad(a, (1, 1, 1, 1), mode="reflect"), [uniform(2, 3, 4)])
C("pad reflect int", lambda t, a: F(t).pad(a, (1, 1), mode="reflect"), [integers(5, 2, 3, 4)], grad=False)
C("pad circular neg", lambda t, a: F(t).pad(a, (-1, 2), mode="circular"), [uniform(2, 3, 5)])
C("pad replicate f64", lambda t, a: F(t).pad(a, (1, 2, 3, 0), mode="replicate"), [uniform(2, 3, 4, 5, dtype="float64")])
C("pad reflect channels_last", lambda t, a: F(t).pad(a.to(memory_format=t.channels_last), (1, 2, 3, 0), mode="reflect"), [uniform(2, 3, 4, 5)])
C("pad constant bool", lambda t, a: F(t).pad(a > 0, (1, 1), value=True), [uniform(2, 3)], grad=False)
# conv
for dims, shp, ushp in ((1, (2, 4, 9), (4, 9)), (2, (2, 4, 7, 8), (4, 7, 8)), (3, (1, 4, 5, 6, 5), (4, 5, 6, 5))):
    for x in (shp, ushp):
        for k, s, p, d, gr in ((3, 1, 0, 1, 1), (3, 2, 1, 1, 2), (2, 1, "same", 2, 4), (3, 1, "valid", 1, 1), (3, 2, 2, 2, 1)):
            w = uniform(6 if gr != 4 else 4, 4 // gr, *([k] * dims), seed=3)
            C(f"conv{dims}d {x} k{k} s{s} p{p} d{d} g{gr}", lambda t, a, w, b, dims=dims, s=s, p=p, d=d, gr=gr: getattr(F(t), f"conv{dims}d")(a, w, b, s, p, d, gr), [uniform(*x), w, uniform(w.shape[0], seed=4)], tol=1e-4)
            if p not in ("same", "valid"):
                wt = uniform(4, 6 // gr if gr != 4 else 1, *([k] * dims), seed=3)
                for op in (0, 1):
                    if op >= max(s, d):
                        continue
                    C(f"conv_transpose{dims}d {x} k{k} s{s} p{p} d{d} g{gr} op{op}", lambda t, a, w, b, dims=dims, s=s, p=p, d=d, gr=gr, op=op: getattr(F(t), f"conv_transpose{dims}d")(a, w, b, s, p, op, gr, d), [uniform(*x), wt, uniform(wt.shape[1] * gr, seed=4)], tol=1e-4)
C("conv2d channels_last", lambda t, a, w: F(t).conv2d(a.to(memory_format=t.channels_last), w, padding=1), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)], tol=1e-4)
C("conv2d f64", lambda t, a, w: F(t).conv2d(a, w, padding=1), [uniform(2, 4, 7, 8, dtype="float64"), uniform(6, 4, 3, 3, dtype="float64")], tol=1e-10)
C("conv2d f16", lambda t, a, w: F(t).conv2d(a, w, padding=1), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)], dtype="float16", tol=1e-2)
C("conv2d bf16", lambda t, a, w: F(t).conv2d(a, w, padding=1), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)], dtype="bfloat16", tol=1e-1)
C("conv2d same stride", lambda t, a, w: F(t).conv2d(a, w, stride=2, padding="same"), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)])
C("conv2d bad groups", lambda t, a, w: F(t).conv2d(a, w, groups=3), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)])
C("conv2d channel mismatch", lambda t, a, w: F(t).conv2d(a, w), [uniform(2, 5, 7, 8), uniform(6, 4, 3, 3)])
C("conv2d kernel too big", lambda t, a, w: F(t).conv2d(a, w), [uniform(2, 4, 2, 2), uniform(6, 4, 3, 3)])
C("conv2d same even kernel", lambda t, a, w: F(t).conv2d(a, w, padding="same", dilation=1), [uniform(2, 4, 7, 8), uniform(6, 4, 4, 2)], tol=1e-4)
C("conv2d bad padding str", lambda t, a, w: F(t).conv2d(a, w, padding="full"), [uniform(2, 4, 7, 8), uniform(6, 4, 3, 3)])
C("conv_transpose2d bad op", lambda t, a, w: F(t).conv_transpose2d(a, w, stride=2, output_padding=2), [uniform(2, 4, 7, 8), uniform(4, 6, 3, 3)])
C("conv_tbc", lambda t, a, w, b: F(t).conv_tbc(a, w, b, 1), [uniform(7, 2, 4), uniform(3, 4, 5), uniform(5)], tol=1e-4)
# norms
for shp in ((4, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2)):
    C(f"batch_norm train {shp}", lambda t, a, w, b: F(t).batch_norm(a, t.zeros(3), t.ones(3), w, b, training=True, momentum=0.3), [uniform(*shp), uniform(3, seed=1), uniform(3, seed=2)], tol=1e-4)
    C(f"batch_norm eval {shp}", lambda t, a, w, b: F(t).batch_norm(a, t.tensor([0.1, -0.2, 0.3]), t.tensor([1.5, 0.5, 2.0]), w, b, training=False), [uniform(*shp), uniform(3, seed=1), uniform(3, seed=2)], tol=1e-4)
    if len(shp) > 2:
        C(f"instance_norm {shp}", lambda t, a, w, b: F(t).instance_norm(a, weight=w, bias=b), [uniform(*shp), uniform(3, seed=1), uniform(3, seed=2)], tol=1e-4)
        C(f"instance_norm stats {shp}", lambda t, a: F(t).instance_norm(a, t.zeros(3), t.ones(3), use_input_stats=False), [uniform(*shp)], tol=1e-4)
    C(f"group_norm {shp}", lambda t, a, w, b: F(t).group_norm(a, 3, w, b, eps=1e-3), [uniform(*shp), uniform(3, seed=1), uniform(3, seed=2)], tol=1e-4)
    C(f"layer_norm {shp}", lambda t, a, w, b: F(t).layer_norm(a, a.shape[-1:], w, b), [uniform(*shp), uniform(shp[-1], seed=1), uniform(shp[-1], seed=2)], tol=1e-4)
    C(f"layer_norm 2 dims {shp}", lambda t, a: F(t).layer_norm(a, a.shape[-2:]), [uniform(*shp)], tol=1e-4)
    C(f"rms_norm {shp}", lambda t, a, w: F(t).rms_norm(a, a.shape[-1:], w), [uniform(*shp), uniform(shp[-1], seed=1)], tol=1e-4)
    C(f"local_response_norm {shp}", lambda t, a: F(t).local_response_norm(a, 2, alpha=0.1, beta=0.6, k=1.5), [uniform(*shp)], tol=1e-4)
    C(f"normalize {shp}", lambda t, a: F(t).normalize(a, p=1.5, dim=1), [uniform(*shp)], tol=1e-4)
C("layer_norm f16", lambda t, a: F(t).layer_norm(a, (5,)), [uniform(3, 5)], dtype="float16", tol=1e-2)
C("layer_norm bf16", lambda t, a, w: F(t).layer_norm(a, (5,), w), [uniform(3, 5), uniform(5)], dtype="bfloat16", tol=5e-2)
C("group_norm f64", lambda t, a: F(t).group_norm(a, 2), [uniform(2, 4, 3, dtype="float64")], tol=1e-10)
C("group_norm bad groups", lambda t, a: F(t).group_norm(a, 3), [uniform(2, 4, 3)])
C("group_norm 2d input", lambda t, a: F(t).group_norm(a, 2), [uniform(2, 4)], tol=1e-4)
C("instance_norm 2d", lambda t, a: F(t).instance_norm(a), [uniform(3, 4)], tol=1e-4)
C("layer_norm bad shape", lambda t, a: F(t).layer_norm(a, (4,)), [uniform(3, 5)])
C("batch_norm channels_last", lambda t, a: F(t).batch_norm(a.to(memory_format=t.channels_last), None, None, training=True), [uniform(2, 3, 4, 5)], tol=1e-4)
C("normalize zero", lambda t, a: F(t).normalize(a * 0), [uniform(3, 5)])
C("normalize eps dim -1 inf", lambda t, a: F(t).normalize(a, p=float('inf'), dim=-1), [uniform(3, 5)])
# embedding
C("embedding", lambda t, i, w: F(t).embedding(i, w), [np.array([[0, 2], [4, 1]]), uniform(5, 3)])
C("embedding padding_idx", lambda t, i, w: F(t).embedding(i, w, padding_idx=2), [np.array([[0, 2], [4, 2]]), uniform(5, 3)])
C("embedding neg padding_idx", lambda t, i, w: F(t).embedding(i, w, padding_idx=-1), [np.array([[0, 4], [4, 2]]), uniform(5, 3)])
C("embedding max_norm", lambda t, i, w: F(t).embedding(i, w.detach().clone(), max_norm=1.0, norm_type=1.5), [np.array([[0, 2], [4, 1]]), uniform(5, 3)], grad=False)
C("embedding scale_grad", lambda t, i, w: F(t).embedding(i, w, scale_grad_by_freq=True), [np.array([[0, 2], [0, 0]]), uniform(5, 3)])
C("embedding oob", lambda t, i, w: F(t).embedding(i, w), [np.array([[0, 5]]), uniform(5, 3)])
C("embedding float idx", lambda t, i, w: F(t).embedding(i.float(), w), [np.array([[0, 1]]), uniform(5, 3)])
C("embedding int32 idx", lambda t, i, w: F(t).embedding(i.int(), w), [np.array([[0, 1]]), uniform(5, 3)])
for mode in ("sum", "mean", "max"):
    C(f"embedding_bag {mode} 2d", lambda t, i, w, mode=mode: F(t).embedding_bag(i, w, mode=mode), [np.array([[0, 2, 1], [4, 1, 1]]), uniform(5, 3)])
    C(f"embedding_bag {mode} offsets", lambda t, i, w, mode=mode: F(t).embedding_bag(i, w, t.tensor([0, 2, 2]), mode=mode), [np.array([0, 2, 1, 4, 1]), uniform(5, 3)])
    C(f"embedding_bag {mode} offsets last", lambda t, i, w, mode=mode: F(t).embedding_bag(i, w, t.tensor([0, 2, 5]), mode=mode, include_last_offset=True), [np.array([0, 2, 1, 4, 1]), uniform(5, 3)])
    C(f"embedding_bag {mode} padding", lambda t, i, w, mode=mode: F(t).embedding_bag(i, w, t.tensor([0, 2, 3]), mode=mode, padding_idx=1), [np.array([0, 2, 1, 4, 1]), uniform(5, 3)])
C("embedding_bag psw", lambda t, i, w, p: F(t).embedding_bag(i, w, t.tensor([0, 2]), mode="sum", per_sample_weights=p), [np.array([0, 2, 1, 4, 1]), uniform(5, 3), uniform(5, seed=3)])
C("embedding_bag psw mean", lambda t, i, w, p: F(t).embedding_bag(i, w, t.tensor([0, 2]), mode="mean", per_sample_weights=p), [np.array([0, 2, 1, 4, 1]), uniform(5, 3), uniform(5, seed=3)])
C("one_hot", lambda t, i: F(t).one_hot(i), [np.array([[0, 2], [4, 1]])], grad=False)
C("one_hot n", lambda t, i: F(t).one_hot(i, 6), [np.array([0, 2])], grad=False)
C("one_hot neg", lambda t, i: F(t).one_hot(i - 1), [np.array([0, 2])], grad=False)
C("one_hot small n", lambda t, i: F(t).one_hot(i, 2), [np.array([0, 2])], grad=False)
C("one_hot float", lambda t, i: F(t).one_hot(i.float()), [np.array([0, 2])], grad=False)
# linear & bilinear
C("linear", lambda t, a, w, b: F(t).linear(a, w, b), [uniform(2, 3, 4), uniform(5, 4), uniform(5)], tol=1e-5)
C("linear 1d", lambda t, a, w: F(t).linear(a, w), [uniform(4), uniform(5, 4)])
C("linear 1d w", lambda t, a, w, b: F(t).linear(a, w, b), [uniform(3, 4), uniform(4), np.array(0.5, np.float32)])
C("linear bad", lambda t, a, w: F(t).linear(a, w), [uniform(3, 4), uniform(5, 3)])
C("bilinear", lambda t, a, b, w, bb: F(t).bilinear(a, b, w, bb), [uniform(3, 4), uniform(3, 2), uniform(5, 4, 2), uniform(5)], tol=1e-5)
C("bilinear unbatched", lambda t, a, b, w: F(t).bilinear(a, b, w), [uniform(4), uniform(2), uniform(5, 4, 2)], tol=1e-5)
# fold/unfold
C("unfold", lambda t, a: F(t).unfold(a, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [uniform(2, 3, 6, 7)])
C("unfold unbatched", lambda t, a: F(t).unfold(a, 2), [uniform(3, 4, 4)])
C("fold", lambda t, a: F(t).fold(a, (4, 5), (2, 2), padding=1, stride=2), [uniform(2, 12, 12)])
C("fold unbatched", lambda t, a: F(t).fold(a, (3, 3), 2), [uniform(8, 4)])
C("fold bad", lambda t, a: F(t).fold(a, (3, 3), 2), [uniform(2, 7, 4)])
C("pixel_shuffle", lambda t, a: F(t).pixel_shuffle(a, 2), [uniform(2, 8, 3, 4)])
C("pixel_unshuffle", lambda t, a: F(t).pixel_unshuffle(a, 2), [uniform(2, 3, 4, 6)])
C("pixel_shuffle 3d", lambda t, a: F(t).pixel_shuffle(a, 2), [uniform(8, 3, 4)])
C("pixel_shuffle bad", lambda t, a: F(t).pixel_shuffle(a, 2), [uniform(2, 6, 3, 4)])
C("channel_shuffle", lambda t, a: F(t).channel_shuffle(a, 2), [uniform(2, 6, 3, 4)])
C("native_channel_shuffle", lambda t, a: F(t).native_channel_shuffle(a, 3), [uniform(2, 6, 3)], grad=False)
# grid_sample / affine_grid
for mode in ("bilinear", "nearest", "bicubic"):
    for pm in ("zeros", "border", "reflection"):
        for al in (False, True):
            C(f"grid_sample {mode} {pm} {al}", lambda t, a, gr, mode=mode, pm=pm, al=al: F(t).grid_sample(a, gr, mode=mode, padding_mode=pm, align_corners=al), [uniform(2, 3, 5, 6), uniform(2, 4, 3, 2, lo=-1.3, hi=1.3)], tol=1e-4)
    if mode != "bicubic":
        C(f"grid_sample 3d {mode}", lambda t, a, gr, mode=mode: F(t).grid_sample(a, gr, mode=mode, align_corners=False), [uniform(1, 2, 3, 4, 5), uniform(1, 2, 3, 2, 3, lo=-1.2, hi=1.2)], tol=1e-4)
for al in (False, True):
    C(f"affine_grid 2d {al}", lambda t, th, al=al: F(t).affine_grid(th, [2, 3, 4, 5], align_corners=al), [uniform(2, 2, 3)], tol=1e-5)
    C(f"affine_grid 3d {al}", lambda t, th, al=al: F(t).affine_grid(th, [2, 3, 2, 4, 5], align_corners=al), [uniform(2, 3, 4)], tol=1e-5)
C("affine_grid bad", lambda t, th: F(t).affine_grid(th, [2, 3, 4, 5]), [uniform(2, 3, 3)])
# distances / similarity
C("cosine_similarity", lambda t, a, b: F(t).cosine_similarity(a, b, dim=1, eps=1e-4), [uniform(3, 4, 2), uniform(3, 4, 2, seed=1)])
C("cosine_similarity bcast", lambda t, a, b: F(t).cosine_similarity(a, b), [uniform(3, 4), uniform(1, 4, seed=1)])
C("pairwise_distance", lambda t, a, b: F(t).pairwise_distance(a, b, p=3, keepdim=True), [uniform(3, 4), uniform(3, 4, seed=1)])
C("pairwise_distance 1d", lambda t, a, b: F(t).pairwise_distance(a, b), [uniform(4), uniform(4, seed=1)])
C("pdist", lambda t, a: F(t).pdist(a, 1.5), [uniform(4, 3)])
C("pdist inf", lambda t, a: F(t).pdist(a, float('inf')), [uniform(4, 3)])
C("pdist 0", lambda t, a: F(t).pdist(a, 0), [uniform(4, 3)])
# attention
C("sdpa", lambda t, q, k, v: F(t).scaled_dot_product_attention(q, k, v), [uniform(2, 3, 4, 5), uniform(2, 3, 6, 5, seed=1), uniform(2, 3, 6, 7, seed=2)], tol=1e-5)
C("sdpa causal", lambda t, q, k, v: F(t).scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3), [uniform(2, 3, 4, 5), uniform(2, 3, 6, 5, seed=1), uniform(2, 3, 6, 7, seed=2)], tol=1e-5)
C("sdpa bool mask", lambda t, q, k, v, m: F(t).scaled_dot_product_attention(q, k, v, attn_mask=m > 0), [uniform(2, 3, 4, 5), uniform(2, 3, 6, 5, seed=1), uniform(2, 3, 6, 7, seed=2), NoGrad(uniform(4, 6, seed=3, lo=-0.2, hi=2))], tol=1e-5)
C("sdpa float mask", lambda t, q, k, v, m: F(t).scaled_dot_product_attention(q, k, v, attn_mask=m), [uniform(2, 3, 4, 5), uniform(2, 3, 6, 5, seed=1), uniform(2, 3, 6, 7, seed=2), uniform(1, 4, 6, seed=3)], tol=1e-5)
C("sdpa gqa", lambda t, q, k, v: F(t).scaled_dot_product_attention(q, k, v, enable_gqa=True), [uniform(2, 4, 4, 5), uniform(2, 2, 6, 5, seed=1), uniform(2, 2, 6, 7, seed=2)], tol=1e-5)
C("sdpa 3d", lambda t, q, k, v: F(t).scaled_dot_product_attention(q, k, v), [uniform(3, 4, 5), uniform(3, 6, 5, seed=1), uniform(3, 6, 7, seed=2)], tol=1e-5)
C("sdpa all masked", lambda t, q, k, v: F(t).scaled_dot_product_attention(q, k, v, attn_mask=t.zeros(4, 6, dtype=t.bool)), [uniform(3, 4, 5), uniform(3, 6, 5, seed=1), uniform(3, 6, 7, seed=2)], tol=1e-5)


@pytest.mark.parametrize("spec", CASES)
def test_functional_matches_torch(spec):
    check(torch, spec)
