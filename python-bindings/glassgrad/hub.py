"""glassgrad.hub: torch.hub's names. Checkpoints by URL into a cache folder, and models from a
repository's hubconf.py (docs/porting.md, "torch.hub").

The cache is PyTorch's own folder ($TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub, else
~/.cache/torch/hub), so a file PyTorch downloaded is found here and read by glassgrad.load,
which reads PyTorch's files. A file not in the cache is downloaded when the network allows;
without one, the error names the URL and the exact path to copy the file to."""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import urllib.error
import urllib.request
import uuid
import warnings
import zipfile
from typing import Any, Callable, Dict, List, Optional, Union
from urllib.parse import urlparse

from ._C import InvalidArgumentError
from .serialization import load as _load

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
# filename-<first eight or more hex digits of the file's SHA-256>.ext (torchvision's names)
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_TIMEOUT = 30.0
_hub_dir: Optional[str] = None


def _get_torch_home() -> str:
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", DEFAULT_CACHE_DIR),
                                                                     "torch")))


def get_dir() -> str:
    """The hub's cache folder: set_dir's, else $TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub,
    else ~/.cache/torch/hub."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    return _hub_dir if _hub_dir is not None else os.path.join(_get_torch_home(), "hub")


def set_dir(d: Union[str, "os.PathLike[str]"]) -> None:
    """Makes `d` the hub's cache folder for this process (user paths expanded)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _unreachable(what: str, url: str, dst: str, cause: BaseException) -> OSError:
    reason = getattr(cause, "reason", None) or cause
    return OSError(f"{what}: could not download {url} to {dst}\n"
                   f"  cause: {reason} (no network connection, or the server refused)\n"
                   f"  fix: copy the file to {dst} (from a machine with a connection); it is then read from there")


