"""Checkpoints between PyTorch and glassgrad (docs/porting.md). tests/test_docs.py runs this file
in a temporary directory; the PyTorch half runs where torch is importable."""
import numpy as np

import glassgrad as gg


# --8<-- [start:network]
def make(nn):
    """The same network from either framework's nn (the names and the state_dict keys match)."""
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding="same", bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))


x = np.random.default_rng(0).standard_normal((4, 3, 32, 32)).astype(np.float32)
model = make(gg.nn)
# --8<-- [end:network]
print(list(model.state_dict()))

try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    # --8<-- [start:from_pytorch]
    torch_model = make(torch.nn).eval()
    state = {name: value.numpy() for name, value in torch_model.state_dict().items()}
    model.load_state_dict(state)  # strict: every name, shape and dtype must match
    model.eval()
    with torch.no_grad():
        expected = torch_model(torch.tensor(x)).numpy()
    np.testing.assert_allclose(model(gg.tensor(x)).detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    # --8<-- [end:from_pytorch]

    # --8<-- [start:to_pytorch]
    torch_model.load_state_dict({name: torch.from_numpy(np.array(value))
                                 for name, value in model.state_dict().items()})
    # --8<-- [end:to_pytorch]

    # --8<-- [start:load_pytorch]
    torch.save({"model": torch_model.state_dict(), "epoch": 3}, "checkpoint.pt")  # in PyTorch
    ckpt = gg.load_pytorch("checkpoint.pt")  # no torch needed: tensors, plain values
    model.load_state_dict(ckpt["model"])
    # --8<-- [end:load_pytorch]
    print("logits match; epoch", ckpt["epoch"])
