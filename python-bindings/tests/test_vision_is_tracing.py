"""torchvision._is_tracing(), which detection code branches on (DETR's util/misc.py:
`if torchvision._is_tracing(): return _onnx_nested_tensor_from_tensor_list(tensor_list)`): False
when the code runs eagerly, True while torch.jit.trace runs the traced function, as
torch.jit.is_tracing()."""
import glassgrad.torch as torch
import glassgrad.vision as torchvision


def test_false_when_run_eagerly_and_under_no_grad():
    assert torchvision._is_tracing() is False
    with torch.no_grad():
        assert torchvision._is_tracing() is False


def test_true_while_jit_trace_runs_the_function():
    seen = []

    def f(x):
        seen.append((torchvision._is_tracing(), torch.jit.is_tracing()))
        return x * 2

    traced = torch.jit.trace(f, (torch.ones(2),))
    assert seen == [(True, True)]
    assert traced(torch.ones(2)).tolist() == [2.0, 2.0]
    assert torchvision._is_tracing() is False
