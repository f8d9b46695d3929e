"""Checking a port float64 first (docs/numerics.md): the same model and batch in float64 and in
float32, the float32 logits' distance from the float64 ones under the default convolution choice
and with the fast-Winograd switch."""
import numpy as np

import glassgrad as gg

# --8<-- [start:compare]
gg.manual_seed(0)
model = gg.nn.Sequential(gg.nn.Conv2d(3, 32, 3, padding=1), gg.nn.BatchNorm2d(32), gg.nn.ReLU(),
                         gg.nn.Conv2d(32, 32, 3, padding=1), gg.nn.ReLU(),
                         gg.nn.AdaptiveAvgPool2d(1), gg.nn.Flatten(), gg.nn.Linear(32, 10))
x = np.random.default_rng(0).standard_normal((8, 3, 16, 16))

model.double()                                   # 1. the reference: float64, rounding far below 1e-12
want = model(gg.tensor(x)).detach().numpy()
model.float()                                    # 2. the float32 run on the same weights and batch
for fast in (False, True):
    gg.backends.cudnn.allow_fast_winograd = fast  # F(4x4) Winograd allowed, or not (the default)
    got = model(gg.tensor(x.astype(np.float32))).detach().numpy()
    distance = np.abs(got - want).max() / np.abs(want).max()
    print(f"allow_fast_winograd={fast}: float32 logits within {distance:.1e} of float64")
gg.backends.cudnn.allow_fast_winograd = False
# --8<-- [end:compare]
