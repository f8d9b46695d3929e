"""The snippets of docs/debugging.md run, and print what the page shows (their .out files).

Regenerate the outputs after changing a snippet or a message:
    GLASSGRAD_UPDATE_SNIPPETS=1 PYTHONPATH=python-bindings \
        python3 -m pytest python-bindings/tests/test_debug_snippets.py
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import glassgrad

ROOT = pathlib.Path(__file__).resolve().parents[2]
SNIPPETS = sorted((ROOT / "docs" / "snippets").glob("debugging_*.py"))
PAGE = ROOT / "docs" / "debugging.md"
# Outputs whose numbers depend on the machine (GEMM workspace sizes, arena packing, the GPU):
# compared with every number masked, so the text and structure are still checked.
MACHINE_DEPENDENT = {"debugging_memory_limit", "debugging_explain", "debugging_allocation_log", "debugging_hooks",
                     "debugging_host_times"}


def _mask_reason(text):
    """The reason CUDA is unavailable depends on the build and the machine (no kernels built, no
    driver, no GPU): only its presence is compared."""
    return re.sub(r"(?m)^why not: .+$", "why not: <the machine's reason>", text)


def _mask(text):
    text = re.sub(r"\d+(\.\d+)? (B|KiB|MiB|GiB)\b", "<bytes>", text)
    text = re.sub(r"\d+(\.\d+)?", "#", text)
    text = re.sub(r" +", " ", text)  # columns padded to the numbers' widths
    return _sorted_size_rows(text)


def _sorted_size_rows(text):
    """Runs of rows that list buffers largest first ("# bytes ..." once masked) in sorted order:
    the sizes, so the order, depend on the machine (a GEMM's workspace follows the CPU's
    instruction set)."""
    out, run = [], []
    for line in text.split("\n") + [None]:
        if line is not None and re.match(r" ?# bytes ", line):
            run.append(line)
            continue
        out.extend(sorted(run))
        run = []
        if line is not None:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_snippet_runs_and_prints_what_the_page_shows(path, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(glassgrad.__file__).resolve().parents[1]),
               GLASSGRAD_DEVICE="cpu")  # the page shows CPU runs
    env.pop("GLASSGRAD_DETECT_ANOMALY", None)
    run = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    expected_file = path.with_suffix(".out")
    if os.environ.get("GLASSGRAD_UPDATE_SNIPPETS"):
        expected_file.write_text(run.stdout)
    if not expected_file.exists():
        pytest.skip(f"no {expected_file.name} yet: run with GLASSGRAD_UPDATE_SNIPPETS=1 to record it")
    expected = expected_file.read_text()
    if path.stem == "debugging_cuda_unavailable":
        if glassgrad.cuda.is_available():
            return  # the page shows a machine without a usable GPU; here it ran, which is the point
        assert _mask_reason(run.stdout) == _mask_reason(expected)
        assert len(run.stdout.split("why not: ")[1].split("\n")[0]) > 20  # a real reason is given
        return
    if path.stem in MACHINE_DEPENDENT:
        assert _mask(run.stdout) == _mask(expected)
    else:
        assert run.stdout == expected


def test_the_debugging_page_includes_every_snippet_and_its_output():
    page = PAGE.read_text()
    for path in SNIPPETS:
        rel = path.relative_to(ROOT).as_posix()
        assert f'--8<-- "{rel}"' in page, rel
        if path.with_suffix(".out").exists():
            assert f'--8<-- "{path.with_suffix(".out").relative_to(ROOT).as_posix()}"' in page, rel
