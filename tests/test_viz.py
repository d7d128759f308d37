import numpy as np
import pytest

from aspectattn.viz import attention_html, group_by_text, plot_attention, plot_history

RESULTS = [
    {
        "text": "the pasta was great but the <waiter> was rude",
        "aspect": "food",
        "tokens": ["the", "pasta", "was", "great", "<waiter>"],
        "label": "positive",
        "weights": np.array([0.1, 0.2, 0.1, 0.5, 0.1]),
    },
    {
        "text": "the pasta was great but the <waiter> was rude",
        "aspect": "service",
        "tokens": ["the", "pasta", "was", "great", "<waiter>"],
        "label": "negative",
        "weights": np.array([0.0, 0.0, 0.1, 0.1, 0.8]),
    },
    {
        "text": "bland soup",
        "aspect": "food",
        "tokens": ["bland", "soup"],
        "label": "negative",
        "weights": np.array([0.9, 0.1]),
    },
]


def test_group_by_text_keeps_order():
    groups = group_by_text(RESULTS)
    assert [len(g) for _, g in groups] == [2, 1]


def test_html_is_self_contained_escaped_and_shaded(tmp_path):
    page = attention_html(RESULTS, tmp_path / "a.html", title="Demo")
    assert (tmp_path / "a.html").read_text() == page
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "&lt;waiter&gt;" in page and "<waiter>" not in page
    for token in ("pasta", "great", "bland", "soup"):
        assert f">{token}</span>" in page
    # the strongest token of a row is fully shaded, weights are in the tooltips
    assert 'title="0.800" style="background: rgba(31, 111, 235, 1.000)' in page
    assert page.count('class="aspect"') == 3


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_attention_heatmap_files(tmp_path, suffix):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"a.{suffix}"
    assert plot_attention(RESULTS, path) is None  # saved and closed
    assert path.stat().st_size > 1000
    fig = plot_attention(RESULTS)
    labels = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    assert "pasta" in labels and "soup" in labels
    if suffix == "svg":
        assert "service" in path.read_text()


def test_history_plot(tmp_path):
    pytest.importorskip("matplotlib")
    history = [
        {
            "epoch": i,
            "train_loss": 1 / i,
            "valid_loss": 1.2 / i,
            "valid_acc": 0.5 + i / 20,
            "valid_f1": 0.4 + i / 20,
        }
        for i in range(1, 6)
    ]
    plot_history(history, tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    plot_history([{"epoch": 1, "train_loss": 0.5}], tmp_path / "h2.png")
    assert (tmp_path / "h2.png").stat().st_size > 1000


def test_heatmap_of_many_sentences_is_capped_and_figures_are_closed(
    tmp_path, monkeypatch
):
    plt = pytest.importorskip("matplotlib.pyplot")
    from aspectattn import AspectAttnWarning, viz

    # (a cap of 8 sentences draws what 40 would, five times faster; the token cap
    # is the real one)
    monkeypatch.setattr(viz, "MAX_PLOT_SENTENCES", 8)
    MAX_PLOT_SENTENCES = viz.MAX_PLOT_SENTENCES

    many = [
        {
            **r,
            "text": f"{r['text']} {i}",
            "tokens": r["tokens"] * 40,
            "weights": np.tile(r["weights"], 40) / 40,
        }
        for i in range(3 * MAX_PLOT_SENTENCES)
        for r in RESULTS[:1]
    ]
    before = len(plt.get_fignums())
    with pytest.warns(AspectAttnWarning, match=f"first {MAX_PLOT_SENTENCES}"):
        plot_attention(many, tmp_path / "many.png")
    assert len(plt.get_fignums()) == before
    from PIL import Image

    width, height = Image.open(tmp_path / "many.png").size
    assert width < 8000 and height < 40000
