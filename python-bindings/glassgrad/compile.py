"""glassgrad.compile(step): trace a whole training step once, then replay it without Python.

The plain loop re-traces every step (a few dozen cheap calls) and then hits the plan cache.
compile() goes further, like tinygrad's TinyJit: the first call runs normally (it creates the
optimizer's state), the second call records the plans it runs and what is bound to each input,
and every later call with the same argument shapes and dtypes replays those plans directly:
the arguments' data is bound to the recorded input slots, parameters and optimizer state are
updated in place in their usual buffers, and the results come back as new tensors.

What a compiled step may do: read its tensor arguments (anywhere in lists, tuples and dicts),
parameters, buffers and optimizer state, create constants, and draw random tensors through
random_input (dropout does): those are drawn again for every replay, in the order the traced call
drew them. What it must not rely on: Python side effects (prints, .item() inside the step run
only while tracing), branches on data, or tensors computed outside the step that are not
parameters or state (e.g. gradients left over from an earlier backward: zero them inside the
step). A replay never runs on stale data: NumPy arrays and Python values among the arguments are
constants of the trace and key it by value; loading a state_dict, model.to(...), replacing a
layer or a parameter, or model.eval()/train() makes the next call trace again
(CompiledFunction's doc lists every guard).
"""
from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from . import _C, _trace
from ._runtime import records_grad
from ._tensor import Tensor, _wrap
from .nn.module import Module
from .nn.module import structure_version as module_structure_version
from .optim.optimizer import static_version as optim_static_version

_PERSISTENT = {"parameter", "state", "constant"}

def random_input(t: Tensor, draw: Callable[[], "_C.Tensor"]) -> Tensor:
    """Marks `t`, a leaf holding freshly drawn random numbers (e.g. a dropout mask), so that a
    compiled step's replays call draw() for new numbers instead of reusing the traced ones
    (recorded per thread by _trace.recording_step, in the order drawn)."""
    _trace.random_input(_identity(t._raw()), draw)
    return t


def _identity(raw: "_C.Tensor") -> Tuple:
    return (raw.storage_ptr, raw.offset, tuple(raw.shape), tuple(raw.strides), raw.dtype)


def _flatten(out) -> List[Tensor]:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flatten(o)]
    return []


def _rebuild(out, new: Dict[int, Tensor]):
    if isinstance(out, Tensor):
        return new[id(out)]
    if isinstance(out, tuple):
        return type(out)(*(_rebuild(o, new) for o in out)) if hasattr(out, "_fields") else tuple(_rebuild(o, new) for o in out)
    if isinstance(out, list):
        return [_rebuild(o, new) for o in out]
    if isinstance(out, dict):
        return {k: _rebuild(v, new) for k, v in out.items()}
    return out


class _Replay:
    """The recorded plans of one step and, for each plan input, where its data comes from: an
    argument tensor ("arg", its position among the arguments' tensors), an output of an earlier
    run of the step ("out"), a random input drawn anew each call ("random": a dropout mask) or a
    fixed buffer ("fixed": parameters, state, constants)."""

    def __init__(self, runs, arg_tensors: List[Tensor], out, start_seq: int, name: str,
                 random: Dict[Tuple, Callable[[], "_C.Tensor"]]):
        arg_ids = {}
        for i, a in enumerate(arg_tensors):
            arg_ids.setdefault(_identity(a._raw()), i)
        produced: Dict[Tuple, Tuple[int, int]] = {}
        # Random inputs are drawn again before each replay, in the order the traced call drew them.
        random = random or {}
        random_index = {ident: k for k, ident in enumerate(random)}
        self.random_draws = list(random.values())
        self.runs = []
        for r, run in enumerate(runs):
            sources = []
            for k, (raw, kind, seq) in enumerate(zip(run.inputs, run.input_kinds, run.input_seqs)):
                ident = _identity(raw)
                if ident in arg_ids:
                    sources.append(("arg", arg_ids[ident]))
                elif ident in random_index:
                    sources.append(("random", random_index[ident]))
                elif ident in produced:
                    sources.append(("out",) + produced[ident])
                elif kind in _PERSISTENT or seq > start_seq:
                    sources.append(("fixed", raw))
                else:
                    raise _C.GlassgradError(
                        f"glassgrad.compile({name}): the step reads a tensor {list(raw.shape)} {raw.dtype} that was "
                        "computed before the step and is not an argument, a parameter or state\n"
                        "  cause: usually gradients left from an earlier backward(), or a tensor captured from "
                        "outside the function\n  fix: call optimizer.zero_grad() inside the step, and pass data "
                        "as arguments")
            for j, raw in enumerate(run.outputs):
                produced[_identity(raw)] = (r, j)
            self.runs.append([run.executor, sources, None])
        # Which outputs each replay must hand back: those a later run reads or the step returns
        # (e.g. the loss); the rest (gradients zeroed inside the step) need not be copied out.
        needed = set()
        for _, sources, _ in self.runs:
            for s in sources:
                if s[0] == "out":
                    needed.add((s[1], s[2]))
        self.out = out
        self.out_sources = {}
        for t in _flatten(out):
            ident = _identity(t._raw())
            if ident in produced:
                self.out_sources[id(t)] = ("out",) + produced[ident]
            elif ident in arg_ids:
                self.out_sources[id(t)] = ("arg", arg_ids[ident])
            else:
                self.out_sources[id(t)] = ("fixed", t._raw())
            if self.out_sources[id(t)][0] == "out":
                needed.add(self.out_sources[id(t)][1:])
        for r, run in enumerate(self.runs):
            run[2] = [(r, j) in needed for j in range(len(runs[r].outputs))]

    def __call__(self, arg_tensors: List[Tensor]):
        raws = [a._raw() for a in arg_tensors]
        drawn = [draw() for draw in self.random_draws]
        results: List[List["_C.Tensor"]] = []
        for executor, sources, wanted in self.runs:
            inputs = []
            for s in sources:
                if s[0] == "arg":
                    inputs.append(raws[s[1]])
                elif s[0] == "out":
                    inputs.append(results[s[1]][s[2]])
                elif s[0] == "random":
                    inputs.append(drawn[s[1]])
                else:
                    inputs.append(s[1])
            results.append(executor.run(inputs, wanted))
        new = {}
        for t in _flatten(self.out):
            s = self.out_sources[id(t)]
            raw = results[s[1]][s[2]] if s[0] == "out" else (raws[s[1]] if s[0] == "arg" else s[1])
            new[id(t)] = _wrap(_C.lazy_leaf(raw, "input", False, ""))
        return _rebuild(self.out, new)


