import functools
import http.server
import re
import shutil
import threading
from collections import Counter

import pytest
from conftest import SHARED_DATA, requires_shared_data

from aspectattn import ChecksumError, InputError
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


# ------------------------------------------------------------------ APC (PyABSA)
APC = (
    "The $T$ was great but the waiter was rude.\npasta\nPositive\n"
    "The pasta was great but the $T$ was rude.\nwaiter\nNegative\n"
    "We sat outside.\nterrace\nNeutral\n"  # no $T$: the term is not in the sentence
    "Я люблю $T$ здесь.\nборщ\n1\n"
)


def test_read_apc_puts_the_term_back_with_its_span(tmp_path):
    from aspectattn.datasets import read_apc

    path = tmp_path / "mine.dat"
    path.write_bytes(("\ufeff" + APC.replace("\n", "\r\n")).encode())  # BOM, CRLF
    with pytest.warns(UserWarning, match="1 of 4 examples have no \\$T\\$"):
        X, y = read_apc(path)
    assert y == ["positive", "negative", "positive"]
    assert X[0] == ("The pasta was great but the waiter was rude.", "pasta", (4, 9))
    assert X[1][2] == (28, 34) and X[2] == ("Я люблю борщ здесь.", "борщ", (8, 12))
    for text, term, (start, end) in X:
        assert text[start:end] == term
    kept, _ = read_apc(path, missing_term="keep")
    assert kept[2] == ("We sat outside.", "terrace", None)
    with pytest.raises(InputError, match="line 7: the sentence has no"):
        read_apc(path, missing_term="error")
    # a directory is named as open() names it, not by its file descriptor
    with pytest.raises(IsADirectoryError, match=re.escape(repr(str(tmp_path)))):
        read_apc(tmp_path)


@pytest.mark.parametrize(
    "content, message",
    [
        ("The $T$ was great.\npasta\n", "not a multiple of 3"),
        ("The $T$ was great.\npasta\nsuperb\n", "polarity 'superb' is not one of"),
        ("The $T$ was great.\n\nPositive\n", "empty sentence or term"),
        ("", "no example"),
    ],
)
def test_a_file_that_is_not_apc_is_a_clear_error(tmp_path, content, message):
    from aspectattn.datasets import read_apc

    path = tmp_path / "bad.dat"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_apc(path)


def test_an_apc_file_trains_from_the_command_line(tmp_path):
    from aspectattn.cli import main

    lines = []
    for i in range(30):
        lines += [f"The $T$ number {i} was great.", "pasta", "Positive"]
        lines += [f"The $T$ number {i} was awful.", "soup", "Negative"]
    (tmp_path / "mine.dat").write_text("\n".join(lines) + "\n")
    out = tmp_path / "m.aam"
    args = ["train", str(tmp_path / "mine.dat"), "--out", str(out), "--quiet"]
    args += ["--embeddings", "none", "--embedding-dim", "8", "--epochs", "2"]
    assert main([*args, "--validation-fraction", "0", "--hidden-size", "8"]) == 0
    assert main(["evaluate", str(out), str(tmp_path / "mine.dat")]) == 0


@requires_shared_data("semeval2016_multilingual/restaurants_train_russian.xml.dat")
def test_semeval2016_in_five_languages_is_registered_and_counted():
    from collections import Counter

    from aspectattn.datasets import DATASETS

    # the counts of the files' SOURCES.md (Dutch: less its sentences without $T$)
    expected = {"ru": (3158, 2453), "es": (1936, 1368), "fr": (1770, 901)}
    for code, (n, positive) in expected.items():
        X, y = DATASETS[f"semeval2016-{code}"].load("train")
        assert (len(X), Counter(y)["positive"]) == (n, positive)
        assert all(text[s:e] == term for text, term, (s, e) in X)
    with pytest.warns(UserWarning, match="125 of 1283 examples"):
        X, _ = DATASETS["semeval2016-nl"].load("train")
    assert len(X) == 1283 - 125


