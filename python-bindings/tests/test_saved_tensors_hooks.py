"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu and disable_saved_tensors_hooks as
PyTorch documents them ("Hooks for saved tensors"): pack_hook runs on each tensor an op recorded
under the hooks saves for backward (mul: other, then self; exp: its result; x * 2: nothing), as
the forward runs; unpack_hook on each packed value when a backward reaches the op, again in a
second backward after retain_graph; nothing is packed where autograd records nothing. Expected
values written from PyTorch's behaviour (test_torch_saved_tensors_hooks.py compares with torch)."""
import glassgrad as gg
from saved_tensor_hooks_script import run


def test_saved_tensors_hooks_as_pytorch_documents():
    e = [2.718281828459045, 7.38905609893065]
    out = run(gg)
    assert out[0] == [("pack", [2.0, 2.0, 2.0]), ("pack", [1.0, 1.0, 1.0]), "backward",
                      ("unpack", [2.0, 2.0, 2.0]), ("unpack", [1.0, 1.0, 1.0])]
    log, grad = out[1]
    assert log[0][0] == "pack" and [round(v, 5) for v in log[0][1]] == [round(v, 5) for v in e]
    assert log[1:] == [("pack", [1.0, 2.0]), "backward", ("unpack", log[0][1])]
    assert grad == [round(2 * v, 5) for v in e]
    assert out[2] == [("pack", [1.0, 2.0]), ("unpack", [1.0, 2.0]), ("unpack", [1.0, 2.0])]
    assert out[3] == []
    assert out[4] == [2.0, 4.0]
    assert out[5] == "no saved tensor hooks here"

