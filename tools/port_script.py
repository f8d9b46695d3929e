"""Ports a PyTorch script (or a tree of them) to glassgrad by rewriting its import lines only, the
mapping of docs/porting.md ("Scripts run with their imports changed only"):

    python3 tools/port_script.py SRC DST     # SRC a .py file or a folder; DST the same kind

`import torch` becomes `import glassgrad.torch as torch` (glassgrad with PyTorch's top-level
defaults), any other `torch.X` module path `glassgrad.X`, `torchvision` `glassgrad.vision`,
tensorboardX's SummaryWriter glassgrad.utils.tensorboard's and einops.layers.torch's layers
glassgrad.einops_layers'.
Every other line is copied as it is. In a folder, .py files are ported and other files copied.
Prints each changed line as `file:line: old -> new`.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from typing import Dict, List, Optional, Tuple

# (pattern, replacement), the first that matches a line rewrites it. A trailing space after
# `import torch` or `import torchvision` (some scripts have one) goes with the rewrite; other lines keep theirs. A
# trailing comment (`import torch # <1>`, as books number their lines) is kept after the rewrite.
# Python allows several spaces after `import`/`from` and before `import` (`import  torch`, a
# notebook's typo); the rewrite writes one.
IMPORT_RULES = [
    (re.compile(r"^(\s*)import\s+torch(\s*#.*)?\s*$"), r"\1import glassgrad.torch as torch\2"),
    # an alias (`import torch as t`, as chenyuntc's book writes it) keeps its name
    (re.compile(r"^(\s*)import\s+torch\s+as\s+(\w+)(\s*#.*)?\s*$"), r"\1import glassgrad.torch as \2\3"),
    (re.compile(r"^(\s*)import\s+torchvision\s+as\s+(\w+)(\s*#.*)?\s*$"), r"\1import glassgrad.vision as \2\3"),
    (re.compile(r"^(\s*)import\s+torchvision(\s*#.*)?\s*$"), r"\1import glassgrad.vision as torchvision\2"),
    # `import torch.nn` with no alias binds the name torch (torchvision): the rewrite binds it too
    (re.compile(r"^(\s*)import\s+torchvision\.([\w.]+)(\s*#.*)?\s*$"),
     r"\1import glassgrad.vision.\2, glassgrad.vision as torchvision\3"),
    (re.compile(r"^(\s*)import\s+torch\.([\w.]+)(\s*#.*)?\s*$"), r"\1import glassgrad.\2, glassgrad.torch as torch\3"),
    (re.compile(r"^(\s*)import\s+torchvision\.(\S+)(.*)$"), r"\1import glassgrad.vision.\2\3"),
    (re.compile(r"^(\s*)import\s+torch\.(\S+)(.*)$"), r"\1import glassgrad.\2\3"),
    (re.compile(r"^(\s*)from\s+torchvision(\.\S+)?\s+import\s+(.*)$"), r"\1from glassgrad.vision\2 import \3"),
    (re.compile(r"^(\s*)from\s+torch(\.\S+)?\s+import\s+(.*)$"), r"\1from glassgrad\2 import \3"),
    # tensorboardX, the library torch.utils.tensorboard was made from, knows a tensor by "torch" in
    # its type's name and converts it with torch itself, so it refuses glassgrad's (NotImplementedError):
    # its SummaryWriter becomes glassgrad.utils.tensorboard's, which has torch.utils.tensorboard's methods.
    (re.compile(r"^(\s*)from\s+tensorboardX\s+import\s+(.*)$"), r"\1from glassgrad.utils.tensorboard import \2"),
    (re.compile(r"^(\s*)import\s+tensorboardX(\s*#.*)?\s*$"), r"\1import glassgrad.utils.tensorboard as tensorboardX\2"),
    (re.compile(r"^(\s*)import\s+tensorboardX\s+as\s+(\w+)(\s*#.*)?\s*$"), r"\1import glassgrad.utils.tensorboard as \2\3"),
    # einops.layers.torch builds its layers (Rearrange, Reduce, EinMix) on PyTorch's nn.Module, which
    # glassgrad's containers refuse: glassgrad.einops_layers builds them from the same einops mixins
    # on glassgrad's (einops' functions need no rewrite: they take glassgrad tensors as they are).
    (re.compile(r"^(\s*)from\s+einops\.layers\.torch\s+import\s+(.*)$"), r"\1from glassgrad.einops_layers import \2"),
    (re.compile(r"^(\s*)import\s+einops\.layers\.torch\s+as\s+(\w+)(\s*#.*)?\s*$"), r"\1import glassgrad.einops_layers as \2\3"),
]

# `import a, b as c, ...`: several modules on one line (`import torch, torch.nn as nn`), each
# rewritten as a line of its own importing it would be; the others and a trailing comment kept.
MULTI_IMPORT = re.compile(r"^(\s*)import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)+)(\s*#.*)?\s*$")

# A line to change beyond the imports: original line -> replacement (None drops the line).
Changes = Dict[str, Optional[str]]


def port_line(line: str) -> str:
    """The line with its import rewritten, or the line itself when it imports no torch module."""
    multi = MULTI_IMPORT.match(line)
    if multi:
        indent, names, comment = multi.groups()
        ported = [port_line("import " + name.strip())[len("import "):] for name in names.split(",")]
        if ported == [name.strip() for name in names.split(",")]:
            return line
        return f"{indent}import {', '.join(ported)}{comment or ''}"
    for pattern, replacement in IMPORT_RULES:
        if pattern.match(line):
            return pattern.sub(replacement, line)
    return line


def port_text(text: str, changes: Optional[Changes] = None) -> Tuple[str, List[Tuple[int, str, Optional[str]]]]:
    """The ported text and its changed lines as (line number, old, new or None when dropped).
    A line named in changes is replaced by its entry instead of the import rewrite; a name in
    changes that no line has is an error (the script is not the one the changes were made for)."""
    changes = changes or {}
    missing = [line for line in changes if line not in text.split("\n")]
    if missing:
        raise ValueError(f"port_text: the script has no line {missing[0]!r} to change; "
                         "fix: name the line exactly as the script writes it (indentation included)")
    out, changed = [], []
    for n, line in enumerate(text.split("\n"), 1):
        new = changes[line] if line in changes else port_line(line)
        if new != line:
            changed.append((n, line, new))
        if new is not None:
            out.append(new)
    return "\n".join(out), changed


def port_file(src: str, dst: str, changes: Optional[Changes] = None) -> List[Tuple[int, str, Optional[str]]]:
    """Writes src ported to dst (its folder made as needed); returns the changed lines."""
    with open(src, encoding="utf-8") as f:
        text, changed = port_text(f.read(), changes)
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)
    return changed


def port_tree(src: str, dst: str) -> Dict[str, List[Tuple[int, str, Optional[str]]]]:
    """Copies the folder src to dst with every .py file ported (.git and __pycache__ left out);
    returns each ported file's changed lines by its path relative to src."""
    report = {}
    for folder, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "__pycache__"))
        rel_folder = os.path.relpath(folder, src)
        os.makedirs(os.path.join(dst, rel_folder), exist_ok=True)
        for name in sorted(files):
            rel = os.path.normpath(os.path.join(rel_folder, name))
            if name.endswith(".py"):
                report[rel] = port_file(os.path.join(src, rel), os.path.join(dst, rel))
            else:
                shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel))
    return report


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, dst = args
    if os.path.isdir(src):
        report = port_tree(src, dst)
    elif os.path.isfile(src):
        report = {os.path.basename(src): port_file(src, dst)}
    else:
        print(f"port_script: {src} is neither a file nor a folder; fix: give the script or its checkout's folder",
              file=sys.stderr)
        return 2
    for rel, changed in report.items():
        for n, old, new in changed:
            print(f"{rel}:{n}: {old.strip()} -> {new.strip() if new is not None else '(dropped)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
