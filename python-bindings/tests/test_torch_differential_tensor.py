"""glassgrad against PyTorch on the tensor as PyTorch users write it: a table of aliasing cases
(views, in-place writes through bases and views, detach/.data, augmented assignment, setitem,
saved tensors modified, second backwards, impossible views, the same in compiled steps), the
indexing functions and x[key] with their gradients, and optimizers written by hand against
torch.optim. Each case is written once against a PyTorch-like module `T` (torch itself, or
glassgrad) and returns what it observed: arrays, or an error's class and first line. Skipped
without torch; tools/torch_differential.sh runs it."""
import numpy as np
import pytest

import glassgrad as gg
from test_handwritten_optimizers import adadelta_step, sgd_momentum_step

torch = pytest.importorskip("torch")


def _arr(t):
    return t.detach().numpy().copy() if hasattr(t, "detach") else np.asarray(t)


def _error(fn):
    try:
        fn()
    except RuntimeError as e:
        return ("RuntimeError", str(e).splitlines()[0].replace("torch.", "glassgrad."))
    return ("no error",)


def _tensor(T, a, **kw):
    return T.tensor(np.asarray(a, dtype=np.float64), **kw)


# ---- the aliasing table ----
def view_then_inplace_on_base(T):
    x = _tensor(T, np.arange(6))
    v = x[1:4]
    x.add_(1)
    return {"v": v, "x": x}


def inplace_on_view_then_read_base(T):
    x = _tensor(T, np.arange(6))
    x[1:4].mul_(10)
    return {"x": x}


def transposed_view_setitem(T):
    x = _tensor(T, np.arange(6))
    m = x.view(2, 3)
    m.T[0] = -1
    return {"x": x, "m": m}


def views_of_views(T):
    x = _tensor(T, np.zeros((3, 4)))
    a, b = x[1], x[:, 2]
    a.fill_(1)
    b[2] = 7
    c = x[1:, ::2]
    c += 3
    return {"x": x, "a": a, "b": b, "c": c}


def detach_and_data_share_storage(T):
    x = _tensor(T, np.arange(6))
    x.detach().zero_()
    v1 = x._version
    x.data.fill_(2)
    return {"x": x, "version_after_detach": np.array(v1), "version_after_data": np.array(x._version)}


def augmented_assignment_on_alias(T):
    x = _tensor(T, np.arange(6))
    y, v = x, x[2:]
    y += 1
    y *= 2
    y -= 3
    y /= 4
    return {"x": x, "v": v, "same_object": np.array(y is x)}


def setitem_through_a_view(T):
    x = _tensor(T, np.zeros((2, 3)))
    row = x[0]
    row[1] = 5
    row[::2] = _tensor(T, [1, 2])
    x[1][x[1] == 0] = -3
    return {"x": x, "row": row}


def setitem_kinds(T):
    x = _tensor(T, np.zeros((3, 4)))
    x[0] = 5
    x[:, 1] = _tensor(T, [1, 2, 3])
    x[1:, 2:] = _tensor(T, [9, 8])
    x[x > 8.5] = -1
    x[[2, 0], [0, 3]] = _tensor(T, [4, 6])
    x[..., None, 0] = 1.5
    return {"x": x}


def view_sees_writes_in_order(T):
    x = _tensor(T, np.arange(4))
    v = x.view(2, 2)
    snapshot = v.clone()
    x[0] = 100
    v[1, 1] = -100
    return {"x": x, "v": v, "snapshot": snapshot}


def saved_tensor_modified(T):
    a = _tensor(T, [0.5, -1.0, 2.0], requires_grad=True)
    s = (a * 2).sigmoid()
    s.mul_(2)
    return {"error": _error(lambda: s.sum().backward())}


def saved_input_modified(T):
    a = _tensor(T, [0.5, -1.0, 2.0], requires_grad=True)
    b = a * 1.0
    c = b * b
    b.add_(1)
    return {"error": _error(lambda: c.sum().backward())}


