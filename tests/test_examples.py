"""Every example runs (shortened) as a user would run it."""

import os
import subprocess
import sys
from pathlib import Path

from conftest import SHARED_DATA, requires_shared_data

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@requires_shared_data(
    "semeval2014_restaurants/Restaurants_Train_v2.xml",
    "glove/glove.6B.50d.100k.txt.gz",
)
def test_train_semeval_example():
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "train_semeval.py"), "--epochs", "1"],
        env={**os.environ, "ASPECTATTN_DATA": str(SHARED_DATA)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "3518 train / 973 test pairs" in out
    assert "test accuracy" in out and "macro-F1" in out
    assert "'service' ->" in out and "waiter" in out
