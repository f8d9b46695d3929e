"""The documentation site (mkdocs.yml, docs/): every code block is included from a file that CI
runs, never pasted; every included file and section exists; every
docs/snippets/*.py program runs; every included example is run by test_examples.py; and
`mkdocs build --strict` passes when mkdocs-material is installed."""
import glob
import importlib.util
import os
import re
import subprocess
import sys

import pytest

import glassgrad as gg

pytestmark = pytest.mark.slow  # end-to-end runs: `pytest -m 'not slow'` leaves them out

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = os.path.join(ROOT, "docs")
PAGES = sorted(glob.glob(os.path.join(DOCS, "*.md")))
SNIPPET_PROGRAMS = sorted(glob.glob(os.path.join(DOCS, "snippets", "*.py")))
# --8<-- "path", --8<-- "path:section" or --8<-- "path:start:end", as pymdownx.snippets reads them.
INCLUDE = re.compile(r'^\s*-{1,}8<-{1,}\s+"([^"]+)"\s*$')
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
# Fenced blocks in these languages are code and must be includes. Unlabelled / text blocks are
# diagrams or messages (docs/architecture.md has some).
CODE_LANGUAGES = {"python", "py", "bash", "sh", "shell", "console", "cpp", "c++", "c", "cmake", "pycon", "toml",
                  "yaml", "ini"}


def _rel(path):
    return os.path.relpath(path, ROOT)


def _includes():
    """(page, line number, target) for every snippet include in the docs."""
    out = []
    for page in PAGES:
        with open(page, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m:
                    out.append((_rel(page), n, m.group(1)))
    return out


def _split_target(target):
    """'file.py:section' -> (file, 'section', None); 'file:4:5' -> (file, None, (4, 5))."""
    m = re.match(r"^(.*?)(?::(-?\d*):(-?\d*)|:(-?\d+)|:([a-z][-_0-9a-z]*))?$", target)
    path, start, end, single, section = m.groups()
    if single is not None:
        return path, None, (int(single), int(single))
    if start is not None or end is not None:
        return path, None, (int(start or 1), int(end) if end else None)
    return path, section, None


def test_the_docs_include_code_from_files():
    assert PAGES and SNIPPET_PROGRAMS
    assert len(_includes()) >= 10


@pytest.mark.parametrize("page,line,target", _includes(), ids=lambda v: str(v))
def test_every_included_file_and_section_exists(page, line, target):
    path, section, lines = _split_target(target)
    full = os.path.join(ROOT, path)
    assert os.path.isfile(full), f"{page}:{line} includes {path}, which does not exist"
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if section:
        for marker in (f"--8<-- [start:{section}]", f"--8<-- [end:{section}]"):
            assert text.count(marker) == 1, f"{page}:{line}: {path} needs exactly one '{marker}' line"
    if lines:
        n = len(text.splitlines())
        assert 1 <= lines[0] <= (lines[1] or n) <= n, f"{page}:{line}: lines {lines} outside {path} ({n} lines)"


@pytest.mark.parametrize("page", [_rel(p) for p in PAGES])
def test_code_blocks_are_included_never_pasted(page):
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        lines = f.read().splitlines()
    inside, lang, start, body = None, "", 0, []
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if inside is None and m:
            inside, lang, start, body = m.group(2), m.group(3).lower(), n, []
        elif inside is not None and line.strip().startswith(inside):
            if lang in CODE_LANGUAGES:
                pasted = [b for b in body if b.strip() and not INCLUDE.match(b)]
                assert not pasted, (f"{page}:{start}: a ```{lang} block holds pasted code ({pasted[0]!r}); "
                                    f"include it from a file CI runs: --8<-- \"docs/snippets/<file>.py:<section>\"")
                assert body, f"{page}:{start}: an empty ```{lang} block"
            inside = None
        elif inside is not None:
            body.append(line)
    assert inside is None, f"{page}: a code fence opened at line {start} is never closed"


ENV_READ = re.compile(r'(?:getenv|\benv|\bis)\(\s*"([A-Z][A-Z0-9_]+)"|environ(?:\.get|\.setdefault)?[(\[]\s*"([A-Z][A-Z0-9_]+)"')


def test_every_environment_variable_read_is_in_the_architecture_table():
    read = set()
    for folder in ("autodiff-engine", "core-runtime", "python-bindings/src", "python-bindings/glassgrad"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*"), recursive=True):
            if path.endswith((".cpp", ".h", ".cu", ".cuh", ".py")):
                with open(path, encoding="utf-8") as f:
                    read |= {a or b for a, b in ENV_READ.findall(f.read())}
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("## Environment variables"):]
    table = table[:table.index("\n## ")]
    listed = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)", table, re.M))
    assert "GLASSGRAD_FUSION" in read and "GLASSGRAD_DEVICE" in read, "the scan no longer sees the reads"
    assert not read - listed, f"environment variables read but not in architecture.md's table: {sorted(read - listed)}"
    assert not listed - read, f"table rows for variables nothing reads: {sorted(listed - read)}"


def test_getting_started_shows_the_readme_s_two_commands():
    """getting-started.md includes README.md by line numbers; those lines must stay the two commands."""
    targets = [t for page, _, t in _includes() if page.endswith("getting-started.md") and t.startswith("README.md")]
    assert targets, "getting-started.md no longer includes the README's commands"
    for t in targets:
        _, _, (a, b) = _split_target(t)
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            shown = f.read().splitlines()[a - 1:b]
        assert [ln.split()[:2] for ln in shown] == [["bash", "tools/setup.sh"], ["bash", "tools/run_tests.sh"]], \
            f"README.md lines {a}-{b} are no longer the two commands: {shown}; fix the line numbers in {t!r}"


def test_every_snippet_program_is_included_by_a_page():
    used = {_split_target(t)[0] for _, _, t in _includes()}
    orphans = [_rel(p) for p in SNIPPET_PROGRAMS if _rel(p) not in used]
    assert not orphans, f"docs/snippets files no page includes: {orphans}"


def test_every_included_example_is_run_by_the_example_tests():
    with open(os.path.join(os.path.dirname(__file__), "test_examples.py"), encoding="utf-8") as f:
        tests = f.read()
    for _, _, t in _includes():
        path = _split_target(t)[0]
        if path.startswith("examples-and-tutorials/"):
            assert f'"{os.path.basename(path)}"' in tests, f"{path} is in the docs but test_examples.py never runs it"


@pytest.mark.parametrize("program", [_rel(p) for p in SNIPPET_PROGRAMS])
def test_snippet_program_runs(program, tmp_path):
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(gg.__file__)))
    env = dict(os.environ, GLASSGRAD_DEVICE="cpu",
               PYTHONPATH=os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, program)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{program} failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None
                    or importlib.util.find_spec("pymdownx") is None,
                    reason="mkdocs-material is not installed (it comes with the test extras)")
def test_mkdocs_build_strict_passes_and_renders_the_included_code(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           os.path.join(ROOT, "mkdocs.yml"), "--site-dir", str(site)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    page = (site / "examples" / "index.html").read_text(encoding="utf-8")
    assert "MultiHeadSelfAttention" in page and "[start:attention]" not in page
    assert "SmallCNN" in (site / "index.html").read_text(encoding="utf-8")
