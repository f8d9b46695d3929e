"""out= as PyTorch's: torch.matmul(a, b, out=y) (the Tensors tutorial), the arithmetic, joins and
factories write their result into out and return it; out is resized (warning when it held
elements), its dtype kept where the cast is allowed, and refused where autograd would be needed.
Compared with torch. Skipped when torch is not importable."""
import warnings

import numpy as np
import pytest

import glassgrad as gg

torch = pytest.importorskip("torch")

A = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4) / 7
B = np.arange(1.0, 13.0, dtype=np.float32).reshape(4, 3) / 5
CALLS = {
    "matmul": lambda fw, a, b, **kw: fw.matmul(a, b, **kw),
    "mm": lambda fw, a, b, **kw: fw.mm(a, b, **kw),
    "bmm": lambda fw, a, b, **kw: fw.bmm(a.reshape(1, 3, 4), b.reshape(1, 4, 3), **kw),
    "mul": lambda fw, a, b, **kw: fw.mul(a, a, **kw),
    "add": lambda fw, a, b, **kw: fw.add(a, a, alpha=2, **kw),
    "sub": lambda fw, a, b, **kw: fw.sub(a, 1.5, **kw),
    "div": lambda fw, a, b, **kw: fw.div(a, a + 1, rounding_mode="floor", **kw),
    "cat": lambda fw, a, b, **kw: fw.cat([a, a], dim=1, **kw),
    "stack": lambda fw, a, b, **kw: fw.stack([a, a], **kw),
    "zeros": lambda fw, a, b, **kw: fw.zeros(2, 3, **kw),
    "ones": lambda fw, a, b, **kw: fw.ones((2, 3), **kw),
    "full": lambda fw, a, b, **kw: fw.full((2, 2), 7, **kw),
    "arange": lambda fw, a, b, **kw: fw.arange(0, 5, **kw),
    "linspace": lambda fw, a, b, **kw: fw.linspace(0, 1, 5, **kw),
}


def _run(fw, name, out_shape, out_dtype):
    a, b = fw.tensor(A), fw.tensor(B)
    out = fw.zeros(out_shape, dtype=getattr(fw, out_dtype))
    alias = out
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = CALLS[name](fw, a, b, out=out)
    assert got is alias
    # torch's elementwise ops warn twice through their internals: whether it warns, and what
    return got.numpy(), str(got.dtype).split(".")[-1], sorted({str(w.message)[:60] for w in caught})


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("out_shape", [(0,), (2,)])
@pytest.mark.parametrize("out_dtype", ["float32", "float64"])
def test_out_matches_torch(name, out_shape, out_dtype):
    try:
        theirs = _run(torch, name, out_shape, out_dtype)
    except RuntimeError as e:  # the matrix products want out in the result's dtype
        with pytest.raises(RuntimeError, match=str(e)):
            _run(gg, name, out_shape, out_dtype)
        return
    ours = _run(gg, name, out_shape, out_dtype)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert ours[1:] == theirs[1:]  # out's dtype kept, the same resize warning (or none)


def test_the_tensors_tutorial_lines():
    results = []
    for fw in (gg, torch):
        tensor = fw.ones(4, 4)
        tensor[:, 1] = 0
        y1 = tensor @ tensor.T
        y3 = fw.rand_like(y1)
        fw.matmul(tensor, tensor.T, out=y3)
        z3 = fw.rand_like(tensor)
        fw.mul(tensor, tensor, out=z3)
        results.append((y3.numpy(), z3.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_out_refuses_what_torch_refuses():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        gg.mul(gg.ones(2), 2.5, out=gg.zeros(2, dtype=gg.int64))
    x = gg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        gg.mul(x, 2, out=gg.zeros(2))
    with gg.no_grad():
        assert gg.mul(x, 2, out=gg.zeros(2)).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        gg.add(gg.ones(2), 1, out=[0, 0])
