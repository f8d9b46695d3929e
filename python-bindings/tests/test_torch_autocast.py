"""Autocast on CPU against torch.autocast('cpu') (bfloat16 and float16): each op's output dtype,
its values within the rounding of the lower dtype, the gradients' dtypes (float32 parameters get
float32 gradients through the cast), the parameter cast cache, and a training loop with
GradScaler giving PyTorch's scale sequence. Skipped when torch is not importable (CI never
installs it; tools/torch_differential.sh runs it)."""
import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

LOWER = ("bfloat16", "float16")


def _arrays(seed):
    rng = np.random.default_rng(seed)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return {"x": normal(3, 5), "w": normal(4, 5), "b": normal(4), "sq": normal(5, 5), "v": normal(5),
            "b3": normal(2, 3, 5), "b3w": normal(2, 5, 4), "img": normal(2, 3, 7, 6), "k": normal(4, 3, 3, 3),
            "seq": normal(2, 3, 9), "k1": normal(4, 3, 2), "vol": normal(1, 2, 5, 4, 6), "k3": normal(3, 2, 2, 2, 2),
            "q": normal(2, 4, 3, 8), "p": rng.uniform(0.1, 0.9, (3, 5)).astype(np.float32),
            "t": rng.integers(0, 5, 3), "pm": np.sign(normal(3)) + (normal(3) == 0),
            "spd": (lambda a: a @ a.T + 5 * np.eye(4, dtype=np.float32))(normal(4, 4)),
            "grid": rng.uniform(-1, 1, (2, 4, 3, 2)).astype(np.float32)}


def _inputs(lib, arrays, half):
    """The arrays as lib's tensors; names ending in 'h' are the float32 ones cast to `half`."""
    out = {}
    for name, a in arrays.items():
        t = lib.tensor(a) if lib is gg else torch.from_numpy(np.ascontiguousarray(a))
        out[name] = t
        if a.dtype == np.float32:
            out[name + "h"] = t.to(getattr(lib, half))
    return out


