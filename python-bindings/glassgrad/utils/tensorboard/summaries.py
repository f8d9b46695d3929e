"""The protocol-buffer summaries SummaryWriter writes, from NumPy values: scalars, images (PNG),
histograms (TensorFlow's bucket edges, as PyTorch's bins="tensorflow"), text, precision-recall
curves, and a GraphDef
of a compiled glassgrad plan (add_graph)."""
from __future__ import annotations

import io
from typing import Dict, List, Optional, Sequence

import numpy as np
from tensorboard.compat.proto import (attr_value_pb2, graph_pb2, node_def_pb2, summary_pb2, tensor_pb2,
                                      tensor_shape_pb2, types_pb2, versions_pb2)
from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_curve_plugin
from tensorboard.plugins.text import plugin_data_pb2 as text_plugin


def scalar(tag: str, value: float, double_precision: bool = False) -> summary_pb2.Summary:
    v = float(value)
    if double_precision:
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[v],
                                        tensor_shape=tensor_shape_pb2.TensorShapeProto())
        meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"))
        return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=meta)])
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=v)])


def _hwc_uint8(img: np.ndarray, dataformats: str) -> np.ndarray:
    fmt = dataformats.upper()
    shape = list(img.shape)
    if sorted(fmt) not in (sorted("HW"), sorted("CHW"), sorted("HWC")) or len(set(fmt)) != len(fmt):
        raise ValueError(f"add_image: dataformats must be a permutation of 'CHW', 'HWC' or 'HW', got {dataformats!r}")
    if img.ndim != len(fmt):
        raise ValueError(f"add_image: the image has {img.ndim} axes but dataformats {dataformats!r} names {len(fmt)}"
                         f"\n  fix: pass dataformats='HWC' for an (H, W, C) array, or 'HW' for a grey (H, W) one")
    if fmt == "HW" or fmt == "WH":
        img = img.transpose([fmt.index("H"), fmt.index("W")])[:, :, None]
    else:
        img = img.transpose([fmt.index("H"), fmt.index("W"), fmt.index("C")])
    if img.shape[2] == 1:
        img = np.concatenate([img] * 3, axis=2)
    if img.shape[2] not in (3, 4):
        raise ValueError(f"add_image: an image has 1, 3 or 4 channels, got {img.shape[2]} (shape {shape} read with "
                         f"dataformats {dataformats!r})\n  fix: pass the dataformats the array has: 'CHW' for "
                         f"(C, H, W), 'HWC' for (H, W, C)")
    if img.dtype != np.uint8:  # floats are in [0, 1], as PyTorch's add_image takes them
        img = np.clip(img.astype(np.float64) * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return img


def image(tag: str, img: np.ndarray, dataformats: str = "CHW") -> summary_pb2.Summary:
    from PIL import Image
    hwc = _hwc_uint8(np.asarray(img), dataformats)
    buf = io.BytesIO()
    Image.fromarray(hwc).save(buf, format="PNG")
    proto = summary_pb2.Summary.Image(height=hwc.shape[0], width=hwc.shape[1], colorspace=hwc.shape[2],
                                      encoded_image_string=buf.getvalue())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=proto)])


def _tensorflow_bucket_limits() -> np.ndarray:
    """TensorFlow's histogram edges: +-1e-12 growing by 10% up to 1e20, and +-DBL_MAX."""
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    pos.append(np.finfo(np.float64).max)
    pos = np.array(pos)
    return np.concatenate([-pos[::-1], [0.0], pos])


def histogram(tag: str, values: np.ndarray, bins="tensorflow", max_bins: Optional[int] = None) -> summary_pb2.Summary:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.size == 0:
        raise ValueError("add_histogram: the values are empty")
    if not np.all(np.isfinite(v)):
        raise ValueError("add_histogram: the values hold NaN or infinity\n  fix: check the tensor "
                         "(glassgrad.debug.detect_anomaly() finds where a NaN first appears)")
    if isinstance(bins, str) and bins == "tensorflow":
        edges = _tensorflow_bucket_limits()
        counts = np.bincount(np.searchsorted(edges, v, side="left"), minlength=edges.size + 1)[:edges.size]
        limits = edges
    else:
        counts, e = np.histogram(v, bins=bins)
        limits = e[1:]
    if max_bins is not None and counts.size > max_bins:  # merge neighbours
        sub = -(-counts.size // max_bins)
        pad = (-counts.size) % sub
        counts = np.concatenate([counts, np.zeros(pad, counts.dtype)]).reshape(-1, sub).sum(1)
        limits = np.concatenate([limits, np.full(pad, limits[-1])]).reshape(-1, sub)[:, -1]
    nonzero = np.nonzero(counts)[0]
    if nonzero.size:  # keep the buckets between the first and the last non-empty one (plus one either side)
        lo, hi = max(nonzero[0] - 1, 0), min(nonzero[-1] + 2, counts.size)
        counts, limits = counts[lo:hi], limits[lo:hi]
    proto = summary_pb2.HistogramProto(min=float(v.min()), max=float(v.max()), num=int(v.size), sum=float(v.sum()),
                                       sum_squares=float(np.dot(v, v)), bucket_limit=limits.tolist(),
                                       bucket=counts.astype(np.float64).tolist())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=proto)])


