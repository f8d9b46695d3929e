"""TransformerEncoder's padded positions as PyTorch returns them: in inference (eval mode, no
gradient needed) with batch_first layers that allow nested tensors, a left-aligned
src_key_padding_mask and no src mask, PyTorch's nested-tensor path gives 0.0 at the padded
positions (then the final norm of zeros: its bias); otherwise they are computed like the others.
A Transformer's decoder sees that memory, so its output depends on it too. The last tests compare
with torch where it is installed."""
import numpy as np
import pytest

import glassgrad as gg

nn = gg.nn
RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 5, 8)).astype(np.float32)
LEFT = np.array([[False, False, False, True, True], [False] * 5])


def _encoder(batch_first=True, norm=None, **kw):
    gg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=batch_first)
    return nn.TransformerEncoder(layer, 2, norm=norm, **kw).eval()


def _run(enc, x=X, kpm=LEFT, grad=False, **kw):
    with gg.set_grad_enabled(grad):
        return enc(gg.tensor(x), src_key_padding_mask=gg.tensor(kpm), **kw).detach().numpy()


def test_padded_positions_are_zero_in_inference():
    out = _run(_encoder())
    assert np.all(out[0, 3:] == 0.0)
    assert np.all(np.abs(out[0, :3]) > 0) and np.all(np.abs(out[1]) > 0)


def test_final_norm_sees_the_zeros():
    norm = nn.LayerNorm(8)
    with gg.no_grad():
        norm.bias.copy_(gg.arange(8, dtype=gg.float32))
    out = _run(_encoder(norm=norm))
    np.testing.assert_array_equal(out[0, 3], np.arange(8, dtype=np.float32))


def test_float_mask_counts_nonzero_as_padded():
    kpm = np.where(LEFT, -np.inf, 0.0).astype(np.float32)
    assert np.all(_run(_encoder(), kpm=kpm)[0, 3:] == 0.0)


@pytest.mark.parametrize("case", ["grad", "train", "not batch_first", "not left aligned", "src mask",
                                  "nested off"])
def test_other_calls_compute_the_padded_positions(case):
    enc = _encoder(batch_first=case != "not batch_first", enable_nested_tensor=case != "nested off")
    x, kpm, kw = X, LEFT, {}
    if case == "train":
        enc.train()
    if case == "not batch_first":
        x = np.ascontiguousarray(X.transpose(1, 0, 2))
    if case == "not left aligned":
        kpm = np.array([[True, False, False, False, False], [False] * 5])
    if case == "src mask":
        kw["mask"] = gg.zeros(5, 5)
    out = _run(enc, x=x, kpm=kpm, grad=case == "grad", **kw)
    padded = out[0, 0] if case == "not left aligned" else (out[3:, 0] if case == "not batch_first" else out[0, 3:])
    assert np.all(np.abs(padded) > 0)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.Transformer(8, 2, 2, 1, 16, 0.0, batch_first=True).eval()
    ours = nn.Transformer(8, 2, 2, 1, 16, 0.0, batch_first=True).eval()
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    y = RNG.standard_normal((2, 4, 8)).astype(np.float32)
    for kpm in (LEFT, np.array([[True, False, False, False, False], [False] * 5])):
        with torch.no_grad():
            want = theirs(torch.tensor(X), torch.tensor(y), src_key_padding_mask=torch.tensor(kpm)).numpy()
        with gg.no_grad():
            got = ours(gg.tensor(X), gg.tensor(y), src_key_padding_mask=gg.tensor(kpm)).numpy()
        np.testing.assert_allclose(got, want, atol=1e-4)
        want_enc = theirs.encoder(torch.tensor(X), src_key_padding_mask=torch.tensor(kpm)).detach().numpy()
        got_enc = ours.encoder(gg.tensor(X), src_key_padding_mask=gg.tensor(kpm)).detach().numpy()
        np.testing.assert_allclose(got_enc, want_enc, atol=1e-4)  # with grad: every position computed
