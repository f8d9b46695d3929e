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
from .errors import GradcheckError, NonFiniteError
from .stats import check_nan_gradients, print_tensor_stats, tensor_stats
from .clip import clip_grad_norm_
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .hooks import HookHandle, NodeInfo, register_hook
from .plans import PlanView, explain, last_plan
from .memory import allocation_log
from .gradcheck import gradcheck
from .host_times import HostTimeBreakdown, host_time_breakdown

__all__ = [
    "GradcheckError", "NonFiniteError", "check_nan_gradients", "print_tensor_stats", "tensor_stats",
    "clip_grad_norm_", "detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly", "HookHandle", "NodeInfo",
    "register_hook", "PlanView", "explain", "last_plan", "allocation_log", "gradcheck",
    "HostTimeBreakdown", "host_time_breakdown",
]
