"""Max pooling's indices and unpooling (docs/pooling.md), checked by the test suite."""
import glassgrad as gg
import glassgrad.nn as nn

# --8<-- [start:unpool]
x = gg.tensor([[[[1.0, 7.0, 2.0, 0.0],
                 [3.0, 4.0, 9.0, 5.0],
                 [0.0, 2.0, 1.0, 1.0],
                 [6.0, 6.0, 3.0, 8.0]]]])
pool = nn.MaxPool2d(2, return_indices=True)
unpool = nn.MaxUnpool2d(2)
values, indices = pool(x)                 # indices: flat positions h * W + w in each plane
print(values.flatten().tolist(), indices.flatten().tolist())
print(unpool(values, indices).squeeze().tolist()[1])    # the maxima back in place, zeros elsewhere
# --8<-- [end:unpool]
assert values.flatten().tolist() == [7.0, 9.0, 6.0, 8.0]
assert indices.flatten().tolist() == [1, 6, 12, 15]      # 6 and 6 tie in the third window: the first wins
assert unpool(values, indices).squeeze().tolist()[1] == [0.0, 0.0, 9.0, 0.0]

# --8<-- [start:fractional]
samples = gg.tensor([[[0.3, 0.8]]])              # (N, C, 2): each plane's offsets, (w, h) as PyTorch's
frac = nn.FractionalMaxPool2d(2, output_size=(2, 3), return_indices=True, _random_samples=samples)
values, indices = frac(x)
print(values.squeeze().tolist(), indices.squeeze().tolist())
# --8<-- [end:fractional]
assert values.squeeze().tolist() == [[7.0, 9.0, 9.0], [6.0, 6.0, 8.0]]
