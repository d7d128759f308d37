"""The data home and the files of public releases: where they are, their
SHA-256, and fetching them (downloaded once, checked, then read locally)."""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

from .._output import output_path
from ..exceptions import ChecksumError

DATA_HOME_ENV = "ASPECTATTN_DATA"


class RemoteFile(NamedTuple):
    """A file of a public release: where to get it and its SHA-256."""

    url: str
    sha256: str


def _github(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


_ABSA_KERAS = ("AlexYangLi/ABSA_Keras", "8de8f6a3d8861c68e3f552a4b77bf60d75ee05f6")
_BERT_PAIR = ("HSLCY/ABSA-BERT-pair", "7d238eb8c772946b9e572373c144b11151e4187f")
_BATISTA = (
    "davidsbatista/Aspect-Based-Sentiment-Analysis",
    "1d9c8ec1131993d924e96676fa212db6b53cb870",
)
_MAMS = ("siat-nlp/MAMS-for-ABSA", "cddcdb0f423b3fdb2c76b70744737abed3a00d17")
_ABSA_DATASETS = ("yangheng95/ABSADatasets", "676bcd3d88a901853c74acf364c9ad5c431b0e23")

#: Relative path under the data home -> where to download it and its checksum.
REMOTE_FILES: dict[str, RemoteFile] = {
    "semeval2016_multilingual/restaurants_train_dutch.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/123.dutch/restaurants_train_dutch.xml.dat",
        ),
        "f9b3dd60e76dfb6e6619656634d17878a02a129866e6d40b4d6d6eed22563701",
    ),
    "semeval2016_multilingual/restaurants_test_dutch.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/123.dutch/restaurants_test_dutch.xml.dat",
        ),
        "ef759b9a1274f1981f7ab385dde851bb7b473a83364921dc8b1536d4a7b7843e",
    ),
    "semeval2016_multilingual/restaurants_train_french.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/125.french/restaurants_train_french.xml.dat",
        ),
        "ea93b2c8e4eed501ec315d2b08a46a5b9e2544c90c9e05ba563ae78314d54fb7",
    ),
    "semeval2016_multilingual/restaurants_test_french.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/125.french/restaurants_test_french.xml.dat",
        ),
        "3ab291b3fb11a5c2dfd4a0c50f3580af29337de721a1f6560e4c47cf108e4d58",
    ),
    "semeval2016_multilingual/restaurants_train_russian.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/126.russian/restaurants_train_russian.xml.dat",
        ),
        "f7eb6491a84ef2c788073696691b368f3b7de135a90ef4553970986ce375f526",
    ),
    "semeval2016_multilingual/restaurants_test_russian.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/126.russian/restaurants_test_russian.xml.dat",
        ),
        "daf594609f754100ed67ed4a7ad07a1dec9cdcbe3f3c98e28104e9d374dba51f",
    ),
    "semeval2016_multilingual/restaurants_train_spanish.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/127.spanish/restaurants_train_spanish.xml.dat",
        ),
        "d33de4a163a092512741b0b5989c73d0a40fdffcc6a6718f77871cd9ea667e66",
    ),
    "semeval2016_multilingual/restaurants_test_spanish.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/127.spanish/restaurants_test_spanish.xml.dat",
        ),
        "f5b6babb39c598c550b04a366bf9f565f5d9ecdec9adfbec0d6499e3594376f5",
    ),
    "semeval2016_multilingual/restaurants_train_turkish.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/128.turkish/restaurants_train_turkish.xml.dat",
        ),
        "c61e11820af3dee0fd2935144b1324fc06fa913d4ea00c3c5ef46991a65744ff",
    ),
    "semeval2016_multilingual/restaurants_test_turkish.xml.dat": RemoteFile(
        _github(
            *_ABSA_DATASETS,
            "datasets/apc_datasets/120.SemEval2016Task5/128.turkish/restaurants_test_turkish.xml.dat",
        ),
        "b11cbc7653910c52342c601fd94614dce9af295af11870b34a65bf3546e829d3",
    ),
    "semeval2014_restaurants/Restaurants_Train_v2.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_restaurant/Restaurants_Train_v2.xml"),
        "223601da1bded6caa4ef9cf91a7007578141ca6d8ed50d5a5c217565f89d2fc5",
    ),
    "semeval2014_restaurants/Restaurants_Test_Gold.xml": RemoteFile(
        _github(*_BERT_PAIR, "data/semeval2014/Restaurants_Test_Gold.xml"),
        "f21509cfa37e16534cd5b2da043be487355b64ef48fe8d6aaacaeca6b49cc0fb",
    ),
    "semeval2014_laptops/Laptop_Train_v2.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_laptop/Laptop_Train_v2.xml"),
        "efec2ed73b4efb83b47c697114d800149c558118884afa80362a6e975ba7248c",
    ),
    "semeval2014_laptops/Laptops_Test_Gold.xml": RemoteFile(
        _github(*_ABSA_KERAS, "raw_data/semeval14_laptop/Laptops_Test_Gold.xml"),
        "aa3a30c9dd7e0eacf9b69e898eb4118a36c1b4f391a30a08dfc41a38d8b8745b",
    ),
    "semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml": RemoteFile(
        _github(
            *_BATISTA, "datasets/ABSA-SemEval2015/ABSA-15_Restaurants_Train_Final.xml"
        ),
        "813c3bf02cfdce98e1eccac93eca46e0123ebd8a2848a506d18bd3c1be9037df",
    ),
    "semeval2015_restaurants/ABSA15_Restaurants_Test.xml": RemoteFile(
        _github(*_BATISTA, "datasets/ABSA-SemEval2015/ABSA15_Restaurants_Test.xml"),
        "26085008a5182381504fefdb7b56654baccd08851c900e6b05452055d9cfede9",
    ),
    "mams_acsa/train.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ACSA/raw/train.xml"),
        "24c6a1a9f769ec5a9a1fc9a63077001339cec65317e3e72cf053d8055ec5f1ac",
    ),
    "mams_acsa/val.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ACSA/raw/val.xml"),
        "d4536b0ced8e77f53f88ff1835fcf561e0de02e41a509982f76eb9b8a375b2ed",
    ),
    "mams_atsa/train.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ATSA/raw/train.xml"),
        "26ba39142b28169ebc80408294f4e27493bd1e127c6aa2e85ab4bc750bf8017a",
    ),
    "mams_atsa/val.xml": RemoteFile(
        _github(*_MAMS, "data/MAMS-ATSA/raw/val.xml"),
        "5b7d225e2f9482a3814f15aed04ff8323105171a47d22d9899d871c4e0ba86ca",
    ),
}

