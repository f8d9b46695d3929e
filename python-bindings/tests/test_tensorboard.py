"""glassgrad.utils.tensorboard.SummaryWriter writes real TensorBoard event files: TensorBoard's
own reader (EventAccumulator) reads back every kind of summary written."""
import os

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import glassgrad as gg
from glassgrad.utils.tensorboard import SummaryWriter


def _read(path):
    ea = EventAccumulator(str(path), size_guidance={"scalars": 0, "images": 0, "histograms": 0, "tensors": 0})
    ea.Reload()
    return ea


def test_scalars_are_read_back_by_tensorboard(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(5):
            w.add_scalar("loss/train", 1.0 / (step + 1), step)
        w.add_scalar("acc", gg.tensor(np.array(0.75, np.float32), device="cpu"), 7, walltime=123.0)
    ea = _read(tmp_path)
    assert [(e.step, round(e.value, 6)) for e in ea.Scalars("loss/train")] == [(s, round(1 / (s + 1), 6))
                                                                                for s in range(5)]
    acc = ea.Scalars("acc")[0]
    assert (acc.step, acc.value, acc.wall_time) == (7, 0.75, 123.0)


def test_add_scalars_writes_one_run_per_tag(tmp_path):
    w = SummaryWriter(str(tmp_path))
    w.add_scalars("loss", {"train": 0.5, "test": 0.7}, 1)
    w.close()
    assert sorted(d for d in os.listdir(tmp_path) if os.path.isdir(tmp_path / d)) == ["loss_test", "loss_train"]
    assert _read(tmp_path / "loss_test").Scalars("loss")[0].value == pytest.approx(0.7)


def test_images_round_trip_as_png(tmp_path):
    img = np.zeros((3, 4, 5), np.float32)
    img[0] = 1.0  # red
    w = SummaryWriter(str(tmp_path))
    w.add_image("chw", gg.tensor(img, device="cpu"), 0)
    w.add_image("hwc", (img.transpose(1, 2, 0) * 255).astype(np.uint8), 1, dataformats="HWC")
    w.add_images("batch", np.stack([img, img]), 2)
    w.close()
    ea = _read(tmp_path)
    from PIL import Image
    import io
    for tag in ("chw", "hwc"):
        e = ea.Images(tag)[0]
        px = np.asarray(Image.open(io.BytesIO(e.encoded_image_string)))
        assert (e.height, e.width) == (4, 5) and px[0, 0].tolist()[:3] == [255, 0, 0]
    assert ea.Images("batch")[0].width == 10
    with pytest.raises(ValueError, match="dataformats"):
        SummaryWriter(str(tmp_path)).add_image("bad", img, 0, dataformats="HWC")


def test_histograms_count_every_value(tmp_path):
    values = np.random.default_rng(0).standard_normal(1000)
    w = SummaryWriter(str(tmp_path))
    w.add_histogram("weights", gg.tensor(values.astype(np.float32), device="cpu"), 3)
    w.add_histogram("auto", values, 4, bins="auto")
    w.close()
    h = _read(tmp_path).Histograms("weights")[0].histogram_value
    assert h.num == 1000 and sum(h.bucket) == 1000
    assert h.min == pytest.approx(values.min(), rel=1e-6) and h.max == pytest.approx(values.max(), rel=1e-6)
    assert h.sum_squares == pytest.approx(float(np.dot(values, values)), rel=1e-5)
    assert sum(_read(tmp_path).Histograms("auto")[0].histogram_value.bucket) == 1000
    with pytest.raises(ValueError, match="NaN"):
        SummaryWriter(str(tmp_path)).add_histogram("bad", np.array([np.nan]))


def test_add_graph_writes_the_compiled_graph_with_layer_scopes(tmp_path):
    model = gg.models.SimpleCNN().to("cpu")
    w = SummaryWriter(str(tmp_path))
    w.add_graph(model, gg.tensor(np.zeros((2, 1, 28, 28), np.float32), device="cpu"))
    w.close()
    graph = _read(tmp_path).Graph()
    names = [n.name for n in graph.node]
    ops = {n.op for n in graph.node}
    assert "Conv2D" in ops and any(n.startswith("conv1/") for n in names) and any(n.startswith("fc/") for n in names)
    conv = next(n for n in graph.node if n.op == "Conv2D")
    assert "conv1.weight" in conv.input
    assert [d.size for d in conv.attr["_output_shapes"].list.shape[0].dim] == [2, 16, 26, 26]
    with pytest.raises(ValueError, match="example input"):
        SummaryWriter(str(tmp_path)).add_graph(model)


def test_text_flush_close_and_default_log_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
    w.add_text("notes", "hello", 0)
    w.flush()
    assert _read(w.get_logdir()).Tags()["tensors"] == ["notes/text_summary"]
    w.close()
    w.close()  # twice is fine
    with pytest.raises(ValueError, match="one number"):
        SummaryWriter(str(tmp_path / "x")).add_scalar("v", np.ones(3), 0)


def test_pr_curves_count_each_threshold_as_a_loop_over_thresholds_does(tmp_path):
    # PyTorch's add_pr_curve: at threshold t = i / (n - 1), a prediction p is positive when its
    # bucket floor(p * (n - 1)) is at least i; rows tp, fp, tn, fn, precision, recall as float32,
    # at most 127 thresholds, in TensorBoard's "pr_curves" plugin.
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 60)
    predictions = rng.random(60).astype(np.float32)
    predictions[:3] = [0.0, 1.0, 0.5]
    with SummaryWriter(str(tmp_path)) as w:
        w.add_pr_curve("class0", gg.tensor(labels), gg.tensor(predictions), 2, num_thresholds=11)
        w.add_pr_curve("capped", labels, predictions, num_thresholds=500)
        w.add_pr_curve("weighted", labels == 1, predictions, num_thresholds=5, weights=np.arange(60.0))
    ea = _read(tmp_path)
    event = ea.Tensors("class0")[0]
    data = np.array(event.tensor_proto.float_val, np.float32).reshape(6, 11)
    assert event.step == 2 and ea.summary_metadata["class0"].plugin_data.plugin_name == "pr_curves"

    def expected(n, weight):
        bucket = np.floor(predictions.astype(np.float64) * (n - 1))
        rows = []
        for i in range(n):
            pred_pos = bucket >= i
            tp = (weight * (pred_pos & (labels == 1))).sum()
            fp = (weight * (pred_pos & (labels == 0))).sum()
            fn = (weight * (~pred_pos & (labels == 1))).sum()
            tn = (weight * (~pred_pos & (labels == 0))).sum()
            rows.append([tp, fp, tn, fn, tp / max(1e-7, tp + fp), tp / max(1e-7, tp + fn)])
        return np.array(rows).T

    np.testing.assert_allclose(data, expected(11, np.ones(60)), rtol=1e-6)
    capped = ea.Tensors("capped")[0].tensor_proto
    assert [d.size for d in capped.tensor_shape.dim] == [6, 127]
    weighted = np.array(ea.Tensors("weighted")[0].tensor_proto.float_val).reshape(6, 5)
    np.testing.assert_allclose(weighted, expected(5, np.arange(60.0)), rtol=1e-6)
    with pytest.raises(ValueError, match="must have one shape"):
        SummaryWriter(str(tmp_path)).add_pr_curve("bad", labels[:5], predictions)


