import functools
import http.server
import shutil
import threading
from collections import Counter

import pytest
from conftest import SHARED_DATA, requires_shared_data

from aspectattn import ChecksumError
from aspectattn import datasets as ds

REST = "semeval2014_restaurants"


@requires_shared_data(
    f"{REST}/Restaurants_Train_v2.xml", f"{REST}/Restaurants_Test_Gold.xml"
)
def test_semeval2014_restaurant_category_counts_match_wang_et_al():
    X, y = ds.fetch_semeval2014(data_home=SHARED_DATA, download_if_missing=False)
    assert len(X) == 3518
    assert Counter(y) == {"positive": 2179, "negative": 839, "neutral": 500}
    X, y = ds.fetch_semeval2014(
        subset="test", data_home=SHARED_DATA, download_if_missing=False
    )
    assert len(X) == 973
    assert Counter(y) == {"positive": 657, "negative": 222, "neutral": 94}
    assert {a for _, a in X} == {
        "food",
        "service",
        "price",
        "ambience",
        "anecdotes/miscellaneous",
    }


@requires_shared_data(f"{REST}/Restaurants_Train_v2.xml")
def test_conflict_can_be_kept_and_frames_have_offsets(monkeypatch):
    monkeypatch.setenv(ds.DATA_HOME_ENV, str(SHARED_DATA))
    X, y = ds.fetch_semeval2014(conflict="keep")
    assert Counter(y)["conflict"] == 195 and len(X) == 3713
    pytest.importorskip("pandas")
    frame = ds.fetch_semeval2014(aspect="term", as_frame=True)
    assert list(frame.columns) == [
        "text",
        "aspect",
        "polarity",
        "sentence_id",
        "start",
        "end",
    ]
    row = frame.iloc[0]
    assert row.text[row.start : row.end] == row.aspect


@requires_shared_data(
    "semeval2014_laptops/Laptop_Train_v2.xml",
    "semeval2014_laptops/Laptops_Test_Gold.xml",
)
def test_laptop_terms():
    X, y = ds.fetch_semeval2014("laptops", "train", "term", data_home=SHARED_DATA)
    assert Counter(y) == {"positive": 987, "negative": 866, "neutral": 460}
    with pytest.raises(ValueError, match="aspect terms only"):
        ds.fetch_semeval2014("laptops", aspect="category", data_home=SHARED_DATA)


@requires_shared_data("semeval2015_restaurants/ABSA-15_Restaurants_Train_Final.xml")
def test_semeval2015_unique_pairs_and_mixed_polarity():
    kw = dict(data_home=SHARED_DATA)
    X, y = ds.fetch_semeval2015(**kw)
    assert Counter(y) == {"positive": 1058, "negative": 344, "neutral": 49}
    X, y = ds.fetch_semeval2015(conflict="keep", **kw)
    assert Counter(y)["conflict"] == 27
    X, y = ds.fetch_semeval2015(aspect="target", **kw)
    assert Counter(y) == {"positive": 902, "negative": 252, "neutral": 34}
    assert all(a != "NULL" for _, a in X)


@requires_shared_data("mams_atsa/val.xml", "mams_acsa/val.xml")
def test_mams():
    X, y = ds.fetch_mams("term", "val", data_home=SHARED_DATA)
    assert Counter(y) == {"positive": 403, "negative": 325, "neutral": 604}
    X, y = ds.fetch_mams("category", "val", data_home=SHARED_DATA)
    assert len(X) == 888


def test_reader_on_a_hand_written_file(tmp_path):
    path = tmp_path / "tiny.xml"
    path.write_text("""<?xml version="1.0"?><sentences>
      <sentence id="1"><text>Great pasta, rude waiter.</text>
        <aspectTerms><aspectTerm term="pasta" polarity="positive" from="6" to="11"/>
          <aspectTerm term="waiter" polarity="negative" from="18" to="24"/>
        </aspectTerms>
        <aspectCategories><aspectCategory category="food" polarity="positive"/>
          <aspectCategory category="service" polarity="conflict"/></aspectCategories>
      </sentence></sentences>""")
    X, y = ds.read_semeval2014(path)
    assert X == [("Great pasta, rude waiter.", "food")] and y == ["positive"]
    X, y = ds.read_semeval2014(path, aspect="term")
    assert [a for _, a in X] == ["pasta", "waiter"] and y == ["positive", "negative"]
    with pytest.raises(ValueError, match="aspect must be one of"):
        ds.read_semeval2014(path, aspect="opinion")


def test_data_home_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv(ds.DATA_HOME_ENV, raising=False)
    assert ds.get_data_home().name == "aspectattn_data"
    monkeypatch.setenv(ds.DATA_HOME_ENV, str(tmp_path))
    assert ds.get_data_home() == tmp_path
    assert ds.get_data_home(tmp_path / "x") == tmp_path / "x"


# ------------------------------------------------------- downloads from a local server
@pytest.fixture
def server(tmp_path):
    """An HTTP server on 127.0.0.1 serving a folder; yields (folder, base_url)."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(root)
    )
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


MAMS_VAL = "mams_atsa/val.xml"


@requires_shared_data(MAMS_VAL)
def test_fetch_downloads_verifies_and_caches(server, tmp_path, monkeypatch):
    root, base = server
    shutil.copy(SHARED_DATA / MAMS_VAL, root / "val.xml")
    remote = ds.REMOTE_FILES[MAMS_VAL]
    monkeypatch.setitem(
        ds.REMOTE_FILES, MAMS_VAL, remote._replace(url=f"{base}/val.xml")
    )
    home = tmp_path / "home"
    X, y = ds.fetch_mams("term", "val", data_home=home)
    assert len(X) == 1332
    assert (home / MAMS_VAL).is_file()
    assert not [p for p in (home / "mams_atsa").iterdir() if p.name.startswith(".")]
    (root / "val.xml").unlink()  # second call reads the cached file, no server needed
    assert len(ds.fetch_mams("term", "val", data_home=home)[0]) == 1332


@requires_shared_data(MAMS_VAL)
def test_fetch_rejects_a_corrupted_download(server, tmp_path, monkeypatch):
    root, base = server
    data = (SHARED_DATA / MAMS_VAL).read_bytes()
    (root / "val.xml").write_bytes(data.replace(b"positive", b"negative", 1))
    remote = ds.REMOTE_FILES[MAMS_VAL]
    monkeypatch.setitem(
        ds.REMOTE_FILES, MAMS_VAL, remote._replace(url=f"{base}/val.xml")
    )
    home = tmp_path / "home"
    with pytest.raises(ChecksumError, match="expected " + remote.sha256):
        ds.fetch_mams("term", "val", data_home=home)
    assert not (home / MAMS_VAL).exists()
    assert list((home / "mams_atsa").iterdir()) == []  # no temporary file left


def test_fetch_without_download_or_server(tmp_path, monkeypatch, server):
    _, base = server
    with pytest.raises(FileNotFoundError, match="download_if_missing=False"):
        ds.fetch_mams(data_home=tmp_path, download_if_missing=False)
    remote = ds.REMOTE_FILES[MAMS_VAL]
    monkeypatch.setitem(
        ds.REMOTE_FILES, MAMS_VAL, remote._replace(url=f"{base}/missing.xml")
    )
    with pytest.raises(OSError, match="Could not download"):
        ds.fetch_mams("term", "val", data_home=tmp_path)


def test_registry_urls_are_pinned_to_commits():
    for relative, remote in ds.REMOTE_FILES.items():
        assert remote.url.startswith("https://") and len(remote.sha256) == 64
        assert any(len(part) == 40 for part in remote.url.split("/")), relative
