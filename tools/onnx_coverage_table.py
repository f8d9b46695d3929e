"""Rewrites the op list of docs/export.md ("Every op", between <!-- coverage --> and
<!-- /coverage -->) from glassgrad.onnx.coverage(): one row per op the engine knows, with its
status. A row whose op and status are unchanged keeps its wording; a new op, or one whose status
changed, gets coverage()'s text (shorten it by hand if you like). tests/test_onnx_ops.py holds
the page to coverage(), and names this command when they differ:

    PYTHONPATH=python-bindings python3 tools/onnx_coverage_table.py          # rewrite the page
    PYTHONPATH=python-bindings python3 tools/onnx_coverage_table.py --check  # exit 1 if stale
"""
from __future__ import annotations

import argparse
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PAGE = os.path.join(ROOT, "docs", "export.md")
START, END = "<!-- coverage -->", "<!-- /coverage -->"
ROW = re.compile(r"^\| `(\w+)` \| (exports|cannot) \| (.*) \|$")


def current_rows(text: str):
    table = text[text.index(START):text.index(END)]
    return {m.group(1): (m.group(2), m.group(3)) for m in map(ROW.match, table.splitlines()) if m}


# The page's short forms of coverage()'s reasons shared by many ops.
SHORT = {"a gradient op": "a gradient op (backward graphs only)",
         "an in-place update": "an in-place update of training state",
         "a collective": "a collective of data-parallel training"}


def _short(what: str) -> str:
    for start, words in SHORT.items():
        if what.startswith(start):
            return words
    return what.replace("|", "/")


def table(text: str) -> str:
    from glassgrad.onnx import coverage

    old = current_rows(text)
    lines = [START, "| op | status | ONNX ops, or why not |", "|---|---|---|"]
    for op, status, what in coverage():
        if status == "missing":
            raise SystemExit(f"{op} has neither an ONNX converter nor a reason it cannot export: add one in "
                             f"python-bindings/glassgrad/onnx/ops/ first")
        kept = old.get(op)
        words = kept[1] if kept and kept[0] == status else _short(what)
        lines.append(f"| `{op}` | {status} | {words} |")
    lines.append(END)
    return text[:text.index(START)] + "\n".join(lines) + text[text.index(END) + len(END):]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page's list is stale")
    args = parser.parse_args()
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    new = table(text)
    if args.check:
        if new != text:
            print(f"{PAGE} is stale: run python3 tools/onnx_coverage_table.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(PAGE, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"rewrote the op list of {os.path.relpath(PAGE, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
