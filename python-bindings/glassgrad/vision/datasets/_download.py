"""download=True: fetching a data set's archives (each checked against its MD5) into the
directory the data set reads, or, when they cannot be fetched (no network), a
DatasetNotFoundError that names every file, where it goes and where it can be got."""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile
from typing import List, Sequence, Tuple

from ...data.errors import DatasetNotFoundError

_TIMEOUT = 30.0


def md5_of(path: str) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(url: str, path: str, md5: str) -> None:
    """Downloads url to path (through a temporary file, renamed when complete and its MD5 right)."""
    tmp = f"{path}.{os.getpid()}.part"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "glassgrad"}),
                                    timeout=_TIMEOUT) as r, open(tmp, "wb") as f:
            shutil.copyfileobj(r, f, 1 << 20)
        got = md5_of(tmp)
        if got != md5:
            raise OSError(f"{url}: the download's MD5 is {got}, expected {md5} (a damaged or changed file)")
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def gunzip(path: str) -> str:
    """Extracts file.gz beside it as file; returns the new path."""
    out = path[:-3]
    with gzip.open(path, "rb") as src, open(out + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    os.replace(out + ".part", out)
    return out


def untar(path: str, into: str) -> None:
    with tarfile.open(path, "r:gz") as tar:
        try:
            tar.extractall(into, filter="data")  # no absolute paths, links out of `into`, devices
        except TypeError:  # pragma: no cover - Python without extraction filters
            for m in tar.getmembers():
                if m.name.startswith(("/", "..")) or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                    raise OSError(f"{path}: refusing to extract {m.name!r}")
            tar.extractall(into)


def not_found(name: str, looked_for: str, call: str, archive: str, into: str) -> DatasetNotFoundError:
    """The error a data set raises when its extracted files are missing: what it looked for, and
    the call (or the archive to extract by hand) that provides them."""
    return DatasetNotFoundError(f"Dataset not found. You can use download=True to download it\n"
                                f"  {name} looked for {looked_for}\n"
                                f"  fix: {call}, or extract {archive} into {into}")


def unzip(path: str, into: str) -> None:
    """Extracts a zip archive into `into`, refusing members that would land outside it."""
    with zipfile.ZipFile(path) as z:
        for m in z.namelist():
            if m.startswith(("/", "\\")) or ".." in m.replace("\\", "/").split("/"):
                raise OSError(f"{path}: refusing to extract {m!r}")
        z.extractall(into)


def download_all(name: str, files: Sequence[Tuple[str, str]], mirrors: Sequence[str], into: str,
                 after=None) -> None:
    """Fetches each (filename, md5) from the first mirror that serves it into `into`, then calls
    after(path) on it (extraction). Raises DatasetNotFoundError listing what could not be fetched."""
    os.makedirs(into, exist_ok=True)
    failures: List[str] = []
    for filename, md5 in files:
        path = os.path.join(into, filename)
        if not (os.path.isfile(path) and md5_of(path) == md5):
            errors = []
            for mirror in mirrors:
                try:
                    fetch(mirror + filename, path, md5)
                    break
                except (OSError, urllib.error.URLError, ValueError) as e:
                    errors.append(f"{mirror}{filename}: {getattr(e, 'reason', None) or e}")
            else:
                failures.append(f"{filename} (tried {'; '.join(errors)})")
                continue
        if after is not None:
            after(path)
    if failures:
        listing = "\n".join(f"    {f}" for f in failures)
        raise DatasetNotFoundError(
            f"{name}: download=True could not fetch these files into {into}:\n{listing}\n"
            f"  cause: no network connection (or the servers refused)\n"
            f"  fix: copy the files named above into {into} (from a machine with a connection), then run again")


def fetch_archive(name: str, url: str, md5: str, root: str) -> None:
    """Fetches the tar archive at url (checked against md5) into root and extracts it there."""
    filename = url.rsplit("/", 1)[1]
    download_all(name, [(filename, md5)], [url[:-len(filename)]], root, lambda path: untar(path, root))
