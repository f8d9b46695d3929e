"""The GPT training step of benchmarks/ordinary_gpu.py (--only gpt): examples-and-tutorials/char_gpt.py's
model (nanoGPT's shakespeare_char size by default: 6 layers, 6 heads, 384 features, context 256,
batch 64, vocabulary 65) against the same model in PyTorch eager with
F.scaled_dot_product_attention (its fused kernels), the same weights, AdamW, TF32 off.

Rows: the synchronized step time (median over alternating rounds, ratio vs PyTorch), both peak
memories (glassgrad's allocator peak over a step; torch.cuda.max_memory_allocated), and the step
under glassgrad.set_memory_limit (default 2 GB: the seed's card), where the planner checkpoints
activations to fit (the step time and peak under the limit, and how many steps the plan recomputes).
"""
from __future__ import annotations

import gc
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples-and-tutorials"))
from common import numpy_state, alternating_medians, gg_sync, time_repeats, torch_name, torch_setup

VOCAB = 65


def sizes(args):
    if args.tiny:
        return dict(layers=2, heads=2, dim=32, block=32, batch=4)
    if args.gpt_size == "small":  # the CPU comparison (2 threads)
        return dict(layers=2, heads=4, dim=128, block=64, batch=8)
    return dict(layers=6, heads=6, dim=384, block=256, batch=args.gpt_batch)


def torch_gpt(torch, s, dropout, state, device):
    """char_gpt.py's GPT in PyTorch, with glassgrad's initial weights (the same names)."""
    nn, F = torch.nn, torch.nn.functional

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(s["dim"], 3 * s["dim"]), nn.Linear(s["dim"], s["dim"])
            self.resid_dropout = nn.Dropout(dropout)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (t.view(B, T, s["heads"], C // s["heads"]).transpose(1, 2)
                       for t in self.c_attn(x).split(C, dim=2))
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout if self.training else 0.0, is_causal=True)
            return self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            d = s["dim"]
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(d), Attn(), nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class Embedding(nn.Module):  # char_gpt's TokenEmbedding: the parameter named as nn.Embedding's
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.zeros(VOCAB, s["dim"]))

        def forward(self, idx):
            return F.embedding(idx, self.weight)

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = Embedding()
            self.wpe = nn.Parameter(torch.zeros(s["block"], s["dim"]))
            self.drop = nn.Dropout(dropout)
            self.h = nn.ModuleList([Block() for _ in range(s["layers"])])
            self.ln_f = nn.LayerNorm(s["dim"])
            self.lm_head = nn.Linear(s["dim"], VOCAB, bias=False)

        def forward(self, idx, targets):
            B, T = idx.shape
            x = self.drop(self.wte(idx) + self.wpe[:T])
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))

    model = GPT()
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    return model.to(device)


