"""usuyama/pytorch-unet's notebooks (segmentation of simulated shapes into six masks: a UNet,
a ResNet-18 UNet and an FCN on ResNet-18, trained with BCE-with-logits plus a dice loss),
run cell by cell with their imports changed from $GLASSGRAD_SCRIPT_SOURCES/usuyama-pytorch-unet
(script_sources.py; without it these tests skip; notebook_cells.py runs them). Needs pandas and
matplotlib.

The lines changed beyond the imports (`changes`): the simulated pictures are 64 x 64 rather than
192 x 192, 50 training and 25 validation ones rather than 2000 and 200, one epoch; the ResNet-18
is built with pretrained=False (glassgrad downloads no weights; the notebooks take the layers of
another, randomly initialised resnet18 anyway); and torchsummary's summary, a package that runs
PyTorch itself, is replaced by a print. pytorch_unet_resnet18_colab.ipynb is not run: it clones
the repository and raises without a GPU.

pytorch_fcn.ipynb stops under PyTorch 2.14.1 where it stops here: its first cell's
`uint8 * -255` overflows under NumPy 2, and its training cell feeds the uint8 NHWC arrays of the
simulation to the model (PyTorch's RuntimeError names the channels, glassgrad's DTypeError, a
RuntimeError too, the dtype)."""
import pytest

from notebook_cells import check_cells, ported_notebook
from script_sources import needs

REPO = "usuyama-pytorch-unet"
pytest.importorskip("pandas")  # the notebooks' first cell imports it

SMALL = {
    "        self.input_images, self.target_masks = simulation.generate_random_data(192, 192, count=count)        ":
        "        self.input_images, self.target_masks = simulation.generate_random_data(64, 64, count=count)",
    "from torchsummary import summary": "summary = lambda model, input_size: print('summary of', input_size)",
}
# the same lines, spelt as each notebook spells them
SETS = {" = ": {"train_set = SimDataset(2000, transform = trans)": "train_set = SimDataset(50, transform = trans)",
                "val_set = SimDataset(200, transform = trans)": "val_set = SimDataset(25, transform = trans)"},
        "=": {"train_set = SimDataset(2000, transform=trans)": "train_set = SimDataset(50, transform=trans)",
              "val_set = SimDataset(200, transform=trans)": "val_set = SimDataset(25, transform=trans)"}}
UNTRAINED = {"        self.base_model = models.resnet18(pretrained=True)":
             "        self.base_model = models.resnet18(pretrained=False)"}
# a training epoch: its phases' metrics, then the prediction cell's output shape
EPOCH = ["Epoch 0/0", "LR 0.0001", "train: bce: ", "val: bce: ", "saving best model", "Best val loss: ",
         "(3, 6, 64, 64)"]


def _epochs(n):
    return {f"model = train_model(model, optimizer_ft, exp_lr_scheduler, num_epochs={n})":
            "model = train_model(model, optimizer_ft, exp_lr_scheduler, num_epochs=1)"}


@needs(REPO)
def test_unet_notebook_trains_an_epoch_and_predicts(tmp_path):
    folder, path = ported_notebook(tmp_path, REPO, "pytorch_unet.ipynb")
    shown = ["(3, 192, 192, 3)", "(3, 6, 192, 192)", "Out[1]: {'train': 50, 'val': 25}",
             "glassgrad.Size([25, 3, 64, 64]) glassgrad.Size([25, 6, 64, 64])", "summary of (3, 224, 224)", *EPOCH]
    check_cells(folder, path, {}, shown, changes={**SMALL, **SETS[" = "], **_epochs(40)})


@needs(REPO)
def test_resnet18_unet_notebook_trains_an_epoch_and_predicts(tmp_path):
    folder, path = ported_notebook(tmp_path, REPO, "pytorch_resnet18_unet.ipynb")
    # the printed children of resnet18, and its BasicBlock's repr
    shown = ["Out[1]: {'train': 50, 'val': 25}", "(conv1): Conv2d(64, 64, kernel_size=(3, 3), stride=(1, 1), "
             "padding=(1, 1), bias=False)", "AdaptiveAvgPool2d(output_size=(1, 1)), "
             "Linear(in_features=512, out_features=1000, bias=True)]", *EPOCH]
    check_cells(folder, path, {}, shown, changes={**SMALL, **SETS["="], **UNTRAINED, **_epochs(15)})


@needs(REPO)
def test_fcn_notebook_stops_where_pytorchs_run_stops(tmp_path):
    folder, path = ported_notebook(tmp_path, REPO, "pytorch_fcn.ipynb")
    raises = {0: "OverflowError: Python integer -255 out of bounds for uint8",
              3: "ModuleNotFoundError: import of torchsummary",
              5: "DTypeError: Conv2d 'layer1.0': the input is uint8 but the layer's parameters are float32"}
    changes = {"base_model = models.resnet18(pretrained=True)": "base_model = models.resnet18(pretrained=False)",
               **UNTRAINED}
    check_cells(folder, path, raises, ["(3, 192, 192, 3) (3, 6, 192, 192)", "Epoch 0/24"], hide=("torchsummary",),
                changes=changes)