def text(tag: str, text_string: str) -> summary_pb2.Summary:
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="text", content=text_plugin.TextPluginData(version=0).SerializeToString()))
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[text_string.encode("utf-8")],
                                    tensor_shape=tensor_shape_pb2.TensorShapeProto(
                                        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)]))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                                                tensor=tensor)])


def pr_curve_data(labels: np.ndarray, predictions: np.ndarray, num_thresholds: int,
                  weights: Optional[np.ndarray] = None) -> np.ndarray:
    """The [6, num_thresholds] rows TensorBoard's PR-curve plugin reads: true positives, false
    positives, true negatives, false negatives, precision and recall at the thresholds
    i / (num_thresholds - 1). A prediction p falls in bucket floor(p * (num_thresholds - 1)) and
    counts as positive at every threshold up to its bucket's (PyTorch's add_pr_curve and
    TensorBoard's own summary count this way; a bucket outside [0, num_thresholds - 1] counts
    nowhere); precision and recall divide by at least 1e-7."""
    w = np.ones_like(labels, dtype=np.float64) if weights is None else np.broadcast_to(weights, labels.shape)
    positive: np.ndarray = labels.astype(np.float64).reshape(-1)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    bucket = np.floor(predictions.astype(np.float64).reshape(-1) * (num_thresholds - 1)).astype(np.int64)
    inside = (bucket >= 0) & (bucket <= num_thresholds - 1)  # PyTorch's histogram drops the rest
    bucket, positive, w = bucket[inside], positive[inside], w[inside]
    tp_at = np.bincount(bucket, weights=positive * w, minlength=num_thresholds)
    fp_at = np.bincount(bucket, weights=(1.0 - positive) * w, minlength=num_thresholds)
    tp = np.cumsum(tp_at[::-1])[::-1]  # predicted positive at threshold i: bucket >= i
    fp = np.cumsum(fp_at[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall])


def pr_curve(tag: str, labels: np.ndarray, predictions: np.ndarray, num_thresholds: int = 127,
             weights: Optional[np.ndarray] = None) -> summary_pb2.Summary:
    # PyTorch caps the thresholds at 127, as TensorBoard's plugin expects at most that many.
    n = min(int(num_thresholds), 127)
    data: np.ndarray = pr_curve_data(labels, predictions, n, weights).astype(np.float32)
    content = pr_curve_plugin.PrCurvePluginData(version=0, num_thresholds=n).SerializeToString()
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="pr_curves", content=content))
    dims = [tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in data.shape]
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=data.reshape(-1).tolist(),
                                    tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=dims))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=tensor)])


def _shape_attr(shapes: Sequence[Sequence[int]]) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(shape=[
        tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in s])
        for s in shapes]))


def graph_def(steps: List[dict], slots: List[dict]) -> graph_pb2.GraphDef:
    """A GraphDef of a plan: a node per input or parameter buffer the steps read, and one per
    step (named <layer>/<op>_<k> so TensorBoard groups a layer's ops), each with the shapes and
    dtypes of what it makes."""
    by_id: Dict[int, dict] = {s["id"]: s for s in slots}
    producer: Dict[int, str] = {}
    nodes = []
    produced = {o for st in steps for o in st["outputs"]}
    for st in steps:
        for i in st["inputs"]:
            if i in produced or i in producer or i not in by_id:
                continue
            s = by_id[i]
            name = (s.get("name") or f"{s.get('kind', 'input')}_{i}").replace(":", "_")
            producer[i] = name
            nodes.append(node_def_pb2.NodeDef(
                name=name, op="Parameter" if s.get("name") else "IO Node",
                attr={"_output_shapes": _shape_attr([s["shape"]]),
                      "attr": attr_value_pb2.AttrValue(s=f"{s['dtype']} {s['device']} ({s.get('kind', '')})".encode())}))
    for k, st in enumerate(steps):
        scope = (st.get("scope") or "").replace(".", "/")
        name = f"{scope}/{st['op']}_{k}" if scope else f"{st['op']}_{k}"
        outs = [by_id[o] for o in st["outputs"] if o in by_id]
        attrs = ", ".join(f"{a}={v}" for a, v in sorted(st.get("attrs", {}).items()))
        nodes.append(node_def_pb2.NodeDef(
            name=name, op=st["op"], input=[producer[i] for i in st["inputs"] if i in producer],
            attr={"_output_shapes": _shape_attr([s["shape"] for s in outs]),
                  "attr": attr_value_pb2.AttrValue(s=f"{st.get('role', '')} {attrs}".strip().encode())}))
        for o in st["outputs"]:
            producer[o] = name
    return graph_pb2.GraphDef(node=nodes, versions=versions_pb2.VersionDef(producer=22))
