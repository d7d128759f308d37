"""Speed and memory of aspectattn on this machine, in one run (a few minutes).

    ASPECTATTN_DATA=../shared/data python -m benchmarks speed [--skip-pretrained]
    python -m benchmarks speed --table

Measures, through the public sklearn API and at the settings of the accuracy
benchmark (``attention_lstm.py``: hidden 300, batch 25, GloVe 6B 50-d):

* the machine: a dense float32 matrix product and a bare LSTM forward+backward, in
  GFLOP/s (the "distance to the machine" is our training GFLOP/s over these);
* training: seconds per epoch of ATAE-LSTM and AT-LSTM on SemEval-2014 restaurant
  categories (and ATAE on restaurant terms, the reference's data set), the same
  module trained by a plain PyTorch loop (skorch's overhead), and the GFLOP/s achieved;
* inference: ``predict_proba`` on raw pairs (tokenisation included), the forward pass
  alone in batches of 64, ``predict`` one pair at a time (median and 99th percentile
  latency), and AT scoring 5 categories for 1,000 sentences at once vs 5,000 pairs;
* the transformer encoder and the pretrained MiniLM option: epoch time, pairs/s;
* memory: peak resident memory of training and of a loaded model (fresh processes),
  pickle size against float32 parameter bytes;
* scaling: epoch and inference time at 1k, 3.5k and 11k pairs (MAMS terms) and for
  sentences of 10, 40 and 160 tokens.

Epoch times are medians over epochs after the first (which warms up allocators and
caches). Writes ``benchmarks/results/speed.json`` (the record) and ``speed.md``
(``--table``: the table again, from the record).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from aspectattn import AspectAttentionClassifier
from aspectattn.datasets import fetch_mams, fetch_semeval2014, get_data_home
from aspectattn.engine.batching import (
    BucketBatchSampler,
    BucketLoader,
    PairDataset,
    length_sorted_batches,
)
from aspectattn.engine.inference import INFERENCE_BATCH
from aspectattn.text.tokens import Tokenizer
from benchmarks.attention_lstm import PARAMS, PRETRAINED, TRANSFORMER
from benchmarks.common import build, glove
from benchmarks.runner import Measurement

# ABSA-PyTorch ATAE-LSTM (50-d vectors, hidden 300, batch 25, restaurant terms), as
# given in issue 5, measured on a machine of this kind.
REFERENCE = {
    "epoch_seconds": 6.3,
    "pairs_per_second_batch64": 4700,
    "pairs_per_second_single": 1000,
    "dense_gflops": 250,
    "lstm_gflops": 190,
}
TARGETS = {
    "epoch_seconds": 1.5,
    "predict_proba_pairs_per_second": 8000,
    "single_median_ms": 1.5,
    "multi_aspect_speedup": 4.0,
    "pickle_ratio": 1.10,
}
# Timing settings: the accuracy benchmark's model, trained on every pair, no early
# stopping (an epoch is an epoch).
SPEED = {
    **{k: v for k, v in PARAMS.items() if k not in ("max_epochs", "patience")},
    "validation_fraction": None,
    "early_stopping": False,
}


def model(**kwargs) -> AspectAttentionClassifier:
    params = {**SPEED, "embeddings": glove(), "random_state": 0, **kwargs}
    return build(AspectAttentionClassifier, **params)


def epoch_seconds(clf) -> float:
    """Median epoch duration after the first."""
    durations = [row["dur"] for row in clf.history_]
    return float(np.median(durations[1:] if len(durations) > 1 else durations))


def timed(fn, repeat=3):
    """Best wall time of ``repeat`` calls, and the last result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


# --------------------------------------------------------------------------- machine
def dense_gflops(sizes=(1024, 2048, 4096), repeat: int = 5) -> float:
    """The best float32 matrix-product rate over a few square sizes."""
    best = 0.0
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        torch.mm(a, b)
        seconds, _ = timed(lambda a=a, b=b: torch.mm(a, b), repeat)
        best = max(best, 2 * n**3 / seconds / 1e9)
    return best


