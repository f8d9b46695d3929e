"""A stand-in for fastai v1's `fastai.datasets` (the two functions and the URL names that
fast.ai's course-v3 part 2 notebooks call) for ported runs without network access: tests copy
this file as fastai/datasets.py beside the notebooks. Where fastai downloads into
~/.fastai/data/<last part of the URL><ext> and returns that path, this returns ./data/<the same
name>, which the test has written (data_fixtures.write_mnist_pickle, write_imagenette)."""
from pathlib import Path


class URLs:
    S3_IMAGE = "https://s3.amazonaws.com/fast-ai-imageclas/"
    S3_NLP = "https://s3.amazonaws.com/fast-ai-nlp/"
    IMAGENETTE_160 = f"{S3_IMAGE}imagenette-160"
    IMAGENETTE_320 = f"{S3_IMAGE}imagenette-320"
    IMAGEWOOF_160 = f"{S3_IMAGE}imagewoof-160"
    PETS = f"{S3_IMAGE}oxford-iiit-pet"
    IMDB = f"{S3_NLP}imdb"


def _local(url, ext=""):
    path = Path.cwd() / "data" / (url.split("/")[-1] + ext)
    if not path.exists():
        raise FileNotFoundError(f"fastai.datasets stand-in: {path} was not written (no downloads here)")
    return path


def download_data(url, fname=None, ext=".tgz"):
    """fastai v1: the path of the downloaded file (here, written beforehand)."""
    return Path(fname) if fname is not None else _local(url, ext)


def untar_data(url, fname=None, dest=None, data=True, force_download=False):
    """fastai v1: the folder the archive was extracted into (here, written beforehand)."""
    return Path(dest) if dest is not None else _local(url)
