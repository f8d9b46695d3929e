"""jacobgil/pytorch-grad-cam (the CAM methods, guided backprop, the metrics and test-time
augmentation smoothing, on small models built here, with the library's hooks on their layers and
gradients of the activations) and Harry24k/adversarial-attacks-pytorch (torchattacks: its Linf,
L2, L1 and L0 attacks, by torch.autograd.grad with respect to the input images, on a small CNN
built here; its targeted modes, normalization, save/load and MultiAttack) and
utkuozbulak/pytorch-cnn-visualizations (guided backprop through ReLU hooks, Grad-CAM and their
product on an AlexNet), ported on the fly with their imports changed only from
$GLASSGRAD_SCRIPT_SOURCES/pytorch-grad-cam, .../adversarial-attacks-pytorch and
.../pytorch-cnn-visualizations (script_sources.py; without them these tests skip).

The models' weights come from NumPy's seeded generator, so the printed values are PyTorch's
(written below from its run of the same drivers): the CAM maps' means but with eigen_smooth (an
SVD's sign, which NumPy picks from activations that differ from PyTorch's in the last bits), and
the attacks that draw no random numbers. grad-cam needs ttach (ported from its installed copy,
as it imports torch), OpenCV, scikit-learn, SciPy, matplotlib and tqdm."""
import os
import sys

import pytest

from script_sources import needs, port_script, source
from test_ported_scripts import _run

CAM = "pytorch-grad-cam"
ATTACKS = "adversarial-attacks-pytorch"

WEIGHTS = '''
rng = np.random.RandomState(0)
def set_weights(model, scale):
    with torch.no_grad():
        for name, p in model.state_dict().items():
            if p.dtype == torch.float32:
                p.copy_(torch.from_numpy((rng.standard_normal(tuple(p.shape)) * scale).astype(np.float32)))
                if name.endswith("running_var"):
                    p.abs_().add_(1.0)
    return model
'''

CAM_DRIVER = '''import numpy as np
import torch
import torchvision
from pytorch_grad_cam import (GradCAM, HiResCAM, GradCAMElementWise, ScoreCAM, GradCAMPlusPlus, XGradCAM,
                              AblationCAM, EigenCAM, EigenGradCAM, LayerCAM, FullGrad, KPCA_CAM,
                              GuidedBackpropReLUModel, SegEigenCAM, ShapleyCAM, FEM)
from pytorch_grad_cam.utils.image import show_cam_on_image, preprocess_image, deprocess_image
from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget, ClassifierOutputSoftmaxTarget
from pytorch_grad_cam.metrics.cam_mult_image import CamMultImageConfidenceChange
from pytorch_grad_cam.metrics.road import ROADMostRelevantFirst
''' + WEIGHTS + '''
class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 12, 3, padding=1), torch.nn.ReLU())
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = torch.nn.Linear(12, 10)
    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))

model = set_weights(Small(), 0.1)
resnet = set_weights(torchvision.models.resnet18(num_classes=10), 0.1)
img = rng.uniform(0, 1, (32, 32, 3)).astype(np.float32)
x = preprocess_image(img, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
print("input", tuple(x.shape), str(x.dtype).split(".")[-1])
x = x.repeat(2, 1, 1, 1)
for method in [GradCAM, HiResCAM, GradCAMElementWise, GradCAMPlusPlus, XGradCAM, ScoreCAM, AblationCAM,
               EigenCAM, EigenGradCAM, LayerCAM, FullGrad, KPCA_CAM, SegEigenCAM, ShapleyCAM, FEM]:
    for eigen in (False, True):
        if method is FullGrad and eigen:
            continue
        layers = [model.features[-1]] if method is not FullGrad else []
        with method(model=model, target_layers=layers) as cam:
            cam.batch_size = 4
            g = cam(input_tensor=x, targets=[ClassifierOutputTarget(3), ClassifierOutputTarget(5)], eigen_smooth=eigen)
        print(method.__name__, eigen, g.shape, g.dtype, round(float(g.min()), 3), round(float(g.max()), 3),
              round(float(g.mean()), 3))
with GradCAM(model=model, target_layers=[model.features[2], model.features[-1]]) as cam:
    g = cam(input_tensor=x, targets=None, aug_smooth=True)
    print("aug", g.shape, g.dtype, round(float(g.mean()), 3))
    g = cam(input_tensor=x[:1], targets=[ClassifierOutputSoftmaxTarget(2)])
    print("softmax", g.shape, round(float(g.mean()), 3))
    vis = show_cam_on_image(img, g[0], use_rgb=True)
    print("vis", vis.shape, vis.dtype)
    scores, vis2 = CamMultImageConfidenceChange()(x[:1], g, [ClassifierOutputSoftmaxTarget(2)], model,
                                                  return_visualization=True)
    print("metric", scores.shape, tuple(vis2.shape))
    print("road", ROADMostRelevantFirst(percentile=80)(x[:1], g, [ClassifierOutputSoftmaxTarget(2)], model).shape)
with GradCAM(model=resnet, target_layers=[resnet.layer3[-1]]) as cam:
    print("resnet", cam(input_tensor=x, targets=None).shape)
out = GuidedBackpropReLUModel(model=resnet, device="cpu")(x[:1], target_category=None)
print("guided", out.shape, out.dtype, deprocess_image(out).dtype, type(resnet.relu).__name__)
'''