def _hparams_events(run):
    """The (tag, summary metadata's plugin content, scalar) of every summary in the run's event
    files, in order (wall times left out)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    out = []
    for name in sorted(os.listdir(run)):
        if not name.startswith("events."):
            continue
        for event in EventFileLoader(os.path.join(run, name)).Load():
            for v in event.summary.value:
                out.append((event.step, v.tag, v.metadata.plugin_data.plugin_name, v.metadata.plugin_data.content,
                            round(v.simple_value, 6) if v.HasField("simple_value") else None))
    return out


def test_add_hparams_writes_the_runs_pytorch_writes(tmp_path, torch):
    """add_hparams: the hparams plugin's three summaries and each metric as a scalar, in the run
    log_dir/run_name, byte for byte PyTorch's (an int, float, bool, str, a tensor, None, a discrete
    domain); a value of another type and a domain of another type raise as in PyTorch."""
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    hp = {"lr": 0.01, "bsize": 64, "nesterov": True, "opt": "adam", "skip": None}
    metrics = {"hparam/accuracy": 0.5, "hparam/loss": 1.25}
    discrete = {"opt": ["adam", "sgd"], "bsize": [32, 64]}
    with SummaryWriter(str(tmp_path / "gg")) as w:
        w.add_hparams(dict(hp, scale=gg.tensor([2.5])), metrics, discrete, run_name="trial", global_step=3)
    with TorchWriter(str(tmp_path / "torch")) as w:
        w.add_hparams(dict(hp, scale=torch.tensor([2.5])), metrics, discrete, run_name="trial", global_step=3)
    ours, theirs = _hparams_events(tmp_path / "gg" / "trial"), _hparams_events(tmp_path / "torch" / "trial")
    assert len(ours) == 5 and ours == theirs
    with SummaryWriter(str(tmp_path / "default")) as w:
        w.add_hparams({"lr": 0.1}, {"acc": 1.0})
    run, = (d for d in os.listdir(tmp_path / "default") if os.path.isdir(tmp_path / "default" / d))
    assert float(run) > 0  # named by the time, as PyTorch's
    for bad, error in (({"lr": [0.1]}, ValueError), ({"lr": 0.1, "opt": "adam"}, TypeError)):
        discrete_bad = {"opt": [1, 2]} if "opt" in bad else None
        for writer in (SummaryWriter(str(tmp_path / "bad")), TorchWriter(str(tmp_path / "bad_torch"))):
            with pytest.raises(error):
                writer.add_hparams(bad, {"acc": 1.0}, discrete_bad)
            writer.close()
    with pytest.raises(TypeError, match="should be dictionary"):
        SummaryWriter(str(tmp_path / "bad")).add_hparams([("lr", 0.1)], {"acc": 1.0})