def gg_step_function(gg, G, s, dropout, state):
    """One AdamW training step of char_gpt's GPT holding `state`, as a plain function."""
    model = G.GPT(VOCAB, s["block"], s["layers"], s["heads"], s["dim"], dropout)
    model.load_state_dict(state)
    opt = gg.optim.AdamW(model.parameters(), lr=1e-3)

    def step(xb, yb):
        _, loss = model(xb, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def gg_train_step(gg, G, s, dropout, state):
    """glassgrad.compile of one AdamW training step of char_gpt's GPT holding `state`."""
    return gg.compile(gg_step_function(gg, G, s, dropout, state))


def run(args, res, dev, torch, note, where):
    import char_gpt as G
    import glassgrad as gg
    s = sizes(args)
    dropout = args.gpt_dropout
    rounds, steps = (1, 2) if args.tiny else (args.rounds, args.steps)
    rng = np.random.default_rng(0)
    xn = rng.integers(0, VOCAB, (s["batch"], s["block"])).astype(np.int64)
    yn = rng.integers(0, VOCAB, (s["batch"], s["block"])).astype(np.int64)
    gg.manual_seed(0)
    state = numpy_state(G.GPT(VOCAB, s["block"], s["layers"], s["heads"], s["dim"], dropout))
    step = gg_train_step(gg, G, s, dropout, state)
    x, y = gg.tensor(xn), gg.tensor(yn)
    gg.realize(x, y)
    contenders = {"glassgrad.compile": (lambda: step(x, y), gg_sync(dev))}
    tdev = None
    if torch is not None:
        tdev, tsync = torch_setup(torch, dev)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        tmodel = torch_gpt(torch, s, dropout, state, tdev)
        topt = torch.optim.AdamW(tmodel.parameters(), lr=1e-3)
        tx, ty = torch.from_numpy(xn).to(tdev), torch.from_numpy(yn).to(tdev)

        def torch_step():
            loss = tmodel(tx, ty)
            loss.backward()
            topt.step()
            topt.zero_grad(set_to_none=True)
        contenders[torch_name(torch)] = (torch_step, tsync)
    med, times = alternating_medians(contenders, rounds, steps)
    eager = next((k for k in med if k.startswith("torch")), None)
    label = (f"GPT {s['layers']}x{s['dim']} ({s['heads']} heads) train step batch {s['batch']} block {s['block']} "
             f"dropout {dropout}{where}")
    if getattr(args, "kernels", False) and torch is not None and dev.startswith("cuda"):
        from ordinary_gpu import kernel_breakdown  # both frameworks' kernels per step (CUPTI)
        for name, (fn, sync) in contenders.items():
            print(f"{label}, {name}: {kernel_breakdown(torch, fn, sync, calls=3)}", flush=True)
    for name, t in med.items():
        ratio = None if name.startswith("torch") or eager is None else t / med[eager]
        res.add(dev, label, "synchronized_step_ms", t * 1e3, "ms", name, ratio=ratio,
                notes=f"{note}; median of {len(times[name])} steps in {rounds} alternating rounds; TF32 off")
    # Peak memory over one more step each.
    gg.reset_peak_memory(dev)
    step(x, y)
    gg_sync(dev)()
    gg_peak = gg.memory_stats(dev)["peak"]
    torch_peak = None
    if torch is not None and tdev.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(tdev)
        contenders[eager][0]()
        torch.cuda.synchronize()
        torch_peak = torch.cuda.max_memory_allocated(tdev)
        res.add(dev, label, "peak_memory_mb", torch_peak / 2**20, "MB", eager, notes=f"{note}; max_memory_allocated")
    res.add(dev, label, "peak_memory_mb", gg_peak / 2**20, "MB", "glassgrad.compile",
            ratio=None if torch_peak is None else gg_peak / torch_peak,
            notes=f"{note}; allocator peak over a step (parameters, optimizer state and activations)")
    if args.memory_limit and dev.startswith("cuda"):
        # The unlimited step's model, optimizer state and plan buffers go first: the limit counts
        # every live glassgrad allocation on the device, and a 2 GB card holds one model.
        eager_time = med.get(eager)
        del contenders, step, x, y
        gc.collect()
        limited(args, res, dev, gg, G, s, dropout, state, xn, yn, label, note, eager_time)


def limited(args, res, dev, gg, G, s, dropout, state, xn, yn, label, note, eager_time):
    """The same step in a fresh model under set_memory_limit: the planner checkpoints to fit."""
    gg.clear_plan_cache()
    before = gg.memory_stats(dev)["limit"] or None
    gg.set_memory_limit(args.memory_limit, dev)
    try:
        step = gg_train_step(gg, G, s, dropout, state)
        x, y = gg.tensor(xn), gg.tensor(yn)
        sync = gg_sync(dev)
        for _ in range(3):
            step(x, y)
        sync()
        gg.reset_peak_memory(dev)
        times = time_repeats(lambda: step(x, y), repeats=args.steps, warmup=0, sync=sync)
        peak = gg.memory_stats(dev)["peak"]
        t = statistics.median(times)
        res.add(dev, label, "synchronized_step_ms", t * 1e3, "ms", f"glassgrad.compile limit {args.memory_limit}",
                ratio=None if eager_time is None else t / eager_time,
                notes=f"{note}; set_memory_limit('{args.memory_limit}'): the planner's checkpointing; peak "
                      f"{peak / 2**20:.0f} MB")
        res.add(dev, label, "peak_memory_mb", peak / 2**20, "MB", f"glassgrad.compile limit {args.memory_limit}",
                notes=f"{note}; under set_memory_limit('{args.memory_limit}')")
    finally:
        gg.set_memory_limit(before, dev)