# PyTorch's lines (CPU) of CAM_DRIVER
CAM_LINES = """input (1, 3, 32, 32) float32
GradCAM False (2, 32, 32) float32 0.0 1.0 0.204
HiResCAM False (2, 32, 32) float32 0.0 1.0 0.204
GradCAMElementWise False (2, 32, 32) float32 0.0 1.0 0.315
GradCAMPlusPlus False (2, 32, 32) float32 0.0 1.0 0.278
XGradCAM False (2, 32, 32) float32 0.0 1.0 0.204
ScoreCAM False (2, 32, 32) float32 0.0 1.0 0.351
AblationCAM False (2, 32, 32) float32 0.0 1.0 0.008
AblationCAM True (2, 32, 32) float32 0.0 1.0 0.262
EigenGradCAM False (2, 32, 32) float32 0.0 1.0 0.264
LayerCAM False (2, 32, 32) float32 0.0 1.0 0.315
FullGrad False (2, 32, 32) float32 0.0 1.0 0.391
ShapleyCAM False (2, 32, 32) float32 0.0 1.0 0.204
aug (2, 32, 32) float32 0.365
softmax (1, 32, 32) 0.271
vis (32, 32, 3) uint8
metric (1,) (1, 3, 32, 32)
road (1,)
resnet (2, 32, 32)
guided (32, 32, 3) float32 uint8 ReLU""".splitlines()


@needs(CAM)
def test_grad_cam_methods_guided_backprop_and_metrics(tmp_path):
    for module in ("cv2", "sklearn", "scipy", "matplotlib", "tqdm"):
        pytest.importorskip(module)
    ttach = pytest.importorskip("ttach")
    folder = tmp_path / "run"
    port_script.port_tree(source(CAM, "pytorch_grad_cam"), str(folder / "pytorch_grad_cam"))
    port_script.port_tree(os.path.dirname(ttach.__file__), str(folder / "ttach"))
    (folder / "driver.py").write_text(CAM_DRIVER)
    port_script.port_file(str(folder / "driver.py"), str(folder / "driver.py"))
    proc = _run([sys.executable, "driver.py"], str(folder))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    lines = proc.stdout.splitlines()
    for line in CAM_LINES:
        assert line in lines, (line, proc.stdout)
    # every method and smoothing ran, each map scaled to [0, 1]
    maps = [line for line in lines if line.split(" ")[1:2] in (["False"], ["True"])]
    assert len(maps) == 29 and all(" float32 0.0 1.0 " in line for line in maps), maps


