"""harvardnlp/annotated-transformer (the_annotated_transformer.py: the Transformer of "Attention Is
All You Need" written out cell by cell, in Jupytext's percent format), ported on the fly with its
imports changed from $GLASSGRAD_SCRIPT_SOURCES/annotated-transformer (script_sources.py; without
it this test skips) and run cell by cell (notebook_cells.py) to its end.

Part 3 (German-English translation) needs torchtext's Multi30k download and spaCy's language
models, which no test run has: the lines importing torchtext, spaCy and GPUtil are dropped, so its
cells stop at the names they would have defined (as under PyTorch without them). Parts 1 and 2 run
as published: masks, attention, the model, its untrained greedy decoding, the learning-rate
schedule over 60000 Adam steps, label smoothing, and Altair charts of each. The copy task, which
the original leaves commented out (`# execute_example(example_simple_model)`), runs too, for 2 of
its 20 epochs: training under LambdaLR with the loss computed through label smoothing's KLDivLoss,
then greedy decoding.

It also ran under PyTorch 2.14.1 on the same cells (a driver outside the repository): the same
cells raised, with the same errors, and the lines checked are printed alike."""
import os

import pytest

from notebook_cells import assert_raised, percent_notebook, run_cells
from script_sources import checkout, needs

REPO = "annotated-transformer"
SCRIPT = "the_annotated_transformer.py"
CHANGES = {
    # Part 3's data and tokenizers, and the GPU report of its training loop
    "from torchtext.data.functional import to_map_style_dataset": "",
    "from torchtext.vocab import build_vocab_from_iterator": "",
    "import torchtext.datasets as datasets": "",
    "import spacy": "",
    "import GPUtil": "",
    # the copy task, commented out in the original, for 2 of its 20 epochs
    "# execute_example(example_simple_model)": "execute_example(example_simple_model)",
    "    for epoch in range(20):": "    for epoch in range(2):",
}
UNDEFINED = "name 'vocab_src' is not defined"
RAISES = {37: "name 'spacy' is not defined", 41: UNDEFINED, 48: UNDEFINED, 49: UNDEFINED, 50: UNDEFINED}


@needs(REPO)
@pytest.mark.slow
def test_parts_1_and_2_and_the_copy_task_run_as_under_pytorch(tmp_path):
    for module in ("pandas", "altair"):
        pytest.importorskip(module)
    folder = tmp_path / "run"
    os.makedirs(folder)
    notebook = str(tmp_path / "the_annotated_transformer.ipynb")
    percent_notebook(os.path.join(checkout(REPO), SCRIPT), notebook)
    raised, out, err = run_cells(str(folder), notebook, changes=CHANGES)
    assert_raised(raised, RAISES, out, err)
    assert out.count("Example Untrained Model Prediction: tensor([[") == 10, out[-3000:]
    for line in ["Out[14]: alt.Chart(...)", "Out[20]: alt.Chart(...)", "Out[27]: alt.Chart(...)",
                 # the copy task's two training epochs (LambdaLR's rate() at steps 1 and 21)
                 "Epoch Step:      1 | Accumulation Step:   2 | Loss: ", "Learning Rate: 5.5e-06",
                 "Learning Rate: 6.1e-05", "\ntensor([[0, "]:
        assert line in out, (line, out[-3000:])
