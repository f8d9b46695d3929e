"""Looking at compiled plans: what will run (explain) and what ran last (last_plan).

A plan is what the compiler makes of a step: the ordered steps (op, layer, forward/backward,
fusion group, recomputed or not) and the buffer table (every intermediate's arena offset and
lifetime, inputs, outputs), with the predicted peak memory per device.

    print(glassgrad.debug.explain(loss))           # the plan that would compute loss; runs nothing
    glassgrad.debug.last_plan().to_dot("step.dot") # Graphviz: dot -Tsvg step.dot -o step.svg
"""
from __future__ import annotations

from typing import List, Optional

from .. import _C
from .._tensor import Tensor


def _fmt_bytes(n: int) -> str:
    return _C.format_bytes(int(n))


def _short(shape, dtype) -> str:
    return f"{list(shape)} {dtype}"


class PlanView:
    """A printable compiled plan. str(view) lists the steps with their shapes, layers, roles,
    fusion groups and source lines, then the buffers with arena offsets and lifetimes."""

    def __init__(self, plan: "_C.Plan"):
        self.plan = plan

    # ---- data ----
    @property
    def steps(self) -> List[dict]:
        return self.plan.steps

    @property
    def buffers(self) -> List[dict]:
        labels = _C.buffer_labels(self.plan)
        out = []
        for s in self.plan.slots:
            d = dict(s)
            d["label"] = labels[s["id"]]
            out.append(d)
        return out

    @property
    def num_steps(self) -> int:
        return self.plan.num_steps

    @property
    def devices(self) -> List[str]:
        return sorted({s["device"] for s in self.plan.slots})

    def predicted_peak_bytes(self, device: Optional[str] = None) -> int:
        if device is None:
            return self.plan.predicted_peak_bytes()
        return self.plan.arena_bytes.get(device, 0) + self.plan.external_bytes.get(device, 0)

    def largest_buffers(self, k: int = 5, device: str = "cpu") -> List[dict]:
        """The k largest buffers on a device: bytes, label, and where they come from."""
        return list(_C.largest_buffers(self.plan, device, k))

    def fusion_groups(self) -> dict:
        groups: dict = {}
        for i, st in enumerate(self.steps):
            if st["fusion_group"] >= 0:
                groups.setdefault(st["fusion_group"], []).append(i)
        return groups

    def recomputed_steps(self) -> List[int]:
        return [i for i, st in enumerate(self.steps) if st["role"] == "recompute"]

    # ---- output ----
    def dot(self) -> str:
        return self.plan.dot()

    def to_dot(self, path: Optional[str] = None) -> str:
        """The plan as Graphviz DOT (returned, and written to `path` if given)."""
        text = self.plan.dot()
        if path is not None:
            with open(path, "w") as f:
                f.write(text)
        return text

    def raw(self, buffers: bool = True) -> str:
        """The engine's own compact listing (Plan::str)."""
        return self.plan.str(buffers)

    def text(self, buffers: bool = True, max_steps: Optional[int] = None) -> str:
        slots = self.buffers
        lines = [f"Plan: {self.num_steps} steps, {len(slots)} buffers"]
        for d in sorted(self.plan.arena_bytes):
            arena = self.plan.arena_bytes[d]
            ext = self.plan.external_bytes.get(d, 0)
            lines.append(f"  {d}: predicted peak {_fmt_bytes(arena + ext)} = arena {_fmt_bytes(arena)} "
                         f"(peak live {_fmt_bytes(self.plan.peak_live_bytes.get(d, 0))}) + inputs/outputs "
                         f"{_fmt_bytes(ext)}")
        groups = self.fusion_groups()
        if groups:
            lines.append("  fusion groups: " + ", ".join(f"{g}: #{v[0]}..#{v[-1]}" for g, v in sorted(groups.items())))
        recomputed = self.recomputed_steps()
        if recomputed:
            lines.append(f"  recomputed steps (checkpointing): {len(recomputed)}")
        lines.append("steps:")
        n = len(self.steps) if max_steps is None else min(max_steps, len(self.steps))

        def ref(i):
            s = slots[i]
            return f"${i} {s['label']} {_short(s['shape'], s['dtype'])}"

        for i, st in enumerate(self.steps[:n]):
            tags = [st["role"]]
            if st["role"] == "recompute":
                tags[0] = "recomputed"
            if st["fusion_group"] >= 0:
                tags.append(f"fusion {st['fusion_group']}")
            where = st["scope"] or "-"
            src = f"  {st['source']}" if st["source"] else ""
            lines.append(f"  #{i:<4d} {st['op']:<24s} {where:<20s} ({', '.join(tags)}){src}")
            for k in st["inputs"]:
                lines.append(f"          in   {ref(k)}")
            for k in st["outputs"]:
                s = slots[k]
                place = ""
                if s["kind"] in ("arena", "workspace"):
                    place = f"  arena @{s['offset']}, live #{s['first_step']}..#{s['last_step']}"
                elif s["kind"] != "input":
                    place = f"  ({s['kind']})"
                lines.append(f"          out  {ref(k)}{place}")
            if st["workspace"] >= 0:
                w = slots[st["workspace"]]
                lines.append(f"          ws   {_fmt_bytes(w['bytes'])} arena @{w['offset']}")
            if st["attrs"]:
                attrs = " ".join(f"{k}={v}" for k, v in sorted(st["attrs"].items()))
                lines.append(f"          attrs {attrs}")
        if n < len(self.steps):
            lines.append(f"  ... {len(self.steps) - n} more steps")
        if buffers:
            lines.append("buffers:")
            for s in slots:
                kind = s["kind"]
                if kind == "view":
                    place = f"view of ${s['base']}"
                elif kind in ("arena", "workspace"):
                    place = (f"{_fmt_bytes(s['bytes']):>12s} @{s['offset']:<10d} "
                             f"live #{s['first_step']}..#{s['last_step']}")
                else:
                    place = f"{_fmt_bytes(s['bytes']):>12s}"
                shape = _short(s["shape"], s["dtype"])
                lines.append(f"  ${s['id']:<4d} {kind:<10s}{shape:<28s} {place}   {s['label']}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        peak = _fmt_bytes(self.predicted_peak_bytes())
        return f"<PlanView: {self.num_steps} steps, {len(self.plan.slots)} buffers, predicted peak {peak}>"


class PlanList(list):
    """The plans one call ran, in order (explain(step_fn, ...))."""

    def __str__(self) -> str:
        return "\n\n".join(f"--- plan {i + 1} of {len(self)} ---\n{p}" for i, p in enumerate(self))


def last_plan() -> Optional[PlanView]:
    """The plan run by the most recent realize (optimizer.step(), .item(), ...), or None."""
    p = _C.last_plan()
    return None if p is None else PlanView(p)


def explain(target, *args, **kwargs):
    """The compiled plan(s) behind a tensor or a step function.

    explain(loss) / explain([a, b]): compiles (or reuses) the plan that would compute the pending
        work behind these tensors and returns it, without running anything.
    explain(step_fn, *args): runs step_fn(*args) once (a real step: parameters are updated) and
        returns the plans it ran, in order.
    """
    if isinstance(target, Tensor):
        target = [target]
    if isinstance(target, (list, tuple)) and all(isinstance(t, Tensor) for t in target):
        pending = [t for t in target if not t._h.realized]
        if not pending:
            raise _C.InvalidArgumentError(
                "explain: these tensors are already computed, so no plan is pending for them\n"
                "  fix: call explain(loss) before .item() / optimizer.step(), or look at "
                "glassgrad.debug.last_plan() for the plan that ran last")
        return PlanView(_C.plan_for([t._h for t in pending]))
    if callable(target):
        _C.capture_begin()
        try:
            target(*args, **kwargs)
        finally:
            runs = _C.capture_end()
        return PlanList(PlanView(r.plan) for r in runs)
    raise TypeError(f"explain: expected a tensor, a list of tensors or a step function, got {type(target).__name__}")