def _array_key(a: np.ndarray) -> Tuple:
    """A NumPy argument is a constant of the trace (its values are baked into the plans), so it
    keys by its contents: new data traces again instead of replaying an earlier call's."""
    c = np.ascontiguousarray(a)
    digest = hashlib.blake2b(c.view(np.uint8).reshape(-1) if c.size else b"", digest_size=16).hexdigest()
    return ("A", a.shape, a.dtype.str, digest)


class CompiledFunction:
    """A step function traced on its first two calls per argument signature and replayed after
    (see the module doc). What a replay is guarded by:

    - the arguments: tensors (anywhere in lists, tuples and dicts) by shape, dtype and device,
      bound anew each call; Python scalars and strings, NumPy scalars and arrays by value (they are
      constants of the trace); any other object by identity (held, so its id is never reused);
    - the buffers the trace read: loading a state_dict, model.to(...) or replacing a layer or a
      parameter (anything that gives a tensor other storage) traces again;
    - each called layer's training flag (model.eval() traces again), and the optimizers'
      attribute hyperparameters (weight_decay, eps, ...).
    A Dropout mask is drawn anew on every replay."""

    _MAX_ENTRIES = 64  # argument signatures kept; the oldest is dropped beyond (NumPy data keys by value)

    def __init__(self, fn, memory_limit=None):
        self.fn = fn
        self.memory_budget = 0 if memory_limit is None else (
            _C.parse_bytes(memory_limit) if isinstance(memory_limit, str) else int(memory_limit))
        self.name = getattr(fn, "__name__", "step")
        self._entries: "OrderedDict[Tuple, dict]" = OrderedDict()
        functools.update_wrapper(self, fn)

    @staticmethod
    def _key(args, kwargs, keep: List[Any]) -> Tuple:
        def one(a):
            if isinstance(a, Tensor):
                return ("T", a.shape, a.dtype, a.device)
            if a is None or isinstance(a, (bool, int, float, str, bytes)):
                return ("V", type(a).__name__, a)
            if isinstance(a, np.generic):
                return ("S", a.dtype.str, a.item())
            if isinstance(a, np.ndarray):
                return _array_key(a)
            if isinstance(a, (tuple, list)):
                return (type(a).__name__,) + tuple(one(x) for x in a)
            if isinstance(a, dict):
                return ("dict",) + tuple((one(k), one(v)) for k, v in a.items())
            keep.append(a)  # held by the entry: its id cannot be reused by another object
            return ("O", type(a).__name__, id(a))
        # An optimizer hyperparameter held as an op attribute (weight_decay, eps, ...) that changed
        # changes the step's graph: trace again. lr, momentum and beta1 are tensors and never do.
        # Deterministic algorithms pick other CUDA kernels: a replay records the ones traced.
        # Gradient mode decides whether the results carry a graph (a replayable call or not).
        return (optim_static_version(), _C.deterministic_algorithms() or _C.cuda_deterministic(), records_grad(),
                one(list(args)), one(dict(sorted(kwargs.items()))))

    @property
    def replays(self) -> int:
        """How many calls were served by replaying recorded plans."""
        return sum(e["replays"] for e in self._entries.values())

    @property
    def traces(self) -> int:
        """How many calls ran the step's Python to record it: a warm-up and a capture per argument
        signature, and one capture more whenever a guard (buffers, training flags) changed."""
        return sum(e["calls"] for e in self._entries.values())

    @property
    def cuda_graphs(self) -> Dict[str, int]:
        """Over the recorded plans of every argument signature: how many there are ('plans'), how
        many replay as a captured CUDA graph ('captured'), how many captures there were
        ('captures': more than 'captured' means a graph was captured again) and graph launches
        ('replays'). A plan's graph is captured on its third replay; all 0 on the CPU."""
        executors = [run[0] for e in self._entries.values() if e["replay"] is not None for run in e["replay"].runs]
        return {"plans": len(executors), "captured": sum(bool(x.graph_captured) for x in executors),
                "captures": sum(x.graph_captures for x in executors),
                "replays": sum(x.graph_replays for x in executors)}

    def _traced(self, *args, **kwargs):
        if not self.memory_budget:
            return self.fn(*args, **kwargs)
        _C.set_memory_budget(self.memory_budget)
        try:
            return self.fn(*args, **kwargs)
        finally:
            _C.set_memory_budget(0)

    @staticmethod
    def _guard(modules) -> Tuple:
        return (_C.lazy_rebind_generation(), module_structure_version(), tuple(m.training for m in modules))

    def __call__(self, *args, **kwargs):
        keep: List[Any] = []
        key = self._key(args, kwargs, keep)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = {"calls": 0, "replay": None, "replays": 0, "keep": keep}
            while len(self._entries) > self._MAX_ENTRIES:
                self._entries.popitem(last=False)
        self._entries.move_to_end(key)
        arg_tensors = _flatten([list(args), dict(sorted(kwargs.items()))])
        if entry["replay"] is not None:
            if self._guard(entry["modules"]) == entry["guard"]:
                entry["replays"] += 1
                return entry["replay"](arg_tensors)
            entry["replay"] = None  # new buffers or modes: record the step again (state exists)
        if entry.get("eager"):
            return self._traced(*args, **kwargs)
        entry["calls"] += 1
        if entry["calls"] == 1:
            before = _trace.differentiations()
            out = self._traced(*args, **kwargs)  # warm-up: creates optimizer state and caches the plans
            # A forward whose result is differentiated after the call (torch.compile(model) in a
            # training loop) cannot be replayed: a replay's results are new tensors with no
            # history. A call that returns a result needing gradients without differentiating
            # anything itself runs as the plain loop does, always (docs/performance.md).
            entry["eager"] = _trace.differentiations() == before and any(t.requires_grad for t in _flatten(out))
            return out
        _C.lazy_realize([t._h for t in arg_tensors])
        start = _C.lazy_seq()
        _C.capture_begin()
        with _trace.recording_step() as rec:
            try:
                out = self._traced(*args, **kwargs)
                _C.lazy_realize([t._h for t in _flatten(out)])
            finally:
                runs = _C.capture_end()
        entry["replay"] = _Replay(runs, arg_tensors, out, start, self.name, rec.random)
        entry["modules"] = rec.modules
        entry["guard"] = self._guard(rec.modules)
        return out


