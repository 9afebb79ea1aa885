"""sentencepiece training: Unigram and BPE (over code points) models written as `.model` files
that the sentencepiece library loads, with its options and their defaults.

>>> model = train_sentencepiece("corpus.txt", vocab_size=8000)            # doctest: +SKIP
>>> save_sentencepiece(model, "my")          # my.model + my.vocab          # doctest: +SKIP

Sentences are the input's lines. Each is normalized with the chosen rule (the same character
maps sentencepiece compiles in, shipped in data/spm_rules), user-defined and control symbols
are cut out of it, and the rarest characters beyond `character_coverage` become U+2585. Then:

- Unigram: seed pieces are every character and the substrings with the highest frequency *
  length (a suffix array over the whole text finds every repeated one); rounds of EM over each
  distinct word's lattice re-estimate the pieces' log probabilities, and each round prunes the
  pieces whose loss costs least likelihood (by `shrinking_factor`) until 1.1 * vocab_size are
  left; the alphabet plus the best of those are the model.
- BPE: words start as their characters; each round the most frequent adjacent pair that makes a
  new valid piece becomes one (score -rank), until the pieces and then the alphabet fill the
  vocabulary.

Both trainers are native (src/native/trainers/unigram_trainer.h, spm_bpe_trainer.h); this module reads the
input, keeps sentencepiece's rules for which lines count, lays out the special pieces and
writes the model.
"""

from __future__ import annotations

import itertools
import os
import random
import warnings
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from typing import Any, Callable

from .. import _core
from ..arguments import INT64_MAX, MAX_VOCAB, _check_bool, _check_float, _check_int
from ..formats.atomic import write_files_atomically
from ..formats.sentencepiece_model import (
    NORMALIZER_SPEC,
    TRAINER_SPEC,
    ModelType,
    Piece,
    PieceType,
    SentencePieceModel,
    Spec,
)
from ..progress import Progress
from ..threads import resolve_threads
from .text_files import expand_paths

NORMALIZATION_RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity")
_UNKNOWN_CHAR = "\u2585"  # sentencepiece skips lines holding it: it stands for rare characters
_BATCH = 1 << 16
_INT32_MAX = 2**31 - 1


def _charsmap(rule: str) -> bytes:
    if not isinstance(rule, str) or rule not in NORMALIZATION_RULES:
        raise ValueError(f"normalization_rule_name must be one of {', '.join(NORMALIZATION_RULES)}, got {rule!r}")
    if rule == "identity":
        return b""
    return resources.files("tokenforge").joinpath("data", "spm_rules", f"{rule}.bin").read_bytes()


# A chunk of input: lines, and where(k) naming line k of them in messages.
Chunk = tuple[list[str], Callable[[int], str]]


def _named(prefix: str, first: int) -> Callable[[int], str]:
    """Where line k of a chunk is: prefix + its number (first + k)."""
    return lambda k: f"{prefix}{first + k}"


def _file_chunks(paths: list[str], errors: str = "strict") -> Iterator[Chunk]:
    """The lines of text files (split at "\\n" only, without it), about a megabyte at a time;
    bytes that are not UTF-8 raise (errors="strict") or read as U+FFFD ("replace")."""
    for path in paths:
        number = 1
        try:
            with open(path, encoding="utf-8", errors=errors, newline="\n") as f:
                rest = ""
                while block := f.read(1 << 20):
                    lines = (rest + block).split("\n")
                    rest = lines.pop()
                    yield lines, _named(f"{path}:", number)
                    number += len(lines)
                if rest:
                    yield [rest], _named(f"{path}:", number)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text (after line {number}: {e.reason})") from None
        except OSError as e:
            raise ValueError(f"cannot read {path}: {e.strerror or e}") from None


def _sentence_chunks(sentences: Iterable[str]) -> Iterator[Chunk]:
    it = iter(sentences)
    first = 0
    while lines := list(itertools.islice(it, _BATCH)):
        yield lines, _named("sentence ", first)
        first += len(lines)


