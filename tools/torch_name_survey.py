"""Which PyTorch names real scripts use: reads every Python file under a directory (a checkout of
pytorch/examples) with the ast module and lists the names each file reaches through torch:

  torch     torch.<name>               a function, class, dtype or constant of the torch module
  Tensor    <tensor>.<name>            an attribute or method of torch.Tensor (any expression that is
                                       not a module: x.view(...), loss.backward(), t.shape)
  nn        torch.nn.<name>            layers, containers, Parameter
  F         torch.nn.functional.<name>
  optim     torch.optim.<name> and torch.optim.lr_scheduler.<name>
  module    torch.<submodule>          a submodule used as a namespace (torch.cuda, torch.utils, ...);
                                       its own names are listed under their dotted path (kind 'other')
  other     any other dotted torch name (torch.utils.data.DataLoader, torch.cuda.is_available)

Imports are followed: `import torch.nn as nn`, `from torch import nn, optim`, `import
torch.nn.functional as F`, `from torch.nn import Linear` (Linear counts as nn.Linear). A Tensor
name is an attribute of torch.Tensor read from anything but an imported module; the heuristic
also counts the same names of other objects (str.split, list.sort), which are names a port
needs all the same whenever a tensor reaches them.

    python3 tools/torch_name_survey.py <examples checkout> --source "pytorch/examples@<commit> (<date>)" \
        > tools/pytorch_examples_names.txt

The list in the repository was made from a checkout of github.com/pytorch/examples at commit
77f55b912142e11fcfdf5b530231fb9c52f181e8 (2025-08-25), its 93 Python files.

Needs torch (to tell functions from submodules and to list torch.Tensor's attributes). The list it
writes is kept in the repository; tools/name_coverage.py compares glassgrad with it, without torch.
"""
from __future__ import annotations

import argparse
import ast
import collections
import os
import sys
import types

import torch

TENSOR_NAMES = set(dir(torch.Tensor)) - {n for n in dir(object)} | {"__getitem__", "__setitem__"}
TENSOR_NAMES = {n for n in TENSOR_NAMES if not n.startswith("_")}
# Names that hold namespaces, not tensors, in these scripts: an object's own attributes
# (self.name, self.data of a Dataset) and argparse's results (args.name, opt.cuda).
NAMESPACES = {"self", "cls", "args", "opt", "config", "cfg"}


def _resolve(path: str):
    """The object a dotted torch name is, or None (torch.classes.<x> raises for unregistered x)."""
    obj = torch
    for p in path.split(".")[1:]:
        try:
            obj = getattr(obj, p, None)
        except Exception:
            return None
        if obj is None:
            return None
    return obj


def _kind(path: str) -> str:
    """The kind of a dotted torch name ('torch.nn.functional.relu' -> 'F')."""
    parts = path.split(".")
    obj = _resolve(path)
    if len(parts) == 2:
        return "module" if isinstance(obj, types.ModuleType) else "torch"
    head = ".".join(parts[:-1])
    if head == "torch.nn" and not isinstance(obj, types.ModuleType):
        return "nn"
    if head == "torch.nn.functional":
        return "F"
    if head in ("torch.optim", "torch.optim.lr_scheduler") and not isinstance(obj, types.ModuleType):
        return "optim"
    return "other"


class Survey(ast.NodeVisitor):
    def __init__(self):
        self.aliases = {}   # local name -> dotted torch path ('nn' -> 'torch.nn')
        self.modules = set()  # local names bound to any imported module (torch's or not)
        self.found = collections.Counter()

    def visit_Import(self, node):
        for a in node.names:
            local = a.asname or a.name.split(".")[0]
            self.modules.add(local)
            if a.name == "torch" or a.name.startswith("torch."):
                self.aliases[local] = a.name if a.asname else "torch"

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        for a in node.names:
            local = a.asname or a.name
            if mod == "torch" or mod.startswith("torch."):
                path = f"{mod}.{a.name}"
                self.aliases[local] = path
                obj = self._resolve(path)
                if isinstance(obj, types.ModuleType):
                    self.modules.add(local)
                elif a.name != "*":
                    self.found[path] += 1
            else:
                self.modules.add(local) if mod else None

    @staticmethod
    def _resolve(path):
        return _resolve(path)

    def _dotted(self, node):
        """'torch.nn.functional.relu' for an attribute chain rooted at a torch alias, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id]] + parts[::-1])
        return None

    def visit_Attribute(self, node):
        path = self._dotted(node)
        if path is not None:
            # the longest prefix that is a real name: torch.cuda.is_available -> that, and torch.cuda
            parts = path.split(".")
            for i in range(2, len(parts) + 1):
                prefix = ".".join(parts[:i])
                obj = self._resolve(prefix)
                if obj is None:
                    break
                self.found[prefix] += 1
                if not isinstance(obj, types.ModuleType):
                    break
            return  # the chain's inner attributes are part of the path
        base = node.value
        namespace = isinstance(base, ast.Name) and (base.id in self.modules or base.id in NAMESPACES)
        if node.attr in TENSOR_NAMES and not namespace:
            self.found[f"Tensor.{node.attr}"] += 1
        self.generic_visit(node)


def survey(root: str):
    """{name: (kind, uses, files)} over every .py file under root."""
    uses, files = collections.Counter(), collections.defaultdict(set)
    for d, _, names in os.walk(root):
        for f in sorted(names):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            try:
                tree = ast.parse(open(path, encoding="utf-8").read(), path)
            except SyntaxError:
                continue
            s = Survey()
            s.visit(tree)
            for name, n in s.found.items():
                uses[name] += n
                files[name].add(os.path.relpath(path, root))
    out = {}
    for name in uses:
        kind = "Tensor" if name.startswith("Tensor.") else _kind(name)
        out[name] = (kind, uses[name], len(files[name]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", help="a checkout of pytorch/examples")
    ap.add_argument("--source", required=True, help="where the files came from, e.g. pytorch/examples@<commit>")
    args = ap.parse_args(argv)
    found = survey(args.root)
    count = sum(1 for _, _, fs in os.walk(args.root) for f in fs if f.endswith(".py"))
    print(f"# PyTorch names used by the {count} Python files of {args.source}")
    print(f"# made by: python3 tools/torch_name_survey.py <checkout> --source \"{args.source}\"  (torch "
          f"{torch.__version__.split('+')[0]})")
    print("# columns: kind, name, uses, files (kinds: see tools/torch_name_survey.py)")
    order = {"torch": 0, "Tensor": 1, "nn": 2, "F": 3, "optim": 4, "module": 5, "other": 6}
    for name, (kind, n, nf) in sorted(found.items(), key=lambda kv: (order[kv[1][0]], -kv[1][2], kv[0])):
        shown = name[len("torch."):] if name.startswith("torch.") else name
        print(f"{kind}\t{shown}\t{n}\t{nf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
