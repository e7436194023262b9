"""dnnlpy.tokenizers: byte-level BPE on the shipped corpus."""

import numpy as np
import pytest
import torch

from dnnlpy.models.gpt import MiniGPT
from dnnlpy.tokenizers import END_OF_TEXT, Tokenizer, bpe, load_corpus

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
    assert tok.decode(torch.tensor(ids, dtype=torch.int32)) == "the model"


def test_decode_accepts_numpy_ids_and_single_ids(tok):
    ids = tok.encode("the model").ids
    assert tok.decode(np.array(ids)) == "the model"
    assert tok.decode([np.int64(i) for i in ids]) == "the model"  # was "token id 87 outside [0, 512)"
    assert tok.decode([torch.tensor(i) for i in ids]) == "the model"
    first = tok.decode(ids[:1])
    assert tok.decode(torch.tensor(ids[0])) == first  # a 0-d tensor is one id ("'int' is not iterable")
    assert tok.decode(np.int64(ids[0])) == first
    assert tok.decode(ids[0]) == first


@pytest.mark.parametrize(
    "ids",
    [torch.tensor([87.0, 88.0]), [87.0], np.array([87.0]), torch.tensor(87.0), [np.float32(87)]],
    ids=["float tensor", "float list", "float array", "0-d float tensor", "numpy float"],
)
def test_decode_refuses_float_ids_saying_so(tok, ids):
    with pytest.raises(TypeError, match=r"token ids must be integers, got 87.0 \(a float\): convert them"):
        tok.decode(ids)


def test_decode_refuses_bools_and_text(tok):
    with pytest.raises(TypeError, match=r"got True \(of type bool\)"):
        tok.decode([True])
    with pytest.raises(TypeError, match="got text"):
        tok.decode("hello")


def test_save_and_load(tok, tmp_path):
    path = tmp_path / "tok.json"
    tok.save(path)
    loaded = Tokenizer.load(path)
    text = "Tied weights share one Parameter. 共享"
    assert loaded.vocab_size == tok.vocab_size
    assert loaded.encode(text).ids == tok.encode(text).ids
    assert loaded.decode(loaded.encode(text).ids) == text


def test_training_is_deterministic(corpus, tok, monkeypatch):
    monkeypatch.setattr(bpe, "_TRAINED", {})  # a training, not the copy dnnlpy kept of the first one
    again = Tokenizer.train_from_iterator(corpus.split("\n\n"), vocab_size=VOCAB)
    assert again.encode(corpus[:2000]).ids == tok.encode(corpus[:2000]).ids
    assert again._tok.to_str() == tok._tok.to_str()


def _trainings(monkeypatch) -> list[int]:
    """Count the trainers made from now on, one per training (a kept tokenizer's copy makes none)."""
    runs: list[int] = []
    real = bpe.trainers.BpeTrainer

    def counting(**settings):
        runs.append(1)
        return real(**settings)

    monkeypatch.setattr(bpe, "_TRAINED", {})
    monkeypatch.setattr(bpe.trainers, "BpeTrainer", counting)
    return runs


def test_the_same_texts_again_are_a_copy_of_the_first_training(corpus, monkeypatch):
    runs = _trainings(monkeypatch)
    lines = corpus.splitlines()
    first = Tokenizer.train_from_iterator(lines, vocab_size=300)
    again = Tokenizer.train_from_iterator(tuple(lines), vocab_size=300)
    assert len(runs) == 1
    assert again._tok is not first._tok and again._tok.to_str() == first._tok.to_str()
    first._tok.add_tokens(["<added>"])  # a copy changed afterwards: the next copy is still the training's
    assert Tokenizer.train_from_iterator(lines, vocab_size=300).vocab_size == 300
    assert len(runs) == 1


@pytest.mark.parametrize(
    "other",
    [
        (["ab", "c"], 300, 0),  # the same characters, split elsewhere
        (["a", "bc"], 301, 0),
        (["a", "bc"], 300, 1),
    ],
)
def test_other_texts_or_settings_are_trained(monkeypatch, other):
    runs = _trainings(monkeypatch)
    Tokenizer.train_from_iterator(["a", "bc"], vocab_size=300)
    texts, vocab, minimum = other
    Tokenizer.train_from_iterator(texts, vocab_size=vocab, min_frequency=minimum)
    assert len(runs) == 2


def test_a_generator_is_trained_every_time(monkeypatch):
    runs = _trainings(monkeypatch)
    for _ in range(2):
        Tokenizer.train_from_iterator((line for line in ["a", "bc"]), vocab_size=300)
    assert len(runs) == 2 and bpe._TRAINED == {}


def test_only_a_few_trainings_are_kept(monkeypatch):
    _trainings(monkeypatch)
    for n in range(bpe._TRAINED_KEPT + 3):
        Tokenizer.train_from_iterator([f"text {n}"], vocab_size=300)
    assert len(bpe._TRAINED) == bpe._TRAINED_KEPT


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


def test_save_into_a_missing_folder_names_it(tok, tmp_path):
    folder = tmp_path / "no" / "such"
    with pytest.raises(FileNotFoundError, match=rf"folder '{folder}' does not exist: create it first"):
        tok.save(folder / "tok.json")
    with pytest.raises(IsADirectoryError, match="is a folder: save to a file in it"):
        tok.save(tmp_path)
    tok.save(tmp_path / "tok.json")  # a file in an existing folder is fine
    assert Tokenizer.load(tmp_path / "tok.json").vocab_size == VOCAB


@pytest.mark.parametrize("content", ["{}", "not json", '{"model": 3}'])
def test_load_of_a_file_that_is_not_a_tokenizer(tmp_path, content):
    path = tmp_path / "other.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=r"is not a tokenizer file .*: load a file written by Tokenizer.save"):
        Tokenizer.load(path)


@pytest.mark.parametrize("cap", ["_TEXTS_KEPT", "_JSON_KEPT"])
def test_a_long_corpus_or_a_large_tokenizer_is_not_kept(monkeypatch, cap):
    runs = _trainings(monkeypatch)
    monkeypatch.setattr(bpe, cap, 3)  # "a", "bc" hold 3 characters: at the cap; the JSON is far over it
    texts = ["a", "bc"] if cap == "_JSON_KEPT" else ["a", "bcd"]
    for _ in range(2):
        assert Tokenizer.train_from_iterator(texts, vocab_size=300).encode("abc").ids
    assert len(runs) == 2 and bpe._TRAINED == {}
