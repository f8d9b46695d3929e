"""glassgrad.onnx.export on whole models: each exported once with a dynamic batch axis, checked by
onnx.checker and run in onnxruntime at batch sizes 1 and 7 from that one file, its outputs within
1e-5 (relative to the largest) of glassgrad's; initializers named by module path, load_weights,
the arguments of torch.onnx.export, and the errors."""
import io
import os
import sys
import warnings

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.nn as nn

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed (pip install onnx)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (pip install onnxruntime)")
go = pytest.importorskip("glassgrad.onnx")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import onnx_export as benchmark  # noqa: E402  (the models benchmarks/onnx_export.py measures)

MODELS = benchmark.cases(tiny=True)


def session(source, optimize=True):
    data = source.SerializeToString() if isinstance(source, onnx.ModelProto) else source
    options = ort.SessionOptions()
    if not optimize:  # onnxruntime's optimizer removes Dropout, taking the graph for inference
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def relative_error(got, want) -> float:
    want = np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)) / max(np.max(np.abs(want)), 1e-30))


def outputs_of(result):
    from glassgrad.onnx._capture import flatten
    return [t.numpy() for t in flatten(result, "output")[0]]


def check_model(model, make_inputs, names, dynamic_axes, path, batches=(1, 7), **kwargs):
    """make_inputs(b): the input arrays at batch size b. Exports model(*make_inputs(2)) once;
    onnxruntime on that file at each batch size equals the model within 1e-5 relative. Returns the
    loaded file and the largest error seen."""
    go.export(model, tuple(gg.tensor(a) for a in make_inputs(2)), path, input_names=names,
              dynamic_axes=dynamic_axes, **kwargs)
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    run = session(proto)
    model.eval()
    worst = 0.0
    for b in batches:
        arrays = make_inputs(b)
        got = run.run(None, dict(zip(names, arrays)))
        with gg.no_grad():
            want = outputs_of(model(*[gg.tensor(a) for a in arrays]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, f"batch {b}: onnxruntime gives {g.shape}, glassgrad {w.shape}"
            worst = max(worst, relative_error(g, w))
    assert worst <= 1e-5, f"onnxruntime's outputs differ from glassgrad's by {worst:g} (relative)"
    return proto, worst


def images(*shape):
    return lambda b: [np.random.default_rng(b).standard_normal((b,) + shape).astype(np.float32)]


BATCH = {"x": {0: "batch"}, "output": {0: "batch"}}


@pytest.mark.parametrize("case", MODELS, ids=[c.name for c in MODELS])
def test_model_runs_in_onnxruntime_at_batch_sizes_1_and_7_from_one_file(case):
    if case.needs:
        pytest.skip(f"waits for {case.needs}")
    _, data, errors, _ = benchmark.export_and_compare(case)
    onnx.checker.check_model(onnx.load_model_from_string(data), full_check=True)
    assert max(errors.values()) <= 1e-5, f"onnxruntime's outputs differ from glassgrad's: {errors}"


def test_simple_cnn_runs_in_onnxruntime_at_two_batch_sizes(tmp_path):
    model = gg.models.SimpleCNN()
    proto, _ = check_model(model, images(1, 28, 28), ["x"], BATCH, str(tmp_path / "cnn.onnx"))
    assert [n.op_type for n in proto.graph.node if n.op_type != "Constant"] == [
        "Conv", "BatchNormalization", "Relu", "MaxPool", "Conv", "BatchNormalization", "Relu", "MaxPool", "Reshape",
        "Gemm"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_resnet18_initializers_are_named_by_module_path(tmp_path):
    model = gg.models.ResNet18()
    proto, _ = check_model(model, images(3, 32, 32), ["x"], BATCH, str(tmp_path / "resnet18.onnx"))
    names = {i.name for i in proto.graph.initializer}
    assert "layer1.0.conv1.weight" in names and "layer4.1.bn2.running_var" in names
    used = {k for k in model.state_dict() if not k.endswith("num_batches_tracked")}
    assert names == used


def test_mlp_with_layer_norm_and_gelu_exports_one_layer_norm_op_per_layer(tmp_path):
    model = nn.Sequential(nn.Linear(12, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 32), nn.LayerNorm(32),
                          nn.GELU(), nn.Linear(32, 5))
    proto, _ = check_model(model, images(12), ["x"], BATCH, str(tmp_path / "mlp.onnx"))
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("LayerNormalization") == 2 and ops.count("Gemm") == 3
    proto20, _ = check_model(model, images(12), ["x"], BATCH, str(tmp_path / "mlp20.onnx"), opset_version=20)
    assert [n.op_type for n in proto20.graph.node].count("Gelu") == 2


@pytest.mark.parametrize("opset", [13, 14, 17])
def test_older_opsets_spell_out_what_they_lack(tmp_path, opset):
    model = nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 3))
    proto, _ = check_model(model, images(6), ["x"], BATCH, str(tmp_path / "mlp.onnx"), opset_version=opset)
    assert proto.opset_import[0].version == opset
    ops = {n.op_type for n in proto.graph.node}
    assert ("LayerNormalization" in ops) == (opset >= 17) and "Erf" in ops


@pytest.mark.parametrize("cell,kwargs", [("LSTM", {}), ("GRU", {"bidirectional": True}),
                                         ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
                                         ("LSTM", {"proj_size": 3, "batch_first": True})])
def test_recurrent_layers_export_as_onnx_recurrent_ops(tmp_path, cell, kwargs):
    gg.manual_seed(0)
    layer = getattr(nn, cell)(5, 6, **kwargs)
    first = kwargs.get("batch_first", False)
    seq = lambda b: [np.random.default_rng(b).standard_normal((b, 4, 5) if first else (4, b, 5)).astype(np.float32)]
    axis = 0 if first else 1
    proto, _ = check_model(layer, seq, ["x"], {"x": {axis: "batch"}}, str(tmp_path / "rnn.onnx"))
    ops = {n.op_type for n in proto.graph.node}
    assert (cell.upper() in ops) != bool(kwargs.get("proj_size"))


def test_char_gpt_with_a_dynamic_sequence_length(tmp_path):
    gpt = benchmark.cases(tiny=True)[-1]
    assert gpt.name == "char-level GPT"
    gg.manual_seed(0)
    model = gpt.build()
    by_length = lambda t: [np.random.default_rng(t).integers(0, 23, (3, t)).astype(np.int64)]
    proto, _ = check_model(model, by_length, ["idx"], {"idx": {1: "time"}, "output": {1: "time"}},
                           str(tmp_path / "gpt_t.onnx"), batches=(1, 5, 16))
    assert sum(n.op_type == "Softmax" for n in proto.graph.node) == 2   # attention as MatMul/Softmax/MatMul
    assert "Trilu" in {n.op_type for n in proto.graph.node}            # the causal mask at any length


def test_lstm_language_model_takes_and_returns_its_hidden_state():
    lm = next(c for c in MODELS if c.name == "LSTM language model")
    model = lm.build()
    proto = go.export(model, lm.args(lm.inputs(2)), None, input_names=lm.input_names,
                      output_names=["logp", "hn", "cn"], dynamic_axes=lm.dynamic_axes)
    assert [i.name for i in proto.graph.input] == ["tokens", "h0", "c0"]
    assert [o.name for o in proto.graph.output] == ["logp", "hn", "cn"]
    dims = [d.dim_param or d.dim_value for d in proto.graph.output[0].type.tensor_type.shape.dim]
    assert dims == ["5*batch", 50]   # view(-1, ntoken) of [5, batch, ntoken]: a size that follows the batch
    assert sum(n.op_type == "LSTM" for n in proto.graph.node) == 2


# ---- load_weights ----

def test_load_weights_reads_an_exported_file_into_a_fresh_model(tmp_path):
    gg.manual_seed(1)
    trained = gg.models.SimpleCNN()
    path = str(tmp_path / "cnn.onnx")
    go.export(trained, gg.tensor(np.zeros((1, 1, 28, 28), np.float32)), path)
    gg.manual_seed(2)
    fresh = gg.models.SimpleCNN()
    missing, unexpected = go.load_weights(fresh, path)
    assert missing == [] and unexpected == []   # num_batches_tracked may be absent, as in load_state_dict
    x = gg.tensor(images(1, 28, 28)(3)[0])
    trained.eval(), fresh.eval()
    np.testing.assert_array_equal(fresh(x).detach().numpy(), trained(x).detach().numpy())
    with open(path, "rb") as f:  # a file object and a ModelProto read the same
        go.load_weights(fresh, f)
    go.load_weights(fresh, onnx.load(path))


def test_load_weights_refuses_names_the_model_does_not_have(tmp_path):
    path = str(tmp_path / "mlp.onnx")
    go.export(nn.Sequential(nn.Linear(4, 3)), gg.tensor(np.zeros((2, 4), np.float32)), path)
    other = gg.models.SimpleCNN()
    with pytest.raises(gg.InvalidArgumentError, match=r"(?s)unexpected: \['0.weight', '0.bias'\].*strict=False"):
        go.load_weights(other, path)
    missing, unexpected = go.load_weights(other, path, strict=False)
    assert unexpected == ["0.weight", "0.bias"] and "conv1.weight" in missing


def test_load_weights_reads_a_file_torch_exported():
    torch = pytest.importorskip("torch")
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(tmodel, (torch.zeros(1, 6),), buf, dynamo=False)
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 2))
    buf.seek(0)
    go.load_weights(model, buf)
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    with torch.no_grad():
        want = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(model(gg.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)


# ---- the arguments of torch.onnx.export ----

def test_export_writes_paths_and_file_objects_and_returns_the_proto_without_f(tmp_path):
    model = nn.Sequential(nn.Linear(4, 3))
    x = gg.tensor(np.ones((2, 4), np.float32))
    buf = io.BytesIO()
    assert go.export(model, x, buf) is None
    assert go.export(model, (x,), str(tmp_path / "m.onnx")) is None
    proto = go.export(model, x, None)
    assert onnx.load_model_from_string(buf.getvalue()) == proto == onnx.load(str(tmp_path / "m.onnx"))
    assert proto.producer_name == "glassgrad" and proto.opset_import[0].version == go.DEFAULT_OPSET


def test_default_names_are_forwards_parameters_and_output():
    class Two(nn.Module):
        def forward(self, image, scale):
            return image * scale, image + scale
    proto = go.export(Two(), (gg.tensor(np.ones(3, np.float32)), gg.tensor(np.ones(3, np.float32))), None)
    assert [i.name for i in proto.graph.input] == ["image", "scale"]
    assert [o.name for o in proto.graph.output] == ["output_0", "output_1"]


def test_a_trailing_dict_and_kwargs_are_keyword_arguments():
    class Scaled(nn.Module):
        def forward(self, x, scale=None, shift=0.0):
            return x * scale + shift
    x, s = gg.tensor(np.ones(3, np.float32)), gg.tensor(np.full(3, 2.0, np.float32))
    for proto in (go.export(Scaled(), (x, {"scale": s}), None), go.export(Scaled(), (x,), None, kwargs={"scale": s})):
        assert [i.name for i in proto.graph.input] == ["x", "scale"]
        out = session(proto).run(None, {"x": np.arange(3, dtype=np.float32), "scale": np.full(3, 3, np.float32)})
        np.testing.assert_array_equal(out[0], [0, 3, 6])


def test_list_form_dynamic_axes_get_torchs_names():
    proto = go.export(nn.Sequential(nn.Linear(4, 3)), gg.tensor(np.ones((2, 4), np.float32)), None,
                      input_names=["x"], output_names=["y"], dynamic_axes={"x": [0], "y": [0]})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x_dynamic_axes_1"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "y_dynamic_axes_1"


def test_export_params_false_and_initializers_as_inputs():
    model = nn.Sequential(nn.Linear(4, 3))
    x = gg.tensor(np.ones((2, 4), np.float32))
    bare = go.export(model, x, None, export_params=False)
    assert not bare.graph.initializer and [i.name for i in bare.graph.input][1:] == ["0.weight", "0.bias"]
    kept = go.export(model, x, None, keep_initializers_as_inputs=True)
    assert {i.name for i in kept.graph.initializer} == {"0.weight", "0.bias"}
    assert [i.name for i in kept.graph.input][1:] == ["0.weight", "0.bias"]


def test_export_leaves_the_model_as_it_was_and_is_in_onnx_export_during_the_trace():
    seen = []

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(3)

        def forward(self, x):
            seen.append((go.is_in_onnx_export(), self.training))
            return self.bn(x)

    model = Probe()
    before = model.state_dict()
    go.export(model, gg.tensor(np.random.rand(4, 3).astype(np.float32)), None, training=go.TrainingMode.TRAINING)
    assert seen == [(True, True)] and model.training and not go.is_in_onnx_export()
    after = model.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)   # running statistics untouched
    model.eval()
    go.export(model, gg.tensor(np.random.rand(4, 3).astype(np.float32)), None)
    assert seen[-1] == (True, False) and not model.training