def _sentences(
    chunks: Iterable[Chunk],
    max_sentence_length: int,
    skip_long_lines: bool,
    input_sentence_size: int,
    shuffle: bool,
    seed: int | None,
) -> Iterator[list[str]]:
    """Batches of the lines sentencepiece trains on: non-empty, without U+2585, at most
    max_sentence_length bytes (longer ones raise, or are skipped and counted), the first or a
    uniform sample of input_sentence_size of them when that is set."""
    long_lines = reserved = eligible = 0
    sample: list[str] = []
    rng = random.Random(seed)
    for lines, where in chunks:
        if not all(type(line) is str for line in lines):
            k = next(k for k, line in enumerate(lines) if not isinstance(line, str))
            raise TypeError(f"training sentence {where(k)} is {type(lines[k]).__name__}, not str")
        if max(map(len, lines), default=0) * 4 <= max_sentence_length and not any(_UNKNOWN_CHAR in x for x in lines):
            kept = [line for line in lines if line]
        else:  # some lines may be too long or hold U+2585: look at each
            kept = []
            for k, line in enumerate(lines):
                if (
                    len(line) * 4 > max_sentence_length
                    and (size := len(line.encode("utf-8", "surrogatepass"))) > max_sentence_length
                ):
                    if not skip_long_lines:
                        raise ValueError(
                            f"{where(k)} has {size} bytes, over max_sentence_length={max_sentence_length}; "
                            "raise max_sentence_length, or pass skip_long_lines=True (CLI: --spm "
                            "skip_long_lines=true) to leave such lines out as sentencepiece does"
                        )
                    long_lines += 1
                elif _UNKNOWN_CHAR in line:
                    reserved += 1
                elif line:
                    kept.append(line)
        if input_sentence_size and shuffle:  # reservoir sampling: each line kept with equal chance
            for line in kept:
                if len(sample) < input_sentence_size:
                    sample.append(line)
                elif (k := rng.randrange(eligible + 1)) < input_sentence_size:
                    sample[k] = line
                eligible += 1
            continue
        if input_sentence_size:
            kept = kept[: input_sentence_size - eligible]
        eligible += len(kept)
        if kept:
            yield kept
        if input_sentence_size and eligible >= input_sentence_size:
            break
    for start in range(0, len(sample), _BATCH):
        yield sample[start : start + _BATCH]
    if long_lines:
        warnings.warn(
            f"skipped {long_lines} lines longer than max_sentence_length={max_sentence_length} bytes", stacklevel=3
        )
    if reserved:
        warnings.warn(f"skipped {reserved} lines holding U+2585, which sentencepiece reserves", stacklevel=3)


def _meta_pieces(
    vocab_size: int,
    special_ids: dict[str, tuple[int, str]],
    control_symbols: Sequence[str],
    user_defined_symbols: Sequence[str],
    byte_fallback: bool,
) -> dict[int, tuple[str, PieceType]]:
    """id -> (text, type) of the pieces training does not learn, laid out as sentencepiece does:
    unk/bos/eos/pad at their ids, then control symbols, user-defined symbols and the 256 byte
    pieces in the lowest free ids."""
    meta: dict[int, tuple[str, PieceType]] = {}
    holder: dict[int, str] = {}  # id -> the role that has it
    for role, (i, text) in special_ids.items():
        if i < 0:
            if role == "unk":
                raise ValueError("unk_id must be >= 0: every sentencepiece model has an unknown piece")
            continue
        if i in meta:  # (both named: the one given may be either, the other its default)
            raise ValueError(f"{role}_id {i} is taken by {holder[i]}_id; give the two different ids (or -1 for none)")
        if i >= vocab_size:
            raise ValueError(f"{role}_id {i} is outside vocab_size {vocab_size}")
        holder[i] = role
        if any(text == t for t, _ in meta.values()):
            raise ValueError(f"{role}_piece {text!r} repeats another special piece")
        meta[i] = (text, PieceType.UNKNOWN if role == "unk" else PieceType.CONTROL)
    by_text = {text: i for i, (text, _) in meta.items()}
    extra = (
        [(s, PieceType.CONTROL) for s in control_symbols]
        + [(s, PieceType.USER_DEFINED) for s in user_defined_symbols]
        + ([(f"<0x{b:02X}>", PieceType.BYTE) for b in range(256)] if byte_fallback else [])
    )
    seen: set[str] = set()
    next_id = 0
    for text, kind in extra:
        if not text or text in seen:
            raise ValueError(f"symbol {text!r} is {'empty' if not text else 'given twice'}")
        seen.add(text)
        if text == special_ids["unk"][1]:
            raise ValueError(f"{text!r} is the unknown piece; it cannot also be a control or user-defined symbol")
        if text in by_text:  # <s>, </s>, <pad> named again: keep the id, take the type
            meta[by_text[text]] = (text, kind)
            continue
        while next_id in meta:
            next_id += 1
        meta[next_id] = (text, kind)
    if max(meta) >= vocab_size or len(meta) >= vocab_size:
        raise ValueError(f"vocab_size {vocab_size} leaves no room beyond the {len(meta)} special pieces")
    return meta