# -- aspect terms as spans, per sentence ------------------------------------------
SPANS_2014 = """<?xml version="1.0"?>
<sentences>
  <sentence id="1"><text>The battery life is great but the keyboard is not.</text>
    <aspectTerms>
      <aspectTerm term="keyboard" polarity="negative" from="34" to="42"/>
      <aspectTerm term="battery life" polarity="positive" from="4" to="16"/>
      <aspectTerm term="battery life" polarity="positive" from="4" to="16"/>
    </aspectTerms></sentence>
  <sentence id="2"><text>I bought it last week.</text></sentence>
  <sentence id="3"><text>The screen is bright but dim outside.</text>
    <aspectTerms>
      <aspectTerm term="screen" polarity="conflict" from="4" to="10"/>
    </aspectTerms></sentence>
</sentences>
"""
SPANS_2015 = """<?xml version="1.0"?>
<Reviews><Review rid="1"><sentences>
  <sentence id="1:0"><text>Great pasta, bad pasta sauce.</text><Opinions>
    <Opinion target="pasta" polarity="positive" from="6" to="11"/>
    <Opinion target="pasta sauce" polarity="negative" from="17" to="28"/>
    <Opinion target="NULL" polarity="negative" from="0" to="0"/>
  </Opinions></sentence>
  <sentence id="1:1"><text>Loved it.</text><Opinions>
    <Opinion target="NULL" polarity="positive" from="0" to="0"/>
  </Opinions></sentence>
</sentences></Review></Reviews>
"""
SPANS_APC = """Le $T$ était bon, le service lent.
plat
Positive
Le plat était bon, le $T$ lent.
service
Negative
Belle $T$.
terrasse
Positive
"""


def test_term_spans_give_every_sentence_with_its_terms(tmp_path):
    (tmp_path / "a.xml").write_text(SPANS_2014)
    texts, y = ds.read_term_spans(tmp_path / "a.xml")
    assert len(texts) == 3  # the sentence without terms too
    assert y[0] == [(4, 16, "positive"), (34, 42, "negative")]  # in order, once
    assert y[1] == [] and y[2] == [(4, 10, "conflict")]
    assert ds.read_term_spans(tmp_path / "a.xml", conflict="drop")[1][2] == []

    (tmp_path / "b.xml").write_text(SPANS_2015)
    texts, y = ds.read_term_spans(tmp_path / "b.xml")  # sniffed: <Opinion>
    assert y == [[(6, 11, "positive"), (17, 28, "negative")], []]  # NULL: no span

    (tmp_path / "c.txt").write_text(SPANS_APC)
    texts, y = ds.read_term_spans(tmp_path / "c.txt")
    assert texts == ["Le plat était bon, le service lent.", "Belle terrasse."]
    assert y == [[(3, 7, "positive"), (22, 29, "negative")], [(6, 14, "positive")]]


def test_a_span_that_does_not_hold_its_term_is_an_error(tmp_path):
    (tmp_path / "a.xml").write_text(SPANS_2014.replace('from="34"', 'from="33"'))
    with pytest.raises(InputError, match="not the term 'keyboard'"):
        ds.read_term_spans(tmp_path / "a.xml")
    (tmp_path / "b.xml").write_text(SPANS_2014.replace('from="34"', 'from="x"'))
    with pytest.raises(InputError, match="not a character offset"):
        ds.read_term_spans(tmp_path / "b.xml")
    with pytest.raises(ValueError, match="format"):
        ds.read_term_spans(tmp_path / "a.xml", format="conll")


@requires_shared_data("semeval2014_laptops/Laptops_Test_Gold.xml")
def test_semeval2014_laptop_test_terms_are_semeval_s_654():
    texts, y = ds.fetch_term_spans(
        "semeval2014-laptops", "test", data_home=SHARED_DATA, download_if_missing=False
    )
    assert len(texts) == 800 and sum(map(len, y)) == 654
    assert all(
        text[a:b].strip() == text[a:b] and b > a
        for text, spans in zip(texts, y, strict=True)
        for a, b, _ in spans
    )
