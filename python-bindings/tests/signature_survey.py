"""The signature survey: every public name glassgrad shares with torch (torch.*, Tensor methods,
torch.nn layers' __init__ and forward, torch.nn.functional, torch.linalg/fft/special, torch.optim,
torch.optim.lr_scheduler, torch.utils.data, and the Python methods of those classes: Module's,
the optimizers', ...), compared with torch's parameters: names, order, kinds and defaults. Used by test_signature_parity.py and test_torch_signatures.py.

Where torch's object is Python, its inspect.signature is the reference (`differences`, strict:
same names, order, kinds and defaults; glassgrad may add keyword-only parameters). torch's C
functions have none: their reference is the operator schemas torch registers for the name
(torch._C._jit_get_schemas_for_operator), the source its Python argument parser is generated
from, with `self` read as `input` for a function and dropped for a method. Their documented
text (`__doc__`) is not used where a schema exists: it names parameters the binding refuses
(Tensor.mul's `value`, Tensor.matmul's `tensor2`). A C function with neither (torch.tensor,
torch.set_num_threads) falls back to the `name(...) -> ...` lines of its documentation.

A C function has several overloads; glassgrad's one signature is compared with each
(`binding_differences`): every name torch's overload takes is a name glassgrad takes, the n-th
positional parameter is one torch names n-th in some overload, and a default torch gives is
glassgrad's too."""
from __future__ import annotations

import inspect
import re

P = inspect.Parameter
_EMPTY = P.empty

# torch parameters glassgrad leaves out on purpose, with the reason.
IGNORED = {
    # F.softmax and friends: a deprecated private argument of torch's own call sites
    "_stacklevel": "private to torch",
}
# glassgrad's None reads as torch's default for these (one layout, one memory format; the
# default dtype and device are resolved when the call runs).
# schema arguments the Python binding does not take, or takes only from torch's internals
SCHEMA_ONLY = {"implicit", "cudnn_enabled", "cudnn_enable"}
NONE_IS_TORCHS_DEFAULT = {"dtype", "layout", "device", "memory_format", "pin_memory", "generator"}


def signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def same_default(a, b) -> bool:
    if a is _EMPTY or b is _EMPTY:
        return a is b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)  # a schema's int[] default [] is a Python signature's ()
    if type(b).__module__.startswith("torch"):
        return str(a).split(".")[-1] == str(b).split(".")[-1]
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if inspect.isfunction(a) and inspect.isfunction(b):  # F.relu: each library's own function of that name
        return a.__name__ == b.__name__
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b  # 0 and 0.0 are the same default
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def differences(ours, theirs, method: bool = False):
    """What glassgrad's signature lacks or gets wrong against torch's Python signature, as
    readable lines (strict: names, order, kinds, defaults)."""
    mine, torchs = signature(ours), signature(theirs)
    if torchs is None or mine is None:
        return []
    theirs_params = [p for p in torchs.parameters.values() if p.name not in IGNORED and p.name != "self"]
    mine_params = _own_params(mine, method)
    problems = []
    if any(p.kind == p.VAR_POSITIONAL for p in theirs_params) and any(p.kind == p.VAR_KEYWORD for p in theirs_params):
        if len(theirs_params) == 2:  # (*args, **kwargs): anything goes in torch
            return []
    for i, t in enumerate(theirs_params):
        m = mine_params[i] if i < len(mine_params) else None
        if m is None or m.name != t.name:
            problems.append(f"parameter {i} is {m.name if m else 'missing'}, torch's is {t.name}")
            break
        if m.kind != t.kind:
            problems.append(f"{t.name} is {m.kind.description}, torch's is {t.kind.description}")
        if t.default is _EMPTY and m.default is not _EMPTY:
            problems.append(f"{t.name} defaults to {m.default!r}, torch's is required")
        elif not same_default(m.default, t.default):
            problems.append(f"{t.name} defaults to {m.default!r}, torch's to {t.default!r}")
    for m in mine_params[len(theirs_params):]:
        if m.kind not in (m.KEYWORD_ONLY, m.VAR_KEYWORD):
            problems.append(f"extra parameter {m.name} must be keyword-only")
    return problems


def _own_params(sig, method: bool):
    params = [p for p in sig.parameters.values() if p.name not in IGNORED]
    if params and params[0].name == "self":
        return params[1:]
    if method and params and params[0].kind != P.VAR_POSITIONAL:
        return params[1:]  # a torch.* function bound as the method: its input is the tensor
    return params


# ---- torch's C functions: the schemas, or the documented text ----