# (name, fn(lib, F, inputs)): every op of PyTorch's CPU autocast lists glassgrad has, with float32
# inputs (and half ones where the list casts them up), and ops in no list, which keep their dtypes.
CASES = [
    ("linear", lambda L, F, i: F.linear(i["x"], i["w"], i["b"])),
    ("linear_no_bias", lambda L, F, i: F.linear(i["x"], i["w"])),
    ("matmul_operator", lambda L, F, i: i["x"] @ i["sq"]),
    ("matmul", lambda L, F, i: L.matmul(i["b3"], i["sq"])),
    ("Tensor.matmul", lambda L, F, i: i["x"].matmul(i["sq"])),
    ("mm", lambda L, F, i: L.mm(i["x"], i["sq"])),
    ("Tensor.mm", lambda L, F, i: i["x"].mm(i["sq"])),
    ("bmm", lambda L, F, i: L.bmm(i["b3"], i["b3w"])),
    ("addmm", lambda L, F, i: L.addmm(i["v"], i["x"], i["sq"])),
    ("baddbmm", lambda L, F, i: L.baddbmm(i["b3"], i["b3"], i["sq"].expand(2, 5, 5))),
    ("addbmm", lambda L, F, i: L.addbmm(i["x"], i["b3"], i["sq"].expand(2, 5, 5))),
    ("conv1d", lambda L, F, i: F.conv1d(i["seq"], i["k1"], i["b"])),
    ("conv2d", lambda L, F, i: F.conv2d(i["img"], i["k"], i["b"], padding=1)),
    ("conv3d", lambda L, F, i: F.conv3d(i["vol"], i["k3"])),
    ("conv_tbc", lambda L, F, i: F.conv_tbc(i["seq"].permute(2, 0, 1).contiguous(), i["k1"].permute(2, 1, 0).contiguous(),
                                                i["v"][:4], 1)),
    ("conv_transpose1d", lambda L, F, i: F.conv_transpose1d(i["seq"], i["k1"].transpose(0, 1).contiguous())),
    ("conv_transpose2d", lambda L, F, i: F.conv_transpose2d(i["img"], i["k"].transpose(0, 1).contiguous())),
    ("conv_transpose3d", lambda L, F, i: F.conv_transpose3d(i["vol"], i["k3"].transpose(0, 1).contiguous())),
    ("prelu", lambda L, F, i: F.prelu(i["x"], L.tensor([0.25]))),
    ("sdpa", lambda L, F, i: F.scaled_dot_product_attention(i["q"], i["q"], i["q"])),
    ("linalg.vecdot", lambda L, F, i: L.linalg.vecdot(i["x"], i["x"])),
    ("linalg.multi_dot", lambda L, F, i: L.linalg.multi_dot([i["x"], i["sq"], i["sq"]])),
    ("chain_matmul", lambda L, F, i: L.chain_matmul(i["x"], i["sq"], i["sq"])),
    ("mv", lambda L, F, i: L.mv(i["x"], i["v"])),
    ("dot", lambda L, F, i: L.dot(i["v"], i["v"])),
    ("einsum", lambda L, F, i: L.einsum("ij,jk->ik", i["x"], i["sq"])),
    ("einsum_batched", lambda L, F, i: L.einsum("bij,bjk->bik", i["b3"], i["b3w"])),
    ("einsum_diagonal", lambda L, F, i: L.einsum("ii->i", i["sq"])),
    ("einsum_outer", lambda L, F, i: L.einsum("i,j->ij", i["v"], i["b"])),
    ("tensordot", lambda L, F, i: L.tensordot(i["x"], i["sq"], dims=1)),
    # float32 ops: half inputs come back float32
    ("mse_loss", lambda L, F, i: F.mse_loss(i["xh"], i["ph"])),
    ("l1_loss", lambda L, F, i: F.l1_loss(i["xh"], i["ph"])),
    ("smooth_l1_loss", lambda L, F, i: F.smooth_l1_loss(i["xh"], i["ph"])),
    ("huber_loss", lambda L, F, i: F.huber_loss(i["xh"], i["ph"])),
    ("cross_entropy", lambda L, F, i: F.cross_entropy(i["xh"], i["t"])),
    ("nll_loss", lambda L, F, i: F.nll_loss(F.log_softmax(i["xh"], 1), i["t"])),
    ("binary_cross_entropy", lambda L, F, i: F.binary_cross_entropy(i["ph"], i["ph"])),
    ("bce_with_logits", lambda L, F, i: F.binary_cross_entropy_with_logits(i["xh"], i["ph"])),
    ("kl_div", lambda L, F, i: F.kl_div(i["xh"], i["ph"], reduction="batchmean")),
    ("soft_margin_loss", lambda L, F, i: F.soft_margin_loss(i["xh"], i["ph"])),
    ("margin_ranking_loss", lambda L, F, i: F.margin_ranking_loss(i["xh"][:, 0], i["xh"][:, 1], i["pm"])),
    ("hinge_embedding_loss", lambda L, F, i: F.hinge_embedding_loss(i["xh"], i["ph"].sign())),
    ("cosine_embedding_loss", lambda L, F, i: F.cosine_embedding_loss(i["xh"], i["ph"], i["pm"])),
    ("triplet_margin_loss", lambda L, F, i: F.triplet_margin_loss(i["xh"], i["ph"], i["x"])),
    ("poisson_nll_loss", lambda L, F, i: F.poisson_nll_loss(i["xh"], i["ph"])),
    ("multi_margin_loss", lambda L, F, i: F.multi_margin_loss(i["xh"], i["t"])),
    ("prod", lambda L, F, i: i["ph"].prod()),
    ("cdist", lambda L, F, i: L.cdist(i["xh"], i["xh"])),
    ("trace", lambda L, F, i: L.trace(i["sqh"])),
    ("inverse", lambda L, F, i: L.inverse(i["spdh"])),
    ("avg_pool3d", lambda L, F, i: F.avg_pool3d(i["volh"], 2)),
    ("max_pool3d", lambda L, F, i: F.max_pool3d(i["volh"], 2)),
    ("adaptive_avg_pool3d", lambda L, F, i: F.adaptive_avg_pool3d(i["volh"], 2)),
    ("grid_sample", lambda L, F, i: F.grid_sample(i["imgh"], i["grid"], align_corners=False)),
    ("quantile", lambda L, F, i: L.quantile(i["xh"].flatten(), 0.3)),
    ("linalg.cholesky", lambda L, F, i: L.linalg.cholesky(i["spdh"])),
    ("adaptive_max_pool3d", lambda L, F, i: F.adaptive_max_pool3d(i["volh"], 2)),
    ("max_unpool2d", lambda L, F, i: F.max_unpool2d(*F.max_pool2d(i["imgh"], 2, return_indices=True), 2)),
    ("fractional_max_pool2d", lambda L, F, i: F.fractional_max_pool2d(
        i["imgh"], 2, output_size=3, _random_samples=i["p"].flatten()[:12].reshape(2, 3, 2))),
    ("multilabel_margin_loss", lambda L, F, i: F.multilabel_margin_loss(i["xh"], i["t"].reshape(3, 1).expand(3, 5)
                                                                         .contiguous())),
    ("ctc_loss", lambda L, F, i: F.ctc_loss(F.log_softmax(i["b3"], 2).transpose(0, 1).contiguous().to(
        i["xh"].dtype), L.tensor([[1, 2], [3, 1]]), L.tensor([3, 3]), L.tensor([2, 2]))),
    ("pad_reflect", lambda L, F, i: F.pad(i["imgh"], (1, 2, 2, 1), mode="reflect")),
    ("pad_reflect_1d", lambda L, F, i: F.pad(i["seqh"], (2, 1), mode="reflect")),
    ("pad_replicate", lambda L, F, i: F.pad(i["imgh"], (1, 2, 2, 1), mode="replicate")),
    ("pad_replicate_3d", lambda L, F, i: F.pad(i["volh"], (1, 0, 0, 1, 1, 1), mode="replicate")),
    ("pad_constant", lambda L, F, i: F.pad(i["imgh"], (1, 2, 2, 1))),
    ("pad_circular", lambda L, F, i: F.pad(i["imgh"], (1, 2, 2, 1), mode="circular")),
    # promote to the widest: a half and a float32 tensor give float32
    ("cat", lambda L, F, i: L.cat([i["xh"], i["x"]])),
    ("stack", lambda L, F, i: L.stack([i["xh"], i["x"]])),
    ("index_copy", lambda L, F, i: i["x"].index_copy(0, L.tensor([2, 0]), i["xh"][:2])),
    # in no CPU list: the inputs' dtypes
    ("softmax_half", lambda L, F, i: F.softmax(i["xh"], 1)),
    ("softmax_float32", lambda L, F, i: F.softmax(i["x"], 1)),
    ("exp", lambda L, F, i: L.exp(i["xh"])),
    ("sum", lambda L, F, i: i["xh"].sum()),
    ("pow", lambda L, F, i: i["xh"] ** 2),
    ("layer_norm", lambda L, F, i: F.layer_norm(i["xh"], (5,))),
    ("group_norm", lambda L, F, i: F.group_norm(i["imgh"], 1)),
    ("relu", lambda L, F, i: F.relu(i["xh"])),
    ("gelu", lambda L, F, i: F.gelu(i["xh"])),
    ("add_mixed", lambda L, F, i: i["xh"] + i["x"]),
    ("max_pool2d", lambda L, F, i: F.max_pool2d(i["imgh"], 2)),
    ("cosine_similarity", lambda L, F, i: F.cosine_similarity(i["xh"], i["xh"])),
    ("addcmul", lambda L, F, i: L.addcmul(i["x"], i["xh"], i["xh"])),
    ("linear_float64", lambda L, F, i: F.linear(i["x"].double(), i["w"].double())),
]


