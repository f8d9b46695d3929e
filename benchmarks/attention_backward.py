"""The attention backward kernel against PyTorch's: milliseconds per call, each call synchronized,
median of alternating rounds, float32. glassgrad runs its op (ScaledDotProductAttentionBackward
through glassgrad._C.run_op on prebuilt device tensors) twice: by default (float32 adds the query
gradient with atomics, docs/attention.md) and under glassgrad.use_deterministic_algorithms(True)
(the two-kernel backward); PyTorch runs torch.autograd.grad of F.scaled_dot_product_attention's
output (its fused backward only). On a GPU it runs, by default, on a slice of at least 8 SMs
(ordinary_gpu.py's CUDA MPS set-up); --no-mps runs on the whole GPU.

    python benchmarks/attention_backward.py                    # MPS slice of >= 8 SMs
    python benchmarks/attention_backward.py --no-mps           # the whole GPU
    python benchmarks/attention_backward.py --device cpu --no-torch --tiny   # seconds (CI)

Workloads ([batch, heads, length, head dim]):
  gpt      [64, 6, 256, 64] causal: benchmarks/gpt_workload.py's attention layer (issue 32's GPT)
  long     [4, 8, 1024, 64] causal
  head128  [16, 4, 256, 128], no mask
Rows go to benchmarks/results/attention_backward.csv (--csv to change), each with its ratio to
PyTorch's time and "<N> SMs" in its notes.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import OpBench, alternating_medians, torch_name, torch_setup
import ordinary_gpu  # the MPS set-up


def _workloads(tiny: bool):
    """(name, [batch, heads, length, head dim], causal)."""
    if tiny:
        return [("gpt", (2, 2, 40, 16), True), ("head128", (1, 2, 33, 128), False)]
    return [("gpt", (64, 6, 256, 64), True), ("long", (4, 8, 1024, 64), True), ("head128", (16, 4, 256, 128), False)]


def child(args) -> int:
    import glassgrad as gg
    from glassgrad import _C
    b = OpBench("attention_backward", args)
    dev, torch, note, where, res, sync, rounds, calls = (b.dev, b.torch, b.note, b.where, b.res, b.sync, b.rounds,
                                                         b.calls)
    rng = np.random.default_rng(0)
    for name, shape, causal in _workloads(args.tiny):
        q, k, v, g = (rng.standard_normal(shape).astype(np.float32) for _ in range(4))
        attrs = {"scale": 1.0 / math.sqrt(shape[-1]), "is_causal": causal}
        tq, tk, tv, tg = (_C.Tensor.from_numpy(a, dev) for a in (q, k, v, g))
        out, lse = _C.run_op("ScaledDotProductAttention", [tq, tk, tv], attrs, "")
        inputs = [tg, tq, tk, tv, out, lse]

        def ours(inputs=inputs, attrs=attrs):
            _C.run_op("ScaledDotProductAttentionBackward", inputs, attrs, "")

        def deterministic(inputs=inputs, attrs=attrs):
            # The launcher reads the switch when it launches (run_op runs the kernels now).
            gg.use_deterministic_algorithms(True)
            try:
                _C.run_op("ScaledDotProductAttentionBackward", inputs, attrs, "")
            finally:
                gg.use_deterministic_algorithms(False)

        contenders = {"glassgrad": (ours, sync), "glassgrad deterministic": (deterministic, sync)}
        tname = None
        if torch is not None:
            tdev, tsync = torch_setup(torch, dev)
            xs = [torch.from_numpy(a).to(tdev).requires_grad_(True) for a in (q, k, v)]
            tout = torch.nn.functional.scaled_dot_product_attention(*xs, is_causal=causal)
            tgrad = torch.from_numpy(g).to(tdev)
            tname = torch_name(torch)
            contenders[tname] = (lambda: torch.autograd.grad(tout, xs, tgrad, retain_graph=True), tsync)
        med, _ = alternating_medians(contenders, rounds, calls, warmup=2)
        label = f"attention backward {name} {list(shape)}{' causal' if causal else ''}{where}"
        for framework, t in med.items():
            res.add(dev, label, "ms_per_call", t * 1e3, "ms", framework,
                    ratio=None if tname is None or framework == tname else t / med[tname],
                    notes=f"{note}; float32; median of {rounds} alternating rounds of {calls} synchronized calls")
    print("wrote", res.write())
    return 0


def main(argv=None) -> int:
    return ordinary_gpu.op_bench_main(__doc__, __file__, child, argv, rounds=5, calls=10)


if __name__ == "__main__":
    sys.exit(main())
