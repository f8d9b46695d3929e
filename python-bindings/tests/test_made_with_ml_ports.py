"""GokuMohandas/Made-With-ML's foundations lessons (notebooks/05_PyTorch.ipynb to
10_Utilities.ipynb, at the last commit that carried them: tensors, linear and logistic
regression, a neural network on the spiral data, data quality, the Dataset/DataLoader/Trainer
utilities), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/Made-With-ML (script_sources.py; without it these tests skip).

A notebook runs cell by cell (notebook_cells.py) in a ported copy of notebooks/ with the
checkout's datasets/*.csv beside it: the notebooks read them from the repository's raw-file URLs
(`url = "https://raw.githubusercontent.com/.../datasets/spiral.csv"`), and those lines become the
local file names, the only lines changed beyond the imports. torchsummary (06 and 07 import it for
`summary(model, ...)`) is made unimportable, so those cells raise alike on every machine.
Lessons 11, 13 and 14 (a CNN, an RNN and attention over news titles) need nltk (its stopwords
and PorterStemmer) and read news.csv (AG News titles), which the stored checkout lacks: the
tests write news.csv small (480 titles of four classes, each class with its own words) and a
stopwords corpus where NLTK_DATA points (the notebooks' nltk.download("stopwords") fails offline
and only prints so); their NUM_EPOCHS line is set to 3. 12 needs gensim and pretrained GloVe
vectors, 15 transformers and a pretrained model: not run.

Every notebook also ran under PyTorch 2.14.1 on the same files (a driver outside the repository):
the cells that raise are the ones PyTorch's run raises, with the same exception. Random numbers
differ (glassgrad does not reproduce PyTorch's), so do losses and metrics."""
import os
import re
import shutil
import sys

import numpy as np
import pytest

from notebook_cells import assert_raised, check_cells, code_cells, ported_notebook, run_cells
from script_sources import needs, source

REPO = "Made-With-ML"
SITE = "https://raw.githubusercontent.com/GokuMohandas/Made-With-ML/main/datasets/"
NO_SUMMARY = "ModuleNotFoundError: import of torchsummary"
# Before Python 3.12 (PEP 701) an f-string cannot reuse its quote inside: f"{df.iloc[i]["y"]}"
NESTED_QUOTES = {} if sys.version_info >= (3, 12) else "SyntaxError: f-string: unmatched '['"

# notebook -> ({cell: a fragment of the error it raises, as under PyTorch}, lines its printout has)
NOTEBOOKS = {
    "05_PyTorch.ipynb": ({}, ["Type: glassgrad.FloatTensor", "Size: glassgrad.Size([2, 3])"]),
    "06_Linear_Regression.ipynb": ({44: NO_SUMMARY, **({56: NESTED_QUOTES} if NESTED_QUOTES else {})},
                                   ["[actual] y = 3.5X + noise", "Epoch: 80 | loss:"]),
    "07_Logistic_Regression.ipynb": ({40: NO_SUMMARY, **({12: NESTED_QUOTES} if NESTED_QUOTES else {})},
                                     ["Epoch: 40 | loss:", "\"precision\":"]),
    "08_Neural_Networks.ipynb": ({}, ["Epoch: 1 | loss:", "\"precision\":"]),
    # the lesson's own demonstration: a scaler fitted on the string labels of tumors_reduced.csv
    "09_Data_Quality.ipynb": ({7: "could not convert string to float: 'benign'"}, ["\"precision\":"]),
    "10_Utilities.ipynb": ({}, ["Epoch: 1 | train_loss:", "\"precision\":"]),
}
# nltk's lessons, run with news.csv and the stopwords written (write_news)
NEWS = {
    "11_Convolutional_Neural_Networks.ipynb": ["Epoch: 3 | train_loss:", "\"precision\":"],
    "13_Recurrent_Neural_Networks.ipynb": ["Epoch: 3 | train_loss:", "\"precision\":"],
    "14_Attention.ipynb": ["Epoch: 3 | train_loss:", "sum(attn_vals[0]):"],
}
EPOCHS = re.compile(r"^NUM_EPOCHS = \d+$")
TOPICS = {"Business": "stocks shares market profit bank oil prices economy deal company",
          "Sci/Tech": "software internet computer space microsoft google science phone web research",
          "Sports": "game team win season coach league match cup olympic player",
          "World": "president minister iraq war election killed government talks troops police"}
COMMON = "the new a of in for on says report after year week".split()


def write_news(folder, n=480, seed=0):
    """folder/news.csv as the lessons read it (`title,category`, AG News's four classes), each
    title three words of its class and three common ones; folder/nltk_data with an English
    stopwords list in nltk's corpus layout."""
    rng = np.random.default_rng(seed)
    classes = list(TOPICS)
    with open(os.path.join(folder, "news.csv"), "w", encoding="utf-8") as f:
        f.write("title,category\n")
        for i in range(n):
            words = list(rng.choice(TOPICS[classes[i % 4]].split(), 3)) + list(rng.choice(COMMON, 3))
            rng.shuffle(words)
            f.write(" ".join(words).capitalize() + "," + classes[i % 4] + "\n")
    corpus = os.path.join(folder, "nltk_data", "corpora", "stopwords")
    os.makedirs(corpus)
    with open(os.path.join(corpus, "english"), "w", encoding="utf-8") as f:
        f.write("\n".join("i me my the a an of in for on and to is".split()) + "\n")


def local_data(path, epochs=None):
    """`changes` for run_cells: the repository's raw-file URLs become the local copies' names, and
    the NUM_EPOCHS line sets `epochs` when given."""
    lines = [line for cell in code_cells(path) for line in cell.split("\n")]
    changes = {line: line.replace(SITE, "") for line in lines if SITE in line}
    if epochs is not None:
        changes.update({line: f"NUM_EPOCHS = {epochs}" for line in lines if EPOCHS.match(line)})
    return changes


def copy_datasets(folder):
    datasets = source(REPO, "datasets")
    for name in os.listdir(datasets):
        shutil.copy(os.path.join(datasets, name), folder)


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_lessons_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    folder, path = ported_notebook(tmp_path, REPO, "notebooks/" + notebook)
    copy_datasets(folder)
    raises, shown = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, hide=("torchsummary",), changes=local_data(path))


@needs(REPO)
@pytest.mark.slow
@pytest.mark.parametrize("notebook", sorted(NEWS))
def test_news_lessons_run_to_the_end(tmp_path, notebook):
    for name in ("matplotlib", "pandas", "sklearn", "nltk", "seaborn", "more_itertools"):
        pytest.importorskip(name)
    folder, path = ported_notebook(tmp_path, REPO, "notebooks/" + notebook)
    copy_datasets(folder)
    write_news(str(folder))
    raised, out, err = run_cells(str(folder), path, changes=local_data(path, epochs=3),
                                 env={"NLTK_DATA": os.path.join(str(folder), "nltk_data")})
    assert_raised(raised, {}, out, err)
    for line in NEWS[notebook]:
        assert line in out, (line, out[-3000:])
