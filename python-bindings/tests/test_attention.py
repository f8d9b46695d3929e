"""Attention beyond the op table and the argument table: dropout inside the kernel (the fraction
kept, repeatable under manual_seed, a new mask at every replay of a compiled step without a new
plan, the backward using the forward's mask), the errors a beginner meets, state_dicts that load
both ways with torch's, the causal-mask detection of the Transformer stacks, and memory that does
not grow with the [L, S] scores."""
import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn.functional as F


@pytest.fixture(autouse=True)
def _cpu():
    gg.set_default_device("cpu")


def _qkv(rng, b=2, h=2, length=33, e=8, dtype=np.float64):
    return [gg.tensor(rng.standard_normal((b, h, length, e)).astype(dtype), requires_grad=True) for _ in range(3)]


def test_dropout_keeps_about_one_minus_p_of_the_probabilities_and_rescales_them():
    q = gg.tensor(np.zeros((1, 1, 64, 4)))
    k = gg.tensor(np.zeros((1, 1, 512, 4)))
    v = gg.tensor(np.eye(512)[None, None])              # out[i, j] = kept p_ij / (1 - p)
    gg.manual_seed(3)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25).numpy()[0, 0]
    kept = out > 0
    assert abs(kept.mean() - 0.75) < 0.01, kept.mean()
    np.testing.assert_allclose(out[kept], 1 / 512 / 0.75, rtol=1e-12)


def test_dropout_is_repeatable_under_manual_seed_and_differs_without_it():
    rng = np.random.default_rng(1)
    q, k, v = _qkv(rng)
    gg.manual_seed(7)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy()
    gg.manual_seed(7)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy()
    c = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_the_backward_regenerates_the_forwards_dropout_mask():
    """The gradient of a dropped-out attention equals finite differences of the same seed's forward."""
    rng = np.random.default_rng(2)
    q, k, v = _qkv(rng, length=5)
    gg.manual_seed(11)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    w = rng.standard_normal(out.shape)
    (out * gg.tensor(w)).sum().backward()
    vn = v.detach().numpy()
    eps = 1e-6
    for idx in [(0, 0, 1, 2), (1, 1, 4, 7)]:
        def loss(delta):
            arr = vn.copy()
            arr[idx] += delta
            gg.manual_seed(11)
            o = F.scaled_dot_product_attention(q.detach(), k.detach(), gg.tensor(arr), dropout_p=0.4)
            return float((o.numpy() * w).sum())
        numeric = (loss(eps) - loss(-eps)) / (2 * eps)
        assert abs(v.grad.numpy()[idx] - numeric) < 1e-6


def test_a_compiled_step_draws_a_new_dropout_mask_at_every_replay_without_recompiling():
    rng = np.random.default_rng(3)
    q, k, v = (gg.tensor(a) for a in rng.standard_normal((3, 1, 2, 16, 4)))

    @gg.compile
    def step(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.5) * 1.0

    outs = [step(q, k, v).numpy() for _ in range(4)]
    assert all(not np.array_equal(outs[i], outs[j]) for i in range(4) for j in range(i))


def test_errors_name_the_problem_and_a_fix():
    rng = np.random.default_rng(4)
    q, k, v = _qkv(rng)
    with pytest.raises(gg.ShapeError, match="query has 8 features but key has 5.*\n.*\n.*\n.*\n.*fix"):
        F.scaled_dot_product_attention(q, gg.tensor(rng.standard_normal((2, 2, 33, 5))), v)
    with pytest.raises(gg.InvalidArgumentError, match="is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=gg.tensor(np.ones((33, 33), bool)), is_causal=True)
    with pytest.raises(gg.DTypeError, match="bool or have the query's dtype glassgrad.float64"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=gg.tensor(np.ones((33, 33), np.int64)))
    with pytest.raises(gg.ShapeError, match=r"attn_mask of shape \[3, 33\] does not broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=gg.tensor(np.zeros((3, 33))))
    with pytest.raises(gg.InvalidArgumentError, match="multiple of the key heads"):
        F.scaled_dot_product_attention(gg.tensor(rng.standard_normal((2, 3, 4, 8))), k, v, enable_gqa=True)
    with pytest.raises(gg.InvalidArgumentError, match="divisible by num_heads"):
        gg.nn.MultiheadAttention(10, 3)


def test_multihead_attention_state_dict_loads_both_ways_with_torchs():
    torch = pytest.importorskip("torch")
    theirs = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    ours = gg.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    back = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    back.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(5).standard_normal((3, 4, 8)).astype(np.float32)
    ours.eval(), back.eval()
    with torch.no_grad():
        np.testing.assert_allclose(ours(gg.tensor(x)).detach().numpy(), back(torch.tensor(x)).detach().numpy(), atol=1e-5)


def test_generate_square_subsequent_mask_is_pytorchs_and_is_detected_as_causal():
    torch = pytest.importorskip("torch")
    mask = gg.nn.Transformer.generate_square_subsequent_mask(5)
    np.testing.assert_array_equal(mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())
    from glassgrad.nn.transformer import _detect_is_causal
    assert _detect_is_causal(mask, None, 5)
    assert not _detect_is_causal(gg.tensor(np.zeros((5, 5), np.float32)), None, 5)
    assert _detect_is_causal(gg.tensor(np.triu(np.ones((5, 5), bool), 1)), None, 5)
    assert not _detect_is_causal(mask, False, 5)


def test_the_plan_holds_no_score_matrix():
    """Attention over 512 positions: the step's arena stays far below one [L, S] float32 matrix
    per head (the kernels keep only tiles of scores)."""
    rng = np.random.default_rng(6)
    q, k, v = (gg.tensor(rng.standard_normal((1, 4, 512, 16)).astype(np.float32), requires_grad=True)
               for _ in range(3))
    gg.reset_peak_memory("cpu")
    before = gg.memory_stats("cpu")["current"]
    F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    gg.realize(q.grad, k.grad, v.grad)
    grown = gg.memory_stats("cpu")["peak"] - before
    scores = 4 * 512 * 512 * 4
    assert grown < scores / 4, (grown, scores)
