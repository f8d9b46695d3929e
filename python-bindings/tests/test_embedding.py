"""nn.Embedding / F.embedding and nn.EmbeddingBag / F.embedding_bag against PyTorch (values, the
weight's gradient with padding_idx and scale_grad_by_freq, max_norm's in-place renormalization,
bags of every mode), their arguments, repr, from_pretrained, state_dicts both ways, errors, a
compiled training step, and CPU against CUDA."""
from __future__ import annotations

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
W = RNG.standard_normal((7, 4))
IDX = np.array([[0, 2, 2, 5], [6, 0, 1, 2], [3, 3, 3, 4]])


def _pair(w=W):
    return gg.nn.Parameter(w.copy()), torch.tensor(w.copy(), requires_grad=True)


def _backward(ours, theirs, seed=0):
    g = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    (ours * gg.tensor(g)).sum().backward()
    (theirs * torch.tensor(g)).sum().backward()


def _close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a), b.detach().numpy() if hasattr(b, "detach") else b, rtol=tol, atol=tol)


# ---- F.embedding --------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 0}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 2, "scale_grad_by_freq": True}, {"sparse": True}])
def test_embedding_values_and_weight_gradient_match_torch(kwargs):
    w, tw = _pair()
    out = F.embedding(gg.tensor(IDX), w, **kwargs)
    theirs = torch.nn.functional.embedding(torch.tensor(IDX), tw, **kwargs)
    assert tuple(out.shape) == (3, 4, 4)
    _close(out.detach().numpy(), theirs)
    _backward(out, theirs)
    _close(w.grad.numpy(), tw.grad.to_dense())


def test_padding_row_is_looked_up_but_gets_no_gradient_and_repeats_add_up():
    w = gg.nn.Parameter(W.copy())
    out = F.embedding(gg.tensor(np.array([1, 1, 1, 3])), w, padding_idx=3)
    np.testing.assert_array_equal(out.detach().numpy()[3], W[3])  # the padding row's values, not zeros
    out.sum().backward()
    grad = w.grad.numpy()
    np.testing.assert_array_equal(grad[1], np.full(4, 3.0))
    np.testing.assert_array_equal(grad[3], np.zeros(4))


def test_scale_grad_by_freq_divides_by_the_count_in_the_whole_input():
    w = gg.nn.Parameter(W.copy())
    F.embedding(gg.tensor(np.array([[1, 1], [1, 4]])), w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[[1, 4]], np.ones((2, 4)))


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (1.5, 1.0), (0.8, float("inf")), (1.2, 3.0),
                                                (2.0, 0.5)])
def test_max_norm_renormalizes_the_named_rows_in_place_as_torch(max_norm, norm_type):
    w, tw = _pair(W * 2)
    out = F.embedding(gg.tensor(IDX[:2]), w, max_norm=max_norm, norm_type=norm_type)
    theirs = torch.nn.functional.embedding(torch.tensor(IDX[:2]), tw, max_norm=max_norm, norm_type=norm_type)
    _close(out.detach().numpy(), theirs)
    _close(w.detach().numpy(), tw)  # rows 3 and 4 (not named) keep their values
    np.testing.assert_array_equal(w.detach().numpy()[[3, 4]], W[[3, 4]] * 2)
    _backward(out, theirs)
    _close(w.grad.numpy(), tw.grad)


def test_max_norm_layer_trains_with_an_optimizer_as_torch():
    """The renormalized weight is a parameter the optimizer updates: three SGD steps of an
    Embedding(max_norm=1) give PyTorch's table."""
    ours, theirs = nn.Embedding(7, 4, max_norm=1.0).double(), torch.nn.Embedding(7, 4, max_norm=1.0).double()
    theirs.load_state_dict({"weight": torch.tensor(ours.weight.detach().numpy())})
    opt, topt = gg.optim.SGD(ours.parameters(), lr=0.5), torch.optim.SGD(theirs.parameters(), lr=0.5)
    for _ in range(3):
        (ours(gg.tensor(IDX)) ** 2).sum().backward()
        (theirs(torch.tensor(IDX)) ** 2).sum().backward()
        opt.step()
        topt.step()
        opt.zero_grad()
        topt.zero_grad()
    _close(ours.weight.detach().numpy(), theirs.weight)