def test_training_mode_exports_batch_statistics_and_dropout():
    model = nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.Dropout(0.5))
    x = np.random.default_rng(0).standard_normal((64, 5)).astype(np.float32)
    proto = go.export(model, gg.tensor(x), None, training=go.TrainingMode.TRAINING, input_names=["x"])
    assert "Dropout" in {n.op_type for n in proto.graph.node}
    y = session(proto, optimize=False).run(None, {"x": x})[0]
    kept = y != 0
    assert 0.3 < kept.mean() < 0.7
    normalized = y * 0.5  # kept values were scaled by 1 / (1 - p)
    model.train()
    with gg.no_grad():
        ref = model[1](model[0](gg.tensor(x))).numpy()
    np.testing.assert_allclose(normalized[kept], ref[kept], rtol=1e-4, atol=1e-5)


def test_verify_runs_onnxruntime_on_the_example():
    go.export(gg.models.SimpleCNN(), gg.tensor(np.random.rand(2, 1, 28, 28).astype(np.float32)), None, verify=True)


def test_fallthrough_keeps_ops_without_an_onnx_form_as_custom_nodes():
    packed = lambda x: nn.utils.rnn.pack_padded_sequence(x, [3, 2]).data * 2.0
    x = gg.tensor(np.ones((3, 2, 4), np.float32))
    with pytest.raises(go.UnsupportedOperatorError, match="PackSequence"):
        go.export(packed, x, None)
    proto = go.export(packed, x, None, operator_export_type=go.OperatorExportTypes.ONNX_FALLTHROUGH)
    custom = [n for n in proto.graph.node if n.domain == "org.glassgrad"]
    assert [n.op_type for n in custom] == ["PackSequence"]
    assert ("org.glassgrad", 1) in [(o.domain, o.version) for o in proto.opset_import]


