"""The command line of the tools that write a docs page (tools/api_reference.py,
tools/name_coverage.py): without arguments they rewrite the page, with --check they exit 1 when
the page in the tree differs from what they would write."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Optional, Sequence


def write_or_check(description: str, page: str, make_text: Callable[[], str],
                   argv: Optional[Sequence[str]] = None) -> int:
    shown = os.path.relpath(page, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tool = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "the tool"
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help=f"exit 1 when {shown} is not current")
    args = ap.parse_args(argv)
    text = make_text()
    if args.check:
        with open(page, encoding="utf-8") as f:
            if f.read() != text:
                print(f"{shown} is stale: run PYTHONPATH=python-bindings python3 tools/{tool}", file=sys.stderr)
                return 1
        return 0
    with open(page, "w", encoding="utf-8") as f:
        f.write(text)
    return 0