class OptimizedModule(Module):
    """What compile(model) returns for an nn.Module, as torch.compile does: a module holding the
    original as `_orig_mod` (so state_dict's keys start with "_orig_mod.", and parameters(),
    train(), eval() and to() reach the original), whose calls go through a CompiledFunction of
    the original module. A call whose result carries gradients (training) runs as the plain loop
    does; a call without them (eval under no_grad) is recorded and replayed. Other attributes
    (model.config, model.generate, ...) are the original's."""

    def __init__(self, mod: Module, memory_limit=None):
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", CompiledFunction(mod, memory_limit))

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def compile(fn=None, *, memory_limit=None, **torch_options):

    """Compiles a step function: traced on its first two calls, replayed afterwards (see above).
    A module (torch.compile(model)) comes back as an OptimizedModule; torch.compile's other
    options (fullgraph, dynamic, backend, mode, options, disable) are accepted and change nothing:
    glassgrad's compilation has no modes.

    memory_limit ("1GB", bytes): the plans must fit in it (arena + outputs); over it, activations
    are recomputed in the backward pass (checkpointing), as set_memory_limit does globally.

        @glassgrad.compile
        def train_step(x, y):
            loss = glassgrad.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            return loss
    """
    if fn is None:
        return lambda f: _compiled(f, memory_limit)
    return _compiled(fn, memory_limit)


def _compiled(fn, memory_limit):
    return OptimizedModule(fn, memory_limit) if isinstance(fn, Module) else CompiledFunction(fn, memory_limit)
