"""Pictures of attention and of training.

* :func:`attention_html` -- self-contained HTML: each sentence's tokens shaded by their
  attention weight, one row per aspect (no JavaScript, no external files).
* :func:`plot_attention` -- a heatmap (aspects x tokens) with matplotlib, saved as
  PNG, SVG or PDF.
* :func:`plot_history` -- training loss and validation scores per epoch.

All take the output of :meth:`AspectAttentionClassifier.explain` (a list of dicts with
``text``, ``aspect``, ``tokens``, ``weights``, ``label``) or its ``history_``.
matplotlib is an optional dependency: ``pip install 'aspectattn[plot]'``.
"""

from __future__ import annotations

import html
import os
import warnings
from collections.abc import Sequence

import numpy as np

from ._output import output_path
from .exceptions import AspectAttnWarning, MissingDependencyError

__all__ = ["attention_html", "plot_attention", "plot_history", "group_by_text"]

_LABEL_COLOURS = {"positive": "#1a7f37", "negative": "#cf222e", "neutral": "#57606a"}


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependencyError(
            "Plots need matplotlib: pip install 'aspectattn[plot]'"
        ) from exc
    return plt


def group_by_text(results: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    """Group explain() results by sentence, keeping first-seen order."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r["text"], []).append(r)
    return list(groups.items())


def attention_html(
    results: Sequence[dict], path=None, title: str = "Aspect attention"
) -> str:
    """Render attention as self-contained HTML; write it to ``path`` if given.

    Each token's background is blue with an opacity proportional to its weight
    (relative to the largest weight in its row); hovering shows the exact weight.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import numpy as np
    >>> from aspectattn.viz import attention_html
    >>> results = [{"text": "rude waiter", "aspect": "service", "label": "negative",
    ...             "tokens": ["rude", "waiter"], "weights": np.array([0.8, 0.2]),
    ...             "proba": np.array([0.9, 0.1])}]
    >>> page = attention_html(results)  # clf.explain(pairs) gives such results
    >>> page.startswith("<!DOCTYPE html>"), "rude" in page
    (True, True)
    """
    rows = []
    for text, group in group_by_text(results):
        rows.append(
            '<tr><th colspan="3" class="sentence" dir="auto">'
            f"{html.escape(text)}</th></tr>"
        )
        for r in group:
            weights = np.asarray(r["weights"], dtype=float)
            top = weights.max() if weights.size and weights.max() > 0 else 1.0
            spans = " ".join(
                f'<span class="tok" title="{w:.3f}" style="background: rgba(31, 111, '
                f"235, {w / top:.3f})"
                f'{"; color: white" if w / top > 0.6 else ""}">{html.escape(t)}</span>'
                for t, w in zip(r["tokens"], weights, strict=True)
            )
            label = str(r.get("label", ""))
            colour = _LABEL_COLOURS.get(label, "#0969da")
            rows.append(
                f'<tr><td class="aspect">{html.escape(str(r["aspect"]))}</td>'
                f'<td class="label" style="color: {colour}">{html.escape(label)}</td>'
                f"<td dir='auto'>{spans}</td></tr>"
            )
    document = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #1f2328; }}
table {{ border-collapse: collapse; }}
th.sentence {{ text-align: left; font-weight: normal; color: #57606a;
  padding-top: 1.2em; font-style: italic; }}
td {{ padding: 0.3em 0.6em; vertical-align: middle; }}
td.aspect {{ font-weight: 600; white-space: nowrap; }}
td.label {{ font-weight: 600; }}
span.tok {{ padding: 0.1em 0.25em; border-radius: 0.25em; line-height: 2; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Token shading: attention weight relative to the largest in its row (hover for the
value).</p>
<table>
{chr(10).join(rows)}
</table></body></html>
"""
    if path is not None:
        with output_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(document)
    return document


#: At most this many sentences and tokens per sentence go into one heatmap; a
#: picture of a whole test set is unreadable and costs gigabytes.
MAX_PLOT_SENTENCES = 40
MAX_PLOT_TOKENS = 60


def plot_attention(results: Sequence[dict], path=None, cmap: str = "Blues"):
    """Heatmap of attention weights: one panel per sentence, one row per aspect.

    Only the first :data:`MAX_PLOT_SENTENCES` sentences (and their first
    :data:`MAX_PLOT_TOKENS` tokens) are drawn, with a warning; use
    :func:`attention_html` for many.

    Parameters
    ----------
    results : list of dict
        From :meth:`~aspectattn.AspectAttentionClassifier.explain`.
    path : str or path-like, optional
        Save the figure there (format from the extension: .png, .svg, .pdf); the
        figure is then closed and not returned.

    Returns
    -------
    matplotlib.figure.Figure, or None when saved to ``path``
    """
    plt = _pyplot()
    groups = group_by_text(results)
    if len(groups) > MAX_PLOT_SENTENCES:
        warnings.warn(
            f"plot_attention draws the first {MAX_PLOT_SENTENCES} of {len(groups)} "
            "sentences; use attention_html for all of them.",
            AspectAttnWarning,
            stacklevel=2,
        )
        groups = groups[:MAX_PLOT_SENTENCES]
    groups = [
        (
            text,
            [
                {
                    **r,
                    "tokens": r["tokens"][:MAX_PLOT_TOKENS],
                    "weights": r["weights"][:MAX_PLOT_TOKENS],
                }
                for r in group
            ],
        )
        for text, group in groups
    ]
    heights = [0.6 + 0.45 * len(g) for _, g in groups]
    width = max(4.0, 0.55 * max(len(g[0]["tokens"]) for _, g in groups) + 2.5)
    fig, axes = plt.subplots(
        len(groups),
        1,
        figsize=(width, sum(heights) + 0.4),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, (_, group) in zip(axes[:, 0], groups, strict=True):
        tokens = group[0]["tokens"]
        matrix = np.zeros((len(group), len(tokens)))
        for i, r in enumerate(group):
            matrix[i, : len(r["weights"])] = r["weights"]
        ax.imshow(
            matrix, cmap=cmap, aspect="auto", vmin=0.0, vmax=max(matrix.max(), 1e-9)
        )
        ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
        ax.set_yticks(
            range(len(group)), [f"{r['aspect']} → {r.get('label', '')}" for r in group]
        )
        for i in range(matrix.shape[0]):
            for j in range(matrix.shape[1]):
                v = matrix[i, j]
                ax.text(
                    j,
                    i,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if v > 0.6 * matrix.max() else "black",
                )
        ax.tick_params(length=0)
    return _finish(plt, fig, path)


def _finish(plt, fig, path):
    fig.tight_layout()
    if path is None:
        return fig
    try:
        with output_path(path) as tmp:  # (its suffix keeps the format)
            fig.savefig(os.fspath(tmp), dpi=150)
    finally:
        plt.close(fig)  # a saved figure is not kept open (memory)
    return None


def plot_history(history: Sequence[dict], path=None):
    """Training loss and validation scores per epoch (from ``history_``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    epochs = [row["epoch"] for row in history]
    fig, (loss_ax, score_ax) = plt.subplots(1, 2, figsize=(9, 3.4))
    loss_ax.plot(epochs, [row["train_loss"] for row in history], "o-", label="train")
    if "valid_loss" in history[0]:
        loss_ax.plot(
            epochs, [row["valid_loss"] for row in history], "o-", label="validation"
        )
    loss_ax.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    loss_ax.legend()
    # (a classifier's accuracy and macro-F1; an extractor's exact-span F1)
    f1 = "macro-F1" if "valid_acc" in history[0] else "F1"
    scores = [
        (k, n)
        for k, n in (("valid_acc", "accuracy"), ("valid_f1", f1))
        if k in history[0]
    ]
    for key, name in scores:
        score_ax.plot(epochs, [row[key] for row in history], "o-", label=name)
    if scores:
        key, name = scores[0]
        best = max(history, key=lambda r: r[key])
        score_ax.axvline(best["epoch"], color="grey", ls=":", label=f"best {name}")
        score_ax.legend()
        score_ax.set(xlabel="epoch", title="Validation")
    else:
        score_ax.text(
            0.5,
            0.5,
            "no validation split\n(set validation_fraction)",
            ha="center",
            va="center",
            transform=score_ax.transAxes,
        )
        score_ax.set_axis_off()
    return _finish(plt, fig, path)