ATTACK_DRIVER = '''import numpy as np
import torch
import torch.nn as nn
import torchattacks
''' + WEIGHTS + '''
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(144, 10)
    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))

model = set_weights(Net(), 0.3)
images = torch.from_numpy(rng.uniform(0, 1, (6, 3, 12, 12)).astype(np.float32))
labels = model(images).argmax(1)
labels[::2] = (labels[::2] + 1) % 10
print("clean", model(images).argmax(1).tolist(), labels.tolist())
E = 8 / 255
attacks = [
    torchattacks.VANILA(model), torchattacks.GN(model, std=0.1),
    torchattacks.FGSM(model, eps=E), torchattacks.BIM(model, eps=E, alpha=2 / 255, steps=3),
    torchattacks.RFGSM(model, eps=E, alpha=2 / 255, steps=3), torchattacks.PGD(model, eps=E, alpha=2 / 255, steps=3),
    torchattacks.EOTPGD(model, eps=E, alpha=2 / 255, steps=2, eot_iter=2), torchattacks.FFGSM(model, eps=E, alpha=10 / 255),
    torchattacks.TPGD(model, eps=E, alpha=2 / 255, steps=3), torchattacks.MIFGSM(model, eps=E, steps=3, decay=1.0),
    torchattacks.UPGD(model, eps=E, steps=3), torchattacks.APGD(model, eps=E, steps=3),
    torchattacks.APGDT(model, eps=E, steps=3, n_classes=10),
    torchattacks.DIFGSM(model, eps=E, alpha=2 / 255, steps=3, resize_rate=1.1),
    torchattacks.TIFGSM(model, eps=E, alpha=2 / 255, steps=3, resize_rate=1.1, kernel_name="gaussian", len_kernel=5),
    torchattacks.Jitter(model, eps=E, alpha=2 / 255, steps=3), torchattacks.NIFGSM(model, eps=E, steps=3),
    torchattacks.PGDRS(model, eps=E, steps=3, noise_batch_size=2), torchattacks.SINIFGSM(model, eps=E, steps=3),
    torchattacks.VMIFGSM(model, eps=E, steps=3, N=2), torchattacks.VNIFGSM(model, eps=E, steps=3, N=2),
    torchattacks.SPSA(model, eps=E, nb_iter=2, nb_sample=4, max_batch_size=8),
    torchattacks.CW(model, c=1, kappa=0, steps=3, lr=0.01), torchattacks.PGDL2(model, eps=1.0, alpha=0.2, steps=3),
    torchattacks.PGDRSL2(model, eps=1.0, steps=3, noise_batch_size=2), torchattacks.DeepFool(model, steps=3),
    torchattacks.EADEN(model, max_iterations=10, binary_search_steps=2),
    torchattacks.EADL1(model, max_iterations=10, binary_search_steps=2),
    torchattacks.SparseFool(model, steps=2, lam=3), torchattacks.OnePixel(model, pixels=1, steps=2, popsize=4),
    torchattacks.Pixle(model, max_iterations=2, restarts=2), torchattacks.JSMA(model, theta=1.0, gamma=0.1),
    torchattacks.FAB(model, eps=E, steps=3, n_classes=10, n_restarts=1, multi_targeted=False),
    torchattacks.Square(model, eps=E, n_queries=5),
    torchattacks.PIFGSM(model, max_epsilon=16 / 255, num_iter_set=3),
    torchattacks.PIFGSMPP(model, max_epsilon=16 / 255, num_iter_set=3),
]
for atk in attacks:
    torch.manual_seed(0)
    adv = atk(images, labels)
    d = adv - images
    print(atk.attack, tuple(adv.shape), str(adv.dtype).split(".")[-1], "linf %.4f" % d.abs().max().item(),
          "l2 %.4f" % d.flatten(1).norm(dim=1).max().item(), "pred", model(adv).argmax(1).tolist())
atk = torchattacks.PGD(model, eps=E, alpha=2 / 255, steps=2)
atk.set_mode_targeted_by_label(quiet=True)
print("targeted", tuple(atk(images, (labels + 1) % 10).shape))
atk.set_mode_targeted_random(quiet=True)
print("random", tuple(atk(images, labels).shape))
atk.set_mode_targeted_least_likely(quiet=True)
print("least", tuple(atk(images, labels).shape))
atk.set_mode_default()
atk.set_normalization_used(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])
print("norm", tuple(atk(images, labels).shape))
print(atk)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=3)
atk.save(loader, save_path="adv.pt", verbose=True, return_verbose=False)
for x, y in atk.load("adv.pt", batch_size=3):
    print("loaded", tuple(x.shape), str(x.dtype).split(".")[-1], str(y.dtype).split(".")[-1])
multi = torchattacks.MultiAttack([torchattacks.FGSM(model, eps=E), torchattacks.PGD(model, eps=E, steps=2)])
print("multi", tuple(multi(images, labels).shape))
'''