def test_embedding_takes_any_index_shape():
    w = gg.tensor(W)
    assert tuple(F.embedding(gg.tensor(np.array(3)), w).shape) == (4,)
    assert tuple(F.embedding(gg.tensor(np.zeros((2, 0), np.int64)), w).shape) == (2, 0, 4)
    out = F.embedding(gg.tensor(np.arange(6).reshape(1, 2, 3)), w)
    np.testing.assert_array_equal(out.numpy(), W[np.arange(6).reshape(1, 2, 3)])


def test_embedding_errors_name_the_cause_and_the_fix():
    w = gg.tensor(W)
    with pytest.raises(TypeError, match=r"(?s)Long, Int; but got DoubleTensor instead.*fix: input.long\(\)"):
        F.embedding(gg.tensor(np.array([1.0])), w)
    with pytest.raises(AssertionError, match=r"(?s)Padding_idx must be within num_embeddings.*7 rows"):
        F.embedding(gg.tensor(np.array([1])), w, padding_idx=7)
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor"):
        F.embedding(gg.tensor(np.array([1])), gg.tensor(np.ones(3)))
    with pytest.raises(TypeError, match="glassgrad.Tensor of indices"):
        F.embedding([1, 2], w)
    with pytest.raises(IndexError):
        F.embedding(gg.tensor(np.array([7])), w).numpy()


# ---- nn.Embedding -------------------------------------------------------------------------------
def test_embedding_layer_init_repr_and_padding_row():
    gg.manual_seed(0)
    e = nn.Embedding(1000, 16, padding_idx=-3)
    assert e.padding_idx == 997 and tuple(e.weight.shape) == (1000, 16) and e.weight.requires_grad
    w = e.weight.detach().numpy()
    np.testing.assert_array_equal(w[997], np.zeros(16))
    assert abs(w.mean()) < 0.05 and abs(w.std() - 1) < 0.05  # N(0, 1)
    for kwargs in [{}, {"padding_idx": 1}, {"max_norm": 2}, {"max_norm": 1.5, "norm_type": 1.0},
                   {"scale_grad_by_freq": True, "sparse": True}]:
        assert repr(nn.Embedding(10, 3, **kwargs)) == repr(torch.nn.Embedding(10, 3, **kwargs))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 3, padding_idx=5)
    assert nn.Embedding(3, 2, dtype=gg.float64).weight.dtype == "float64"
    assert not nn.Embedding(3, 2, _freeze=True).weight.requires_grad


def test_from_pretrained_copies_the_table_and_freezes_by_default():
    e = nn.Embedding.from_pretrained(gg.tensor(W))
    assert (e.num_embeddings, e.embedding_dim) == (7, 4) and not e.weight.requires_grad
    np.testing.assert_array_equal(e(gg.tensor(np.array([4]))).numpy(), W[[4]])
    assert nn.Embedding.from_pretrained(gg.tensor(W), freeze=False, padding_idx=0).weight.requires_grad
    with pytest.raises(ValueError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(gg.tensor(np.ones(3)))
    with pytest.raises(ValueError, match="Shape of weight does not match"):
        nn.Embedding(3, 3, _weight=gg.tensor(W))


def test_state_dict_loads_both_ways_with_torch():
    ours = nn.Embedding(7, 4, padding_idx=0)
    theirs = torch.nn.Embedding(7, 4, padding_idx=0)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.array([[0, 3], [6, 6]])
    _close(ours(gg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)), 1e-6)
    ours.load_state_dict({k: v.numpy() for k, v in torch.nn.Embedding(7, 4).state_dict().items()})
    assert list(ours.state_dict()) == ["weight"]


