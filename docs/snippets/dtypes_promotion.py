# Storage types and PyTorch's promotion: results in the dtype PyTorch gives, computed wide.
import numpy as np

import glassgrad as gg

counts = gg.tensor(np.array([7, 250, 3], dtype=np.int32))  # NumPy int32 stays int32
print("int32 + int32:", (counts + counts).dtype)
print("int32 * 2.5:  ", (counts * 2.5).dtype, (counts * 2.5).tolist())
print("int32 / 2:    ", (counts / 2).dtype)
print("sum of int32: ", counts.sum().dtype, counts.sum().item())
small = gg.tensor([100, -7], dtype=gg.int8)
print("int8 + 300:   ", (small + 300).dtype, (small + 300).tolist())  # wraps around, as PyTorch's
print("uint8 + int8: ", gg.promote_types(gg.uint8, gg.int8))
print("int8 > 0:     ", (small > 0).dtype)
print("int32 @ int32:", (counts.reshape(1, 3) @ counts.reshape(3, 1)).dtype)  # integer products stay integer
print("gcd, lcm:     ", gg.gcd(counts, gg.tensor([21, 100, 0])).tolist(), gg.lcm(counts, gg.tensor([21, 100, 0])).tolist())

weights = gg.tensor([0.1, 1000.0, 3.14159], dtype=gg.float16, requires_grad=True)
print("float16:      ", weights.tolist())  # rounded to nearest even when stored
loss = (weights * weights).sum()  # computed in float32, stored as float16
loss.backward()
print("loss:         ", loss.dtype, "grad:", weights.grad.dtype, weights.grad.tolist())
print("float16 + float32:", (weights.detach() + gg.ones(3)).dtype)
b = weights.detach().bfloat16()
print("bfloat16:     ", b.tolist(), b.element_size(), "bytes each")
try:
    b.numpy()
except TypeError as e:
    print(str(e).splitlines()[-1])