def _run(lib, name, half, seed=0):
    fn = dict(CASES)[name]
    F = gg.nn.functional if lib is gg else torch.nn.functional
    inputs = _inputs(lib, _arrays(seed), half)
    with lib.autocast("cpu", dtype=getattr(lib, half)):
        return fn(lib, F, inputs)


def _tolerance(dtype: str):
    # a few roundings of the lower dtype (the two libraries may round at other steps)
    return {"bfloat16": 4e-2, "float16": 4e-3}.get(dtype, 1e-4)


@pytest.mark.parametrize("half", LOWER)
@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_output_dtype_and_values_match_torch(name, half):
    got, want = _run(gg, name, half), _run(torch, name, half)
    want_dtype = str(want.dtype).replace("torch.", "")
    assert str(got.dtype).replace("glassgrad.", "") == want_dtype
    got_a = got.detach().float().numpy()
    want_a = want.detach().float().numpy()
    tol = _tolerance(want_dtype if want_dtype in LOWER else half)
    np.testing.assert_allclose(got_a, want_a, rtol=tol, atol=tol * max(1.0, float(np.abs(want_a).max())))


# Layers built alike in both libraries (torch's weights loaded into glassgrad's), run inside the
# region and differentiated: outputs' dtypes and values, parameters' gradients (float32).
MODULES = [
    ("Linear", lambda nn: nn.Linear(5, 4), (3, 5)),
    ("Conv2d", lambda nn: nn.Conv2d(3, 4, 3, padding=1), (2, 3, 6, 5)),
    ("Conv1d", lambda nn: nn.Conv1d(3, 4, 2), (2, 3, 7)),
    ("Linear_ReLU_Linear", lambda nn: nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 2)), (4, 5)),
    ("LayerNorm_after_Linear", lambda nn: nn.Sequential(nn.Linear(5, 6), nn.LayerNorm(6)), (4, 5)),
    ("BatchNorm2d_after_Conv2d", lambda nn: nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)), (2, 3, 6, 5)),
    ("MultiheadAttention", lambda nn: _First(nn.MultiheadAttention(8, 2, batch_first=True)), (2, 3, 8)),
    ("TransformerEncoderLayer", lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
     (2, 3, 8)),
    # recurrent layers: PyTorch's CPU LSTM (mkldnn), RNN and RNNCell (made of linear) run in the
    # lower dtype, GRU, LSTMCell and GRUCell in their inputs'; float16 LSTM has no CPU kernel in PyTorch
    ("LSTM_bfloat16_only", lambda nn: _First(nn.LSTM(4, 3, num_layers=2, batch_first=True), 1), (2, 5, 4)),
    ("RNN", lambda nn: _First(nn.RNN(4, 3, batch_first=True), 1), (2, 5, 4)),
    ("RNN_relu", lambda nn: _First(nn.RNN(4, 3, nonlinearity="relu", bidirectional=True), 1), (5, 2, 4)),
    ("GRU", lambda nn: _First(nn.GRU(4, 3, batch_first=True), 1), (2, 5, 4)),
    ("RNNCell", lambda nn: nn.RNNCell(4, 3), (2, 4)),
    ("LSTMCell", lambda nn: _First(nn.LSTMCell(4, 3), 1), (2, 4)),
    ("GRUCell", lambda nn: nn.GRUCell(4, 3), (2, 4)),
]


