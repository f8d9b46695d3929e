"""Lazy layers (docs/lazy.md), checked by the test suite: every assert here is what PyTorch gives."""
import numpy as np

import glassgrad as gg
import glassgrad.nn as nn

# --8<-- [start:first-forward]
net = nn.Sequential(nn.LazyConv2d(8, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                    nn.Flatten(), nn.LazyLinear(10))
print(net[0].has_uninitialized_params(), list(net.state_dict())[:2])  # True ['0.weight', '0.bias']
net(gg.tensor(np.zeros((2, 3, 4, 4), np.float32)))  # one dry run with a batch of the real shape
print(net[0], net[4])  # Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)) Linear(in_features=128, ...)
optimizer = gg.optim.SGD(net.parameters(), lr=0.1)  # after the dry run: every parameter has its shape
# --8<-- [end:first-forward]
assert type(net[0]) is nn.Conv2d and type(net[1]) is nn.BatchNorm2d and type(net[4]) is nn.Linear
assert tuple(net[4].weight.shape) == (10, 128)

# --8<-- [start:load]
trained = nn.Linear(5, 3).state_dict()
fresh = nn.LazyLinear(3)
fresh.load_state_dict(trained)  # the sizes come from the entries
print(fresh)  # Linear(in_features=5, out_features=3, bias=True)
# --8<-- [end:load]
assert type(fresh) is nn.Linear and np.array_equal(fresh.weight.detach().numpy(), trained["weight"])