def own_inplace_gradients(T):
    q = _tensor(T, [1.0, 2.0, 3.0], requires_grad=True)
    z = q * 1.0
    z.mul_(q)
    z.pow_(2)
    z[1:].add_(q[1:])
    z.sub_(q, alpha=2).div_(3)
    z.sum().backward()
    return {"z": z, "grad": q.grad}


def setitem_gradients(T):
    x = _tensor(T, np.ones(4), requires_grad=True)
    w = _tensor(T, [2.0], requires_grad=True)
    y = x * 3
    y[1:2] = w * 5
    y[[3]] = w
    (y * _tensor(T, np.arange(1, 5))).sum().backward()
    return {"x.grad": x.grad, "w.grad": w.grad}


def leaf_inplace(T):
    w = _tensor(T, np.ones(3), requires_grad=True)
    err = _error(lambda: w.add_(1))
    view_err = _error(lambda: w[0].fill_(2))
    with T.no_grad():
        w.mul_(3)
        w[0] = 5
    w.detach().add_(1)
    return {"error": err, "view error": view_err, "w": w, "leaf": np.array(w.is_leaf),
            "requires_grad": np.array(w.requires_grad)}


def second_backward(T):
    a = _tensor(T, [1.0, 2.0], requires_grad=True)
    c = a * a
    c.sum().backward(retain_graph=True)
    c.sum().backward()
    err = _error(lambda: c.sum().backward())
    d = a + 1
    d.sum().backward()
    d.sum().backward()
    return {"error": err, "grad": a.grad}


def impossible_view_and_expanded_write(T):
    x = _tensor(T, np.zeros((3, 4)))
    return {"view": _error(lambda: x.T.view(12)), "reshape": x.T.reshape(12),
            "expanded": _error(lambda: _tensor(T, np.zeros(3)).expand(2, 3).add_(1)),
            "detach_ view": _error(lambda: x[1:].detach_())}


def grad_tensor_is_one_storage(T):
    w = _tensor(T, np.ones(3), requires_grad=True)
    (w * 2).sum().backward()
    g = w.grad
    w.grad.mul_(0.5)
    before = g.clone()
    (w * 2).sum().backward()  # accumulates into the same tensor
    return {"before": before, "g": g, "w.grad": w.grad}


def inplace_indexing_functions(T):
    x = _tensor(T, np.zeros((3, 4)))
    idx = T.tensor(np.array([[0, 1, 2, 0], [2, 2, 0, 1]]))
    x.scatter_add_(0, idx, _tensor(T, np.arange(8).reshape(2, 4)))
    x.index_add_(1, T.tensor(np.array([3, 3, 0])), _tensor(T, np.ones((3, 3))), alpha=2)
    x.index_put_((T.tensor(np.array([1, 1])), T.tensor(np.array([2, 2]))), _tensor(T, [5, 6]), accumulate=True)
    x.masked_fill_(x > 9, -1)
    x.index_fill_(0, T.tensor(np.array([2])), 0.5)
    y = _tensor(T, np.zeros((2, 3)))
    y.scatter_(1, T.tensor(np.array([[2], [0]])), 4.0)
    return {"x": x, "y": y}


def inplace_view_ops(T):
    x = _tensor(T, np.arange(6).reshape(2, 3))
    alias = x[0]
    x.unsqueeze_(0)
    shape_after_unsqueeze = np.array(x.shape)
    x.transpose_(0, 2)
    x[1] *= 10  # x is the transposed view now: its row 1 is column 1 of the storage
    x.squeeze_()
    return {"x": x, "alias": alias, "unsqueezed": shape_after_unsqueeze, "shape": np.array(x.shape),
            "leaf": _error(lambda: _tensor(T, [1.0], requires_grad=True).unsqueeze_(0))}


