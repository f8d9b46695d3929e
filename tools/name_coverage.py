"""Which of the PyTorch names real scripts use glassgrad has: compares glassgrad's namespace with
the list tools/pytorch_examples_names.txt (every torch., Tensor., nn., F. and optim. name the
Python files of pytorch/examples use; made by tools/torch_name_survey.py, whose header says from
which commit) and writes the coverage table, docs/coverage.md.

    PYTHONPATH=python-bindings python3 tools/name_coverage.py            # rewrite docs/coverage.md
    PYTHONPATH=python-bindings python3 tools/name_coverage.py --check    # exit 1 if it is stale

A name counts as covered when glassgrad has it under the same path: torch.X as glassgrad.X,
Tensor.X as glassgrad.Tensor.X, nn.X as glassgrad.nn.X, nn.functional.X as
glassgrad.nn.functional.X, optim.X as glassgrad.optim.X, a module torch.X as glassgrad.X, and any
other dotted name torch.a.b as glassgrad.a.b. The target (issue 31) is the torch and Tensor names.
Needs glassgrad importable; not torch.
"""
from __future__ import annotations

import importlib
import os
import sys
import types
from collections import OrderedDict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NAMES = os.path.join(ROOT, "tools", "pytorch_examples_names.txt")
PAGE = os.path.join(ROOT, "docs", "coverage.md")

KIND_TITLES = OrderedDict([
    ("torch", "torch functions, classes and dtypes (torch.X)"),
    ("Tensor", "Tensor methods and attributes (x.X)"),
    ("nn", "layers (torch.nn.X)"),
    ("F", "functions (torch.nn.functional.X)"),
    ("optim", "optimizers and schedulers (torch.optim.X)"),
    ("module", "submodules used as namespaces (torch.X)"),
    ("other", "other dotted names (torch.a.b)"),
])


def read_names(path: str = NAMES):
    """(header lines, [(kind, name, uses, files)])."""
    header, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                header.append(line[1:].strip())
            elif line.strip():
                kind, name, uses, files = line.split("\t")
                rows.append((kind, name, int(uses), int(files)))
    return header, rows


def has(gg, kind: str, name: str) -> bool:
    """Whether glassgrad has the PyTorch name (see the module docstring for the paths)."""
    if kind == "Tensor":
        return hasattr(gg.Tensor, name.split(".", 1)[1])
    obj, path = gg, gg.__name__
    for part in name.split("."):
        path += "." + part
        try:
            obj = getattr(obj, part)
        except AttributeError:
            # A submodule is an attribute only once something imported it: import it, so that the
            # answer does not depend on what else ran before.
            if not isinstance(obj, types.ModuleType):
                return False
            try:
                obj = importlib.import_module(path)
            except ImportError:
                return False
    return True


def coverage(gg, rows):
    """{kind: (covered rows, missing rows)}."""
    out = OrderedDict((k, ([], [])) for k in KIND_TITLES)
    for row in rows:
        kind, name = row[0], row[1]
        out[kind][0 if has(gg, kind, name) else 1].append(row)
    return out


def _pct(a: int, n: int) -> str:
    return f"{100.0 * a / n:.1f}%" if n else "-"


def page(gg, header, rows) -> str:
    cov = coverage(gg, rows)
    target = [r for k in ("torch", "Tensor") for r in cov[k][0] + cov[k][1]]
    target_hit = sum(len(cov[k][0]) for k in ("torch", "Tensor"))
    lines = [
        "# Name coverage",
        "",
        "Which of the PyTorch names real scripts use glassgrad has, under the same path "
        "(`torch.cat` as `glassgrad.cat`, `x.view_as` as `glassgrad.Tensor.view_as`, `nn.Conv2d` as "
        "`glassgrad.nn.Conv2d`). The names are every one the Python files of "
        "[pytorch/examples](https://github.com/pytorch/examples) use, listed in "
        "`tools/pytorch_examples_names.txt` with their number of uses and of files (made from "
        f"{header[0].split(' of ')[-1] if header else 'pytorch/examples'} by `tools/torch_name_survey.py`). "
        "This page is written by `tools/name_coverage.py`, and a test checks that it is current.",
        "",
        f"**torch and Tensor names: {target_hit} of {len(target)} ({_pct(target_hit, len(target))}).** "
        "The names that are missing on purpose are listed below each table with the reason.",
        "",
        "| names | in glassgrad | of | coverage |",
        "|---|---|---|---|",
    ]
    for kind, title in KIND_TITLES.items():
        hit, miss = cov[kind]
        lines.append(f"| {title} | {len(hit)} | {len(hit) + len(miss)} | {_pct(len(hit), len(hit) + len(miss))} |")
    for kind, title in KIND_TITLES.items():
        hit, miss = cov[kind]
        lines += ["", f"## {title[0].upper() + title[1:]}", ""]
        lines.append("Present: " + (", ".join(f"`{_shown(kind, r[1])}`" for r in hit) or "none") + ".")
        lines.append("")
        if miss:
            lines.append("Missing (uses, files): " + ", ".join(f"`{_shown(kind, r[1])}` ({r[2]}, {r[3]})"
                                                                for r in miss) + ".")
        else:
            lines.append("Missing: none.")
        why = [f"`{_shown(kind, n)}`: {reason}" for (k, n), reason in _REASONS.items() if k == kind]
        if why:
            lines += ["", "Not planned: " + "; ".join(why) + "."]
    return "\n".join(lines) + "\n"


def _shown(kind: str, name: str) -> str:
    return name if kind == "Tensor" else f"torch.{name}"


# Names glassgrad leaves out on purpose, and why (the page says so next to its table).
_REASONS = {
    ("torch", "polar"): "complex numbers are outside glassgrad's dtypes",
    ("torch", "view_as_real"): "complex numbers are outside glassgrad's dtypes",
    ("torch", "view_as_complex"): "complex numbers are outside glassgrad's dtypes",
}


def main(argv=None) -> int:
    from generated_page import write_or_check  # tools/ is the script's directory

    def text() -> str:
        import glassgrad as gg
        return page(gg, *read_names())
    return write_or_check(__doc__.split("\n")[0], PAGE, text, argv)


if __name__ == "__main__":
    sys.exit(main())
