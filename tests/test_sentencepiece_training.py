"""sentencepiece training (Unigram and BPE over characters) against the sentencepiece library:
our models load there and encode identically with our encoder, compress held-out text within 1%
of the models sentencepiece trains with the same options, and lay out the special pieces as it
does; options that refuse or skip input do so clearly."""

from __future__ import annotations

import io
import warnings

import pytest

from conftest import corpus_files, read_sample
from tokenforge.formats.sentencepiece_model import (
    ModelType,
    PieceType,
    SentencePieceModel,
)
from tokenforge.models.sentencepiece import SentencePieceModelEncoder
from tokenforge.trainers.sentencepiece import (
    save_sentencepiece,
    train_sentencepiece,
    vocab_text,
)

spm = pytest.importorskip("sentencepiece")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Training lines from every corpus (English, code, seven languages), and held-out lines
    taken from further into the same files."""
    out = tmp_path_factory.mktemp("spm-train")
    train, held = [], []
    for path in corpus_files():
        text = read_sample(path, 90_000)
        train.append(text[:60_000])
        held.append(text[60_000:])
    train_path = out / "train.txt"
    train_path.write_text("\n".join(train), encoding="utf-8")
    return train_path, "\n".join(held).split("\n")


def _spm_train(path, vocab_size, **options) -> bytes:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(input=str(path), model_writer=model, vocab_size=vocab_size, minloglevel=2, **options)
    return model.getvalue()


def _bytes_per_token(processor, lines) -> float:
    return sum(len(line.encode("utf-8")) for line in lines) / sum(map(len, processor.encode(lines)))


CONFIGS = [
    dict(model_type="unigram"),
    dict(model_type="unigram", normalization_rule_name="identity", byte_fallback=True),
    dict(model_type="unigram", split_digits=True, character_coverage=0.98),
    dict(model_type="unigram", split_by_unicode_script=False, max_sentencepiece_length=8),
    dict(
        model_type="unigram", allow_whitespace_only_pieces=True, remove_extra_whitespaces=False, add_dummy_prefix=False
    ),
    dict(model_type="bpe"),
    dict(model_type="bpe", byte_fallback=True, split_digits=True),
    dict(model_type="bpe", normalization_rule_name="nfkc_cf", character_coverage=0.98),
    dict(model_type="bpe", split_by_whitespace=False, split_by_number=False),
]


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_trained_model_loads_in_sentencepiece_and_compresses_as_well(corpus, options):
    path, held = corpus
    ours = train_sentencepiece(
        path,
        2000,
        progress=False,
        **{k: v for k, v in options.items() if k != "model_type"},
        model_type=options["model_type"],
    )
    assert len(ours.pieces) == 2000
    assert ours.trainer_spec["model_type"] == (
        ModelType.UNIGRAM if options["model_type"] == "unigram" else ModelType.BPE
    )
    loaded = spm.SentencePieceProcessor(model_proto=ours.to_bytes())
    assert loaded.get_piece_size() == 2000
    encoder = SentencePieceModelEncoder(ours)
    probe = [*held[:300], "  Ｈｅｌｌｏ\u3000world 12345 ", "😀 한국어 テスト", "<s> x </s>"]
    assert encoder.encode_batch(probe) == loaded.encode(probe)
    theirs = spm.SentencePieceProcessor(model_proto=_spm_train(path, 2000, **options))
    ratio = _bytes_per_token(loaded, held) / _bytes_per_token(theirs, held)
    assert ratio > 0.99, f"held-out compression {ratio:.4f} of sentencepiece's"


def test_digits_and_scripts_follow_the_piece_rules(corpus):
    path, _ = corpus
    model = train_sentencepiece(path, 2000, split_digits=True, progress=False)
    learned = [p.piece for p in model.pieces if p.type == PieceType.NORMAL]
    assert not [p for p in learned if len(p) > 1 and any(c.isdigit() for c in p)]
    assert not [p for p in learned if "\u2581" in p[1:]], "▁ only starts a piece"
    assert all(len(p) <= 16 for p in learned)


def test_special_pieces_are_laid_out_as_sentencepiece_does(corpus):
    path, _ = corpus
    options = dict(
        unk_id=3,
        bos_id=0,
        eos_id=-1,
        pad_id=1,
        control_symbols=["<ctl>"],
        user_defined_symbols=["<sep>", "<cls>"],
        byte_fallback=True,
    )
    for model_type in ("unigram", "bpe"):
        ours = train_sentencepiece(path, 1500, model_type, progress=False, **options)
        theirs = SentencePieceModel.from_bytes(_spm_train(path, 1500, model_type=model_type, **options))
        head = len(theirs.pieces) - sum(p.type == PieceType.NORMAL for p in theirs.pieces)
        assert [(p.piece, p.type) for p in ours.pieces[:head]] == [(p.piece, p.type) for p in theirs.pieces[:head]]
        processor = spm.SentencePieceProcessor(model_proto=ours.to_bytes())
        assert (processor.unk_id(), processor.bos_id(), processor.eos_id(), processor.pad_id()) == (3, 0, -1, 1)
        ids = processor.encode("a<sep>b")
        assert processor.piece_to_id("<sep>") in ids


def test_user_defined_symbols_never_end_up_inside_learned_pieces():
    lines = [f"alpha<sep>beta{i} gamma<sep>delta{i % 7}" for i in range(300)] + ["the quick brown fox"] * 50
    model = train_sentencepiece(sentences=lines, vocab_size=50, user_defined_symbols=["<sep>"], progress=False)
    assert not [p.piece for p in model.pieces if "<sep>" in p.piece and p.type == PieceType.NORMAL]


def test_bpe_pieces_come_in_merge_order_then_the_characters(corpus):
    path, _ = corpus
    model = train_sentencepiece(path, 1500, "bpe", character_coverage=0.98, progress=False)
    normal = [p for p in model.pieces if p.type == PieceType.NORMAL]
    assert [p.score for p in normal] == [-float(i) for i in range(len(normal))]
    characters = [p.piece for p in normal if len(p.piece) == 1]
    assert normal[-len(characters) :] == [p for p in normal if len(p.piece) == 1], "characters last"
    assert len({p.piece for p in model.pieces}) == len(model.pieces), "no piece twice"


def test_long_lines_raise_unless_skipped(tmp_path):
    lines = ["short line"] * 50 + ["x" * 300]
    with pytest.raises(ValueError, match=r"sentence 50 has 300 bytes, over max_sentence_length=100.*skip_long_lines"):
        train_sentencepiece(sentences=lines, vocab_size=30, max_sentence_length=100, progress=False)
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path}:51 has 300 bytes"):
        train_sentencepiece(path, vocab_size=30, max_sentence_length=100, progress=False)
    with pytest.warns(UserWarning, match="skipped 1 lines longer than max_sentence_length=100"):
        model = train_sentencepiece(
            sentences=lines, vocab_size=13, max_sentence_length=100, skip_long_lines=True, progress=False
        )
    assert "xx" not in {p.piece for p in model.pieces}


def test_input_sentence_size_samples_reproducibly(corpus):
    path, _ = corpus
    options = dict(vocab_size=800, character_coverage=0.98, input_sentence_size=500, progress=False)
    first = train_sentencepiece(path, seed=7, **options)
    again = train_sentencepiece(path, seed=7, **options)
    other = train_sentencepiece(path, seed=8, **options)
    whole = train_sentencepiece(path, **options | dict(input_sentence_size=0))
    assert first.to_bytes() == again.to_bytes()
    assert [p.piece for p in first.pieces] != [p.piece for p in other.pieces]
    assert [p.piece for p in first.pieces] != [p.piece for p in whole.pieces]
    assert first.trainer_spec["input_sentence_size"] == 500


def test_lines_holding_the_reserved_character_are_skipped():
    lines = ["plain text here"] * 30 + ["has \u2585 inside"]
    with pytest.warns(UserWarning, match="skipped 1 lines holding U\\+2585"):
        model = train_sentencepiece(sentences=lines, vocab_size=14, progress=False)
    assert "\u2585" not in "".join(p.piece for p in model.pieces)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(vocab_size=5), "smaller than the"),
        (dict(vocab_size=100_000), "too high for this text"),
        (dict(model_type="word"), "model_type must be"),
        (dict(character_coverage=0.5), "character_coverage must be in"),
        (dict(normalization_rule_name="nfd"), "normalization_rule_name must be one of"),
        (dict(unk_id=-1), "unk_id must be >= 0"),
        (dict(bos_id=0), "bos_id 0 is taken by unk_id"),
        (dict(bos_id=2), "eos_id 2 is taken by bos_id"),  # (the option given named, not only the default)
        (dict(user_defined_symbols=["<unk>"]), "is the unknown piece"),
    ],
)
def test_bad_options_are_refused_clearly(options, message):
    lines = ["some training text with words", "and a second line of it"] * 20
    kwargs = dict(vocab_size=40, progress=False) | options
    with pytest.raises(ValueError, match=message):
        train_sentencepiece(sentences=lines, **kwargs)


def test_non_str_sentences_and_unreadable_files_are_named(tmp_path):
    with pytest.raises(TypeError, match="training sentence sentence 1 is bytes"):
        train_sentencepiece(sentences=["ok", b"bytes"], vocab_size=30, progress=False)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9\n")
    with pytest.raises(ValueError, match=r"latin1\.txt: not UTF-8 text"):
        train_sentencepiece(bad, vocab_size=30, progress=False)


def test_saved_files_are_what_sentencepiece_writes(corpus, tmp_path):
    path, held = corpus
    model = train_sentencepiece(path, 1500, character_coverage=0.98, progress=False)
    model_path, vocab_path = save_sentencepiece(model, tmp_path / "m")
    processor = spm.SentencePieceProcessor(model_file=model_path)
    assert processor.encode(held[:50]) == SentencePieceModelEncoder.from_file(model_path).encode_batch(held[:50])
    with open(vocab_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) == 1500 and lines[0] == "<unk>\t0"
    assert lines == vocab_text(model).splitlines()
    assert [line.split("\t")[0] for line in lines] == [processor.id_to_piece(i) for i in range(1500)]


def test_progress_is_drawn_on_request(corpus, capsys):
    path, _ = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train_sentencepiece(path, 1500, progress=True, character_coverage=0.98)
        train_sentencepiece(path, 1500, "bpe", progress=True, character_coverage=0.98)
    err = capsys.readouterr().err
    assert "unigram EM" in err and "bpe merges" in err and "reading sentences" in err


def test_files_that_are_not_utf8_train_with_errors_replace(tmp_path):
    """errors="replace" reads each invalid byte as U+FFFD: the model is the one the decoded
    lines give, and its trainer spec still names the file."""
    data = b"caf\xe9 au lait\nna\xefve caf\xe9\n" * 40 + b"plain words here\n" * 40
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(data)
    with pytest.raises(ValueError, match="errors must be"):
        train_sentencepiece(bad, vocab_size=24, errors="ignore", progress=False)
    from_file = train_sentencepiece(bad, vocab_size=24, errors="replace", progress=False)
    lines = data.decode("utf-8", "replace").split("\n")[:-1]
    from_lines = train_sentencepiece(sentences=lines, vocab_size=24, progress=False)
    assert [(p.piece, p.score) for p in from_file.pieces] == [(p.piece, p.score) for p in from_lines.pieces]
    assert str(bad) in str(from_file.trainer_spec["input"])