# ---- errors ----

def test_an_op_without_onnx_form_names_the_op_the_layer_and_the_opset():
    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 3)

        def forward(self, x):
            return self.rnn(nn.utils.rnn.pack_padded_sequence(x, [3, 2]))[1]

    with pytest.raises(go.UnsupportedOperatorError) as info:
        go.export(Packed(), gg.tensor(np.ones((3, 2, 4), np.float32)), None, opset_version=17)
    msg = str(info.value)
    # The first node without an ONNX form on the output's path is refused: the PackSequence node
    # (recorded in the module's forward) or, where the GRU reads the lengths as its own attribute
    # (batch_sizes), the GRU's node. Either way the message names the op and where it was recorded.
    named = ("PackSequence" in msg and "in Packed" in msg) or ("GRUSequence" in msg and "GRU 'rnn'" in msg)
    assert named and "opset 17" in msg and "packed sequence" in msg, msg
    assert "fix:" in msg
    assert isinstance(info.value, NotImplementedError) and isinstance(info.value, gg.GlassgradError)


def test_an_op_mapped_only_by_a_later_opset_says_which(monkeypatch):
    from glassgrad.onnx import _registry
    conv = _registry.converter("GELU")
    monkeypatch.setitem(_registry.CONVERTERS, "GELU", _registry.Converter("GELU", conv.fn, "Gelu", 20))
    with pytest.raises(go.UnsupportedOperatorError, match=r"(?s)GELU .*opset 18.*opset_version=20"):
        go.export(nn.Sequential(nn.GELU()), gg.tensor(np.ones(3, np.float32)), None)


