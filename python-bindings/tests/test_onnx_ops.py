"""ONNX export, op by op: every OpSpec of the op table (op_specs/) whose op has an ONNX converter
is recorded on its inputs, exported, checked by onnx.checker and run in onnxruntime, whose outputs
must equal glassgrad's kernel; and every op the engine knows either exports or is listed with the
reason it cannot (glassgrad.onnx.coverage(), docs/export.md)."""
import os
import re

import numpy as np
import pytest

import glassgrad as gg
from glassgrad._tensor import _op_multi
from glassgrad.testing import run_kernel
from op_specs import SPECS, case_seed

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed (pip install onnx)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install onnxruntime)")
go = pytest.importorskip("glassgrad.onnx")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _exported_specs():
    rows = dict((op, status) for op, status, _ in go.coverage())
    return [s for s in SPECS if rows.get(s.op) == "exports"]


CASES = _exported_specs()


def _refusal(spec, attrs):
    """What the exporter says when it refuses this configuration of an op that exports otherwise
    (training-only settings, and packed sequences), or None."""
    if attrs.get("dropout_p", 0) > 0:
        return "dropout inside attention"
    if "batch_sizes" in attrs:
        return "packed sequence"
    if spec.op == "FusedElementwise":
        backward = {e["code"] for e in gg.kernels.elementwise_ops() if e["kind"].startswith("backward")}
        if set(attrs["program"][0::3]) & backward:
            return "a gradient formula"
    return None


# Ops whose ONNX form draws its own random numbers: compared by what every element may be.
RANDOM = {"Dropout"}


def _dtype(spec):
    return "float32" if "float32" in spec.dtypes else spec.dtypes[0]


def run_onnxruntime(proto, feeds):
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


@pytest.mark.parametrize("spec", CASES, ids=[s.id for s in CASES])
def test_op_exports_and_onnxruntime_matches_the_kernel(spec):
    dtype = _dtype(spec)
    n = spec.sizes[min(1, len(spec.sizes) - 1)]
    rng = np.random.default_rng(case_seed(spec.id, "onnx"))
    arrays = spec.inputs(rng, dtype, n)
    attrs = spec.attrs_for(n)
    schema = gg.kernels.schema(spec.op)
    keep = [k for k in (spec.outputs if spec.outputs is not None else range(len(schema["outputs"])))
            if schema["outputs"][k] != "reserve"]

    def record(*xs):
        outs = _op_multi(spec.op, list(xs), attrs)
        return tuple(outs[k] for k in keep)

    names = [f"x{i}" for i in range(len(arrays))]
    args = tuple(gg.tensor(a) for a in arrays)
    refusal = _refusal(spec, attrs)
    if refusal:
        with pytest.raises(go.UnsupportedOperatorError, match=spec.op) as info:
            go.export(record, args, None, input_names=names)
        assert refusal in str(info.value)
        return
    proto = go.export(record, args, None, input_names=names)
    onnx.checker.check_model(proto, full_check=True)
    got = run_onnxruntime(proto, {i.name: a for i, a in zip(proto.graph.input, arrays)})
    if spec.op in RANDOM:  # the runtime draws its own mask: each element dropped (0) or kept, scaled
        x, y = arrays[0].astype(np.float64), got[0].astype(np.float64)
        assert y.shape == x.shape and got[0].dtype == arrays[0].dtype
        kept = y != 0
        np.testing.assert_allclose(y[kept], x[kept] / (1 - attrs["p"]), rtol=1e-5, err_msg=spec.id)
        return
    want = run_kernel(spec.op, arrays, attrs)
    for g, k in zip(got, keep):
        w = want[k]
        assert g.shape == w.shape, f"{spec.id}: output {k} shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"{spec.id}: output {k} dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=max(spec.rtol[dtype], 1e-5), atol=spec.atol[dtype],
                                       err_msg=f"{spec.id} output {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{spec.id} output {k}")


def test_every_op_exports_or_says_why_not():
    missing = [op for op, status, _ in go.coverage() if status == "missing"]
    assert not missing, (f"forward ops with neither an ONNX converter nor a reason they cannot export: {missing}; "
                         f"add a converter in glassgrad/onnx/ops/ (or cannot(op, reason) there), then rewrite "
                         f"docs/export.md's op list with tools/onnx_coverage_table.py")


def test_every_exported_op_is_tested_through_the_op_table():
    tested = {s.op for s in CASES}
    # Ops no OpSpec records: covered by the model tests of test_onnx_export.py instead.
    by_models = {"Full", "ToDevice"}
    exported = {op for op, status, _ in go.coverage() if status == "exports"}
    untested = sorted(exported - tested - by_models)
    assert not untested, f"ops that export but no op-table entry exercises: {untested}"


def test_the_docs_list_every_op_with_its_status():
    with open(os.path.join(ROOT, "docs", "export.md"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("<!-- coverage -->"):text.index("<!-- /coverage -->")]
    rows = dict(re.findall(r"^\| `(\w+)` \| (exports|cannot) \|", table, re.M))
    want = {op: status for op, status, _ in go.coverage()}
    assert rows == want, (f"docs/export.md's op list differs from glassgrad.onnx.coverage(): "
                          f"{sorted(set(rows.items()) ^ set(want.items()))}; rewrite it with "
                          f"PYTHONPATH=python-bindings python3 tools/onnx_coverage_table.py")
