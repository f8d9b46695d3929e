"""glassgrad.debug: what to reach for when training goes wrong (docs/debugging.md).

    check_nan_gradients(model)          raise naming every parameter whose gradient has NaN/Inf
    print_tensor_stats(t)               shape, dtype, device, min/max/mean/std, NaN and Inf counts
    clip_grad_norm_(params, max_norm)   gradient clipping as graph nodes (no host round trip)
    with detect_anomaly(): ...          stop at the first op that produces NaN/Inf, forward or
                                        backward (or GLASSGRAD_DETECT_ANOMALY=1)
    register_hook(layer_or_op, fn)      see a node's inputs and outputs as NumPy arrays
    allocation_log()                    every allocation and free, with buffer names and devices
    explain(loss) / last_plan()         the compiled plan: steps, shapes, fusion, buffers; .to_dot()
    gradcheck(fn, inputs)               your layer's gradients against finite differences
    with host_time_breakdown() as bd:   where each step's host time goes (record, backward,
                                        signature, plan lookup, binding, launch, transfer)
"""
from .errors import GradcheckError, NonFiniteError  # noqa: F401
from .stats import check_nan_gradients, print_tensor_stats, tensor_stats  # noqa: F401
from .clip import clip_grad_norm_  # noqa: F401
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly  # noqa: F401
from .hooks import HookHandle, NodeInfo, register_hook  # noqa: F401
from .plans import PlanView, explain, last_plan  # noqa: F401
from .memory import allocation_log  # noqa: F401
from .gradcheck import gradcheck  # noqa: F401
from .host_times import HostTimeBreakdown, host_time_breakdown  # noqa: F401

__all__ = [
    "GradcheckError", "NonFiniteError", "check_nan_gradients", "print_tensor_stats", "tensor_stats",
    "clip_grad_norm_", "detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly", "HookHandle", "NodeInfo",
    "register_hook", "PlanView", "explain", "last_plan", "allocation_log", "gradcheck",
    "HostTimeBreakdown", "host_time_breakdown",
]
