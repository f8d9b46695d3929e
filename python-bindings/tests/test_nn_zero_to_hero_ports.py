"""karpathy/nn-zero-to-hero's lecture notebooks (micrograd's second half, makemore parts 1-5), ported
on the fly with their imports changed only from $GLASSGRAD_SCRIPT_SOURCES/nn-zero-to-hero
(script_sources.py; without it these tests skip) and run cell by cell (notebook_cells.py).

The notebooks read names.txt, which the lectures take from karpathy/makemore: the tests write the
first NAMES lines of $GLASSGRAD_SCRIPT_SOURCES/makemore/names.txt (all 32,033 run too, slowly:
docs/porting.md). The training loops' 200,000 steps are written into the notebooks; the tests
run STEPS of them (the one line changed, `changes` below). The cells that raise are the ones
PyTorch 2.14's run of the same cells raises: cells run out of the lecture's order, a shape
mismatch the lecture shows, graphviz and ipywidgets left out."""
import os
import re

import pytest

from notebook_cells import assert_raised, run_cells
from script_sources import checkout, needs, source

REPO = "nn-zero-to-hero"
NAMES = 2000
STEPS = 1000
LOOP = {"for i in range(200000):": f"for i in range({STEPS}):"}  # part 2's loop
MAX_STEPS = {"max_steps = 200000": f"max_steps = {STEPS}"}  # parts 3-5


def _run(tmp_path, name, raises, hide=(), changes=None):
    """Runs lectures/<name> beside a names.txt of NAMES names; the cells that raised and a fragment
    of each one's error are `raises`. Returns the printout."""
    pytest.importorskip("matplotlib")
    with open(source("makemore", "names.txt"), encoding="utf-8") as f:
        names = f.read().splitlines()[:NAMES]
    (tmp_path / "names.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
    raised, out, err = run_cells(str(tmp_path), os.path.join(checkout(REPO) or "", "lectures", name),
                                 hide=hide, changes=changes)
    assert_raised(raised, raises, out, err)
    return out


def _losses(out, split):
    return [float(v) for v in re.findall(rf"^{split} ([\d.]+)$", out, re.M)]


@needs(REPO)
def test_micrograd_second_half_checks_against_autograd(tmp_path):
    # 8: graphviz left out (draw_dot is then undefined in 10 and 11), as where it is not installed
    out = _run(tmp_path, "micrograd/micrograd_lecture_second_half_roughly.ipynb",
               {8: "graphviz", 10: "draw_dot", 11: "draw_dot"}, hide=("graphviz",))
    # the float64 neuron's output and gradients, as PyTorch prints them
    assert "0.7071066904050358\n---\nx2 0.5000001283844369\nw2 0.0\nx1 -1.5000003851533106\nw1 1.0000002567688737" \
        in out, out[-3000:]


@needs(REPO)
@needs("makemore")
@pytest.mark.slow  # a minute on a quiet 2-core CPU: 14,035 `N[ix1, ix2] += 1` and as many log-likelihood terms
def test_makemore_part1_bigram_counts_and_one_layer_net(tmp_path):
    # 18, 19, 21 use P before the cell that defines it (the lecture ran them later)
    out = _run(tmp_path, "makemore/makemore_part1_bigrams.ipynb", {18: "'P'", 19: "'P'", 21: "'P'"})
    # the counts' log-likelihood over every bigram: PyTorch prints the same numbers
    for shown in (f"Out[2]: {NAMES}", "nll=tensor(32209.6992)", "\n2.2949554920196533\n",
                  "number of examples:  14035", "Out[38]: tensor(1.)"):
        assert shown in out, (shown, out[-3000:])


@needs(REPO)
@needs("makemore")
def test_makemore_part2_mlp(tmp_path):
    # 19: the lecture's 32-example loss on the whole data set (the shapes do not broadcast)
    out = _run(tmp_path, "makemore/makemore_part2_mlp.ipynb", {19: "shape mismatch"}, changes=LOOP)
    train, dev = (float(v) for v in re.findall(r"^Out\[(?:29|30)\]: tensor\(([\d.]+), grad_fn", out, re.M))
    # its unscaled random weights start far above log(27) = 3.3 (about 26); STEPS unseeded
    # minibatches bring both to 3-4.5
    assert train < 6.0 and dev < 6.0, out[-3000:]


@needs(REPO)
@needs("makemore")
@pytest.mark.slow
def test_makemore_part3_batchnorm_activations_and_gradients(tmp_path):
    # 20: the bonus widget (ipywidgets left out, as where it is not installed)
    out = _run(tmp_path, "makemore/makemore_part3_bn.ipynb", {20: "ipywidgets"}, hide=("ipywidgets",),
               changes=MAX_STEPS)
    # retain_grad on every layer's output, torch.histogram of activations and their gradients
    assert len(re.findall(r"layer \d+ \(      Tanh\): mean [+-][\d.]+, std [\d.]+, saturated", out)) == 5, out[-3000:]
    assert len(re.findall(r"weight +\(\d+, \d+\) \| mean [+-][\d.]+ \| std", out)) == 7, out[-3000:]
    assert max(_losses(out, "train") + _losses(out, "val")) < 3.0, out[-3000:]


@needs(REPO)
@needs("makemore")
@pytest.mark.slow
def test_makemore_part4_manual_backprop_matches_autograd(tmp_path):
    out = _run(tmp_path, "makemore/makemore_part4_backprop.ipynb", {}, changes=MAX_STEPS)
    # `cmp`: every hand-written gradient against .grad by torch.all(dt == t.grad) and allclose;
    # the lecture's exercise 1 is exact (PyTorch's own run is exact in most, not all, of them)
    rows = re.findall(r"^(\w+) +\| exact: (True |False) \| approximate: (True |False)", out, re.M)
    assert len(rows) == 28 and all(approx == "True " for _, _, approx in rows), out[-4000:]
    assert max(_losses(out, "train") + _losses(out, "val")) < 3.0, out[-3000:]


@needs(REPO)
@needs("makemore")
@pytest.mark.slow
def test_makemore_part5_wavenet(tmp_path):
    out = _run(tmp_path, "makemore/makemore_part5_cnn1.ipynb", {}, changes=MAX_STEPS)
    assert "Out[15]: glassgrad.Size([1, 27])" in out and "Out[16]: glassgrad.Size([8, 27])" in out, out[-3000:]
    assert max(_losses(out, "train") + _losses(out, "val")) < 3.0, out[-3000:]