def lstm_gflops(batch=25, steps=16, input_size=100, hidden=300, repeat=20) -> float:
    """A bare ``nn.LSTM`` forward+backward: the kernel's own speed at our shape."""
    lstm = torch.nn.LSTM(input_size, hidden, batch_first=True)
    # The input needs its gradient too, as word vectors do in training.
    x = torch.randn(batch, steps, input_size, requires_grad=True)

    def step():
        out, _ = lstm(x)
        out.sum().backward()

    step()
    seconds, _ = timed(step, repeat)
    return 3 * lstm_forward_flops(input_size, hidden) * batch * steps / seconds / 1e9


# ----------------------------------------------------------------------------- FLOPs
def lstm_forward_flops(input_size: int, hidden: int) -> int:
    """Matrix-product FLOPs of one LSTM step for one sentence (4 gates)."""
    return 2 * 4 * hidden * (input_size + hidden)


def model_forward_flops_per_token(clf) -> int:
    """Dominant forward FLOPs per (padded) token: the LSTM, plus W_h and the scores."""
    config = clf.module_config_
    hidden = config["encoder_config"]["hidden_size"]
    input_size = config["encoder_config"]["embedding_dim"] + (
        config["aspect_size"] if clf.module_.variant in ("ae", "atae") else 0
    )
    flops = lstm_forward_flops(input_size, hidden)
    if clf.module_.uses_attention:
        flops += 2 * hidden * hidden + 4 * hidden  # W_h h_t, score, weighted sum
    return flops


def padded_tokens_per_epoch(lengths: np.ndarray, batch_size: int, seed=0) -> int:
    """Tokens actually computed in one training epoch (with bucket padding)."""
    sampler = BucketBatchSampler(lengths, batch_size, True, np.random.default_rng(seed))
    return int(sum(len(b) * lengths[b].max() for b in sampler))


def token_lengths(texts, max_len=100) -> np.ndarray:
    return np.array(
        [min(len(t), max_len) for t in Tokenizer().tokenize_many(texts)], np.int64
    )


# -------------------------------------------------------------------------- training
def plain_loop_epoch(clf, X, y, epochs=3) -> float:
    """The fitted module's architecture, trained by a bare PyTorch loop over the same
    bucketed batches: what an epoch costs without skorch (median after the first)."""
    module = copy.deepcopy(clf.module_).train()
    dataset = clf.encode(X)
    index = {c: i for i, c in enumerate(clf.classes_)}
    dataset = PairDataset(
        dataset.sentences,
        dataset.sentence,
        dataset.aspects,
        np.array([index[v] for v in y], np.int64),
    )
    optimizer = torch.optim.Adam(module.parameters(), lr=clf.lr, fused=True)
    loss_fn = torch.nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        for batch, target in BucketLoader(
            dataset, batch_size=clf.batch_size, shuffle=True, generator=rng
        ):
            optimizer.zero_grad()
            loss_fn(module(**batch), target).backward()
            optimizer.step()
        times.append(time.perf_counter() - start)
    return float(np.median(times[1:]))


def training(data, epochs: int) -> tuple[dict, dict]:
    """Epoch times and GFLOP/s of ATAE and AT; also returns the fitted models."""
    (X, y), _ = data
    lengths = token_lengths([t for t, _ in X])
    padded = padded_tokens_per_epoch(lengths, SPEED["batch_size"])
    out = {"pairs": len(X), "real_tokens": int(lengths.sum()), "padded_tokens": padded}
    models = {}
    for variant in ("atae", "at"):
        clf = model(variant=variant, max_epochs=epochs).fit(X, y)
        seconds = epoch_seconds(clf)
        flops = 3 * model_forward_flops_per_token(clf)  # forward + backward
        out[variant] = {
            "epoch_seconds": seconds,
            "epoch_seconds_all": [row["dur"] for row in clf.history_],
            "plain_pytorch_epoch_seconds": plain_loop_epoch(clf, X, y),
            "gflops_computed": flops * padded / seconds / 1e9,
            "gflops_useful": flops * out["real_tokens"] / seconds / 1e9,
        }
        out[variant]["skorch_overhead_seconds"] = (
            seconds - out[variant]["plain_pytorch_epoch_seconds"]
        )
        models[variant] = clf
    return out, models