ALIASING = [view_then_inplace_on_base, inplace_on_view_then_read_base, transposed_view_setitem, views_of_views,
            detach_and_data_share_storage, augmented_assignment_on_alias, setitem_through_a_view, setitem_kinds,
            view_sees_writes_in_order, saved_tensor_modified, saved_input_modified, own_inplace_gradients,
            setitem_gradients, leaf_inplace, second_backward, impossible_view_and_expanded_write,
            grad_tensor_is_one_storage, inplace_indexing_functions, inplace_view_ops]


def _compare(got, want, what):
    assert sorted(got) == sorted(want), f"{what}: keys {sorted(got)} vs torch {sorted(want)}"
    for k, w in want.items():
        g = got[k]
        if isinstance(w, tuple):
            # The same class, and glassgrad's first line is PyTorch's (which may go on with advice
            # about PyTorch itself: its anomaly mode, DistributedDataParallel).
            assert g[0] == w[0] and len(g) == len(w), f"{what}: {k}: glassgrad {g} vs torch {w}"
            assert len(g) == 1 or (len(g[1]) > 20 and w[1].startswith(g[1])), f"{what}: {k}: glassgrad {g} vs torch {w}"
            continue
        g, w = _arr(g), _arr(w)
        assert g.shape == w.shape, f"{what}: {k}: shape {g.shape} vs torch {w.shape}"
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-12, atol=1e-12,
                                   err_msg=f"{what}: {k}")


@pytest.mark.parametrize("case", ALIASING, ids=[c.__name__ for c in ALIASING])
def test_aliasing_case_matches_torch(case):
    _compare(case(gg), case(torch), case.__name__)


# ---- the same in compiled steps: state updated in place on every replay ----
def _compiled_state_case(T, compiled):
    x0 = np.arange(6.0)
    state = _tensor(T, np.zeros(6))
    view = state[::2]

    def step(x):
        with T.no_grad():
            state.mul_(0.5).add_(x)
            view.add_(1)
        return state.sum()

    run = gg.compile(step) if compiled else step
    sums = [_arr(run(_tensor(T, x0 * (k + 1)))) for k in range(5)]
    return {"sums": np.array(sums), "state": state, "view": view}


def test_in_place_state_in_a_compiled_step_matches_torch():
    _compare(_compiled_state_case(gg, True), _compiled_state_case(torch, False), "compiled state")


# ---- indexing against torch ----
X = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
KEYS = [0, -1, (1, 2), slice(1, 3), (slice(None), 2), (Ellipsis, 1), (None, 0),
        (slice(None, None, 2), slice(1, None, 3)),
        [0, 2, 2], ([0, 3], [1, 4]), (slice(None), [4, 0, 0]), (slice(None), [[0, 1], [2, 3]], slice(1, 3)),
        ([1, 2], slice(None), [0, 5]), (0, slice(None), [1, 1, 2]), ([1, 2], 1), (1, [0, 4], slice(None)),
        (slice(None), slice(None), [-1, -6]), (np.array([True, False, True, False]),), (X[..., 0] > 50,),
        (slice(None), np.ones((5, 6), bool)), (None, [0, 1], None, 2)]


def _key_for(T, key):
    def one(k):
        if isinstance(k, np.ndarray):
            return T.tensor(k)
        if isinstance(k, list):
            return T.tensor(np.array(k))
        return k
    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


@pytest.mark.parametrize("key", KEYS, ids=[repr(k).replace(" ", "")[:50] for k in KEYS])
def test_getitem_and_its_gradient_match_torch(key):
    def run(T):
        x = _tensor(T, X, requires_grad=True)
        y = x[_key_for(T, key)]
        w = _tensor(T, np.random.default_rng(0).standard_normal(tuple(y.shape)))
        (y * w).sum().backward()
        return {"y": y, "grad": x.grad}
    _compare(run(gg), run(torch), repr(key))


