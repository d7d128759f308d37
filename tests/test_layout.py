"""The package's layers: torch-free text processing, parameters, data sets, command
line and runtime; no import circles; registries that resolve."""

import ast
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aspectattn import params as P

PACKAGE = Path(P.__file__).resolve().parents[1]


def test_torch_free_modules_import_without_torch():
    code = (
        "import sys\n"
        "import aspectattn, aspectattn.params, aspectattn.datasets\n"
        "import aspectattn.serving.runtime\n"
        "import aspectattn.text.tokens, aspectattn.text.pipelines\n"
        "import aspectattn.text.vectors, aspectattn.text.subwords\n"
        "import aspectattn.text.spans, aspectattn.text.pos\n"
        "import aspectattn.extraction.words, aspectattn.extraction.inputs\n"
        "import aspectattn.extraction.reading, aspectattn.extraction.metrics\n"
        "import aspectattn.extraction.aspects\n"
        "from aspectattn.cli import build_parser\n"
        "build_parser()\n"
        "heavy = sorted(m for m in ('torch', 'skorch', 'gensim') if m in sys.modules)\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.with_suffix("").relative_to(PACKAGE.parent).parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports, at any level (lazy imports too)."""
    modules = {_module_name(p)[0]: p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        _, is_package = _module_name(path)
        here = name.split(".") if is_package else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    targets.add(sub if sub in modules else source)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def test_no_import_circles():
    graph = _import_graph()
    assert "aspectattn.engine.training" in graph["aspectattn.estimators._base"]

    def reaches(start, goal, seen):
        for nxt in graph[start]:
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                if reaches(nxt, goal, seen):
                    return True
        return False

    circles = [m for m in graph if reaches(m, m, set())]
    assert circles == []


@pytest.mark.parametrize("layer", ["text", "params", "datasets"])
def test_lower_layers_do_not_import_upper_ones(layer):
    graph = _import_graph()
    upper = (
        "aspectattn.nn",
        "aspectattn.engine",
        "aspectattn.estimators",
        "aspectattn.cli",
    )
    for module, targets in graph.items():
        if module.startswith(f"aspectattn.{layer}"):
            assert not [t for t in targets if t.startswith(upper)], module


def test_encoder_registry_resolves_to_classes_that_build_from_a_config():
    from aspectattn.encoders import ENCODER_CLASSES
    from aspectattn.nn.encoders import get_encoder

    for name, entry in P.ENCODERS.items():
        if name == "pretrained":
            pytest.importorskip("transformers")
        cls = get_encoder(name)
        assert cls.__name__ == entry.path.rsplit(":", 1)[1]
        if "words" in entry.groups:  # word encoders build from their settings
            # (the component, as fit resolves it for aspect terms)
            settings = ENCODER_CLASSES[name]()
            if name == "lstm":
                settings.set_params(hidden_size=P.LSTM_SIZE, bidirectional=True)
            kwargs = cls.config_from(settings)
            assert set(kwargs) <= set(inspect.signature(cls).parameters)
            assert cls.states_size(settings) > 0
        assert name in ENCODER_CLASSES, f"encoder {name!r} has no component"


def test_dataset_registry_is_what_the_cli_reads(capsys):
    from aspectattn.cli import build_parser
    from aspectattn.datasets import DATASETS

    assert {"semeval2014-restaurants-category", "mams-term"} <= set(DATASETS)
    for dataset in DATASETS.values():
        assert dataset.aspects in ("category", "term")
        assert (dataset.table is None) == (dataset.aspects == "term")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in DATASETS)


def test_commands_are_the_modules_of_the_cli_package():
    from aspectattn.cli import commands

    names = [m.__name__.rsplit(".", 1)[1] for m in commands()]
    assert names == [
        "train",
        "evaluate",
        "predict",
        "explain",
        "analyze",
        "export",
        "check",
    ]
    for module in commands():
        assert callable(module.add_arguments) and callable(module.run)


# ------------------------------------------------ adding a part touches its files
BAG_ENCODER = '''
"""A throwaway encoder: the word vectors themselves as states."""

import torch
from torch import nn

from ...encoders import BagEncoder as _Component
from ...params.components import value_constraints
from .base import WORD_SCHEMA, _WordEncoder

_WIDTH = _Component._parameter_constraints["bag_width"]


class BagEncoder(_WordEncoder):
    config_schema = {**WORD_SCHEMA, "bag_width": value_constraints(_WIDTH)}

    @staticmethod
    def config_from(settings) -> dict:
        return dict(bag_width=settings.bag_width)

    @staticmethod
    def states_size(settings) -> int:
        return settings.bag_width

    def __init__(self, *, vocab_size, embedding_dim, aspect_input_size=0,
                 embedding_dropout=0.0, embedding=None, marker_size=0, bag_width=8):
        super().__init__()
        size = self._init_words(vocab_size, embedding_dim, aspect_input_size,
                                embedding_dropout, embedding, marker_size)
        self.proj = nn.Linear(size, bag_width)
        self.output_size = bag_width

    def forward(self, tokens, lengths, aspect_input=None, marker=None):
        states = torch.tanh(self.proj(self._inputs(tokens, aspect_input, marker)))
        return states, states.mean(1)
'''
BAG_ENTRY = """
ENCODERS["bag"] = EncoderEntry(
    "aspectattn.nn.encoders.bag:BagEncoder", ("words", "bag"), "bag of words"
)
"""
BAG_COMPONENT = '''

@register
class BagEncoder(_WordEncoder):
    """The word vectors themselves as states.

    Parameters
    ----------
    bag_width : int, default=8
        Width of the states.
    max_len : int, default=100
        Sentences are truncated to their first ``max_len`` tokens.
    %(words)s
    """

    kind = "bag"
    _parameter_constraints = {
        "bag_width": [Interval(Integral, 1, 64, closed="both")],
        "max_len": _MAX_LEN,
        **WORD_CONSTRAINTS,
    }

    def __init__(self, *, bag_width=8, max_len=100, embeddings="word2vec",
                 embedding_dim=None,
                 aspect_size=None, embedding_dropout=0.5, freeze_embeddings="auto",
                 embedding_lr=None, lowercase=True, min_count=1, extra_vocabulary=0,
                 unseen_words="auto", word_dropout="auto"):
        self.bag_width = bag_width
        self.max_len = max_len
        self.embeddings = embeddings
        self.embedding_dim = embedding_dim
        self.aspect_size = aspect_size
        self.embedding_dropout = embedding_dropout
        self.freeze_embeddings = freeze_embeddings
        self.embedding_lr = embedding_lr
        self.lowercase = lowercase
        self.min_count = min_count
        self.extra_vocabulary = extra_vocabulary
        self.unseen_words = unseen_words
        self.word_dropout = word_dropout
'''
TOY_DATASET = '''
"""A throwaway data set."""

from ._registry import Dataset, register


def fetch_toy(subset="train"):
    X = [("the soup was great", "food"), ("the waiter was rude", "service")] * 20
    return X, ["positive", "negative"] * 20


register(Dataset("toy", fetch_toy, splits=("train",), description="a toy"))
'''
HELLO_COMMAND = '''
"""A throwaway command."""

ORDER = 99
HELP = "say hello"


def add_arguments(p):
    p.add_argument("name")


def run(args):
    print(f"hello {args.name}")
    return 0
'''


def test_an_encoder_a_data_set_and_a_command_are_each_their_own_files(tmp_path):
    """Added to a copy of the package the way the layout says -- an encoder is its
    torch module, its registry entry and its component (which declares its
    parameters), a data set one module, a command one module --
    each works everywhere: fit, save, load, the CLI's choices and its commands."""
    import shutil

    copy = tmp_path / "aspectattn"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "nn" / "encoders" / "bag.py").write_text(BAG_ENCODER)
    table = copy / "params" / "recipes.py"
    table.write_text(table.read_text() + BAG_ENTRY)  # its registry entry
    components = copy / "encoders.py"
    components.write_text(components.read_text() + BAG_COMPONENT)  # its component
    (copy / "datasets" / "toy.py").write_text(TOY_DATASET)
    (copy / "cli" / "hello.py").write_text(HELLO_COMMAND)
    code = (
        "import aspectattn, sys\n"
        f"assert aspectattn.__file__.startswith({str(tmp_path)!r})\n"
        "from aspectattn.cli import main\n"
        "assert main(['hello', 'you']) == 0\n"
        "assert main(['train', 'toy', '--encoder', 'bag', '--embeddings', 'none',\n"
        "             '--embedding-dim', '8', '--epochs', '2', '--quiet',\n"
        "             '--validation-fraction', '0', '--out', sys.argv[1]]) == 0\n"
        "from aspectattn import AspectAttentionClassifier as A\n"
        "m = A.load(sys.argv[1])\n"
        "assert m.module_config_['encoder'] == 'bag'\n"
        "assert m.predict([('the soup was great', 'food')]).shape == (1,)\n"
        "from aspectattn.encoders import BagEncoder\n"
        "bag = BagEncoder(bag_width=4, embeddings=None, embedding_dim=8)\n"
        "m2 = A(encoder=bag, max_epochs=1).fit(*__import__('aspectattn.datasets',\n"
        "       fromlist=['x']).DATASETS['toy'].load())\n"
        "assert m2.get_params()['encoder__bag_width'] == 4\n"
        "assert m2.module_config_['encoder_config']['bag_width'] == 4\n"
        "print('ok')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "bag.aam")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "hello you" in done.stdout and done.stdout.strip().endswith("ok")
