"""WordPiece training, as the likelihood criterion describes it (BERT's WordPiece).

>>> tok = train_wordpiece(["the cat sat on the mat"] * 50, vocab_size=60)  # 22 tokens: every word whole
>>> tok.encode("the cat", add_special_tokens=False).tokens
['the', 'cat']

Text is normalized and split into words exactly as the resulting tokenizer will (BERT's
normalizer and pre-tokenizer), and the words are counted natively on all cores. Each word
starts as characters: the first as itself, the others with the continuation prefix ("##"),
two alphabets. Each round merges, among the pairs occurring at least `floor` times, the adjacent
pair with the highest score count(ab) / (count(a) * count(b)) -- the gain in the corpus's
likelihood under a unigram model, so pairs whose parts rarely occur apart win over merely
frequent ones -- into a new token (a followed by b without its prefix). Ties go to the higher
pair count, then the smaller pair of ids. The floor starts at the highest pair count and, when no
pair reaches it, falls to floor * `floor_decay` (or the highest count below it, if lower), never
below `min_frequency`. Training stops at `vocab_size` tokens (special tokens and alphabet
included) or when no pair occurs `min_frequency` times. The result is a `Tokenizer` with BERT's
template.

Why the floor: the score alone favours pairs of rare parts -- a pair seen twice whose parts occur
nowhere else scores 1/2, above any pair of common parts -- so without it (floor_decay=0) a vocabulary
fills with one-off strings before common words: "the" was "th ##e" in an 8k English vocabulary, and
held-out text took 2.2x the tokens of HF's WordPieceTrainer (1.6-2.7x over English, German, Russian,
Python code and a mix of eight languages). With floor_decay=0.9 frequent strings are built first and
the score decides among the pairs above the floor.

Why drop_unused: merging a pair whose parts rarely occur apart leaves those parts behind as tokens
the tokenizer's greedy longest match never picks (the parts of "komyakin" once it is whole). With
drop_unused, train_wordpiece keeps only the merged tokens that encoding the training words uses and
spends the room on further merges (a few rounds), so every token of the vocabulary earns its id.

Why min_frequency=1 in train_wordpiece: pairs seen once are merged only into room the others leave
(when every pair seen twice is merged and the vocabulary is still short), never instead of them, as
HF's WordPieceTrainer (min_frequency 0) also fills it. train_wordpiece_merges keeps 2.

Together (the defaults) held-out text takes 0.3-0.9% fewer tokens than HF's WordPieceTrainer where
the vocabulary fills before the training text runs out of pairs (8k and 30k over 4-16 MB); where it
runs out first (30k over 1.6-4 MB of one language), 0.1-0.5% more.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

from .. import _core
from ..arguments import INT64_MAX, MAX_VOCAB, UINT32_MAX, _check_bool, _check_float, _check_int
from ..decoders.wordpiece import WordPieceDecoder
from ..models.wordpiece import WordPiece
from ..normalizers.bert import BertNormalizer
from ..pre_tokenizers.bert import BertPreTokenizer
from ..processors.template import TemplateProcessing
from ..progress import Progress
from ..threads import resolve_threads
from ..tokenizer import AddedToken, Tokenizer

BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
_BATCH_CHARS = 1 << 24
_REFILL_ROUNDS = 20  # drop_unused: rounds of (encode the training words, merge into the freed room)


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


def _check_vocab_options(
    vocab_size: int, min_frequency: int, special_tokens: Sequence[str], continuing_subword_prefix: str
) -> tuple[int, int]:
    if isinstance(special_tokens, str) or not all(isinstance(t, str) and t for t in special_tokens):
        raise TypeError(f"special_tokens must be a sequence of non-empty str, got {special_tokens!r}")
    if not isinstance(continuing_subword_prefix, str):
        raise TypeError(f"continuing_subword_prefix must be a str, got {type(continuing_subword_prefix).__name__}")
    vocab_size = _check_int(
        vocab_size,
        "vocab_size",
        len(special_tokens),
        MAX_VOCAB,
        why=f" (at least the {len(special_tokens)} special tokens)",
    )
    return vocab_size, _check_int(min_frequency, "min_frequency", 1, INT64_MAX)


class _Merges:
    """The native trainer over counted words, and the texts of the tokens it has made so far:
    special tokens, the alphabet, then one token per merge (merge k makes id first + k)."""

    def __init__(
        self,
        counts: _core.ChunkCounts,
        special_tokens: Sequence[str],
        prefix: str,
        max_word_chars: int | None,
        floor_decay: float,
    ) -> None:
        self.trainer, alphabet = _core.WordPieceTrainer.from_words(
            counts, prefix, len(special_tokens), max_word_chars or 0, floor_decay
        )
        self.tokens = list(special_tokens) + alphabet
        self.first = len(self.tokens)
        self.merges: list[tuple[int, int]] = []
        self.prefix = prefix
        self.ran_out = False  # the last grow() found no pair occurring min_frequency times

    def grow(self, n: int, min_frequency: int, shown: Progress | None = None, done: int = 0) -> None:
        """Up to n more merges, in steps (for progress); fewer when the pairs run out."""
        step = max(1, n // 200)
        target = len(self.merges) + n
        self.ran_out = False
        while len(self.merges) < target:
            ask = min(step, target - len(self.merges))
            made = self.trainer.train(ask, min_frequency)
            for a, b in made:
                right = self.tokens[b]
                self.tokens.append(
                    self.tokens[a] + (right[len(self.prefix) :] if right.startswith(self.prefix) else right)
                )
            self.merges += [(a, b) for a, b in made]
            if shown is not None:
                shown.update(done + len(self.merges))
            if len(made) < ask:
                self.ran_out = True
                break

    def merged(self) -> list[str]:
        """The merged tokens' texts in merge order, each once (a merge can rebuild a text another
        made), none that is already a special token or in the alphabet."""
        seen = set(self.tokens[: self.first])
        out = []
        for t in self.tokens[self.first :]:
            if t not in seen:
                seen.add(t)
                out.append(t)
        return out


def _ran_out_warning(made: int, wanted: int, size: int, min_frequency: int) -> None:
    warnings.warn(
        f"made {made:,} of the {wanted:,} merges asked for (vocabulary: {size:,} tokens): no pair "
        f"is left that occurs at least min_frequency={min_frequency} times. Train on more (or more varied) "
        "text, or lower min_frequency, for a larger vocabulary",
        stacklevel=3,
    )


def _check_floor_decay(floor_decay: float) -> float:
    return _check_float(floor_decay, "floor_decay", 0.0, 1.0)


def train_wordpiece_merges(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    normalizer: BertNormalizer = BertNormalizer(),
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    continuing_subword_prefix: str = "##",
    min_frequency: int = 2,
    max_word_chars: int | None = None,
    floor_decay: float = 0.9,
    progress: bool | None = None,
) -> tuple[list[str], list[tuple[int, int]]]:
    """(tokens by id, merges): special tokens, then the alphabet, then one token per merge;
    merge k joins ids (a, b) into the token after the alphabet's last, plus k. Words of more
    than `max_word_chars` characters (None: no limit) are left out: a tokenizer with that
    max_input_chars_per_word reads them as its unknown token whole, so their parts would only
    spend merges on tokens it never uses (and memory: one word of 100 MB). `floor_decay` (0 to 1)
    as the module describes; 0 merges by the score alone."""
    vocab_size, min_frequency = _check_vocab_options(
        vocab_size, min_frequency, special_tokens, continuing_subword_prefix
    )
    max_word_chars = _check_int(max_word_chars, "max_word_chars", 1, UINT32_MAX - 1, none="no limit")
    floor_decay = _check_floor_decay(floor_decay)
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError(f"special tokens repeat: {list(special_tokens)!r}")
    counts = _count_words([texts] if isinstance(texts, str) else texts, normalizer, progress)
    if not len(counts):
        raise ValueError("the training corpus is empty: no words to learn from")
    m = _Merges(counts, special_tokens, continuing_subword_prefix, max_word_chars, floor_decay)
    wanted = vocab_size - len(m.tokens)
    if wanted <= 0:
        return m.tokens[:vocab_size], []
    with Progress("merges", total=wanted, enabled=progress) as shown:
        m.grow(wanted, min_frequency, shown)
    if len(m.merges) < wanted:
        _ran_out_warning(len(m.merges), wanted, len(m.tokens), min_frequency)
    return m.tokens, m.merges


def _used(m: _Merges, words: list[str], counts: list[int], unk_token: str, max_chars: int) -> set[str]:
    """The merged tokens that greedy WordPiece encoding of the training words picks."""
    unique: dict[str, int] = {}
    for token in m.tokens:
        unique.setdefault(token, len(unique))
    model = WordPiece(list(unique), unk_token, m.prefix, max_chars)
    tok = Tokenizer(model, BertNormalizer(False, False, False, False), BertPreTokenizer(), None)
    uses = [0] * len(unique)
    for enc, n in zip(tok.encode_batch(words, add_special_tokens=False), counts):
        for i in enc.ids:
            uses[i] += n
    return {t for t, i in unique.items() if uses[i]}


def train_wordpiece(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    normalizer: BertNormalizer = BertNormalizer(),
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
    unk_token: str = "[UNK]",
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: int = 100,
    min_frequency: int = 1,
    floor_decay: float = 0.9,
    drop_unused: bool = True,
    progress: bool | None = None,
) -> Tokenizer:
    """Train a WordPiece `Tokenizer` of up to `vocab_size` tokens on `texts` (strings, or an
    iterable such as trainers.read_text_files(...)). Special tokens get the first ids and are
    matched in text as HF does; with [CLS] and [SEP] among them, BERT's template is set.
    min_frequency, floor_decay and drop_unused as the module describes."""
    vocab_size, min_frequency = _check_vocab_options(
        vocab_size, min_frequency, special_tokens, continuing_subword_prefix
    )
    if unk_token not in special_tokens:
        raise ValueError(f"unk_token {unk_token!r} must be one of the special tokens {list(special_tokens)!r}")
    # Checked before training: the native word limit is a uint32 (its largest value meaning none).
    max_input_chars_per_word = _check_int(
        max_input_chars_per_word, "max_input_chars_per_word", 0, UINT32_MAX - 1, none="no limit"
    )
    floor_decay = _check_floor_decay(floor_decay)
    drop_unused = _check_bool(drop_unused, "drop_unused")
    if len(set(special_tokens)) != len(special_tokens):
        raise ValueError(f"special tokens repeat: {list(special_tokens)!r}")
    max_chars = max_input_chars_per_word or None
    counts = _count_words([texts] if isinstance(texts, str) else texts, normalizer, progress)
    if not len(counts):
        raise ValueError("the training corpus is empty: no words to learn from")
    m = _Merges(counts, special_tokens, continuing_subword_prefix, max_chars, floor_decay)
    room = vocab_size - m.first
    # Pairs seen once only fill room that pairs seen twice or more leave.
    first_min = max(min_frequency, 2)
    kept: list[str] = []
    with Progress("merges", total=max(room, 0), enabled=progress) as shown:
        if room > 0:
            m.grow(room, first_min, shown)
        kept = m.merged()
        if drop_unused and room > 0:
            words, word_counts = [], []
            for word, n in counts.items():
                text = word.decode("utf-8")
                if max_chars is None or len(text) <= max_chars:
                    words.append(text)
                    word_counts.append(n)
            for rounds in range(_REFILL_ROUNDS + 1):
                used = _used(m, words, word_counts, unk_token, max_input_chars_per_word)
                kept = [t for t in m.merged() if t in used]
                free = room - len(kept)
                shown.update(len(kept), f"round {rounds + 1}: {len(m.merges):,} merges")
                if free <= 0 or m.ran_out or rounds == _REFILL_ROUNDS:
                    break
                m.grow(free, first_min)
            if len(kept) < room:  # the pairs ran out: room for tokens encoding the training words skips
                everything = m.merged()
                if len(everything) <= room:
                    kept = everything
                else:  # the earliest merged first
                    have = set(kept)
                    chosen = have | set([t for t in everything if t not in have][: room - len(kept)])
                    kept = [t for t in everything if t in chosen]
        if len(kept) < room and m.ran_out and min_frequency < first_min:
            m.grow(room - len(kept), min_frequency, shown, len(kept))
            have = set(kept)
            kept += [t for t in m.merged() if t not in have][: room - len(kept)]
    tokens = m.tokens[: m.first][:vocab_size] + kept
    if len(tokens) < vocab_size:
        _ran_out_warning(len(kept), max(room, 0), len(tokens), min_frequency)
    unique: dict[str, int] = {}
    for token in tokens:
        unique.setdefault(token, len(unique))
    model = WordPiece(list(unique), unk_token, continuing_subword_prefix, max_input_chars_per_word)
    post = None
    if "[CLS]" in unique and "[SEP]" in unique:
        post = TemplateProcessing.bert(unique["[CLS]"], unique["[SEP]"])
    added = [AddedToken(t, unique[t]) for t in special_tokens]
    return Tokenizer(model, normalizer, BertPreTokenizer(), post, WordPieceDecoder(continuing_subword_prefix), added)