def _indexing_functions(T):
    rng = np.random.default_rng(4)
    x = _tensor(T, rng.standard_normal((4, 5)), requires_grad=True)
    src = _tensor(T, rng.standard_normal((3, 5)), requires_grad=True)
    idx = T.tensor(rng.integers(0, 4, (3, 5)))
    sel = T.tensor(np.array([3, 0, 3, 1]))
    mask = T.tensor(rng.random((4, 5)) > 0.5)
    outs = {
        "gather": T.gather(x, 0, idx),
        "scatter_add": T.scatter_add(x, 0, idx, src),
        "index_select": T.index_select(x, 0, sel),
        "index_add": x.index_add(0, sel[:3], src, alpha=0.5),
        "masked_fill": x.masked_fill(mask, 2.0),
        "masked_select": T.masked_select(x, mask),
        "take_along_dim": T.take_along_dim(x, T.tensor(np.array([[1], [4], [0], [2]])), dim=1),
        "index_put": x.index_put((sel[:2], T.tensor(np.array([1, 2]))), _tensor(T, [7.0, 8.0]), accumulate=True),
        "index_fill": x.index_fill(1, T.tensor(np.array([0, 4])), -2.0),
    }
    total = sum((o * (k + 1)).sum() for k, o in enumerate(outs.values()))
    total.backward()
    outs["x.grad"], outs["src.grad"] = x.grad, src.grad
    outs["scatter"] = T.scatter(x.detach(), 1, T.tensor(np.array([[4], [0], [2], [1]])), _tensor(T, np.ones((4, 1))))
    outs["scatter value"] = x.detach().scatter(1, T.tensor(np.array([[4], [0], [2], [1]])), 9.0)
    outs["scatter multiply"] = x.detach().scatter(1, T.tensor(np.array([[4, 4], [0, 1], [2, 2], [1, 1]])),
                                                  _tensor(T, np.full((4, 2), 3.0)), reduce="multiply")
    return outs


def test_indexing_functions_and_gradients_match_torch():
    _compare(_indexing_functions(gg), _indexing_functions(torch), "indexing functions")


# ---- optimizers written by hand (pytorch/examples' style) against torch.optim ----
def _net(T, seed):
    rng = np.random.default_rng(seed)
    shapes = [(5, 6), (5,), (3, 5), (3,)]
    return [_tensor(T, rng.standard_normal(s) * 0.3, requires_grad=True) for s in shapes]


def _loss(T, params, step):
    rng = np.random.default_rng(100 + step)
    x, y = _tensor(T, rng.standard_normal((8, 6))), T.tensor(rng.integers(0, 3, 8))
    w1, b1, w2, b2 = params
    h = (x @ w1.T + b1).relu()
    logits = h @ w2.T + b2
    fn = T.nn.functional.cross_entropy if T is torch else gg.cross_entropy
    return fn(logits, y)


@pytest.mark.parametrize("compiled", [False, True], ids=["plain", "compiled"])
@pytest.mark.parametrize("rule", ["Adadelta", "SGD"])
def test_handwritten_optimizer_matches_torch_optim(rule, compiled):
    params = _net(gg, 1)
    state = {}
    if rule == "Adadelta":
        def update(ps, st):
            adadelta_step(ps, st, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.01)
    else:
        def update(ps, st):
            sgd_momentum_step(ps, st, lr=0.05, momentum=0.9)

    def step(k):
        loss = _loss(gg, params, k)
        loss.backward()
        update(params, state)
        for p in params:
            p.grad = None
        return loss

    run = gg.compile(step) if compiled else step
    got = [float(run(k)) for k in range(5)]
    tparams = _net(torch, 1)
    opt = (torch.optim.Adadelta(tparams, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.01) if rule == "Adadelta"
           else torch.optim.SGD(tparams, lr=0.05, momentum=0.9))
    want = []
    for k in range(5):
        opt.zero_grad()
        loss = _loss(torch, tparams, k)
        loss.backward()
        opt.step()
        want.append(float(loss))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    for p, q in zip(params, tparams):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12)
