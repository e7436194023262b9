"""dnnlpy.tokenizers: byte-level BPE on the shipped corpus."""

import pytest
import torch

from dnnlpy.models.gpt import MiniGPT
from dnnlpy.tokenizers import END_OF_TEXT, Tokenizer, load_corpus

VOCAB = 512


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


@pytest.fixture(scope="module")
def tok(corpus):
    return Tokenizer.train_from_iterator(corpus.split("\n\n"), vocab_size=VOCAB)


def test_corpus_ships_with_the_package(corpus):
    assert 25_000 < len(corpus.encode("utf-8")) < 100_000
    assert "weight tying" in corpus.lower()


def test_trained_vocabulary(tok):
    assert tok.vocab_size == VOCAB == len(tok)
    assert tok.token_to_id(END_OF_TEXT) == 0
    assert tok.token_to_id("Ġembedding") is not None  # a frequent corpus word became one token
    for i in (0, 1, 300, VOCAB - 1):
        assert tok.token_to_id(tok.id_to_token(i)) == i
    assert tok.id_to_token(VOCAB + 5) is None
    assert tok.token_to_id("no-such-token-xyz") is None


def test_round_trip_on_the_corpus(tok, corpus):
    ids = tok.encode(corpus).ids
    assert len(ids) < len(corpus.encode("utf-8")) / 2  # BPE really compresses (about 2.4 bytes per token)
    assert tok.decode(ids) == corpus


@pytest.mark.parametrize(
    "text",
    [
        "权重共享：输入和输出共享同一个词表。",
        "café naïve 🙂 e\u0301",
        "  leading and trailing spaces \t\n",
        "",
        END_OF_TEXT + "x",
    ],
)
def test_round_trip_on_unicode_and_whitespace(tok, text):
    enc = tok.encode(text)
    assert len(enc.ids) == len(enc.tokens)
    assert tok.decode(enc.ids) == text


def test_decode_accepts_tensors(tok):
    ids = tok.encode("the model").ids
    assert tok.decode(torch.tensor(ids)) == "the model"


def test_save_and_load(tok, tmp_path):
    path = tmp_path / "tok.json"
    tok.save(path)
    loaded = Tokenizer.load(path)
    text = "Tied weights share one Parameter. 共享"
    assert loaded.vocab_size == tok.vocab_size
    assert loaded.encode(text).ids == tok.encode(text).ids
    assert loaded.decode(loaded.encode(text).ids) == text


def test_training_is_deterministic(corpus, tok):
    again = Tokenizer.train_from_iterator(corpus.split("\n\n"), vocab_size=VOCAB)
    assert again.encode(corpus[:2000]).ids == tok.encode(corpus[:2000]).ids


def test_vocab_size_feeds_a_minigpt_whose_output_decodes(tok):
    torch.manual_seed(0)
    model = MiniGPT(tok.vocab_size, block_size=16, embed_dim=32, num_layers=1, num_heads=2, hidden_dim=64)
    prompt = torch.tensor([tok.encode("The embedding table").ids])
    out = model.generate(prompt, 12)
    text = tok.decode(out[0])
    assert isinstance(text, str) and text.startswith("The embedding table")
    assert tok.encode(text).ids[: prompt.shape[1]] == prompt[0].tolist()


def test_bad_arguments(tok, tmp_path):
    with pytest.raises(ValueError, match="vocab_size must be an int >= 257"):
        Tokenizer.train_from_iterator(["abc"], vocab_size=100)
    with pytest.raises(TypeError, match="iterable of strings"):
        Tokenizer.train_from_iterator("abc", vocab_size=300)
    with pytest.raises(TypeError, match="expects a str"):
        tok.encode(["a", "b"])
    with pytest.raises(ValueError, match=r"token id 9999 is outside \[0, 512\)"):
        tok.decode([1, 9999])
    with pytest.raises(ValueError, match="one sequence"):
        tok.decode(torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(FileNotFoundError, match="tokenizer.save"):
        Tokenizer.load(tmp_path / "missing.json")
