"""ONNX export (glassgrad.onnx, docs/export.md): for each model, the time to export it and how far
onnxruntime's outputs from the one exported file are from glassgrad's at batch sizes 1 and 7;
and ResNet-18's export in a fresh process, importing included.

    python benchmarks/onnx_export.py            # every model at its size; rows to results/onnx_export.csv
    python benchmarks/onnx_export.py --tiny     # seconds (CI)

The models: SimpleCNN, ResNet-18 (CIFAR, [N, 3, 32, 32]), an MLP with LayerNorm and GELU, the
DCGAN generator (examples-and-tutorials/dcgan.py), an LSTM language model
(examples-and-tutorials/lstm_lm.py) and the character-level GPT (examples-and-tutorials/char_gpt.py),
each exported with a dynamic batch axis. The error is max |onnxruntime - glassgrad| / max |glassgrad| over all outputs.
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import REPO, Results, add_common_args, apply_threads

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F

EXAMPLES = os.path.join(REPO, "examples-and-tutorials")


@dataclass
class Case:
    """A model to export: build() makes it, inputs(b) its example arrays at batch size b."""
    name: str
    build: Callable
    inputs: Callable[[int], List[np.ndarray]]
    input_names: List[str]
    dynamic_axes: Dict[str, Dict[int, str]]
    needs: str = ""          # what has not landed yet, when it cannot be built here ("" when it can)
    nested: Optional[Callable] = None   # the call's arguments from the flat arrays (a hidden-state tuple)

    def args(self, arrays):
        import glassgrad as gg
        tensors = [gg.tensor(a) for a in arrays]
        return tuple(self.nested(tensors)) if self.nested else tuple(tensors)


def _images(*shape):
    return lambda b: [np.random.default_rng(b).standard_normal((b,) + shape).astype(np.float32)]


def _import_from(path: str, module: str):
    sys.path.insert(0, path)
    try:
        return __import__(module)
    finally:
        sys.path.remove(path)


class OneHotLanguageModel(nn.Module):
    """word_language_model's RNNModel (embedding, LSTM, decoder, log_softmax over the flattened
    outputs) with its embedding as a one-hot product: what runs where nn.Embedding has not landed."""

    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.ntoken = ntoken
        self.encoder = nn.Parameter(np.random.default_rng(0).uniform(-0.1, 0.1, (ntoken, ninp)).astype(np.float32))
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens, hidden):
        emb = F.one_hot(tokens, self.ntoken).to(dtype=self.encoder.dtype) @ self.encoder
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden


def cases(tiny: bool = False) -> List[Case]:
    batch = {0: "batch"}
    out: List[Case] = [
        Case("SimpleCNN", gg.models.SimpleCNN, _images(1, 28, 28), ["images"], {"images": batch, "output": batch}),
        Case("ResNet-18", gg.models.ResNet18, _images(3, 32, 32), ["images"], {"images": batch, "output": batch}),
        Case("MLP with LayerNorm and GELU",
             lambda: nn.Sequential(nn.Linear(64, 256), nn.LayerNorm(256), nn.GELU(), nn.Linear(256, 256),
                                   nn.LayerNorm(256), nn.GELU(), nn.Linear(256, 10)),
             _images(64), ["x"], {"x": batch, "output": batch}),
    ]
    nz = 16 if tiny else 100
    has_dcgan = hasattr(nn, "ConvTranspose2d") and os.path.isfile(os.path.join(EXAMPLES, "dcgan.py"))
    out.append(Case("DCGAN generator",
                    lambda: _import_from(EXAMPLES, "dcgan").Generator(nz, 8 if tiny else 64, 3),
                    _images(nz, 1, 1), ["z"], {"z": batch, "output": batch},
                    needs="" if has_dcgan else "nn.ConvTranspose2d and examples-and-tutorials/dcgan.py"))
    ntoken, ninp, nhid, nlayers, seq = (50, 16, 16, 2, 5) if tiny else (1000, 200, 200, 2, 35)
    if hasattr(nn, "Embedding"):
        def build_lm():
            return _import_from(EXAMPLES, "lstm_lm").RNNModel(ntoken, ninp, nhid, nlayers, dropout=0.2)
    else:
        def build_lm():
            return OneHotLanguageModel(ntoken, ninp, nhid, nlayers)

    def lm_inputs(b):
        rng = np.random.default_rng(b)
        return [rng.integers(0, ntoken, (seq, b)).astype(np.int64),
                rng.standard_normal((nlayers, b, nhid)).astype(np.float32),
                rng.standard_normal((nlayers, b, nhid)).astype(np.float32)]

    out.append(Case("LSTM language model", build_lm, lm_inputs, ["tokens", "h0", "c0"],
                    {"tokens": {1: "batch"}, "h0": {1: "batch"}, "c0": {1: "batch"}},
                    nested=lambda t: (t[0], (t[1], t[2]))))
    layers, heads, dim, block, vocab = (2, 2, 32, 16, 23) if tiny else (6, 6, 384, 256, 96)
    out.append(Case("char-level GPT",
                    lambda: _import_from(EXAMPLES, "char_gpt").GPT(vocab, block, layers, heads, dim, 0.2),
                    lambda b: [np.random.default_rng(b).integers(0, vocab, (b, block)).astype(np.int64)],
                    ["idx"], {"idx": batch, "output": batch}))
    return out


def flat_outputs(result) -> List[np.ndarray]:
    from glassgrad.onnx._capture import flatten
    return [t.cpu().numpy() for t in flatten(result, "output")[0]]


def export_and_compare(case: Case, batches=(1, 7)):
    """(seconds to export, the file's bytes, the largest relative error at each batch size, the
    model)."""
    import glassgrad.onnx
    import onnxruntime
    gg.manual_seed(0)
    model = case.build()
    buf = io.BytesIO()
    start = time.perf_counter()
    glassgrad.onnx.export(model, case.args(case.inputs(2)), buf, input_names=case.input_names,
                          dynamic_axes=case.dynamic_axes)
    seconds = time.perf_counter() - start
    session = onnxruntime.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])
    model.eval()
    errors = {}
    for b in batches:
        arrays = case.inputs(b)
        got = session.run(None, dict(zip(case.input_names, arrays)))
        with gg.no_grad():
            want = flat_outputs(model(*case.args(arrays)))
        errors[b] = max(float(np.max(np.abs(g.astype(np.float64) - w)) / max(float(np.max(np.abs(w))), 1e-30))
                        for g, w in zip(got, want))
    return seconds, buf.getvalue(), errors, model


def warm_export_seconds(case: Case, model, repeats: int) -> List[float]:
    import glassgrad.onnx
    times = []
    for _ in range(repeats):
        buf = io.BytesIO()
        start = time.perf_counter()
        glassgrad.onnx.export(model, case.args(case.inputs(2)), buf, input_names=case.input_names,
                              dynamic_axes=case.dynamic_axes)
        times.append(time.perf_counter() - start)
    return times


COLD = """
import time
t0 = time.perf_counter()
import numpy as np, io, glassgrad as gg, glassgrad.onnx, onnx
t1 = time.perf_counter()
model = gg.models.ResNet18()
x = gg.tensor(np.zeros((2, 3, 32, 32), np.float32))
t2 = time.perf_counter()
glassgrad.onnx.export(model, x, io.BytesIO(), input_names=["images"], dynamic_axes={"images": {0: "batch"}})
t3 = time.perf_counter()
print(t1 - t0, t3 - t2)
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(p)
    p.add_argument("--repeats", type=int, default=5, help="warm exports timed per model")
    args = p.parse_args(argv)
    res = Results("onnx_export", args.csv, args.tiny, args.notes)
    note = apply_threads(args.threads)
    repeats = 1 if args.tiny else args.repeats
    for case in cases(args.tiny):
        if case.needs:
            print(f"{case.name}: skipped, waits for {case.needs}")
            continue
        first, data, errors, model = export_and_compare(case)
        times = warm_export_seconds(case, model, repeats)
        workload = f"{case.name} ONNX export, dynamic batch"
        res.add("cpu", workload, "export_seconds", statistics.median(times), "s",
                notes=f"{note}; median of {len(times)} exports after a first of {first:.3f} s; {len(data)} bytes")
        for b, err in errors.items():
            res.add("cpu", f"{case.name} onnxruntime vs glassgrad, batch {b}", "max_relative_error", err, "ratio",
                    framework="glassgrad vs onnxruntime")
    if not args.tiny:
        runs = [subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, check=True,
                               env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
                for _ in range(3)]
        imports, exports = zip(*[map(float, r.stdout.split()) for r in runs])
        res.add("cpu", "ResNet-18 ONNX export in a fresh process", "export_seconds", statistics.median(exports), "s",
                notes=f"median of 3 processes; importing glassgrad, glassgrad.onnx and onnx took a further "
                      f"{statistics.median(imports):.2f} s")
    print(f"rows written to {res.write()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