def test_compiled_training_step_of_an_embedding_model_replays_the_eager_numbers():
    """Embedding (padding_idx, max_norm) -> Linear, trained three steps eagerly and compiled."""
    def build():
        gg.manual_seed(1)
        model = nn.Sequential(nn.Embedding(11, 5, padding_idx=0, max_norm=1.5), nn.Flatten(), nn.Linear(15, 3))
        return model, gg.optim.SGD(model.parameters(), lr=0.5)
    x = gg.tensor(np.array([[0, 3, 3], [10, 2, 0]]))

    def step_of(model, opt):
        def step(x):
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        return step
    eager_model, eager_opt = build()
    compiled_model, compiled_opt = build()
    eager, compiled = step_of(eager_model, eager_opt), gg.compile(step_of(compiled_model, compiled_opt))
    for _ in range(3):
        assert eager(x).item() == pytest.approx(compiled(x).item(), rel=1e-6)
    for (k, v), (_, u) in zip(eager_model.state_dict().items(), compiled_model.state_dict().items()):
        np.testing.assert_allclose(v, u, rtol=1e-6, atol=1e-7, err_msg=k)
    np.testing.assert_array_equal(eager_model[0].weight.detach().numpy()[0], np.zeros(5))  # never trained


# ---- embedding_bag ------------------------------------------------------------------------------
BAG_IDX = np.array([1, 2, 4, 5, 4, 3, 2, 0])
BAG_CASES = [
    (BAG_IDX, [0, 4], {}),
    (BAG_IDX, [0, 4, 4, 8], {}),  # empty bags, the last one too
    (BAG_IDX, [0, 3, 5, 8], {"include_last_offset": True}),
    (BAG_IDX.reshape(2, 4), None, {}),
    (np.array([2, 2, 1, 0, 2]), [0, 2, 3], {"padding_idx": 2}),  # bag 0 is all padding
    (np.array([2, 2, 1, 0, 2, 1]), [0, 2, 3], {"padding_idx": 2, "scale_grad_by_freq": True}),
    (BAG_IDX, [0, 4, 4], {"max_norm": 1.0}),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(BAG_CASES)))
def test_embedding_bag_matches_torch(case, mode):
    idx, offsets, kwargs = BAG_CASES[case]
    if mode == "max" and kwargs.get("scale_grad_by_freq"):
        pytest.skip("PyTorch refuses scale_grad_by_freq with mode='max' (tested with the errors)")
    w, tw = _pair()
    off = None if offsets is None else np.array(offsets)
    out = F.embedding_bag(gg.tensor(idx), w, None if off is None else gg.tensor(off), mode=mode, **kwargs)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, None if off is None else torch.tensor(off),
                                               mode=mode, **kwargs)
    assert tuple(out.shape) == tuple(theirs.shape)
    _close(out.detach().numpy(), theirs)
    _close(w.detach().numpy(), tw)
    _backward(out, theirs)
    _close(w.grad.numpy(), tw.grad)


def test_embedding_bag_scale_grad_by_freq_divides_each_row_by_its_own_count():
    """The documented rule (PyTorch 2.13's CPU embedding_bag divides row 3 here by row 1's count,
    pytorch/pytorch#190063; its CUDA kernel and its embedding follow the rule)."""
    w = gg.nn.Parameter(np.ones((4, 3)))
    F.embedding_bag(gg.tensor(np.array([1, 1, 3])), w, gg.tensor(np.array([0])), mode="sum",
                    scale_grad_by_freq=True).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [0.0, 1.0, 0.0, 1.0])


def test_embedding_bag_per_sample_weights_scale_the_rows_and_get_their_gradient():
    w, tw = _pair()
    psw = RNG.standard_normal(8)
    ours_psw, their_psw = gg.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    out = F.embedding_bag(gg.tensor(BAG_IDX), w, gg.tensor(np.array([0, 5])), mode="sum",
                          per_sample_weights=ours_psw)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(BAG_IDX), tw, torch.tensor([0, 5]), mode="sum",
                                               per_sample_weights=their_psw)
    _close(out.detach().numpy(), theirs)
    _backward(out, theirs)
    _close(w.grad.numpy(), tw.grad)
    _close(ours_psw.grad.numpy(), their_psw.grad)