_SCHEMA_PREFIX = {"torch": "", "Tensor": "", "linalg": "linalg_", "special": "special_", "fft": "fft_"}


def schema_overloads(space: str, name: str, theirs, method: bool):
    """torch's overloads of a C function as lists of (name, kind, default), from its operator
    schemas; None when torch registers none under the name."""
    import torch
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{_SCHEMA_PREFIX.get(space, '')}{name}")
    except RuntimeError:
        return None
    # a function's overloads on the tensor (`self`) are the ones Python binds where it has any
    # (eq's on lists and numbers are TorchScript's); out= is Python's where the text documents it
    on_self = any(a.name == "self" for s in schemas for a in s.arguments if not any(b.is_out for b in s.arguments))
    takes_out = re.search(r"\bout(=None| \(Tensor|: Optional)", _doc(theirs)) is not None
    out = []
    for s in schemas:
        args = list(s.arguments)
        if not _python_overload(args, method) or on_self and not any(a.name == "self" for a in args):
            continue
        if any(a.is_out for a in args):
            if method or not takes_out:
                continue  # methods take no out=, nor do functions whose text names none
            args = [a for a in args if not a.is_out]
            outs = [("out", P.KEYWORD_ONLY, None)]
        else:
            outs = []
        params = []
        for a in args:
            if a.name == "self" and method or a.name in SCHEMA_ONLY:
                continue
            kind = P.KEYWORD_ONLY if a.kwarg_only else P.POSITIONAL_OR_KEYWORD
            has_default = a.default_value is not None or _schema_has_default(s, a.name)
            params.append(("input" if a.name == "self" else a.name, kind, a.default_value if has_default else _EMPTY))
        out.append(params + outs)
    return out or None


def _doc(obj) -> str:
    """obj's documentation, or that of the function an alias's text names (torch.arccos: "Alias
    for :func:`torch.acos`")."""
    import torch
    text = getattr(obj, "__doc__", None) or ""
    alias = re.match(r"\s*Alias for :(?:func|meth):`(torch\.)?([\w.]+)`", text)
    if alias:
        target = torch
        for part in alias.group(2).split("."):
            target = getattr(target, part, None)
        text = getattr(target, "__doc__", None) or text
    return text


def _python_overload(args, method: bool) -> bool:
    """Whether an overload is one Python calls: a method's has the tensor first; a function's
    takes a tensor or, a factory, the tensor options (TorchScript's builtins on numbers and
    lists, acos.int(a) or mul.left_t(l, n), take neither)."""
    if method:
        return bool(args) and args[0].name == "self" and re.match(r"(Optional\[)?Tensor\b", str(args[0].type))
    selves = [a for a in args if a.name == "self"]
    if selves and not re.match(r"(Optional\[)?(Tensor|number)\b", str(selves[0].type)):
        return False  # sort.bool(bool[] self, bool reverse): TorchScript's list builtins
    return any("Tensor" in str(a.type) or a.name == "pin_memory" for a in args)


def _schema_has_default(schema, name: str) -> bool:
    """Whether the schema's text gives `name` a default (a None default reads as no default
    through the argument object)."""
    return re.search(r"\b" + re.escape(name) + r"=", str(schema)) is not None


def doc_overloads(obj, name: str):
    """The `name(...) -> ...` lines of obj's documentation as lists of (name, kind, default)."""
    import torch
    out = []
    for line in (getattr(obj, "__doc__", None) or "").splitlines():
        inner = _call_text(line, name)
        if inner is None:
            continue
        params, kind, ok = [], P.POSITIONAL_OR_KEYWORD, True
        for item in _split_top(inner):
            if item == "*":
                kind = P.KEYWORD_ONLY
            elif item.startswith("**"):
                params.append((item[2:], P.VAR_KEYWORD, _EMPTY))
            elif item.startswith("*"):
                params.append((item[1:], P.VAR_POSITIONAL, _EMPTY))
                kind = P.KEYWORD_ONLY
            else:
                pname, _, default = item.partition("=")
                pname = pname.split(":")[0].strip()
                if not pname.isidentifier():
                    ok = False
                    break
                try:
                    value = eval(default, {"torch": torch, "__builtins__": {}}) if default else _EMPTY
                except Exception:
                    value = default.strip()
                params.append((pname, kind, value))
        if ok:
            out.append(params)
    return out or None