_COLUMNS = ("text", "aspect", "polarity", "sentence_id", "start", "end")


# ------------------------------------------------------------------------ data home
def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder that holds (or will hold) the data sets.

    ``data_home`` if given, else ``$ASPECTATTN_DATA``, else ``~/aspectattn_data``.
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or Path.home() / "aspectattn_data"
    return Path(data_home).expanduser()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(remote: RemoteFile, target: Path, timeout: float = 60.0) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        # renamed onto the target only once whole and checked
        with output_path(target) as tmp:
            with (
                open(tmp, "wb") as out,
                urllib.request.urlopen(remote.url, timeout=timeout) as response,
            ):
                shutil.copyfileobj(response, out)
            actual = _sha256(tmp)
            if actual != remote.sha256:
                raise ChecksumError(
                    f"The file downloaded from {remote.url} has SHA-256 {actual}, "
                    f"expected {remote.sha256}; it was discarded. The server may "
                    "have changed the file, or the download was corrupted: try again."
                )
    except urllib.error.URLError as exc:
        raise OSError(
            f"Could not download {remote.url}: {exc.reason}. Without "
            f"internet access, place the file at {target} (or point "
            f"${DATA_HOME_ENV} at a folder that holds it)."
        ) from exc


def _fetch_file(relative: str, data_home, download_if_missing: bool) -> Path:
    path = get_data_home(data_home) / relative
    if path.is_file():
        return path
    if not download_if_missing:
        raise FileNotFoundError(
            f"{path} does not exist and download_if_missing=False. Set data_home= or "
            f"${DATA_HOME_ENV} to the folder that holds {relative!r}."
        )
    _download(REMOTE_FILES[relative], path)
    return path


def _check_choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}.")