def _train_unigram(
    trainer, meta_count: int, vocab_size: int, num_sub_iterations: int, progress: bool | None
) -> list[tuple[str, float]]:
    """EM rounds, each followed by pruning, until 1.1 * vocab_size pieces are left; then the
    alphabet and the best of the rest."""
    with Progress("unigram EM", unit="rounds", enabled=progress) as shown:
        alphabet = trainer.make_seeds(meta_count, vocab_size)
        shown.update(0, f"{trainer.size:,} seed pieces, {alphabet:,} characters")
        desired = int(vocab_size * 1.1)
        rounds = 0
        while True:
            for _ in range(num_sub_iterations):
                objective, size = trainer.em_iteration()
            rounds += 1
            shown.update(rounds, f"{size:,} pieces, objective {objective:.3f}")
            if size <= desired:
                break
            trainer.prune(desired)
        return trainer.finalize(vocab_size - meta_count)


def _train_bpe(
    trainer, meta_count: int, vocab_size: int, num_sub_iterations: int, progress: bool | None
) -> list[tuple[str, float]]:
    """Merges until the learned pieces and the alphabet fill the vocabulary."""
    alphabet = trainer.prepare(meta_count, vocab_size)
    wanted = vocab_size - meta_count - alphabet
    with Progress("bpe merges", total=wanted, unit="pieces", enabled=progress) as shown:
        while trainer.learned < wanted:
            if not trainer.train(min(1000, wanted - trainer.learned)):
                break
            shown.update(trainer.learned)
    return trainer.finalize()


