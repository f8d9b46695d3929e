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
The lessons after 10 need nltk's stopwords corpus (a download), gensim or transformers and are
left out; 11-14 also read news.csv, which the stored checkout lacks.

Every notebook also ran under PyTorch 2.14.1 on the same files (a driver outside the repository):
the cells that raise are the ones PyTorch's run raises, with the same exception. Random numbers
differ (glassgrad does not reproduce PyTorch's), so do losses and metrics."""
import os
import shutil
import sys

import pytest

from notebook_cells import check_cells, code_cells, ported_notebook
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


def local_data(path):
    """`changes` for run_cells: the repository's raw-file URLs become the local copies' names."""
    return {line: line.replace(SITE, "") for cell in code_cells(path) for line in cell.split("\n") if SITE in line}


@needs(REPO)
@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_lessons_run_as_under_pytorch(tmp_path, notebook):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    folder, path = ported_notebook(tmp_path, REPO, "notebooks/" + notebook)
    datasets = source(REPO, "datasets")
    for name in os.listdir(datasets):
        shutil.copy(os.path.join(datasets, name), folder)
    raises, shown = NOTEBOOKS[notebook]
    check_cells(folder, path, raises, shown, hide=("torchsummary",), changes=local_data(path))
