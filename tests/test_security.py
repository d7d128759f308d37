"""A model file, a request body or a text may come from an attacker.

Model files: every field is validated on load, nothing is written to disk, no code
runs, and anything unexpected is a ModelFileError. Texts: memory stays linear in the
input whatever the length of its longest "word".
"""

import json
import os
import subprocess
import sys
import tempfile
import tracemalloc

import numpy as np
import pytest
import torch
from conftest import FAST, json_values, make_pairs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aspectattn import AspectAttentionClassifier
from aspectattn.encoders import PretrainedEncoder
from aspectattn.persistence import ModelFileError, _digest, load
from aspectattn.text.tokens import MAX_TOKEN_CHARS, Tokenizer, Vocabulary


@pytest.fixture(scope="module")
def word_model_file(tmp_path_factory):
    X, y = make_pairs(40, seed=0)
    clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)
    path = tmp_path_factory.mktemp("models") / "words.aam"
    clf.save(path)
    return path


@pytest.fixture(scope="module")
def subword_model_file(tiny_checkpoint, tmp_path_factory):
    X, y = make_pairs(30, seed=0)
    clf = AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1, "encoder": PretrainedEncoder(tiny_checkpoint)},
        variant="at",
    ).fit(X, y)
    path = tmp_path_factory.mktemp("models") / "subwords.aam"
    clf.save(path)
    return path


def _rewrite(source, target, edit):
    """Copy a model file with its metadata edited, the checksum recomputed (as an
    attacker would: the digest is integrity, not authenticity)."""
    payload = torch.load(source, weights_only=True)
    meta = json.loads(payload["metadata"])
    edit(meta)
    payload["metadata"] = json.dumps(meta)
    payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
    torch.save(payload, target)
    return target


@pytest.fixture
def no_disk_writes(monkeypatch):
    """Fail the test if anything creates a temporary directory or file."""

    def refuse(*args, **kwargs):
        raise AssertionError("tried to write a temporary file")

    for name in ("TemporaryDirectory", "mkdtemp", "mkstemp", "NamedTemporaryFile"):
        monkeypatch.setattr(tempfile, name, refuse)


@pytest.mark.parametrize(
    "name", ["../../evil.pth", "/tmp/aspectattn-evil.pth", "sub/vocab.txt", "x.pth"]
)
def test_tokenizer_file_names_outside_the_allow_list_are_refused(
    subword_model_file, tmp_path, name
):
    def add_file(meta):
        meta["fitted"]["text_pipeline_"]["files"][name] = "import os"

    path = _rewrite(subword_model_file, tmp_path / "evil.aam", add_file)
    with pytest.raises(ModelFileError, match="unexpected tokenizer file name"):
        load(path)
    assert not (tmp_path / "evil.pth").exists()
    assert not (tmp_path.parent / "evil.pth").exists()


def test_fitting_a_checkpoint_quietly_shows_no_loading_bar(tiny_checkpoint, capfd):
    X, y = make_pairs(10, seed=0)
    AspectAttentionClassifier(
        **{**FAST, "max_epochs": 1, "encoder": PretrainedEncoder(tiny_checkpoint)},
        variant="at",
    ).fit(X, y)
    captured = capfd.readouterr()
    assert captured.out == "" and "Loading" not in captured.err


def test_subword_model_loads_and_predicts_without_writing_files(
    subword_model_file, no_disk_writes
):
    model = load(subword_model_file)
    assert model.predict([("the soup was bland.", "food")]).shape == (1,)


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("params", "hidden_size"), "abc"),
        (("params", "variant"), "xx"),
        (("params", "nonsense"), 1),
        # the components' settings, whatever component takes them
        (("params", "weight_decay"), -1.0),
        (("params", "attention_heads"), "two"),
        (("params", "max_len"), 0),
        (("params", "patience"), "forever"),  # without early stopping too
        (("params", "scoring"), 3),
        # earlier releases kept how a model was distilled: checked, then dropped
        (("params", "distill_weight"), "abc"),
        (("params", "distill_temperature"), 1e9),
        (("params", "teacher"), {"estimator": "os.system"}),
        (("fitted", "module_config_", "encoder_config", "hidden_size"), "abc"),
        (("fitted", "module_config_", "encoder_config", "hidden_size"), 10**9),
        (("fitted", "module_config_", "n_classes"), 5),
        (("fitted", "classes_", "dtype"), "V1000000000"),
        (("fitted", "classes_", "values"), ["a", "a"]),
        (("fitted", "aspects_"), "food"),
        (("fitted", "history_"), [{"epoch": [1]}]),
        (("fitted", "interrupted_"), "no"),
        (("fitted", "device_"), "tpu"),
        (("fitted", "resolved_params_"), ["augment"]),
        (("fitted", "resolved_params_", "final_state"), "auto"),
        (("fitted", "resolved_params_", "augment"), "rm -rf"),
        (("fitted", "resolved_params_", "n_layers"), 3),  # never "auto"
        (("fitted", "resolved_params_", "hidden_size"), "auto"),
        (("fitted", "text_pipeline_", "words"), ["<pad>", 3]),
        (("fitted", "text_pipeline_", "kind"), "pickle"),
        (("fitted",), None),
        (("estimator",), "os.system"),
    ],
)
def test_bad_fields_raise_model_file_error(word_model_file, tmp_path, where, value):
    def edit(meta):
        node = meta
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value

    with pytest.raises(ModelFileError):
        load(_rewrite(word_model_file, tmp_path / "bad.aam", edit))


