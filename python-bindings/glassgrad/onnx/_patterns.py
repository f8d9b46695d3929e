"""Groups of recorded nodes that export as one ONNX op, and single nodes as themselves.

glassgrad records some layers as several primitive ops; ONNX has one op for them, which runtimes
run faster and viewers show as the layer:

    Gemm                 Permute(W, [1, 0]) -> MatMul(x, .) [-> Add(., b)], x 2-D, b 1-D:
                         nn.Linear on a batch of vectors (Gemm with transB = 1, W as stored)
    LayerNormalization   Mean(x, D) and Var(x, D, correction 0) -> Sub(x, mean) / Sqrt(var + eps)
                         [-> Mul(., w)] [-> Add(., b)], D the last axes: nn.LayerNorm (opset 17+,
                         not float64: its statistics are float32 at most)

A group is taken only when nothing else reads its inner values. Its unit is emitted where its
last node was recorded (every input of the group is computed before that).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Set

from ._capture import Captured
from ._symbolic import Sym


@dataclass
class Unit:
    op: str              # the converter to call: the node's op, or a pattern's name ("@Gemm")
    node: dict           # the node that names the unit in messages (the last of a pattern)
    inputs: List[int]    # value ids
    outputs: List[int]
    attrs: dict


class _Graph:
    def __init__(self, captured: Captured, used: Dict[int, int]):
        self.c = captured
        self.used = used
        self.producer: Dict[int, int] = {}
        for i, node in enumerate(captured.nodes):
            for o in node["outputs"]:
                self.producer[o] = i

    def node(self, i: int) -> dict:
        return self.c.nodes[i]

    def attrs(self, i: int) -> dict:
        return self.c.attrs[i]

    def made_by(self, vid: int, op: str, only_reader: bool = True) -> Optional[int]:
        """The node computing vid, when it is an `op` and (only_reader) vid has one reader."""
        i = self.producer.get(vid)
        if i is None or self.node(i)["op"] != op:
            return None
        if only_reader and self.used.get(vid, 0) != 1:
            return None
        return i

    def sole_reader(self, vid: int, op: str) -> Optional[int]:
        if self.used.get(vid, 0) != 1:
            return None
        for j in range(self.producer.get(vid, -1) + 1, len(self.c.nodes)):
            if vid in self.node(j)["inputs"]:
                return j if self.node(j)["op"] == op else None
        return None

    def shape(self, vid: int):
        return self.c.shapes[vid]


def _gemm(g: _Graph, i: int) -> Optional[tuple]:
    """MatMul node i as the core of a Linear layer: (absorbed nodes, anchor, Unit)."""
    node = g.node(i)
    if len(node["inputs"]) != 2:
        return None
    x, t = node["inputs"]
    p = g.made_by(t, "Permute")
    if p is None or list(g.attrs(p).get("dims", [])) != [1, 0] or len(g.shape(x)) != 2:
        return None
    w = g.node(p)["inputs"][0]
    out = node["outputs"][0]
    add = g.sole_reader(out, "Add")
    if add is not None:
        a, b = g.node(add)["inputs"]
        bias = b if a == out else a
        if len(g.shape(bias)) == 1 and g.shape(bias)[0] == g.shape(w)[0]:
            return [p, i, add], add, Unit("@Gemm", g.node(add), [x, w, bias], list(g.node(add)["outputs"]), {})
    return [p, i], i, Unit("@Gemm", node, [x, w], [out], {})


def _trailing(dims, rank: int) -> Optional[int]:
    """The first normalized axis when dims are the last axes of a rank-`rank` tensor."""
    if not dims:
        return None
    axes = sorted(int(d) % rank for d in dims)
    return axes[0] if axes == list(range(axes[0], rank)) else None


def _affine_step(g: _Graph, out: int, op: str, normalized: list) -> Optional[tuple]:
    """The sole `op` node reading `out` with an operand of the normalized shape (a layer norm's
    weight or bias): (that node, the operand), or None."""
    k = g.sole_reader(out, op)
    if k is None:
        return None
    a, b = g.node(k)["inputs"]
    other = b if a == out else a
    return (k, other) if list(g.shape(other)) == normalized else None


def _layer_norm(g: _Graph, i: int) -> Optional[tuple]:
    """Div node i as the core of a layer norm: (absorbed nodes, anchor, Unit)."""
    c, s = g.node(i)["inputs"]
    sub, sqrt = g.made_by(c, "Sub"), g.made_by(s, "Sqrt")
    if sub is None or sqrt is None:
        return None
    x, m = g.node(sub)["inputs"]
    add_eps = g.made_by(g.node(sqrt)["inputs"][0], "AddScalar")
    mean = g.made_by(m, "Mean")
    if add_eps is None or mean is None:
        return None
    var = g.made_by(g.node(add_eps)["inputs"][0], "Var")
    if var is None or g.node(mean)["inputs"][0] != x or g.node(var)["inputs"][0] != x:
        return None
    if g.c.trace.values[x]["dtype"] == "float64":  # LayerNormalization computes in float32 at most
        return None
    rank = len(g.shape(x))
    dims = g.attrs(mean).get("dims")
    axis = _trailing(dims, rank)
    vattrs = g.attrs(var)
    if axis is None or _trailing(vattrs.get("dims"), rank) != axis or int(vattrs.get("correction", 1)) != 0 \
            or not g.attrs(mean).get("keepdim") or not vattrs.get("keepdim"):
        return None
    normalized = list(g.shape(x)[axis:])
    nodes = [mean, var, sub, add_eps, sqrt, i]
    out, anchor, scale, bias = g.node(i)["outputs"][0], i, None, None
    affine = _affine_step(g, out, "Mul", normalized)
    if affine is not None:
        anchor, scale = affine
        nodes.append(anchor)
        out = g.node(anchor)["outputs"][0]
        affine = _affine_step(g, out, "Add", normalized)
        if affine is not None:
            anchor, bias = affine
            nodes.append(anchor)
            out = g.node(anchor)["outputs"][0]
    if scale is None and any(isinstance(d, Sym) for d in normalized):
        return None
    inputs = [x] + ([scale] if scale is not None else []) + ([bias] if bias is not None else [])
    attrs = {"axis": axis, "eps": float(g.attrs(add_eps).get("value")), "normalized_shape": normalized,
             "has_scale": scale is not None}
    return nodes, anchor, Unit("@LayerNormalization", g.node(anchor), inputs, [out], attrs)


_PATTERNS = {"MatMul": (_gemm, 13), "Div": (_layer_norm, 17)}


def units(captured: Captured, opset: int, used: Dict[int, int]) -> Iterator[Unit]:
    g = _Graph(captured, used)
    absorbed: Set[int] = set()
    at: Dict[int, Unit] = {}
    for i, node in enumerate(captured.nodes):
        found = _PATTERNS.get(node["op"])
        if found is None or opset < found[1] or i in absorbed:
            continue
        match = found[0](g, i)
        if match is None:
            continue
        nodes, anchor, unit = match
        if absorbed.intersection(nodes):
            continue
        absorbed.update(nodes)
        at[anchor] = unit
    for i, (node, attrs) in enumerate(zip(captured.nodes, captured.attrs)):
        if i in at:
            yield at[i]
        elif i not in absorbed:
            yield Unit(node["op"], node, list(node["inputs"]), list(node["outputs"]), attrs)