# ------------------------------------------------------------------------- inference
def inference(clf, X_pairs) -> dict:
    out = {}
    # Batch predict_proba on raw pairs, tokenisation included.
    seconds, _ = timed(lambda: clf.predict_proba(X_pairs))
    out["predict_proba_pairs_per_second"] = len(X_pairs) / seconds
    # The forward pass alone, batches of 64 (the reference's protocol).
    dataset = clf.encode(X_pairs)
    batches = [
        dataset.batch(np.arange(i, min(i + 64, len(dataset))))
        for i in range(0, len(dataset), 64)
    ]

    def forward_all():
        with torch.inference_mode():
            for batch in batches:
                clf.module_(**batch)

    seconds, _ = timed(forward_all)
    out["forward_batch64_pairs_per_second"] = len(dataset) / seconds
    # One pair at a time through the public API.
    for pair in X_pairs[:20]:
        clf.predict([pair])
    latencies = []
    for pair in X_pairs[:1000]:
        start = time.perf_counter()
        clf.predict([pair])
        latencies.append(time.perf_counter() - start)
    latencies = np.array(latencies) * 1e3
    out["single_median_ms"] = float(np.median(latencies))
    out["single_p99_ms"] = float(np.percentile(latencies, 99))
    out["single_pairs_per_second"] = 1e3 / float(latencies.mean())
    singles = [dataset.batch(np.array([i])) for i in range(min(1000, len(dataset)))]

    def forward_singles():
        with torch.inference_mode():
            for batch in singles:
                clf.module_(**batch)

    seconds, _ = timed(forward_singles)
    out["forward_single_pairs_per_second"] = len(singles) / seconds
    return out


def multi_aspect(clf, texts, categories) -> dict:
    pairs = [(t, c) for t in texts for c in categories]
    many_s, many = timed(lambda: clf.predict_proba_aspects(texts, categories), 5)
    pair_s, proba = timed(lambda: clf.predict_proba(pairs), 5)
    # Where the time goes: the module alone on pre-encoded batches -- the encoder,
    # then the head for 1 and for all K aspects (text processing excluded).
    encoded = clf.text_pipeline_.encode(texts)
    batches = [
        tuple(torch.from_numpy(a) for a in encoded.pad(index))
        for index in length_sorted_batches(
            encoded.lengths, 2 * INFERENCE_BATCH // len(categories)
        )
    ]
    module = clf.module_

    def run(k=None):
        aspects = torch.arange(k if k else 1)
        with torch.inference_mode():
            for tokens, lengths in batches:
                if k is None:
                    module.encoder(tokens, lengths)
                else:
                    module.forward_many(tokens, lengths, aspects)

    encoder_s = timed(run, 5)[0]
    one_s, all_s = (
        timed(lambda: run(1), 5)[0],
        timed(lambda: run(len(categories)), 5)[0],
    )
    return {
        "sentences": len(texts),
        "aspects": len(categories),
        "all_aspects_seconds": many_s,
        "independent_pairs_seconds": pair_s,
        "speedup": pair_s / many_s,
        "max_abs_difference": float(np.abs(many.reshape(len(pairs), -1) - proba).max()),
        "module_encoder_seconds": encoder_s,
        "module_one_aspect_seconds": one_s,
        "module_all_aspects_seconds": all_s,
        "module_speedup": len(categories) * one_s / all_s,
    }


# ---------------------------------------------------------------- other encoders
def transformer(data, epochs: int) -> dict:
    (X, y), (X_test, _) = data
    clf = model(variant="atae", encoder="transformer", max_epochs=epochs, **TRANSFORMER)
    clf.fit(X, y)
    seconds, _ = timed(lambda: clf.predict_proba(X_test))
    return {
        "epoch_seconds": epoch_seconds(clf),
        "predict_proba_pairs_per_second": len(X_test) / seconds,
        "config": TRANSFORMER,
    }