def test_size_arithmetic_the_file_cannot_express_is_refused_with_the_fix():
    halves = lambda x: x.reshape(x.shape[0] // 2, -1)
    with pytest.raises(go.OnnxExporterError, match="dynamic_axes"):
        go.export(halves, gg.tensor(np.ones((4, 3), np.float32)), None, input_names=["x"],
                  dynamic_axes={"x": {0: "batch"}})


def test_bad_arguments_are_refused_with_the_fix():
    model, x = nn.Sequential(nn.Linear(4, 3)), gg.tensor(np.ones((2, 4), np.float32))
    with pytest.raises(go.OnnxExporterError, match="(?s)opset_version=999 is not supported.*fix: opset_version=18"):
        go.export(model, x, None, opset_version=999)
    with pytest.raises(go.OnnxExporterError, match="(?s)opset_version='12' is not supported.*fix: opset_version=18"):
        go.export(model, x, None, opset_version="12")
    with pytest.raises(go.OnnxExporterError, match=r"number of input names provided \(2\) exceeded"):
        go.export(model, x, None, input_names=["a", "b"])
    with pytest.raises(go.UnsupportedOperatorError, match="ATen"):
        go.export(model, x, None, operator_export_type=go.OperatorExportTypes.ONNX_ATEN)
    with pytest.warns(UserWarning, match="not a valid input/output name"):
        go.export(model, x, None, dynamic_axes={"nope": [0]})
    with pytest.raises(go.OnnxExporterError, match="path or a binary file"):
        go.export(model, x, 42)


def test_signature_is_torchs_legacy_exporter():
    import inspect
    theirs = {"model": inspect.Parameter.empty, "args": inspect.Parameter.empty, "export_params": True,
              "verbose": False, "training": 0, "input_names": None, "output_names": None,
              "operator_export_type": 0, "opset_version": None, "do_constant_folding": True, "dynamic_axes": None,
              "keep_initializers_as_inputs": None, "custom_opsets": None, "export_modules_as_functions": False,
              "autograd_inlining": True}
    ours = inspect.signature(go.export).parameters
    names = list(ours)
    assert names[:len(theirs) + 1] == ["model", "args", "f"] + list(theirs)[2:]
    for name, default in theirs.items():
        assert ours[name].default == default, name


@pytest.mark.cuda
def test_a_model_on_the_gpu_exports_the_file_it_exports_on_the_cpu():
    """The file describes the model, not its device: a model and input on the GPU give the same ops
    and weights, and onnxruntime (CPU) on it matches the GPU's outputs."""
    if not gg.cuda.is_available():
        pytest.skip(gg.cuda.why_unavailable())
    model = gg.models.SimpleCNN().eval()  # the file holds inference: BatchNorm with its running statistics
    x = np.random.default_rng(0).standard_normal((3, 1, 28, 28)).astype(np.float32)
    on_cpu = go.export(model, gg.tensor(x), None, input_names=["x"])
    model.to("cuda")
    on_gpu = go.export(model, gg.tensor(x, device="cuda"), None, input_names=["x"])
    assert [n.op_type for n in on_gpu.graph.node] == [n.op_type for n in on_cpu.graph.node]
    for a, b in zip(on_gpu.graph.initializer, on_cpu.graph.initializer):
        assert a.name == b.name and a.raw_data == b.raw_data
    got = session(on_gpu).run(None, {"x": x})[0]
    with gg.no_grad():
        want = model(gg.tensor(x, device="cuda")).cpu().numpy()
    assert relative_error(got, want) <= 1e-5
