"""autograd.grad and a custom Function (docs/autograd.md), checked by the test suite: every
assert here is what PyTorch gives."""
import numpy as np

import glassgrad as gg

# --8<-- [start:grad]
x = gg.tensor(np.array([[0.25, -1.0]]), requires_grad=True)
w = gg.tensor(np.array([[2.0], [1.0]]), requires_grad=True)
y = (x @ w).tanh()
gx, gw = gg.autograd.grad((y * y).sum(), [x, w])
print(gx.numpy().round(4).tolist(), gw.numpy().round(4).tolist(), x.grad)  # x.grad: None, nothing accumulates
# --8<-- [end:grad]
assert x.grad is None and w.grad is None
t0 = np.tanh(0.25 * 2.0 - 1.0)  # d(tanh(xw)^2) = 2 tanh (1 - tanh^2) d(xw)
assert np.allclose(gx.numpy(), 2 * t0 * (1 - t0 ** 2) * np.array([[2.0, 1.0]]))
assert np.allclose(gw.numpy(), 2 * t0 * (1 - t0 ** 2) * np.array([[0.25], [-1.0]]))


# --8<-- [start:function]
class Legendre3(gg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * (5 * x ** 3 - 3 * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * x ** 2 - 1)


t = gg.tensor(np.array([0.0, 1.0, 2.0]), requires_grad=True)
Legendre3.apply(t).sum().backward()
print(t.grad.tolist())
# --8<-- [end:function]
assert t.grad.tolist() == [-1.5, 6.0, 28.5]

# --8<-- [start:mutation]
with gg.autograd.graph.allow_mutation_on_saved_tensors():
    a = gg.ones(2, 3, requires_grad=True)
    b = a.clone()
    out = (b ** 2).sum()
    b.sin_()                # b is saved by b ** 2: allowed in the context
    out.backward()
print(a.grad.tolist())      # 2 everywhere: the saved b was 1
# --8<-- [end:mutation]
assert a.grad.tolist() == [[2.0] * 3] * 2