def download_url_to_file(url: str, dst: str, hash_prefix: Optional[str] = None, progress: bool = True) -> None:
    """Downloads `url` to `dst` through a temporary file beside it, renamed into place only when
    complete and, with `hash_prefix`, only when the content's SHA-256 starts with it."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    tmp = os.path.join(folder, f".{os.path.basename(dst)}.{uuid.uuid4().hex}.partial")
    sha = hashlib.sha256()
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "glassgrad.hub"})
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as r, open(tmp, "wb") as f:
            total = r.headers.get("Content-Length")
            bar = _progress(int(total) if total else None, progress)
            while True:
                chunk = r.read(1 << 16)
                if not chunk:
                    break
                f.write(chunk)
                sha.update(chunk)
                bar.update(len(chunk))
            bar.close()
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha.hexdigest()}"): '
                               f"{url} is damaged or not the file its name promises")
        shutil.move(tmp, dst)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise _unreachable("download_url_to_file", url, dst, e) from e
    finally:
        with contextlib.suppress(OSError):
            os.remove(tmp)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: Optional[int], show: bool) -> Any:
    if not show:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024)


def _is_legacy_zip(path: str) -> bool:
    """A zip holding one checkpoint file (the hub's oldest format), not PyTorch's zip checkpoint
    (whose members all sit under one folder with a data.pkl)."""
    if not zipfile.is_zipfile(path):
        return False
    names = zipfile.ZipFile(path).namelist()
    return not any(n.endswith("data.pkl") for n in names)


def _legacy_zip_load(path: str, model_dir: str, map_location: Any, weights_only: bool) -> Any:
    with zipfile.ZipFile(path) as z:
        members = z.infolist()
        if len(members) != 1:
            raise RuntimeError(f"load_state_dict_from_url: {path} is a zip of {len(members)} files; "
                               f"only a zip of one checkpoint file is supported")
        z.extractall(model_dir, [members[0]])
        extracted = os.path.join(model_dir, members[0].filename)
    return _load(extracted, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url: str, model_dir: Optional[str] = None, map_location: Any = None,
                             progress: bool = True, check_hash: bool = False, file_name: Optional[str] = None,
                             weights_only: bool = False) -> Dict[str, Any]:
    """The checkpoint at `url`, read by glassgrad.load from `model_dir` (default
    get_dir()/checkpoints) under the URL's file name (or `file_name`), downloaded there first
    when missing (with check_hash, verified against the SHA-256 prefix in the name)."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    model_dir = os.path.expanduser(model_dir) if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    if not filename:
        raise InvalidArgumentError(f"load_state_dict_from_url: the URL {url!r} names no file\n"
                                   f"  fix: pass file_name='model.pth'")
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        found = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
    if _is_legacy_zip(cached):
        return _legacy_zip_load(cached, model_dir, map_location, weights_only)
    return _load(cached, map_location=map_location, weights_only=weights_only)


# ---- models from a repository's hubconf.py -------------------------------------------------------

def _parse_repo(github: str):
    """'owner/name[:ref]' -> (owner, name, ref); ref None when not given."""
    spec, _, ref = github.partition(":")
    owner, slash, name = spec.partition("/")
    if not slash or not owner or not name or "/" in name:
        raise InvalidArgumentError(f"glassgrad.hub: {github!r} is not a GitHub repository\n"
                                   f"  fix: 'owner/name' or 'owner/name:ref' (a branch or tag), or a local folder "
                                   f"with source='local'")
    return owner, name, ref or None


def _trusted_list_path() -> str:
    return os.path.join(get_dir(), "trusted_list")


def _check_trusted(owner: str, name: str, trust_repo: Any, in_cache: bool) -> None:
    """PyTorch's trust rules: True adds the repository to the hub's trusted_list; 'check' and
    False ask (stdin) for a repository that is neither listed nor of a trusted owner; None only
    warns, for a repository not yet in the cache."""
    key = f"{owner}_{name}"
    path = _trusted_list_path()
    listed = []
    if os.path.exists(path):
        with open(path) as f:
            listed = [line.strip() for line in f if line.strip()]
    trusted = key in listed or owner in _TRUSTED_OWNERS
    if trust_repo is None:
        if not trusted and not in_cache:
            warnings.warn(f"glassgrad.hub: running code from {owner}/{name}, which is not in your trusted list: "
                          f"pass trust_repo=True to add it, or trust_repo='check' to be asked", stacklevel=4)
        return
    if trust_repo is False or (trust_repo == "check" and not trusted):
        answer = input(f"The repository {owner}/{name} does not belong to the list of trusted repositories and as "
                       f"such cannot be downloaded. Do you trust this repository and wish to add it to the trusted "
                       f"list of repositories (y/N)?")
        if answer.lower() not in ("y", "yes"):
            raise Exception("Untrusted repository.")
    if key not in listed and owner not in _TRUSTED_OWNERS:
        os.makedirs(get_dir(), exist_ok=True)
        with open(path, "a") as f:
            f.write(key + "\n")


def _repo_dir(github: str, force_reload: bool, trust_repo: Any, verbose: bool) -> str:
    """The cached checkout of `github` under get_dir(), downloaded (GitHub's archive of the
    ref, default 'main') when missing or when force_reload."""
    owner, name, ref = _parse_repo(github)
    branch = ref or "main"
    folder = os.path.join(get_dir(), "_".join([owner, name, branch.replace("/", "_")]))
    in_cache = os.path.isdir(folder) and not force_reload
    _check_trusted(owner, name, trust_repo, in_cache)
    if in_cache:
        if verbose:
            sys.stderr.write(f"Using cache found in {folder}\n")
        return folder
    os.makedirs(get_dir(), exist_ok=True)
    url = f"https://github.com/{owner}/{name}/zipball/{branch}"
    archive = os.path.join(get_dir(), f"{branch.replace('/', '_')}.zip")
    if verbose:
        sys.stderr.write(f'Downloading: "{url}" to {archive}\n')
    try:
        download_url_to_file(url, archive, progress=False)
    except OSError as e:
        raise OSError(f"glassgrad.hub: {github} is not in the hub's cache ({folder}) and could not be downloaded\n"
                      f"  cause: {e.__cause__ or e}\n"
                      f"  fix: clone the repository and pass its folder with source='local', or copy a checkout to "
                      f"{folder}") from e
    with zipfile.ZipFile(archive) as z:
        top = z.namelist()[0].split("/")[0]
        root = os.path.realpath(get_dir())
        for member in z.namelist():  # no member may land outside the hub folder
            if not os.path.realpath(os.path.join(root, member)).startswith(root + os.sep):
                raise OSError(f"glassgrad.hub: {archive} holds {member!r}, outside {root}: refusing to extract")
        z.extractall(get_dir())
    os.remove(archive)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    shutil.move(os.path.join(get_dir(), top), folder)
    return folder


def _import_hubconf(repo_dir: str) -> Any:
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"glassgrad.hub: {repo_dir} has no {MODULE_HUBCONF}\n"
                                f"  fix: pass the folder that holds the repository's {MODULE_HUBCONF}")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)  # hubconf imports the repository's own modules
    try:
        spec.loader.exec_module(module)
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(repo_dir)
    missing = [d for d in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module: Any, model: str) -> Callable[..., Any]:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _hubconf_of(repo_or_dir: str, source: str, force_reload: bool, trust_repo: Any, verbose: bool) -> Any:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    folder = repo_or_dir if source == "local" else _repo_dir(repo_or_dir, force_reload, trust_repo, verbose)
    return _import_hubconf(folder)


def list(github: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check",
         verbose: bool = True, source: str = "github") -> List[str]:
    """The entry points (public callables) of the repository's hubconf.py."""
    module = _hubconf_of(github, source, force_reload, trust_repo, verbose)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")]


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo: Any = "check", source: str = "github") -> Optional[str]:
    """The docstring of the entry point `model`."""
    return _entry(_hubconf_of(github, source, force_reload, trust_repo, True), model).__doc__


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """entry(*args, **kwargs) for the entry point `model` of hubconf.py in `repo_or_dir` (a
    folder with source='local', else 'owner/name[:ref]' from the hub's cache or GitHub). A
    repository written for PyTorch imports torch in its hubconf.py: port it first
    (tools/port_script.py) to run it on glassgrad."""
    return _entry(_hubconf_of(repo_or_dir, source, force_reload, trust_repo, verbose), model)(*args, **kwargs)