def train_sentencepiece(
    input: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    vocab_size: int = 8000,
    model_type: str = "unigram",
    *,
    sentences: Iterable[str] | None = None,
    character_coverage: float = 0.9995,
    byte_fallback: bool = False,
    split_digits: bool = False,
    split_by_unicode_script: bool = True,
    split_by_whitespace: bool = True,
    split_by_number: bool = True,
    max_sentencepiece_length: int = 16,
    add_dummy_prefix: bool = True,
    allow_whitespace_only_pieces: bool = False,
    normalization_rule_name: str = "nmt_nfkc",
    remove_extra_whitespaces: bool = True,
    unk_id: int = 0,
    bos_id: int = 1,
    eos_id: int = 2,
    pad_id: int = -1,
    unk_piece: str = "<unk>",
    bos_piece: str = "<s>",
    eos_piece: str = "</s>",
    pad_piece: str = "<pad>",
    control_symbols: Sequence[str] = (),
    user_defined_symbols: Sequence[str] = (),
    input_sentence_size: int = 0,
    shuffle_input_sentence: bool = True,
    max_sentence_length: int = 4192,
    skip_long_lines: bool = False,
    seed_sentencepiece_size: int = 1_000_000,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    num_threads: int | None = None,
    seed: int | None = None,
    errors: str = "strict",
    progress: bool | None = None,
) -> SentencePieceModel:
    """Train a sentencepiece model on the lines of `input` (file paths or globs) or on
    `sentences` (an iterable of str, one sentence each). Options and defaults are
    sentencepiece's (spm_train's flags of the same names); skip_long_lines=True leaves out
    lines over max_sentence_length bytes, which otherwise raise. `seed` fixes the sampling of
    input_sentence_size. `errors`: what bytes of `input` that are not UTF-8 do, "strict" (an
    error naming the file and line) or "replace" (each reads as U+FFFD). Returns the model;
    save_sentencepiece writes .model and .vocab."""
    if (input is None) == (sentences is None):
        raise ValueError("give either input (file paths) or sentences (an iterable of str)")
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
    if model_type not in ("unigram", "bpe"):
        raise ValueError(f"model_type must be 'unigram' or 'bpe', got {model_type!r}")
    # Every option is checked (and read as an int, a float or a bool) before any text is read;
    # the ranges are sentencepiece's own where it has one, else those of its int32 spec fields.
    vocab_size = _check_int(vocab_size, "vocab_size", 2, MAX_VOCAB)
    character_coverage = _check_float(
        character_coverage, "character_coverage", 0.98, 1.0, why=" (as sentencepiece requires)"
    )
    max_sentencepiece_length = _check_int(max_sentencepiece_length, "max_sentencepiece_length", 1, 512)
    shrinking_factor = _check_float(shrinking_factor, "shrinking_factor", 0.5, 0.95)
    num_sub_iterations = _check_int(num_sub_iterations, "num_sub_iterations", 1, 10)
    seed_sentencepiece_size = _check_int(seed_sentencepiece_size, "seed_sentencepiece_size", 1000, 5_000_000)
    max_sentence_length = _check_int(max_sentence_length, "max_sentence_length", 1, _INT32_MAX, why=" bytes")
    input_sentence_size = _check_int(
        input_sentence_size, "input_sentence_size", 0, INT64_MAX, why=" (0: every sentence)"
    )
    unk_id = _check_int(unk_id, "unk_id")  # its range, with the others', is checked by _meta_pieces
    bos_id, eos_id, pad_id = (
        _check_int(i, name, -1, None, why=" (-1: none)")
        for i, name in ((bos_id, "bos_id"), (eos_id, "eos_id"), (pad_id, "pad_id"))
    )
    seed = _check_int(seed, "seed", none="a random seed")
    (
        byte_fallback,
        split_digits,
        split_by_unicode_script,
        split_by_whitespace,
        split_by_number,
        add_dummy_prefix,
        allow_whitespace_only_pieces,
        remove_extra_whitespaces,
        shuffle_input_sentence,
        skip_long_lines,
    ) = (
        _check_bool(value, name)
        for value, name in (
            (byte_fallback, "byte_fallback"),
            (split_digits, "split_digits"),
            (split_by_unicode_script, "split_by_unicode_script"),
            (split_by_whitespace, "split_by_whitespace"),
            (split_by_number, "split_by_number"),
            (add_dummy_prefix, "add_dummy_prefix"),
            (allow_whitespace_only_pieces, "allow_whitespace_only_pieces"),
            (remove_extra_whitespaces, "remove_extra_whitespaces"),
            (shuffle_input_sentence, "shuffle_input_sentence"),
            (skip_long_lines, "skip_long_lines"),
        )
    )
    for name, piece in (
        ("unk_piece", unk_piece),
        ("bos_piece", bos_piece),
        ("eos_piece", eos_piece),
        ("pad_piece", pad_piece),
    ):
        if not isinstance(piece, str):
            raise TypeError(f"{name} must be a str, got {type(piece).__name__}")
    for name, symbols in (("control_symbols", control_symbols), ("user_defined_symbols", user_defined_symbols)):
        if isinstance(symbols, str) or not all(isinstance(x, str) for x in symbols):
            raise TypeError(f"{name} must be a sequence of str, got {symbols!r}")
    threads = resolve_threads(num_threads)
    charsmap = _charsmap(normalization_rule_name)
    specials = {
        "unk": (unk_id, unk_piece),
        "bos": (bos_id, bos_piece),
        "eos": (eos_id, eos_piece),
        "pad": (pad_id, pad_piece),
    }
    meta = _meta_pieces(vocab_size, specials, control_symbols, user_defined_symbols, byte_fallback)

    corpus_options = (
        charsmap,
        add_dummy_prefix,
        remove_extra_whitespaces,
        [text for text, _ in meta.values()],
        list(user_defined_symbols),
        max_sentencepiece_length,
        split_by_whitespace,
        split_by_unicode_script,
        split_by_number,
        split_digits,
        allow_whitespace_only_pieces,
        character_coverage,
        threads,
    )
    trainer: _core.UnigramTrainer | _core.SpmBpeTrainer
    if model_type == "unigram":
        trainer = _core.UnigramTrainer(
            *corpus_options, seed_size=seed_sentencepiece_size, shrinking_factor=shrinking_factor
        )
    else:
        trainer = _core.SpmBpeTrainer(*corpus_options)
    chunks = _file_chunks(expand_paths(input), errors) if input is not None else _sentence_chunks(sentences or ())
    with Progress("reading sentences", unit="sentences", enabled=progress) as shown:
        for batch in _sentences(
            chunks, max_sentence_length, skip_long_lines, input_sentence_size, shuffle_input_sentence, seed
        ):
            trainer.add_sentences(batch)
            shown.update(trainer.sentence_count)
    learn = _train_unigram if model_type == "unigram" else _train_bpe
    learned_pieces = learn(trainer, len(meta), vocab_size, num_sub_iterations, progress)
    learned = vocab_size - len(meta)
    if len(learned_pieces) < learned:
        raise ValueError(
            f"vocab_size {vocab_size} is too high for this text: set it to {len(learned_pieces) + len(meta)} or less"
        )

    pieces: list[Piece] = []
    rest = iter(learned_pieces)
    for i in range(vocab_size):
        if i in meta:
            pieces.append(Piece(meta[i][0], 0.0, meta[i][1]))
        else:
            text, score = next(rest)
            pieces.append(Piece(text, score))
    trainer_spec = Spec(TRAINER_SPEC)
    for name, value in [
        ("input", [os.fspath(p) for p in expand_paths(input)] if input is not None else []),
        ("model_type", ModelType.UNIGRAM if model_type == "unigram" else ModelType.BPE),
        ("vocab_size", vocab_size),
        ("character_coverage", character_coverage),
        ("input_sentence_size", input_sentence_size),
        ("shuffle_input_sentence", shuffle_input_sentence),
        ("seed_sentencepiece_size", seed_sentencepiece_size),
        ("shrinking_factor", shrinking_factor),
        ("max_sentence_length", max_sentence_length),
        ("num_threads", threads),
        ("num_sub_iterations", num_sub_iterations),
        ("max_sentencepiece_length", max_sentencepiece_length),
        ("split_by_unicode_script", split_by_unicode_script),
        ("split_by_number", split_by_number),
        ("split_by_whitespace", split_by_whitespace),
        ("allow_whitespace_only_pieces", allow_whitespace_only_pieces),
        ("split_digits", split_digits),
        ("control_symbols", list(control_symbols)),
        ("user_defined_symbols", list(user_defined_symbols)),
        ("byte_fallback", byte_fallback),
        ("unk_id", unk_id),
        ("bos_id", bos_id),
        ("eos_id", eos_id),
        ("pad_id", pad_id),
        ("unk_piece", unk_piece),
        ("bos_piece", bos_piece),
        ("eos_piece", eos_piece),
        ("pad_piece", pad_piece),
    ]:
        trainer_spec[name] = value
    normalizer_spec = Spec(NORMALIZER_SPEC)
    normalizer_options: list[tuple[str, Any]] = [
        ("name", normalization_rule_name),
        ("precompiled_charsmap", charsmap),
        ("add_dummy_prefix", add_dummy_prefix),
        ("remove_extra_whitespaces", remove_extra_whitespaces),
        ("escape_whitespaces", True),
    ]
    for name, value in normalizer_options:
        normalizer_spec[name] = value
    return SentencePieceModel(pieces, trainer_spec, normalizer_spec)


def vocab_text(model: SentencePieceModel) -> str:
    """The .vocab file sentencepiece writes beside a model: piece, tab, score, a line each."""
    return "".join(f"{p.piece}\t{p.score:g}\n" for p in model.pieces)


def save_sentencepiece(model: SentencePieceModel, prefix: str | os.PathLike[str]) -> tuple[str, str]:
    """Write prefix.model and prefix.vocab (atomically, both or neither); returns their paths."""
    prefix = os.fspath(prefix)
    paths = (prefix + ".model", prefix + ".vocab")
    write_files_atomically([(paths[0], model.to_bytes()), (paths[1], vocab_text(model).encode("utf-8"))])
    return paths
