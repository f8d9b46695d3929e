"""Real PyTorch scripts from checkouts outside this repository, ported on the fly.

GLASSGRAD_SCRIPT_SOURCES names a folder with one checkout per repository under the names in
REPOSITORIES (docs/porting.md, "Running real scripts", gives the commits the tests were written
against). A test asks for its repository with `needs(...)`, which skips it, saying how to run it,
when the variable or the checkout is missing; the tests port what they run into tmp_path with
tools/port_script.py (`port_script` here), the rewrite users run."""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Optional

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import port_script  # noqa: E402, F401  (tools/port_script.py, used by the tests that import this module)

VARIABLE = "GLASSGRAD_SCRIPT_SOURCES"
# folder under GLASSGRAD_SCRIPT_SOURCES -> the repository cloned there
REPOSITORIES = {
    "pytorch-examples": "github.com/pytorch/examples",
    "pytorch-cifar": "github.com/kuangliu/pytorch-cifar",
    "nanoGPT": "github.com/karpathy/nanoGPT",
    "minGPT": "github.com/karpathy/minGPT",
    "yunjey-pytorch-tutorial": "github.com/yunjey/pytorch-tutorial",
    "morvanzhou-pytorch-tutorial": "github.com/MorvanZhou/PyTorch-Tutorial",
    "ng-video-lecture": "github.com/karpathy/ng-video-lecture",
    "makemore": "github.com/karpathy/makemore",
    "jcjohnson-pytorch-examples": "github.com/jcjohnson/pytorch-examples",
    "patrickloeber-pytorchTutorial": "github.com/patrickloeber/pytorchTutorial",
    "nyu-dlsp20": "github.com/Atcold/NYU-DLSP20",
    "udacity-deep-learning-v2-pytorch": "github.com/udacity/deep-learning-v2-pytorch",
    "mrdbourke-pytorch-deep-learning": "github.com/mrdbourke/pytorch-deep-learning",
    "LLMs-from-scratch": "github.com/rasbt/LLMs-from-scratch",
    "dlwpt-code": "github.com/deep-learning-with-pytorch/dlwpt-code",
    "nn-zero-to-hero": "github.com/karpathy/nn-zero-to-hero",
    "PyTorchZeroToAll": "github.com/hunkim/PyTorchZeroToAll",
    "PyTorch-GAN": "github.com/eriklindernoren/PyTorch-GAN",
    "Dive-into-DL-PyTorch": "github.com/ShusenTang/Dive-into-DL-PyTorch",
    "pytorch-tutorials": "github.com/pytorch/tutorials",
    "code-of-learn-deep-learning-with-pytorch": "github.com/L1aoXingyu/code-of-learn-deep-learning-with-pytorch",
    "Machine-Learning-Collection": "github.com/aladdinpersson/Machine-Learning-Collection",
    "dataflowr-notebooks": "github.com/dataflowr/notebooks",
    "deeplearning-models": "github.com/rasbt/deeplearning-models",
    "stat453-deep-learning-ss21": "github.com/rasbt/stat453-deep-learning-ss21",
    "zergtant-pytorch-handbook": "github.com/zergtant/pytorch-handbook",
    "dragen1860-deep-learning-tutorials": "github.com/dragen1860/Deep-Learning-with-PyTorch-Tutorials",
    "thorough-pytorch": "github.com/datawhalechina/thorough-pytorch",
    "pytorch-book": "github.com/chenyuntc/pytorch-book",
    "cs230-code-examples": "github.com/cs230-stanford/cs230-code-examples",
    "Practical_DL": "github.com/yandexdataschool/Practical_DL",
    "deeplearningzerotoall-pytorch": "github.com/deeplearningzerotoall/PyTorch",
    "nyu-dlsp21": "github.com/Atcold/NYU-DLSP21",
    "PyTorch-Mini-Tutorials": "github.com/vinhkhuc/PyTorch-Mini-Tutorials",
    "Fast-Pytorch": "github.com/omerbsezer/Fast-Pytorch",
    "machine-learning-book": "github.com/rasbt/machine-learning-book",
    "nlp-tutorial": "github.com/graykode/nlp-tutorial",
    "annotated-transformer": "github.com/harvardnlp/annotated-transformer",
    "practical-pytorch": "github.com/spro/practical-pytorch",
    "minimalRL": "github.com/seungeunrho/minimalRL",
    "Pytorch-UNet": "github.com/milesial/Pytorch-UNet",
    "hyunwoongko-transformer": "github.com/hyunwoongko/transformer",
    "eat_pytorch_in_20_days": "github.com/lyhue1991/eat_pytorch_in_20_days",
    "attention-is-all-you-need-pytorch": "github.com/jadore801120/attention-is-all-you-need-pytorch",
    "a-PyTorch-Tutorial-to-Super-Resolution": "github.com/sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution",
    "3-min-pytorch": "github.com/keon/3-min-pytorch",
    "pytorch-image-classification": "github.com/bentrevett/pytorch-image-classification",
    "pytorch-sentiment-analysis": "github.com/bentrevett/pytorch-sentiment-analysis",
    "pytorch-seq2seq": "github.com/bentrevett/pytorch-seq2seq",
    "d2l-pytorch": "github.com/dsgiitr/d2l-pytorch",
    "app_deep_learning": "github.com/jeffheaton/app_deep_learning",
    "uvadlc_notebooks": "github.com/phlippe/uvadlc_notebooks",
    "udlbook": "github.com/udlbook/udlbook",
    "02456-deep-learning-with-PyTorch": "github.com/DeepLearningDTU/02456-deep-learning-with-PyTorch",
    "build-nanogpt": "github.com/karpathy/build-nanogpt",
    "llm.c": "github.com/karpathy/llm.c",
    "pytorch-GAT": "github.com/gordicaleksa/pytorch-GAT",
    "pytorch-original-transformer": "github.com/gordicaleksa/pytorch-original-transformer",
    "nlp_course": "github.com/yandexdataschool/nlp_course",
    "cleanrl": "github.com/vwxyzjn/cleanrl",
    "pytorch_resnet_cifar10": "github.com/akamaster/pytorch_resnet_cifar10",
    "a-PyTorch-Tutorial-to-Transformers": "github.com/sgrvinod/a-PyTorch-Tutorial-to-Transformers",
    "a-PyTorch-Tutorial-to-Sequence-Labeling": "github.com/sgrvinod/a-PyTorch-Tutorial-to-Sequence-Labeling",
    "fastai-course-v3": "github.com/fastai/course-v3",
    "pytorch-cifar100": "github.com/weiaicunzai/pytorch-cifar100",
    "mantasu-cs231n": "github.com/mantasu/cs231n",
    "Made-With-ML": "github.com/GokuMohandas/Made-With-ML",
    "PyTorch-VAE": "github.com/AntixK/PyTorch-VAE",
    "udacity-deep-reinforcement-learning": "github.com/udacity/deep-reinforcement-learning",
    "pytorch-generative-model-collections": "github.com/znxlwm/pytorch-generative-model-collections",
    "pytorch-made": "github.com/karpathy/pytorch-made",
    "pytorch-normalizing-flows": "github.com/karpathy/pytorch-normalizing-flows",
    "pygcn": "github.com/tkipf/pygcn",
    "pyGAT": "github.com/Diego999/pyGAT",
    "char-rnn.pytorch": "github.com/spro/char-rnn.pytorch",
    "pytorch-sgns": "github.com/theeluwin/pytorch-sgns",
    "RL-Adventure": "github.com/higgsfield/RL-Adventure",
    "gae-pytorch": "github.com/zfjsail/gae-pytorch",
    "minDiffusion": "github.com/cloneofsimo/minDiffusion",
    "Conditional_Diffusion_MNIST": "github.com/TeaPearce/Conditional_Diffusion_MNIST",
    "Diffusion-Models-pytorch": "github.com/dome272/Diffusion-Models-pytorch",
    "usuyama-pytorch-unet": "github.com/usuyama/pytorch-unet",
    "SRCNN-pytorch": "github.com/yjn870/SRCNN-pytorch",
    "pytorch-wgan": "github.com/Zeleni9/pytorch-wgan",
    "Chinese-Text-Classification-Pytorch": "github.com/649453932/Chinese-Text-Classification-Pytorch",
    "mixup-cifar10": "github.com/facebookresearch/mixup-cifar10",
    "CutMix-PyTorch": "github.com/clovaai/CutMix-PyTorch",
    "knowledge-distillation-pytorch": "github.com/haitongli/knowledge-distillation-pytorch",
    "ikostrikov-pytorch-flows": "github.com/ikostrikov/pytorch-flows",
    "pbloem-former": "github.com/pbloem/former",
    "PPO-PyTorch": "github.com/nikhilbarhate99/PPO-PyTorch",
    "sfujim-TD3": "github.com/sfujim/TD3",
    "pytorch-soft-actor-critic": "github.com/pranz24/pytorch-soft-actor-critic",
    "RL-Adventure-2": "github.com/higgsfield/RL-Adventure-2",
    "mamba-minimal": "github.com/johnma2006/mamba-minimal",
    "DDPM-Pytorch": "github.com/explainingai-code/DDPM-Pytorch",
    "micrograd": "github.com/karpathy/micrograd",
    "pytorch-llama": "github.com/hkproj/pytorch-llama",
    "pytorch-grad-cam": "github.com/jacobgil/pytorch-grad-cam",
    "adversarial-attacks-pytorch": "github.com/Harry24k/adversarial-attacks-pytorch",
    "pytorch-cnn-visualizations": "github.com/utkuozbulak/pytorch-cnn-visualizations",
    "sthalles-SimCLR": "github.com/sthalles/SimCLR",
    "pytorch-vqvae": "github.com/ritheshkumar95/pytorch-vqvae",
    "ViT-CIFAR": "github.com/omihub777/ViT-CIFAR",
    "recurrent-visual-attention": "github.com/kevinzakka/recurrent-visual-attention",
    "vit-pytorch": "github.com/lucidrains/vit-pytorch",
    "zalandoresearch-pytorch-vq-vae": "github.com/zalandoresearch/pytorch-vq-vae",
    "detr": "github.com/facebookresearch/detr",
    "generative-models": "github.com/wiseodd/generative-models",
    "llama2.c": "github.com/karpathy/llama2.c",
    "pytorch-fm": "github.com/rixwew/pytorch-fm",
    "Time-Series-Library": "github.com/thuml/Time-Series-Library",
    "tabnet": "github.com/dreamquark-ai/tabnet",
    "SASRec.pytorch": "github.com/pmixer/SASRec.pytorch",
    "LightGCN-PyTorch": "github.com/gusye1234/LightGCN-PyTorch",
    "rtdl-revisiting-models": "github.com/yandex-research/rtdl-revisiting-models",
    "mamba.py": "github.com/alxndrTL/mamba.py",
    "DeepLabv3FineTuning": "github.com/msminhas93/DeepLabv3FineTuning",
    "pytorch-beginner": "github.com/L1aoXingyu/pytorch-beginner",
    "d2l-pytorch-colab": "github.com/d2l-ai/d2l-pytorch-colab",
}


