#!/usr/bin/env python3
"""mypy over the glassgrad package (pyproject.toml's [tool.mypy]), against a list of known findings.

    python3 tools/type_check.py            fails on a finding tools/mypy_baseline.txt does not list
    python3 tools/type_check.py --update   rewrites the list from today's findings (after fixing some)

A finding is its file, message and error code, without the line number, so that edits above it
do not move it; a file may hold a known finding as many times as the list says. The list was
today's findings when the check started: it only shrinks (fix one, then --update). A new
finding is fixed in the code, or, where mypy is wrong, silenced on its line with
`# type: ignore[code]` and a comment that says why.
"""
import collections
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "tools", "mypy_baseline.txt")
# "path:line: error: message  [code]" (mypy's default output; notes and summaries are skipped).
FINDING = re.compile(r"^(?P<path>[^:]+):\d+: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


def findings():
    """Today's findings as a Counter of 'path: [code] message' lines, and mypy's full output."""
    if importlib.util.find_spec("mypy") is None:  # `python -m mypy` would exit 1 as if it had found something
        raise SystemExit(f"mypy is not installed for {sys.executable}, so nothing was checked\n"
                         "  fix: pip install the test extra's pinned mypy (pyproject.toml, "
                         "[project.optional-dependencies] test)")
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty",
                          "--show-error-codes", "--no-color-output"],
                         cwd=ROOT, capture_output=True, text=True)
    if run.returncode not in (0, 1):  # 2: mypy itself failed (configuration, crash)
        raise SystemExit(f"mypy did not run (exit {run.returncode}):\n{run.stdout}{run.stderr}")
    if run.returncode == 1 and not any(FINDING.match(line) for line in run.stdout.splitlines()):
        raise SystemExit(f"mypy exited 1 without a finding it could read:\n{run.stdout}{run.stderr}")
    found = collections.Counter()
    for line in run.stdout.splitlines():
        m = FINDING.match(line)
        if m:
            found[f"{m['path']}: [{m['code']}] {m['message']}"] += 1
    return found, run.stdout


def baseline():
    with open(BASELINE, encoding="utf-8") as f:
        return collections.Counter(line.rstrip("\n") for line in f if line.strip() and not line.startswith("#"))


def main(argv):
    found, output = findings()
    if "--update" in argv:
        with open(BASELINE, "w", encoding="utf-8") as f:
            f.write("# mypy's known findings in the glassgrad package (tools/type_check.py): only shrinks.\n")
            for line in sorted(found.elements()):
                f.write(line + "\n")
        print(f"{sum(found.values())} known findings written to {os.path.relpath(BASELINE, ROOT)}")
        return 0
    new = found - baseline()
    gone = baseline() - found
    if gone:
        print(f"{sum(gone.values())} known findings are fixed: run `python3 tools/type_check.py --update` "
              "to drop them from the list")
    if not new:
        print(f"mypy: no new findings ({sum(found.values())} known)")
        return 0
    print(f"mypy: {sum(new.values())} new findings (not in {os.path.relpath(BASELINE, ROOT)}):")
    for line in sorted(new.elements()):
        print("  " + line)
    where = [ln for ln in output.splitlines() if any(ln.startswith(k.split(": [")[0] + ":") for k in new)]
    print("mypy's lines for those files:\n" + "\n".join("  " + ln for ln in where))
    print("fix: correct the annotation or the code (the lines above say what mypy expected); where mypy "
          "is wrong, add `# type: ignore[code]` with a comment saying why")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