def pretrained(data) -> dict:
    (X, y), (X_test, _) = data
    clf = build(
        AspectAttentionClassifier,
        variant="at",
        encoder="pretrained",
        pretrained_model=str(get_data_home() / "all-MiniLM-L6-v2"),
        random_state=0,
        **{**SPEED, **{k: v for k, v in PRETRAINED.items() if k != "patience"}},
    ).set_params(max_epochs=1)
    clf.fit(X, y)
    seconds, _ = timed(lambda: clf.predict_proba(X_test), repeat=1)
    # Dense FLOPs: 2 per weight (outside the embedding tables) per sub-word token;
    # training is forward + backward, about 3x that.
    weights = sum(
        p.numel()
        for name, p in clf.module_.encoder.named_parameters()
        if "embeddings" not in name
    )
    train_tokens = int(clf.encode(X).lengths.sum())
    test_tokens = int(clf.encode(X_test).lengths.sum())
    epoch = clf.history_[0]["dur"]
    return {
        "epoch_seconds": epoch,
        "predict_proba_pairs_per_second": len(X_test) / seconds,
        "batch_size": PRETRAINED["batch_size"],
        "encoder_weights": weights,
        "training_gflops": 3 * 2 * weights * train_tokens / epoch / 1e9,
        "inference_gflops": 2 * weights * test_tokens / seconds / 1e9,
    }


# --------------------------------------------------------------------------- memory
def _child(mode: str, path: str) -> None:
    """Runs in a fresh process; prints its peak resident memory in MB."""
    data = fetch_semeval2014("restaurants", "train", "category")
    if mode == "train":
        model(variant="atae", max_epochs=2).fit(*data)
    elif mode == "load":
        with open(path, "rb") as f:
            clf = pickle.load(f)
        clf.predict_proba(data[0])
    # "import": the interpreter with torch and aspectattn imported, nothing else.
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across exec.
    status = Path("/proc/self/status")
    if status.exists():
        line = next(x for x in status.read_text().splitlines() if x.startswith("VmHWM"))
        peak = int(line.split()[1]) / 1024
    else:  # macOS reports bytes
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(json.dumps({"peak_rss_mb": peak}))


def _child_peak(mode: str, path: str = "") -> float:
    # As a module from the repository's root (the benchmarks are a package: run
    # as a script, the child could not import them unless PYTHONPATH said where)
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed", "--child", mode, path],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
        cwd=Path(__file__).resolve().parents[1],
    )
    return json.loads(result.stdout.strip().splitlines()[-1])["peak_rss_mb"]


def memory(clf) -> dict:
    state = clf.module_.state_dict().values()
    params = sum(t.numel() * t.element_size() for t in state)
    blob = pickle.dumps(clf)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "model.pkl")
        Path(path).write_bytes(blob)
        return {
            "import_peak_rss_mb": _child_peak("import"),
            "train_peak_rss_mb": _child_peak("train"),
            "loaded_model_peak_rss_mb": _child_peak("load", path),
            "float32_parameter_mb": params / 2**20,
            "pickle_mb": len(blob) / 2**20,
            "pickle_ratio": len(blob) / params,
        }


# -------------------------------------------------------------------------- scaling
def fit_and_time(X, y, epochs: int, **params) -> dict:
    """Epoch time (ATAE) and ``predict_proba`` time on the training pairs."""
    clf = model(variant="atae", max_epochs=epochs, **params).fit(X, y)
    seconds, _ = timed(lambda: clf.predict_proba(X), repeat=2)
    return {"epoch_seconds": epoch_seconds(clf), "predict_proba_seconds": seconds}


def scaling_pairs(epochs: int) -> list[dict]:
    X, y = fetch_mams("term", "train")
    order = np.random.default_rng(0).permutation(len(X))
    rows = []
    for n in (1000, 3500, len(X)):
        Xn = [X[i] for i in order[:n]]
        yn = [y[i] for i in order[:n]]
        rows.append(
            {
                "pairs": n,
                "tokens": int(token_lengths([t for t, _ in Xn]).sum()),
                **fit_and_time(Xn, yn, epochs),
            }
        )
    return rows


