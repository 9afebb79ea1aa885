"""WordPiece training, as the likelihood criterion describes it (BERT's WordPiece).

>>> tok = train_wordpiece(["the cat sat on the mat"] * 50, vocab_size=60)  # 22 tokens: every word whole
>>> tok.encode("the cat", add_special_tokens=False).tokens
['the', 'cat']

Text is normalized and split into words exactly as the resulting tokenizer will (BERT's
normalizer and pre-tokenizer), and the words are counted natively on all cores. Each word
starts as characters: the first as itself, the others with the continuation prefix ("##"),
two alphabets. Each round merges the adjacent pair with the highest score
count(ab) / (count(a) * count(b)) -- the gain in the corpus's likelihood under a unigram model,
so pairs whose parts rarely occur apart win over merely frequent ones -- into a new token (a
followed by b without its prefix). Ties go to the higher pair count, then the smaller pair of
ids. Training stops at `vocab_size` tokens (special tokens and alphabet included) or when no
pair occurs `min_frequency` times. The result is a `Tokenizer` with BERT's template.

The score favours pairs of rare parts: with min_frequency=1 a large corpus spends its merges on
one-off strings (hashes, numbers) before common words. The default, 2, skips pairs seen once (as
HF's BertWordPieceTokenizer does); higher values steer the vocabulary further toward frequent
words ("the", "token", "words" are single tokens of a 30k English vocabulary at 20, not at 2).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from .. import _core
from ..arguments import INT64_MAX, MAX_VOCAB, UINT32_MAX, _check_int
from ..decoders.wordpiece import WordPieceDecoder
from ..models.wordpiece import WordPiece
from ..normalizers.bert import BertNormalizer
from ..postprocessors.template import TemplateProcessing
from ..pretokenizers.bert import BertPreTokenizer
from ..progress import Progress
from ..threads import resolve_threads
from ..tokenizer import AddedToken, Tokenizer

BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
_BATCH_CHARS = 1 << 24


def _count_words(texts: Iterable[str], normalizer: BertNormalizer, progress: bool | None) -> _core.ChunkCounts:
    splitter = _core.WordPiece(["[UNK]"], 0, "##", "", 2**32 - 1, normalizer.text_rules(), ["[UNK]"])
    counts = _core.ChunkCounts()
    batch: list[str] = []
    chars = seen = 0
    with Progress("counting words", unit="texts", enabled=progress) as shown:
        for seen, text in enumerate(texts, 1):
            if not isinstance(text, str):
                raise TypeError(f"training text {seen - 1} is {type(text).__name__}, not str")
            batch.append(text)
            chars += len(text)
            if chars >= _BATCH_CHARS:
                splitter.count_words(batch, counts, resolve_threads(None))
                batch.clear()
                chars = 0
                shown.update(seen, f"{len(counts):,} unique words")
        splitter.count_words(batch, counts, resolve_threads(None))
        shown.update(seen, f"{len(counts):,} unique words")
    return counts


def _check_vocab_options(vocab_size: int, min_frequency: int, special_tokens: Sequence[str],
                         continuing_subword_prefix: str) -> tuple[int, int]:
    if isinstance(special_tokens, str) or not all(isinstance(t, str) and t for t in special_tokens):
        raise TypeError(f"special_tokens must be a sequence of non-empty str, got {special_tokens!r}")
    if not isinstance(continuing_subword_prefix, str):
        raise TypeError(f"continuing_subword_prefix must be a str, got {type(continuing_subword_prefix).__name__}")
    vocab_size = _check_int(vocab_size, "vocab_size", len(special_tokens), MAX_VOCAB,
                            why=f" (at least the {len(special_tokens)} special tokens)")
    return vocab_size, _check_int(min_frequency, "min_frequency", 1, INT64_MAX)


def train_wordpiece_merges(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    normalizer: BertNormalizer = BertNormalizer(),
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    continuing_subword_prefix: str = "##",
    min_frequency: int = 2,
    max_word_chars: int | None = None,
    progress: bool | None = None,
) -> tuple[list[str], list[tuple[int, int]]]:
    """(tokens by id, merges): special tokens, then the alphabet, then one token per merge;
    merge k joins ids (a, b) into the token after the alphabet's last, plus k. Words of more
    than `max_word_chars` characters (None: no limit) are left out: a tokenizer with that
    max_input_chars_per_word reads them as its unknown token whole, so their parts would only
    spend merges on tokens it never uses (and memory: one word of 100 MB)."""
    vocab_size, min_frequency = _check_vocab_options(vocab_size, min_frequency, special_tokens, continuing_subword_prefix)
    max_word_chars = _check_int(max_word_chars, "max_word_chars", 1, UINT32_MAX - 1, none="no limit")
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError(f"special tokens repeat: {list(special_tokens)!r}")
    counts = _count_words([texts] if isinstance(texts, str) else texts, normalizer, progress)
    if not len(counts):
        raise ValueError("the training corpus is empty: no words to learn from")
    trainer, alphabet = _core.WordPieceTrainer.from_words(counts, continuing_subword_prefix, len(special_tokens),
                                                          max_word_chars or 0)
    tokens = list(special_tokens) + alphabet
    wanted = vocab_size - len(tokens)
    merges: list[tuple[int, int]] = []
    if wanted <= 0:
        return tokens[:vocab_size], merges
    step = max(1, wanted // 200)
    prefix_len = len(continuing_subword_prefix)
    with Progress("merges", total=wanted, enabled=progress) as shown:
        while len(merges) < wanted:
            made = trainer.train(min(step, wanted - len(merges)), min_frequency)
            for a, b in made:
                right = tokens[b][prefix_len:] if tokens[b].startswith(continuing_subword_prefix) else tokens[b]
                tokens.append(tokens[a] + right)
            merges += [tuple(m) for m in made]
            shown.update(len(merges))
            if len(made) < step:
                break
    if len(merges) < wanted:
        warnings.warn(
            f"made {len(merges):,} of the {wanted:,} merges asked for (vocabulary: {len(tokens):,} tokens): no pair "
            f"is left that occurs at least min_frequency={min_frequency} times. Train on more (or more varied) "
            "text, or lower min_frequency, for a larger vocabulary", stacklevel=3)
    return tokens, merges


def train_wordpiece(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    normalizer: BertNormalizer = BertNormalizer(),
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    unk_token: str = "[UNK]",
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: int = 100,
    min_frequency: int = 2,
    progress: bool | None = None,
) -> Tokenizer:
    """Train a WordPiece `Tokenizer` of up to `vocab_size` tokens on `texts` (strings, or an
    iterable such as trainers.read_text_files(...)). Special tokens get the first ids and are
    matched in text as HF does; with [CLS] and [SEP] among them, BERT's template is set."""
    _check_vocab_options(vocab_size, min_frequency, special_tokens, continuing_subword_prefix)
    if unk_token not in special_tokens:
        raise ValueError(f"unk_token {unk_token!r} must be one of the special tokens {list(special_tokens)!r}")
    # Checked before training: the native word limit is a uint32 (its largest value meaning none).
    max_input_chars_per_word = _check_int(max_input_chars_per_word, "max_input_chars_per_word", 0, UINT32_MAX - 1,
                                          none="no limit")
    tokens, _ = train_wordpiece_merges(
        texts, vocab_size, normalizer=normalizer, special_tokens=special_tokens,
        continuing_subword_prefix=continuing_subword_prefix, min_frequency=min_frequency,
        max_word_chars=max_input_chars_per_word or None, progress=progress,
    )
    # A merge can rebuild a token that already exists (the same text from other parts); keep the first.
    unique: dict[str, int] = {}
    for token in tokens:
        unique.setdefault(token, len(unique))
    model = WordPiece(list(unique), unk_token, continuing_subword_prefix, max_input_chars_per_word)
    post = None
    if "[CLS]" in unique and "[SEP]" in unique:
        post = TemplateProcessing.bert(unique["[CLS]"], unique["[SEP]"])
    added = [AddedToken(t, unique[t]) for t in special_tokens]
    return Tokenizer(model, normalizer, BertPreTokenizer(), post, WordPieceDecoder(continuing_subword_prefix), added)