def test_embedding_bag_layer_repr_from_pretrained_and_forward():
    for kwargs in [{}, {"mode": "sum", "padding_idx": 1, "max_norm": 2.0}, {"mode": "max", "norm_type": 1.0},
                   {"scale_grad_by_freq": True, "include_last_offset": True}]:
        assert repr(nn.EmbeddingBag(6, 3, **kwargs)) == repr(torch.nn.EmbeddingBag(6, 3, **kwargs))
    bag = nn.EmbeddingBag.from_pretrained(gg.tensor(W), mode="sum")
    assert not bag.weight.requires_grad
    out = bag(gg.tensor(BAG_IDX), gg.tensor(np.array([0, 4])))
    np.testing.assert_allclose(out.numpy(), [W[BAG_IDX[:4]].sum(0), W[BAG_IDX[4:]].sum(0)])
    np.testing.assert_allclose(nn.EmbeddingBag.from_pretrained(gg.tensor(W))(gg.tensor(IDX)).numpy(),
                               W[IDX].mean(1))


def test_embedding_bag_errors_are_torch_s_with_a_fix():
    w, i = gg.tensor(W), gg.tensor(BAG_IDX)
    cases = [
        (dict(offsets=gg.tensor(np.array([1, 4]))), ValueError, "offsets\\[0\\] has to be 0"),
        (dict(offsets=gg.tensor(np.array([0, 9]))), ValueError, "offsets\\[-1\\] can not be greater than input's"),
        (dict(offsets=gg.tensor(np.array([0, 5, 3]))), ValueError, "offsets must not decrease"),
        (dict(offsets=None), ValueError, "offsets has to be a 1D Tensor but got None"),
        (dict(offsets=gg.tensor(np.array([0, 4])), mode="max", scale_grad_by_freq=True), ValueError,
         "max mode does not support scaling the gradient by the frequency"),
        (dict(offsets=gg.tensor(np.array([0, 4])), mode="max", sparse=True), ValueError,
         "max mode does not support sparse weights"),
        (dict(offsets=gg.tensor(np.array([0, 4])), mode="median"), ValueError, "mode has to be one of sum, mean"),
        (dict(offsets=gg.tensor(np.array([0, 4])), mode="mean", per_sample_weights=gg.tensor(np.ones(8))),
         NotImplementedError, "per_sample_weights is only supported for mode='sum'"),
        (dict(offsets=gg.tensor(np.array([0, 4])), mode="sum", per_sample_weights=gg.tensor(np.ones(7))),
         ValueError, "must have the same shape as the input"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            F.embedding_bag(i, w, **kwargs)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(gg.tensor(IDX), w, gg.tensor(np.array([0])))
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor"):
        F.embedding_bag(gg.tensor(IDX.reshape(3, 2, 2)), w)


# ---- CPU against CUDA ---------------------------------------------------------------------------
@pytest.mark.cuda
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1, "scale_grad_by_freq": True}, {"max_norm": 1.0}])
def test_cuda_embedding_matches_the_cpu_with_duplicate_indices(kwargs):
    """The CUDA backward adds the gradients of repeated indices (many repeats of few rows)."""
    idx = np.random.default_rng(1).integers(0, 5, (64, 33))
    table = np.random.default_rng(2).standard_normal((5, 37)).astype(np.float32)
    g = np.random.default_rng(3).standard_normal((64, 33, 37)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda"):
        w = gg.nn.Parameter(table.copy(), device=device)
        out = F.embedding(gg.tensor(idx, device=device), w, **kwargs)
        (out * gg.tensor(g, device=device)).sum().backward()
        results.append((out.detach().cpu().numpy(), w.detach().cpu().numpy(), w.grad.cpu().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)


@pytest.mark.cuda
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_cuda_embedding_bag_matches_the_cpu(mode):
    idx = np.random.default_rng(1).integers(0, 9, 50)
    offsets = np.array([0, 3, 3, 20, 41])
    table = np.random.default_rng(2).standard_normal((9, 6)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda"):
        w = gg.nn.Parameter(table.copy(), device=device)
        out = F.embedding_bag(gg.tensor(idx, device=device), w, gg.tensor(offsets, device=device), mode=mode,
                              padding_idx=4)
        out.sum().backward()
        results.append((out.detach().cpu().numpy(), w.grad.cpu().numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