def _paths(node, prefix=()):
    """Every path into a JSON tree."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from _paths(v, (*prefix, i))


_json = json_values()


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_metadata_gives_only_model_file_errors(
    word_model_file, tmp_path, no_disk_writes, tally, data
):
    payload = torch.load(word_model_file, weights_only=True)
    meta = json.loads(payload["metadata"])
    paths = [p for p in _paths(meta) if p]
    where = data.draw(st.sampled_from(paths))
    value = data.draw(_json)
    node = meta
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    payload["metadata"] = json.dumps(meta)
    payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
    path = tmp_path / "fuzzed.aam"
    torch.save(payload, path)
    try:
        model = load(path)
    except ModelFileError:
        tally["crafted metadata: ModelFileError"] += 1
        return
    # What loads is a working model.
    proba = model.predict_proba([("the soup was bland.", "food")])
    assert proba.shape == (1, len(model.classes_))
    tally["crafted metadata: loads and predicts"] += 1


def test_one_huge_word_costs_memory_linear_in_the_input():
    # A URL, a base64 blob: np.asarray(tokens, dtype=str) padded every token to the
    # longest one (+2 GB for one 50,000-character word among 300 pairs).
    X, y = make_pairs(150, seed=0)
    blob = "x" * 200_000
    X = [*X, (f"the pasta was {blob} great", "food")]
    y = [*y, "positive"]
    tracemalloc.start()
    try:
        clf = AspectAttentionClassifier(**{**FAST, "max_epochs": 1}).fit(X, y)
        clf.predict_proba([(f"{blob} the waiter was rude", "service")] * 50)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40e6, peak
    assert max(map(len, clf.vocabulary_.words_)) == MAX_TOKEN_CHARS


def test_long_tokens_are_cut_and_lookup_is_a_hash():
    tokens = Tokenizer()("see https://example.com/" + "a" * 500 + " now")
    assert max(map(len, tokens)) == MAX_TOKEN_CHARS and tokens[-1] == "now"
    vocab = Vocabulary().fit([["a", "b"]])
    ids = vocab.lookup(["b", "z" * 10**6, "a"])
    assert ids.dtype == np.int64 and ids.tolist() == [vocab.index_["b"], 1, 2]


# ----------------------------------------------------- tensors and archive contents
def _rewrite_tensors(source, target, edit):
    """Copy a model file with its tensors edited and the checksum recomputed."""
    payload = torch.load(source, weights_only=True)
    edit(payload["tensors"])
    if all(t.layout == torch.strided and t.dtype != torch.bfloat16
           for t in payload["tensors"].values()):  # fmt: skip
        payload["sha256"] = _digest(payload["metadata"], payload["tensors"])
    torch.save(payload, target)
    return target


def _first(tensors):
    return next(k for k, t in tensors.items() if t.numel() > 1)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda ts: ts[_first(ts)].view(-1).__setitem__(0, float("nan")), "non-finite"),
        (lambda ts: ts[_first(ts)].view(-1).__setitem__(1, float("inf")), "non-finite"),
        (lambda ts: ts.update({_first(ts): ts[_first(ts)].bfloat16()}), "type"),
        (lambda ts: ts.update({_first(ts): ts[_first(ts)].to_sparse()}), "layout"),
    ],
    ids=["nan", "inf", "bfloat16", "sparse"],
)
def test_tampered_tensors_give_a_model_file_error(
    word_model_file, tmp_path, tally, edit, message
):
    path = _rewrite_tensors(word_model_file, tmp_path / "t.aam", edit)
    with pytest.raises(ModelFileError, match=message):
        load(path)
    tally["tampered tensors: ModelFileError"] += 1


@pytest.mark.parametrize("version", [True, 2.0, "2", None])
def test_format_version_must_be_the_integer(word_model_file, tmp_path, version):
    payload = torch.load(word_model_file, weights_only=True)
    payload["format_version"] = version
    torch.save(payload, tmp_path / "v.aam")
    with pytest.raises(ModelFileError, match="format version"):
        load(tmp_path / "v.aam")


def _deflated_bomb(source, target, size=2**30):
    """``source`` with one tensor's data entry replaced by ``size`` zero bytes,
    DEFLATE-compressed: a file of a few MB that declares a GiB."""
    import zipfile

    with (
        zipfile.ZipFile(source) as zin,
        zipfile.ZipFile(target, "w", compresslevel=1) as zout,  # fast to write
    ):
        names = [i.filename for i in zin.infolist()]
        biggest = max(
            (n for n in names if "/data/" in n), key=lambda n: zin.getinfo(n).file_size
        )
        for name in names:
            if name != biggest:
                zout.writestr(zin.getinfo(name), zin.read(name))
                continue
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            chunk = bytes(2**24)
            with zout.open(info, "w", force_zip64=True) as f:
                # each chunk's deflate stream made once, not a GiB deflated
                # (zipfile's writer's compressor; were it renamed, the file would
                # still be the same bomb, only slower to write)
                f._compressor = _ZeroChunks(chunk)
                for _ in range(size // len(chunk)):
                    f.write(chunk)
    return target


class _ZeroChunks:
    """A deflate compressor for ``chunk`` (zeros) written again and again: its
    stream, ended by a full flush (byte-aligned, no reference to earlier data),
    computed once, so that the streams of the chunks join into one."""

    def __init__(self, chunk: bytes):
        import zlib

        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        self.stream = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
        self.end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # the last block

    def compress(self, data: bytes) -> bytes:
        return self.stream

    def flush(self) -> bytes:
        return self.end


def test_a_small_file_that_declares_a_gib_is_refused_in_bounded_memory(
    word_model_file, tmp_path, tally
):
    path = _deflated_bomb(word_model_file, tmp_path / "bomb.aam")
    assert path.stat().st_size < 3 * 2**20
    code = (
        "import sys\n"
        "from aspectattn.persistence import ModelFileError, load\n"
        "try:\n"
        f"    load({str(path)!r})\n"
        "except ModelFileError as exc:\n"
        "    print('refused', exc)\n"
        # VmHWM: this process's peak resident memory (ru_maxrss would also count
        # the pytest process it was forked from)
        "print([int(line.split()[1]) // 1024 for line in open('/proc/self/status')\n"
        "       if line.startswith('VmHWM')][0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0].startswith("refused") and "compressed" in out[0]
    peak_mib = int(out[-1])
    tally[
        f"a {path.stat().st_size:,}-byte file declaring 1 GiB: refused at "
        f"{peak_mib} MiB peak"
    ] += 1
    assert peak_mib <= 600


def test_a_device_is_not_a_model_file(tmp_path):
    link = tmp_path / "zero.aam"
    link.symlink_to("/dev/zero")
    with pytest.raises(ModelFileError, match="not a regular file"):
        load(link)
    os.mkfifo(tmp_path / "fifo.aam")  # not waited for
    with pytest.raises(ModelFileError, match="not a regular file"):
        load(tmp_path / "fifo.aam")


def test_settings_the_estimator_does_not_have_are_refused_on_load(
    word_model_file, tmp_path
):
    """A model file's parameters are the estimator's own, each component's its
    own: a name it lacks (the flat names of development files, a teacher's
    settings) is refused, not dropped."""

    def distilled(meta):
        meta["params"].update(distill_weight=0.9)

    def flat(meta):
        meta["params"].update(hidden_size=300)

    def nested(meta):
        meta["params"]["encoder"] = {
            "component": "LSTMEncoder",
            "params": {"hidden_size": 8, "score": "dot"},
        }

    def foreign(meta):
        meta["params"]["encoder"] = {"component": "os.system", "params": {}}

    for change, message in (
        (distilled, "unknown parameters"),
        (flat, "unknown parameters"),
        (nested, "unknown parameters"),
        (foreign, "must be one of"),
    ):
        with pytest.raises(ModelFileError, match=message):
            load(_rewrite(word_model_file, tmp_path / "bad.aam", change))