class _First:
    """A layer's first output, called with its input `inputs` times (attention: query, key and
    value one tensor; a recurrent layer: the input alone)."""

    def __init__(self, layer, inputs=3):
        self.layer, self.inputs = layer, inputs

    def __call__(self, x):
        return self.layer(*[x] * self.inputs)[0]


def _module(name):
    torch.manual_seed(0)
    make, shape = dict((n, (m, s)) for n, m, s in MODULES)[name]
    tm = make(torch.nn)
    gm = make(gg.nn)
    layer_t, layer_g = (tm.layer, gm.layer) if isinstance(tm, _First) else (tm, gm)
    layer_g.load_state_dict({k: gg.tensor(v.detach().numpy()) for k, v in layer_t.state_dict().items()})
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return (tm, layer_t), (gm, layer_g), x


@pytest.mark.parametrize("half", LOWER)
@pytest.mark.parametrize("name", [n for n, _, _ in MODULES])
def test_layers_match_torch_and_float32_parameters_get_float32_gradients(name, half):
    if name.endswith("_bfloat16_only") and half != "bfloat16":
        pytest.skip("PyTorch has no float16 kernel for it on the CPU")
    (tm, layer_t), (gm, layer_g), x = _module(name)
    with torch.autocast("cpu", dtype=getattr(torch, half)):
        want = tm(torch.from_numpy(x))
    with gg.autocast("cpu", dtype=getattr(gg, half)):
        got = gm(gg.tensor(x))
    assert str(got.dtype).replace("glassgrad.", "") == str(want.dtype).replace("torch.", "")
    tol = _tolerance(half)
    want_a = want.detach().float().numpy()
    np.testing.assert_allclose(got.detach().float().numpy(), want_a, rtol=tol, atol=tol * float(np.abs(want_a).max()))
    # a random projection (a sum of squares after a norm is nearly constant: gradients of rounding noise)
    r = np.random.default_rng(3).standard_normal(tuple(want.shape)).astype(np.float32)
    (want.float() * torch.from_numpy(r)).sum().backward()
    (got.float() * gg.tensor(r)).sum().backward()
    for (n, pt), pg in zip(layer_t.named_parameters(), layer_g.parameters()):
        assert pg.grad is not None and pg.grad.dtype == gg.float32 and pt.grad.dtype == torch.float32, n
        g, w = pg.grad.numpy(), pt.grad.numpy()
        np.testing.assert_allclose(g, w, rtol=4 * tol, atol=4 * tol * float(np.abs(w).max()), err_msg=n)


def test_a_training_loop_with_grad_scaler_gives_torch_scales():
    """float16 autocast with a GradScaler: the same scales after each step (growth every 2 clean
    steps, a backoff on the step whose loss overflows), the same weights within float16's rounding."""
    (tm, _), (gm, _), x = _module("Linear_ReLU_Linear")
    y = np.random.default_rng(2).standard_normal((4, 2)).astype(np.float32)
    runs = []
    for lib, model in ((torch, tm), (gg, gm)):
        opt = lib.optim.SGD(model.parameters(), lr=0.05)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
        xs, ys = (torch.from_numpy(x), torch.from_numpy(y)) if lib is torch else (gg.tensor(x), gg.tensor(y))
        scales = []
        for step in range(8):
            opt.zero_grad()
            with lib.autocast("cpu", dtype=lib.float16):
                out = model(xs)
                loss = lib.nn.functional.mse_loss(out, ys) * (float("inf") if step == 3 else 1.0)
            assert out.dtype == lib.float16 and loss.dtype == lib.float32
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        runs.append((scales, [p.detach().numpy().copy() for p in model.parameters()]))
    assert runs[1][0] == runs[0][0] == [1024.0, 2048.0, 2048.0, 1024.0, 1024.0, 2048.0, 2048.0, 4096.0]
    for g, w in zip(runs[1][1], runs[0][1]):
        np.testing.assert_allclose(g, w, rtol=1e-2, atol=1e-2)
