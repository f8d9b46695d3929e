"""float() of a tensor that requires grad warns once per process while gradients are enabled (not
under no_grad, set_grad_enabled(False) or inference_mode; int() never), as PyTorch 2's does (scripts
print `'%1.3f' % loss` that way): the value is a number cut off from the graph. torch.tensor,
as_tensor and new_tensor of a list read each tensor in it so, with the same warning. Each case runs in a
fresh interpreter, since the warning is given once per process, and under PyTorch too where it is
installed (a differential check)."""
import os
import subprocess
import sys

import pytest

import glassgrad as gg

BINDINGS = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))
MESSAGE = "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior."

CASES = {
    "a computed loss, twice": "t = (torch.ones(3, requires_grad=True) * 2).sum(); float(t); '%1.3f' % t",
    "a leaf": "float(torch.ones((), requires_grad=True))",
    "a one-element tensor": "float(torch.ones(1, requires_grad=True) * 2)",
    "no grad": "float(torch.ones(()) * 2)",
    "detached": "float((torch.ones((), requires_grad=True) * 2).detach())",
    "item, int, format": "t = torch.ones((), requires_grad=True) * 2; t.item(); int(t); f'{t:.3f}'",
    # only while gradients are enabled: the warning is not spent there, so the one after warns
    "under no_grad, then enabled": ("t = torch.ones((), requires_grad=True)\n"
                                    "with torch.no_grad():\n    float(t); '%1.3f' % t; int(t)\n"
                                    "import sys; sys.stderr.write('ENABLED\\n'); sys.stderr.flush()\nfloat(t)"),
    "under no_grad": "t = torch.ones((), requires_grad=True)\nwith torch.no_grad():\n    float(t); float(t * 2)",
    "under set_grad_enabled(False)": ("t = torch.ones((), requires_grad=True)\n"
                                      "with torch.set_grad_enabled(False):\n    float(t)"),
    "under inference_mode": "t = torch.ones((), requires_grad=True)\nwith torch.inference_mode():\n    float(t)",
    "enable_grad inside no_grad": ("t = torch.ones((), requires_grad=True)\n"
                                   "with torch.no_grad():\n    with torch.enable_grad():\n        float(t)"),
    "int under grad": "int(torch.ones((), requires_grad=True) * 2)",
    # torch.tensor / as_tensor / new_tensor read a list's tensors as float() does
    "a list of tensors, twice": "w = torch.ones((), requires_grad=True); torch.tensor([w * 2, w]); torch.tensor([w])",
    "a nested list's element": "torch.tensor([[1.0, torch.ones(2, requires_grad=True)[0]]])",
    "as_tensor and new_tensor of a list": ("w = torch.ones((), requires_grad=True)\n"
                                           "sys = __import__('sys'); torch.as_tensor([w])\n"
                                           "sys.stderr.write('ENABLED\\n'); sys.stderr.flush(); w.new_tensor([w])"),
    "a list under no_grad": ("w = torch.ones((), requires_grad=True)\n"
                             "with torch.no_grad():\n    torch.tensor([w])"),
    "a list of detached tensors": "torch.tensor([torch.ones((), requires_grad=True).detach(), torch.ones(())])",
}
WARNS = {"a computed loss, twice": 1, "a leaf": 1, "a one-element tensor": 1, "no grad": 0, "detached": 0,
         "item, int, format": 0, "under no_grad, then enabled": 1, "under no_grad": 0,
         "under set_grad_enabled(False)": 0, "under inference_mode": 0, "enable_grad inside no_grad": 1,
         "int under grad": 0, "a list of tensors, twice": 1, "a nested list's element": 1,
         "as_tensor and new_tensor of a list": 0, "a list under no_grad": 0, "a list of detached tensors": 0}


def _warnings(module, code):
    program = (f"import warnings\nwarnings.simplefilter('always')\nimport {module} as torch\n{code}\n")
    env = dict(os.environ, GLASSGRAD_DEVICE="cpu",
               PYTHONPATH=os.pathsep.join(p for p in (BINDINGS, os.environ.get("PYTHONPATH", "")) if p))
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    # a case that writes ENABLED counts the warnings after it only
    return done.stderr.split("ENABLED\n")[-1].count(MESSAGE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_float_of_a_tensor_that_requires_grad_warns_once(case):
    assert _warnings("glassgrad.torch", CASES[case]) == WARNS[case]


@pytest.mark.parametrize("case", sorted(CASES))
def test_pytorch_warns_in_the_same_cases(case):
    pytest.importorskip("torch")
    assert _warnings("torch", CASES[case]) == WARNS[case]