def _call_text(line: str, name: str):
    line = line.strip().replace("\\*", "*")
    line = re.sub(r"^\.\. function::\s*", "", line)
    line = re.sub(r"^(torch\.)?(Tensor\.)?(linalg\.|fft\.|special\.)?", "", line)
    if not line.startswith(name + "("):
        return None
    depth = 0
    for i in range(len(name), len(line)):
        depth += line[i] in "([{"
        depth -= line[i] in ")]}"
        if depth == 0:
            rest = line[i + 1:].strip()
            return line[len(name) + 1:i] if not rest or rest.startswith("->") else None
    return None


def _split_top(text: str):
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


def binding_differences(ours, overloads, method: bool):
    """What a call written against any of torch's overloads would get wrong from glassgrad's
    signature, as readable lines."""
    mine = signature(ours)
    if mine is None:
        return ["glassgrad's function has no signature"]
    params = _own_params(mine, method)
    var_pos = any(p.kind == P.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind == P.VAR_KEYWORD for p in params)
    positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    by_name = {p.name: p for p in params if p.kind != P.POSITIONAL_ONLY}
    names_at: dict = {}
    for o in overloads:
        for i, (n, kind, _) in enumerate(t for t in o if t[1] == P.POSITIONAL_OR_KEYWORD):
            names_at.setdefault(i, set()).add(n)
    problems = []
    for i, p in enumerate(positional):
        if i in names_at and p.name not in names_at[i] and p.kind != P.POSITIONAL_ONLY:
            problems.append(f"positional {i} is {p.name}, torch's is {'/'.join(sorted(names_at[i]))}")
    defaults: dict = {}
    for o in overloads:
        n_pos = sum(1 for t in o if t[1] == P.POSITIONAL_OR_KEYWORD)
        if n_pos > len(positional) and not var_pos and not any(t[1] == P.VAR_POSITIONAL for t in o):
            problems.append(f"takes {len(positional)} positional arguments, torch's ({', '.join(t[0] for t in o)}) "
                            f"{n_pos}")
        for n, kind, default in o:
            if kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD) or n in IGNORED:
                continue
            if n not in by_name:
                if not var_kw:
                    problems.append(f"no parameter {n}")
                continue
            defaults.setdefault(n, []).append(default)
    for n, given in defaults.items():
        m = by_name[n]
        if all(d is _EMPTY for d in given) or m.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            continue
        torchs = [d for d in given if d is not _EMPTY]
        if m.default is _EMPTY:
            if len(torchs) == len(given):
                problems.append(f"{n} is required, torch's defaults to {torchs[0]!r}")
        elif not (n in NONE_IS_TORCHS_DEFAULT and (m.default is None or None in torchs)) \
                and not any(_same_schema_default(m.default, d) for d in torchs):
            problems.append(f"{n} defaults to {m.default!r}, torch's to {' or '.join(repr(d) for d in torchs)}")
    return sorted(set(problems))


def _same_schema_default(mine, torchs) -> bool:
    if isinstance(torchs, list) and not torchs:
        return mine is None or mine == () or mine == []  # int[] dim=[]: no dims given, as None
    if isinstance(torchs, list) and isinstance(mine, int) and not isinstance(mine, bool):
        return all(t == mine for t in torchs)  # int[2] stride=[1, 1] is the Python default 1
    return same_default(mine, torchs)


# ---- the cases ----

def _public(module):
    return [n for n in dir(module) if not n.startswith("_")]


def _is_c(obj) -> bool:
    return signature(obj) is None or type(obj).__name__ in ("builtin_function_or_method", "method_descriptor")


def compare(space: str, name: str, ours, theirs, method: bool = False):
    """(problems, how): how is "python", "schema", "doc" or "none" (no reference: skipped)."""
    if not _is_c(theirs):
        return differences(ours, theirs, method), "python"
    overloads = schema_overloads(space, name, theirs, method)
    how = "schema"
    if overloads is None:
        overloads, how = doc_overloads(theirs, name), "doc"
    if overloads is None:
        return [], "none"
    return binding_differences(ours, overloads, method), how