# PyTorch's lines (CPU) of ATTACK_DRIVER for the attacks that draw no random numbers
ATTACK_LINES = """clean [5, 5, 5, 5, 5, 5] [6, 5, 6, 5, 6, 5]
VANILA (6, 3, 12, 12) float32 linf 0.0000 l2 0.0000 pred [5, 5, 5, 5, 5, 5]
FGSM (6, 3, 12, 12) float32 linf 0.0314 l2 0.6498 pred [5, 8, 5, 5, 5, 4]
BIM (6, 3, 12, 12) float32 linf 0.0235 l2 0.4725 pred [5, 5, 5, 5, 5, 4]
MIFGSM (6, 3, 12, 12) float32 linf 0.0235 l2 0.4803 pred [5, 5, 5, 5, 5, 5]
UPGD (6, 3, 12, 12) float32 linf 0.0235 l2 0.4803 pred [5, 5, 5, 5, 5, 5]
NIFGSM (6, 3, 12, 12) float32 linf 0.0235 l2 0.4715 pred [5, 5, 5, 5, 5, 4]
SINIFGSM (6, 3, 12, 12) float32 linf 0.0235 l2 0.4726 pred [5, 5, 5, 5, 5, 5]
CW (6, 3, 12, 12) float32 linf 0.0000 l2 0.0000 pred [5, 5, 5, 5, 5, 5]
DeepFool (6, 3, 12, 12) float32 linf 0.0765 l2 0.4423 pred [5, 8, 5, 5, 5, 4]
EADEN (6, 3, 12, 12) float32 linf 0.0000 l2 0.0000 pred [5, 5, 5, 5, 5, 5]
EADL1 (6, 3, 12, 12) float32 linf 0.0000 l2 0.0000 pred [5, 5, 5, 5, 5, 5]
JSMA (6, 3, 12, 12) float32 linf 0.9863 l2 3.6619 pred [5, 5, 7, 6, 7, 6]
targeted (6, 3, 12, 12)
random (6, 3, 12, 12)
least (6, 3, 12, 12)
norm (6, 3, 12, 12)
loaded (3, 3, 12, 12) float32 int64
multi (6, 3, 12, 12)""".splitlines()


@needs(ATTACKS)
def test_torchattacks_attacks_modes_save_and_load(tmp_path):
    pytest.importorskip("scipy")
    folder = tmp_path / "run"
    port_script.port_tree(source(ATTACKS, "torchattacks"), str(folder / "torchattacks"))
    (folder / "driver.py").write_text(ATTACK_DRIVER)
    port_script.port_file(str(folder / "driver.py"), str(folder / "driver.py"))
    proc = _run([sys.executable, "driver.py"], str(folder))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    lines = proc.stdout.splitlines()
    for line in ATTACK_LINES:
        assert line in lines, (line, proc.stdout)
    runs = [line for line in lines if " linf " in line]
    assert len(runs) == 36, runs
    assert "normalization_used=True" in proc.stdout


VISUALIZATIONS = "pytorch-cnn-visualizations"
# Pillow 10 removed Image.ANTIALIAS (LANCZOS is the same filter), matplotlib 3.9 cm.get_cmap, and
# the AlexNet's pretrained weights would download: its own initialization stands in (PyTorch's run
# needs the same changes).
MISC = {"        pil_im = pil_im.resize((224, 224), Image.ANTIALIAS)":
        "        pil_im = pil_im.resize((224, 224), Image.LANCZOS)",
        "    color_map = mpl_color_map.get_cmap(colormap_name)": "    color_map = plt.get_cmap(colormap_name)",
        "    pretrained_model = models.alexnet(pretrained=True)": "    pretrained_model = models.alexnet()"}
GRADCAM = {"                       input_image.shape[3]), Image.ANTIALIAS))/255":
           "                       input_image.shape[3]), Image.LANCZOS))/255"}


@needs(VISUALIZATIONS)
@pytest.mark.slow
def test_cnn_visualizations_guided_backprop_and_grad_cam(tmp_path):
    pytest.importorskip("matplotlib")
    src = tmp_path / "run" / "src"
    port_script.port_tree(source(VISUALIZATIONS, "input_images"), str(tmp_path / "run" / "input_images"))
    (tmp_path / "run" / "results").mkdir()
    port_script.port_file(source(VISUALIZATIONS, "src/misc_functions.py"), str(src / "misc_functions.py"), MISC)
    port_script.port_file(source(VISUALIZATIONS, "src/gradcam.py"), str(src / "gradcam.py"), GRADCAM)
    scripts = {"vanilla_backprop.py": ["Vanilla backprop completed"],
               "guided_backprop.py": ["Guided backprop completed"],
               "guided_gradcam.py": ["Grad cam completed", "Guided backpropagation completed",
                                     "Guided grad cam completed"],
               "layer_activation_with_guided_backprop.py": ["Layer Guided backprop completed"]}
    for script in scripts:
        port_script.port_file(source(VISUALIZATIONS, "src/" + script), str(src / script))
    for script, printed in scripts.items():
        proc = _run([sys.executable, script], str(src))
        assert proc.returncode == 0, (script, proc.stdout[-2000:] + proc.stderr[-4000:])
        assert proc.stdout.splitlines() == printed, (script, proc.stdout)
    made = sorted(p.name for p in (tmp_path / "run" / "results").iterdir())
    for name in ["snake_Guided_BP_color.png", "snake_Guided_BP_gray.png", "snake_pos_sal.png", "snake_neg_sal.png",
                 "snake_GGrad_Cam.png", "snake_GGrad_Cam_gray.png", "cat_dog_Vanilla_BP_color.png"]:
        assert name in made, made
