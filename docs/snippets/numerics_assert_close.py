"""Comparing results with PyTorch's tolerances (docs/numerics.md, "Comparing results"),
checked by the test suite."""
import glassgrad as gg

# --8<-- [start:assert_close]
a = gg.tensor([1.0, 2.0, 3.0])
gg.testing.assert_close(a, a + 1e-6)          # within float32's rtol 1.3e-6, atol 1e-5
try:
    gg.testing.assert_close(a, gg.tensor([1.0, 2.5, 3.0]))
except AssertionError as e:
    print(str(e).splitlines()[2])
# --8<-- [end:assert_close]