def scaling_length(words: list[str], epochs: int, n_pairs: int = 1000) -> list[dict]:
    """Synthetic sentences of exactly T words (ATAE, 5 categories, random labels:
    only the cost is of interest)."""
    rng = np.random.default_rng(0)
    categories = ["ambience", "food", "miscellaneous", "price", "service"]
    rows = []
    for length in (10, 40, 160):
        X = [
            (" ".join(rng.choice(words, length)), categories[i % 5])
            for i in range(n_pairs)
        ]
        y = rng.choice(["negative", "neutral", "positive"], n_pairs)
        rows.append(
            {
                "tokens_per_sentence": length,
                "pairs": n_pairs,
                **fit_and_time(X, y, epochs, max_len=200),
            }
        )
    return rows


# ------------------------------------------------------------------------- report
def verdicts(r: dict) -> dict:
    """Each target of issue 5: met or not (both variants must meet it)."""
    t, inf, tgt = r["training"], r["inference"], TARGETS
    both = ("atae", "at")
    return {
        "epoch_seconds": max(t[v]["epoch_seconds"] for v in both)
        <= tgt["epoch_seconds"],
        "predict_proba_pairs_per_second": min(
            inf[v]["predict_proba_pairs_per_second"] for v in both
        )
        >= tgt["predict_proba_pairs_per_second"],
        "single_median_ms": max(inf[v]["single_median_ms"] for v in both)
        <= tgt["single_median_ms"],
        "multi_aspect_speedup": r["multi_aspect"]["speedup"]
        >= tgt["multi_aspect_speedup"],
        "pickle_ratio": r["memory"]["pickle_ratio"] <= tgt["pickle_ratio"],
    }