def cases():
    """(label, space, name, ours, theirs, method) for every name both libraries have."""
    import torch
    import torch.nn.functional as TF
    import torch.optim.lr_scheduler as TS
    import torch.utils.data as TD

    import glassgrad as gg
    import glassgrad.nn.functional as GF
    import glassgrad.optim.lr_scheduler as GS
    import glassgrad.torch as gg_torch
    import glassgrad.utils.data as GD

    def plain(o):
        return callable(o) and not inspect.isclass(o) and not inspect.ismodule(o)

    out = []
    for n in _public(gg):  # as a port sees them: glassgrad.torch (torch.flatten's defaults, ...)
        ours = getattr(gg_torch, n)
        if hasattr(torch, n) and plain(ours) and callable(getattr(torch, n)):
            out.append(("torch." + n, "torch", n, ours, getattr(torch, n), False))
    for n in _public(gg.Tensor):
        o = inspect.getattr_static(gg.Tensor, n)
        if isinstance(o, property) or not hasattr(torch.Tensor, n):
            continue
        o = getattr(gg.Tensor, n)
        if plain(o) and callable(getattr(torch.Tensor, n)):
            out.append(("Tensor." + n, "Tensor", n, o, getattr(torch.Tensor, n), True))
    for n in _public(gg.nn):
        o, t = getattr(gg.nn, n), getattr(torch.nn, n, None)
        if inspect.isclass(o) and inspect.isclass(t) and issubclass(t, torch.nn.Module):
            out.append(("nn." + n, "nn", n, o, t, False))
            if t.forward is not torch.nn.Module.forward and o.forward is not gg.nn.Module.forward:
                out.append((f"nn.{n}.forward", "nn", "forward", o.forward, t.forward, True))
    for n in _public(GF):
        if hasattr(TF, n) and inspect.isfunction(getattr(GF, n)):
            out.append(("F." + n, "F", n, getattr(GF, n), getattr(TF, n), False))
    for space in ("linalg", "special", "fft"):
        gm, tm = getattr(gg, space, None), getattr(torch, space)
        for n in _public(gm) if gm is not None else []:
            if hasattr(tm, n) and plain(getattr(gm, n)):
                out.append((f"{space}.{n}", space, n, getattr(gm, n), getattr(tm, n), False))
    for prefix, gm, tm in (("optim", gg.optim, torch.optim), ("lr_scheduler", GS, TS), ("utils.data", GD, TD)):
        for n in _public(gm):
            o, t = getattr(gm, n), getattr(tm, n, None)
            if inspect.isclass(o) and inspect.isclass(t) or plain(o) and inspect.isfunction(t):
                out.append((f"{prefix}.{n}", prefix, n, o, t, False))
    return out + _class_methods(torch, [("nn", gg.nn, torch.nn), ("optim", gg.optim, torch.optim),
                                        ("lr_scheduler", GS, TS), ("utils.data", GD, TD)])


def _class_methods(torch, spaces):
    """The Python methods (other than forward) of the classes both libraries have: Module's
    (cuda, register_buffer, load_state_dict, ...), the containers', the optimizers' and
    schedulers' (step, zero_grad, state_dict), the data classes'. Each method once, labelled by
    the glassgrad class that defines it (nn.Module.cuda)."""
    out, seen = [], set()
    for prefix, gm, tm in spaces:
        for n in _public(gm):
            ours_cls, theirs_cls = getattr(gm, n), getattr(tm, n, None)
            if not (inspect.isclass(ours_cls) and inspect.isclass(theirs_cls)) or issubclass(theirs_cls, torch.Tensor):
                continue  # Parameter's methods are Tensor's
            for m in _public(ours_cls):
                if m == "forward" or not hasattr(theirs_cls, m) or any(
                        isinstance(inspect.getattr_static(c, m), property) for c in (ours_cls, theirs_cls)):
                    continue
                ours, theirs = getattr(ours_cls, m), getattr(theirs_cls, m)
                if not (inspect.isfunction(ours) and inspect.isfunction(theirs)) or (ours, theirs) in seen:
                    continue
                seen.add((ours, theirs))
                label = f"{prefix}.{ours.__qualname__}"
                if any(c[0] == label for c in out):
                    label += f" ({n})"
                static = isinstance(inspect.getattr_static(ours_cls, m), staticmethod)
                out.append((label, prefix, m, ours, theirs, not static))
    return out


def survey():
    """{label: problems} for every case with a difference, and {label: how} for every case."""
    found, hows = {}, {}
    for label, space, name, ours, theirs, method in cases():
        problems, how = compare(space, name, ours, theirs, method)
        hows[label] = how
        if problems:  # an object's default prints without its address (random_split's generator)
            found[label] = [re.sub(r" at 0x[0-9a-fA-F]+", "", p) for p in problems]
    return found, hows


if __name__ == "__main__":  # PYTHONPATH=python-bindings python3 python-bindings/tests/signature_survey.py
    found, hows = survey()
    for label in sorted(found):
        print(f"{label} [{hows[label]}]: " + "; ".join(found[label]))
    counts: dict = {}
    for how in hows.values():
        counts[how] = counts.get(how, 0) + 1
    print(f"{len(hows)} names compared ({counts}); {len(found)} differ")
