"""torch.func on glassgrad (docs/autograd.md, "torch.func"): per-sample gradients with
functional_call + vmap(grad(...)), checked against one backward() per sample."""
import numpy as np

import glassgrad as gg
import glassgrad.nn.functional as F
from glassgrad.func import functional_call, grad, hessian, vmap

# --8<-- [start:per-sample]
gg.manual_seed(0)
model = gg.nn.Sequential(gg.nn.Linear(8, 16), gg.nn.ReLU(), gg.nn.Linear(16, 3))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
data, targets = gg.randn(4, 8), gg.tensor([0, 2, 1, 2])


def compute_loss(params, buffers, sample, target):
    predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return F.cross_entropy(predictions, target.unsqueeze(0))


per_sample = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
print({k: list(g.shape) for k, g in per_sample.items()})
# --8<-- [end:per-sample]
for i in range(4):
    model.zero_grad()
    F.cross_entropy(model(data[i:i + 1]), targets[i:i + 1]).backward()
    for k, p in model.named_parameters():
        assert np.allclose(per_sample[k][i].numpy(), p.grad.numpy(), atol=1e-6)

# --8<-- [start:hessian]
x = gg.tensor([0.5, -1.0, 2.0], dtype=gg.float64)
h = hessian(lambda t: (t.sin() * t).sum())(x)  # diagonal: 2 cos(t) - t sin(t)
print(np.round(np.diag(h.numpy()), 4).tolist())
# --8<-- [end:hessian]
assert np.allclose(np.diag(h.numpy()), 2 * np.cos(x.numpy()) - x.numpy() * np.sin(x.numpy()))
