"""torch.autograd's names: grad, backward, Function (custom gradients), Variable (the legacy
wrapper), the gradient-mode switches, autograd.functional and autograd.profiler. What they
compute is described in docs/autograd.md."""
from __future__ import annotations

from .._runtime import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .gradients import backward, checkpoint_valid as _is_checkpoint_valid, grad  # (PyTorch's private name too)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .grad_mode import is_multithreading_enabled, is_view_replay_enabled, set_multithreading_enabled
from .variable import Variable
from . import anomaly_mode, forward_ad, function, functional, grad_mode, graph, profiler

__all__ = ["Function", "FunctionCtx", "GradcheckError", "Variable", "anomaly_mode", "backward", "detect_anomaly", "enable_grad", "forward_ad", "function",
           "functional", "grad", "grad_mode", "graph", "gradcheck", "gradgradcheck", "inference_mode", "is_anomaly_enabled", "is_grad_enabled", "no_grad",
           "once_differentiable", "profiler", "set_detect_anomaly", "set_grad_enabled", "set_multithreading_enabled"]