def markdown(r: dict) -> str:
    t, ref, tgt = r["training"], REFERENCE, TARGETS
    inf_atae, inf_at = r["inference"]["atae"], r["inference"]["at"]
    ma, mem, m = r["multi_aspect"], r["memory"], r["machine"]
    met = {k: "yes" if v else "**no**" for k, v in verdicts(r).items()}
    head_one = ma["module_one_aspect_seconds"] - ma["module_encoder_seconds"]
    head_more = (ma["module_all_aspects_seconds"] - ma["module_one_aspect_seconds"]) / (
        ma["aspects"] - 1
    )

    lines = [
        "| measure | ATAE-LSTM | AT-LSTM | target | met | reference (ABSA-PyTorch) |",
        "|---|---|---|---|---|---|",
        f"| training, s / epoch, restaurant categories ({t['pairs']:,} pairs) | "
        f"{t['atae']['epoch_seconds']:.2f} | {t['at']['epoch_seconds']:.2f} | "
        f"≤ {tgt['epoch_seconds']} | "
        f"{met['epoch_seconds']} | {ref['epoch_seconds']} (restaurant terms) |",
        f"| training, s / epoch, restaurant terms ({r['terms']['pairs']:,} pairs) | "
        f"{r['terms']['epoch_seconds']:.2f} | - | - | - | {ref['epoch_seconds']} |",
        f"| same module, plain PyTorch loop, s / epoch | "
        f"{t['atae']['plain_pytorch_epoch_seconds']:.2f} | "
        f"{t['at']['plain_pytorch_epoch_seconds']:.2f} | - | - | - |",
        f"| training GFLOP/s (computed incl. padding / useful) | "
        f"{t['atae']['gflops_computed']:.0f} / {t['atae']['gflops_useful']:.0f} | "
        f"{t['at']['gflops_computed']:.0f} / {t['at']['gflops_useful']:.0f} | - | - | "
        f"LSTM kernel ~{ref['lstm_gflops']}, dense ~{ref['dense_gflops']} |",
        f"| `predict_proba`, raw pairs / s (tokenisation included) | "
        f"{inf_atae['predict_proba_pairs_per_second']:,.0f} | "
        f"{inf_at['predict_proba_pairs_per_second']:,.0f} | ≥ "
        f"{tgt['predict_proba_pairs_per_second']:,} | "
        f"{met['predict_proba_pairs_per_second']} | - |",
        f"| forward pass only, batches of 64, pairs / s | "
        f"{inf_atae['forward_batch64_pairs_per_second']:,.0f} | "
        f"{inf_at['forward_batch64_pairs_per_second']:,.0f} | - | - | "
        f"{ref['pairs_per_second_batch64']:,} |",
        f"| `predict` one pair, median / p99 ms | "
        f"{inf_atae['single_median_ms']:.2f} / {inf_atae['single_p99_ms']:.2f} | "
        f"{inf_at['single_median_ms']:.2f} / {inf_at['single_p99_ms']:.2f} | "
        f"median ≤ {tgt['single_median_ms']} | "
        f"{met['single_median_ms']} | - |",
        f"| forward pass only, one pair at a time, pairs / s | "
        f"{inf_atae['forward_single_pairs_per_second']:,.0f} | "
        f"{inf_at['forward_single_pairs_per_second']:,.0f} | - | - | "
        f"{ref['pairs_per_second_single']:,} |",
        f"| {ma['aspects']} aspects × {ma['sentences']:,} sentences at once vs "
        f"{ma['aspects'] * ma['sentences']:,} pairs | - | "
        f"{ma['all_aspects_seconds'] * 1e3:.0f} ms vs "
        f"{ma['independent_pairs_seconds'] * 1e3:.0f} ms = {ma['speedup']:.1f}x | "
        f"≥ {tgt['multi_aspect_speedup']}x | {met['multi_aspect_speedup']} | - |",
        f"| same, the module alone (text processing excluded) | - | "
        f"{ma['module_all_aspects_seconds'] * 1e3:.0f} ms vs "
        f"{ma['aspects'] * ma['module_one_aspect_seconds'] * 1e3:.0f} ms = "
        f"{ma['module_speedup']:.1f}x | - | - | - |",
        "",
        "Machine, same run: dense float32 matrix product "
        f"{m['dense_gflops']:.0f} GFLOP/s, bare `nn.LSTM` forward+backward "
        "(batch 25, 16 steps, 100→300) "
        f"{m['lstm_gflops']:.0f} GFLOP/s; {m['threads']} torch threads. Distance to "
        f"the machine (ATAE training, computed GFLOP/s over the bare LSTM kernel): "
        f"{t['atae']['gflops_computed'] / m['lstm_gflops']:.0%}; over the dense "
        f"product: {t['atae']['gflops_computed'] / m['dense_gflops']:.0%}. Padding "
        f"adds {t['padded_tokens'] / t['real_tokens'] - 1:.1%} tokens to an epoch. "
        f"Multi-aspect, per {ma['sentences']:,} sentences: LSTM "
        f"{ma['module_encoder_seconds'] * 1e3:.0f} ms, rest of the model for one "
        f"aspect {head_one * 1e3:.0f} ms (W_h over the states is shared), each "
        f"further aspect {head_more * 1e3:.1f} ms.",
        "",
        "| other encoders (ATAE, restaurant categories) | s / epoch | test pairs / s |",
        "|---|---|---|",
        f"| LSTM, hidden 300 | {t['atae']['epoch_seconds']:.2f} | "
        f"{inf_atae['predict_proba_pairs_per_second']:,.0f} |",
        f"| transformer, {r['transformer']['config']['n_layers']} layer, d_model "
        f"{r['transformer']['config']['d_model']} | "
        f"{r['transformer']['epoch_seconds']:.2f} | "
        f"{r['transformer']['predict_proba_pairs_per_second']:,.0f} |",
    ]
    if r.get("pretrained"):
        p = r["pretrained"]
        lines.append(
            f"| pretrained MiniLM (AT, batch {p['batch_size']}; "
            f"{p['training_gflops']:.0f} / {p['inference_gflops']:.0f} GFLOP/s in "
            f"training / inference) | {p['epoch_seconds']:.1f} | "
            f"{p['predict_proba_pairs_per_second']:,.0f} |"
        )
    lines += [
        "",
        "| memory | value |",
        "|---|---|",
        f"| peak RSS: Python + torch + aspectattn imported | "
        f"{mem['import_peak_rss_mb']:.0f} MB |",
        f"| peak RSS: training ATAE-LSTM (2 epochs, restaurant categories) | "
        f"{mem['train_peak_rss_mb']:.0f} MB |",
        f"| peak RSS: loaded pickled model predicting 3,518 pairs | "
        f"{mem['loaded_model_peak_rss_mb']:.0f} MB |",
        f"| pickle size / float32 parameter bytes | {mem['pickle_mb']:.2f} MB / "
        f"{mem['float32_parameter_mb']:.2f} MB = {mem['pickle_ratio']:.3f} "
        f"(≤ {tgt['pickle_ratio']}: {met['pickle_ratio']}) |",
        "",
        "| scaling (ATAE-LSTM) | pairs | tokens | s / epoch | ms / 1k tokens "
        "(train) | predict_proba s | ms / 1k tokens (predict) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in r["scaling_pairs"]:
        lines.append(
            f"| MAMS terms | {row['pairs']:,} | {row['tokens']:,} | "
            f"{row['epoch_seconds']:.2f} | "
            f"{row['epoch_seconds'] / row['tokens'] * 1e6:.1f} | "
            f"{row['predict_proba_seconds']:.3f} | "
            f"{row['predict_proba_seconds'] / row['tokens'] * 1e6:.2f} |"
        )
    for row in r["scaling_length"]:
        tokens = row["pairs"] * row["tokens_per_sentence"]
        lines.append(
            f"| {row['tokens_per_sentence']}-token sentences | {row['pairs']:,} | "
            f"{tokens:,} | {row['epoch_seconds']:.2f} | "
            f"{row['epoch_seconds'] / tokens * 1e6:.1f} | "
            f"{row['predict_proba_seconds']:.3f} | "
            f"{row['predict_proba_seconds'] / tokens * 1e6:.2f} |"
        )
    lines += [
        "",
        f"{r['machine']['processor']}, torch {r['machine']['torch']}; "
        "command: `python -m benchmarks speed`. Epoch times are medians over epochs "
        "after the first, through `fit` (hidden 300, batch 25, GloVe 6B 50-d, no "
        "validation split). Reference figures: ABSA-PyTorch ATAE-LSTM on SemEval-2014 "
        "restaurant terms, as given in issue 5 (not re-measured here).",
    ]
    return "\n".join(lines)


def measure(args) -> dict:
    """Every measurement, in order (``args.epochs``, ``args.skip_pretrained``)."""

    def step(name):
        print(f"[{time.strftime('%H:%M:%S')}] {name}", flush=True)

    cats = (
        fetch_semeval2014("restaurants", "train", "category"),
        fetch_semeval2014("restaurants", "test", "category"),
    )
    terms = fetch_semeval2014("restaurants", "train", "term")
    r = {
        "machine": {
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "processor": platform.processor() or platform.machine(),
        }
    }
    step("machine")
    r["machine"]["dense_gflops"] = dense_gflops()
    r["machine"]["lstm_gflops"] = lstm_gflops()
    step("training")
    r["training"], models = training(cats, args.epochs)
    atae, at = models["atae"], models["at"]
    clf_terms = model(variant="atae", max_epochs=args.epochs).fit(*terms)
    r["terms"] = {"pairs": len(terms[0]), "epoch_seconds": epoch_seconds(clf_terms)}
    step("inference")
    X_all = cats[0][0] + cats[1][0]
    texts = list(dict.fromkeys(t for t, _ in X_all))[:1000]
    categories = list(at.aspects_)
    r["inference"] = {
        "pairs": len(X_all),
        "atae": inference(atae, X_all),
        "at": inference(at, X_all),
    }
    r["multi_aspect"] = multi_aspect(at, texts, categories)
    step("transformer")
    r["transformer"] = transformer(cats, args.epochs)
    if not args.skip_pretrained:
        step("pretrained")
        r["pretrained"] = pretrained(cats)
    step("memory")
    r["memory"] = memory(atae)
    step("scaling")
    r["scaling_pairs"] = scaling_pairs(min(args.epochs, 2) + 1)
    words = [w for w in atae.vocabulary_.words_[2:] if w.isalpha()]
    r["scaling_length"] = scaling_length(words, min(args.epochs, 2) + 1)
    r["targets_met"] = verdicts(r)
    return r


MEASUREMENT = Measurement(
    "speed",
    measure,
    markdown,
    options=(
        (("--epochs",), {"type": int, "default": 4}),
        (("--skip-pretrained",), {"action": "store_true"}),
    ),
)

if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:  # (a fresh process of memory())
        _child(*sys.argv[2:4])
    else:
        MEASUREMENT.main(__doc__.splitlines()[0])
