"""One second-order check for the double-backward test files: the scalar penalty
sum(w2 * d/dx sum(w1 * f(x, ...)^3)) (the first gradient made with create_graph=True, the cube making
the second derivative depend on every input), differentiated in the chosen arguments, compared with
float64 central differences of the penalty and with torch's result. Needs torch."""
import numpy as np

import glassgrad as gg


def _leaves(lib, arrays, wrt):
    out = []
    for i, a in enumerate(arrays):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            out.append(lib.tensor(a, requires_grad=i in wrt or i == 0))
        elif isinstance(a, np.ndarray):
            out.append(lib.tensor(a))
        else:
            out.append(a)
    return out


def penalty(lib, f, arrays, wrt, seed=5):
    """The leaves and the penalty of f(lib, *leaves), whose first gradient is taken in arrays[0]."""
    leaves = _leaves(lib, arrays, wrt)
    y = f(lib, *leaves)
    rng = np.random.default_rng(seed)
    w1 = lib.tensor(rng.uniform(0.5, 1.5, tuple(y.shape)))
    w2 = lib.tensor(rng.uniform(0.5, 1.5, tuple(leaves[0].shape)))
    (g,) = lib.autograd.grad((w1 * y ** 3).sum(), leaves[0], create_graph=True)
    return leaves, (w2 * g).sum()


def _central_differences(f, arrays, wrt, eps=1e-6):
    out = {}
    for k in wrt:
        d = np.zeros_like(arrays[k])
        for i in np.ndindex(*arrays[k].shape):
            vals = []
            for step in (eps, -eps):
                moved = list(arrays)
                moved[k] = arrays[k].copy()
                moved[k][i] += step
                vals.append(float(penalty(gg, f, moved, wrt)[1].detach().numpy()))
            d[i] = (vals[0] - vals[1]) / (2 * eps)
        out[k] = d
    return out


def check(f, arrays, wrt=(0,), rtol=1e-8, atol=1e-10, fd_rtol=1e-5, fd_atol=1e-6):
    """Asserts the penalty's gradients in arrays[k], k in wrt, match central differences and torch."""
    import torch
    leaves, p = penalty(gg, f, arrays, wrt)
    p.backward()
    tl, tp = penalty(torch, f, arrays, wrt)
    tp.backward()
    fd = _central_differences(f, arrays, wrt)
    for k in wrt:
        ours = leaves[k].grad
        assert ours is not None, f"argument {k}: no gradient"
        ours = ours.detach().numpy()
        np.testing.assert_allclose(ours, fd[k], rtol=fd_rtol, atol=fd_atol, err_msg=f"argument {k}: central differences")
        theirs = tl[k].grad.numpy() if tl[k].grad is not None else np.zeros_like(ours)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=f"argument {k}: torch")
