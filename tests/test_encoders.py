import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from aspectattn.nn.encoders import ENCODERS, get_encoder
from aspectattn.nn.encoders.lstm import LSTMEncoder
from aspectattn.nn.encoders.transformer import TransformerEncoder


def _lstm(input_size, hidden, bidirectional=False):
    # An encoder whose "embedding" is the identity on float inputs is not possible;
    # test the LSTM core through one-hot-free float inputs via the embedding table.
    return LSTMEncoder(
        vocab_size=50,
        embedding_dim=input_size,
        hidden_size=hidden,
        bidirectional=bidirectional,
    )


def test_bidirectional_encoder_matches_packed_reference():
    torch.manual_seed(1)
    encoder = _lstm(5, 7, bidirectional=True)
    reference = nn.LSTM(5, 7, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name in ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]:
            getattr(reference, name).copy_(getattr(encoder.forward_lstm, name))
            getattr(reference, name + "_reverse").copy_(
                getattr(encoder.backward_lstm, name)
            )
    lengths = torch.tensor([6, 2, 4])
    tokens = torch.randint(1, 50, (3, 6))
    states, last = encoder(tokens, lengths)
    x = encoder.embedding(tokens)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    ref_out, (h_n, _) = reference(packed)
    ref_states, _ = pad_packed_sequence(ref_out, batch_first=True)
    real = torch.arange(6)[None, :] < lengths[:, None]
    assert torch.allclose(states[real], ref_states[real], atol=1e-6)
    assert torch.allclose(last, torch.cat([h_n[0], h_n[1]], -1), atol=1e-6)


def test_lstm_states_are_contiguous():
    # Later matmuls over the states must fold into one GEMM (speed), which needs a
    # contiguous (B, T, D) tensor; nn.LSTM itself returns a transposed view.
    encoder = _lstm(4, 6)
    states, _ = encoder(torch.randint(1, 50, (3, 5)), torch.tensor([5, 2, 1]))
    assert states.is_contiguous()


def _transformer(**kw):
    torch.manual_seed(0)
    params = dict(vocab_size=40, embedding_dim=6, d_model=8, n_layers=1, n_heads=2)
    return TransformerEncoder(**{**params, **kw}).eval()


def test_concatenated_positions_are_half_the_input():
    encoder = _transformer(position_merge="concat", dropout=0.0)
    tokens, lengths = torch.randint(1, 40, (2, 5)), torch.tensor([5, 3])
    states, summary = encoder(tokens, lengths)
    assert states.shape == (2, 5, 8) and summary.shape == (2, 8)
    # the same word at two positions gets two different inputs: positions matter
    same = torch.full((1, 4), 7)
    out, _ = encoder(same, torch.tensor([4]))
    assert not torch.allclose(out[0, 0], out[0, 1])


def test_learned_positions_refuse_sentences_longer_than_their_table():
    encoder = _transformer(positional="learned", max_len=4)
    encoder(torch.randint(1, 40, (1, 4)), torch.tensor([4]))
    with pytest.raises(ValueError, match="longer than the 4 learned positions"):
        encoder(torch.randint(1, 40, (1, 5)), torch.tensor([5]))


def test_registry_names_every_encoder():
    assert set(ENCODERS) == {"lstm", "transformer", "pretrained"}
    assert get_encoder("lstm") is LSTMEncoder
    with pytest.raises(ValueError, match="encoder must be one of"):
        get_encoder("rnn")


def test_lstm_under_cpu_bfloat16_autocast_runs_where_onednn_has_no_bf16_lstm(
    monkeypatch,
):
    """oneDNN cannot build a bfloat16 LSTM on a CPU without AVX-512: there the
    LSTM runs in float32 inside the autocast region (it crashed before)."""
    from aspectattn.nn.encoders import lstm as module

    layer = torch.nn.LSTM(4, 3, batch_first=True)
    x = torch.randn(2, 5, 4)
    expected = layer(x)[0]
    monkeypatch.setattr(module, "_cpu_lstm_in_bfloat16", lambda: False)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = module._run(layer, x.bfloat16())
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, expected, atol=0.02, rtol=0.02)
    assert module._run(layer, x).dtype == torch.float32  # no autocast: as it was
