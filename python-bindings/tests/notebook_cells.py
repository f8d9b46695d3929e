"""Course notebooks run cell by cell, as Jupyter's "run all" with errors recorded rather than
stopping: each code cell (IPython's magics and help lines left out) is executed in order in one
namespace by a fresh interpreter, which prints `[cell i raised Type: message]` for each cell that
raises and ends with `RAISED [i, ...]`. Notebooks raise on purpose (a matmul of mismatched shapes
to show the error) and cells need packages a test leaves out; a test compares the cells that
raised with the ones PyTorch's run raises (docs/porting.md, "Running real scripts")."""
import io
import json
import os
import re
import subprocess
import sys
import tokenize

from script_sources import checkout, port_script
from test_ported_scripts import _env

# IPython's help line (`name?`, `obj.attr??`); a code or comment line that ends in "?" is kept
HELP = re.compile(r"[\w.]+\?{1,2}")
IMPORT = re.compile(r"\s*(import|from)\s")


def port_imports_only(repo: str, folder) -> dict:
    """Ports the checkout of `repo` into `folder` (tools/port_script.py's port_tree), checking that
    the port changed something and only import lines; its report, by file."""
    report = port_script.port_tree(checkout(repo), str(folder))
    assert report and all(IMPORT.match(old) for lines in report.values() for _, old, _ in lines), report
    return report
# A cell that downloads (requests, urllib) fails to connect, on any machine: the tests write
# what the notebooks would download, and a run never fetches anything.
OFFLINE = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "no_proxy": ""}

# Runs cells.json's cells; a cell's last expression is shown (`Out[i]: repr`), as Jupyter's
# display shows it. The modules named on the command line cannot be imported (as when they are
# not installed), so the cells that need them raise alike on every machine.
RUNNER = '''import ast, json, sys, traceback
for name in sys.argv[2:]:
    sys.modules[name] = None
raised = []
scope = {"__name__": "__main__"}
for i, cell in enumerate(json.load(open(sys.argv[1], encoding="utf-8"))):
    try:
        tree = ast.parse(cell)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, f"<cell {i}>", "exec"), scope)
        if last is not None:
            shown = eval(compile(ast.Expression(last.value), f"<cell {i}>", "eval"), scope)
            if shown is not None:
                print(f"Out[{i}]:", repr(shown), flush=True)
    except Exception as e:
        raised.append(i)
        print(f"[cell {i} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}]", flush=True)
        traceback.print_exc()
print("RAISED", json.dumps(raised))
'''


def _statement_lines(text):
    """The 0-based numbers of the lines where a statement starts (not inside brackets, a string or
    after a backslash), or None when the text does not tokenize (then every line counts)."""
    starts, last = set(), tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL):
                continue
            if last in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                starts.add(tok.start[0] - 1)
            last = tok.type
    except (tokenize.TokenError, SyntaxError):
        return None
    return starts


def code_cells(path):
    """The notebook's code cells as source texts, magics and help lines turned into `pass`. As
    IPython's, a line is a magic only where a statement starts: `% (epoch, loss))` continuing a
    print's format across lines stays code."""
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    out = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        text = "".join(cell["source"])
        starts = _statement_lines(text)
        lines = []
        for n, line in enumerate(text.split("\n")):
            bare = line.strip()
            if (bare.startswith(("%", "!")) or HELP.fullmatch(bare)) and (starts is None or n in starts):
                line = line[:len(line) - len(line.lstrip())] + "pass  # " + bare
            lines.append(line)
        out.append("\n".join(lines))
    return out


def percent_notebook(path, dest):
    """Writes the code cells of a script in Jupytext's percent format (cells begun by `# %%`
    lines, `# %% [markdown]` ones commented prose) as a notebook at dest, for run_cells."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    cells, kind = [], None
    for line in lines:
        if line.startswith("# %%"):
            kind = "markdown" if "[markdown]" in line else "code"
            if kind == "code":
                cells.append([])
        elif kind == "code":
            cells[-1].append(line)
    with open(dest, "w", encoding="utf-8") as f:
        json.dump({"cells": [{"cell_type": "code", "source": "\n".join(c).strip("\n")} for c in cells]}, f)


# a course notebook's epoch setting, a line of its own (`num_epochs = 10`, `NUM_EPOCHS = 100`)
EPOCHS = re.compile(r"^(num_epochs|NUM_EPOCHS)( ?= ?)\d+$")


def one_epoch(path):
    """`changes` for ported_cells/run_cells setting the notebook's epoch count to 1."""
    lines = {line for cell in code_cells(path) for line in cell.split("\n") if EPOCHS.match(line)}
    return {line: EPOCHS.sub(r"\g<1>\g<2>1", line) for line in lines}


def ported_cells(path, changes=None):
    """The code cells with their imports ported; asserts that only import lines changed. `changes`
    ({line: replacement}) then rewrites whole lines a test names (a size written into a notebook);
    each must occur."""
    cells = []
    for cell in code_cells(path):
        text, _ = port_script.port_text(cell)
        changed = [old for old, new in zip(cell.split("\n"), text.split("\n")) if old != new]
        assert all(IMPORT.match(line) for line in changed), changed
        cells.append(text)
    for old, new in (changes or {}).items():
        hits = [i for i, cell in enumerate(cells) if old in cell.split("\n")]
        assert hits, f"no line {old!r} in {path}"
        for i in hits:
            cells[i] = "\n".join(new if line == old else line for line in cells[i].split("\n"))
    return cells


def run_cells(folder, path, hide=(), timeout=900, changes=None, env=None):
    """Runs the notebook at path, ported (and `changes` made, as ported_cells), in folder, with
    `env` ({name: value}) added to the environment (over OFFLINE's proxies: a test may serve
    downloads itself); returns ({cell: 'Type: message'}, stdout, stderr)."""
    with open(os.path.join(folder, "cells.json"), "w", encoding="utf-8") as f:
        json.dump(ported_cells(path, changes), f)
    with open(os.path.join(folder, "run_cells.py"), "w", encoding="utf-8") as f:
        f.write(RUNNER)
    proc = subprocess.run([sys.executable, "run_cells.py", "cells.json", *hide], cwd=folder,
                          env=_env(**{"MPLBACKEND": "Agg", **OFFLINE, **(env or {})}), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0 and "RAISED" in proc.stdout, f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    raised = dict(re.findall(r"^\[cell (\d+) raised (.*)\]$", proc.stdout, re.M))
    return {int(k): v for k, v in raised.items()}, proc.stdout, proc.stderr


def assert_raised(raised, raises, out, err):
    """The cells that raised are exactly `raises` ({cell: a fragment of its error})."""
    assert sorted(raised) == sorted(raises), f"{raised}\n{out[-2000:]}\n{err[-4000:]}"
    for cell, fragment in raises.items():
        assert fragment in raised[cell], (cell, raised[cell])


def ported_notebook(tmp_path, repo, notebook, sub="run"):
    """The notebook's folder of `repo`'s checkout, ported into tmp_path/sub: (folder, the notebook's
    path in the checkout)."""
    folder = tmp_path / sub
    path = os.path.join(checkout(repo), notebook)
    port_script.port_tree(os.path.dirname(path), str(folder))
    return folder, path


def check_cells(folder, path, raises, shown, hide=(), changes=None):
    """Runs the notebook (run_cells): the cells that raise are exactly `raises`, and the printout
    holds every line of `shown`."""
    raised, out, err = run_cells(str(folder), path, hide=hide, changes=changes)
    assert_raised(raised, raises, out, err)
    for line in shown:
        assert line in out, (line, out[-3000:])