def checkout(repo: str) -> Optional[str]:
    """The checkout's folder, or None when GLASSGRAD_SCRIPT_SOURCES or the folder is missing."""
    root = os.environ.get(VARIABLE)
    folder = os.path.join(root, repo) if root else None
    return folder if folder and os.path.isdir(folder) else None


def needs(repo: str):
    """A skip mark for tests that run scripts from the checkout `repo`."""
    return pytest.mark.skipif(
        checkout(repo) is None,
        reason=f"runs scripts of {REPOSITORIES[repo]}, which the repository does not carry: clone it as "
               f"$GLASSGRAD_SCRIPT_SOURCES/{repo} (docs/porting.md, 'Running real scripts') and set {VARIABLE}")


def source(repo: str, rel: str) -> str:
    """The path of an original file in the checkout."""
    folder = checkout(repo)
    assert folder is not None, f"{VARIABLE}/{repo} is missing (mark the test with needs({repo!r}))"
    return os.path.join(folder, rel)


def slow_params(names, slow):
    """pytest params for sorted(names), those in `slow` marked slow (runs of minutes)."""
    return [pytest.param(n, marks=[pytest.mark.slow] if n in slow else []) for n in sorted(names)]


@contextlib.contextmanager
def importing_from(folder, *packages: str):
    """folder first on sys.path for the block; after it the modules named by `packages` (and
    their submodules) are forgotten, so that the same names import again from another folder (a
    ported copy, then the original). What the block imported stays usable."""
    folder = str(folder)
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path.remove(folder)
        for name in [m for m in sys.modules if m in packages or m.startswith(tuple(p + "." for p in packages))]:
            sys.modules.pop(name)
