"""tokenforge's native core: pre-tokenizers and the BPE merge."""

from collections.abc import Sequence
from typing import Annotated, overload

import numpy
from numpy.typing import NDArray


UNICODE_VERSION: str = '16.0.0'

MAX_TYPE_ID: int = 65535

class SpecialMatcher:
    def __init__(self, tokens: object) -> None:
        """
        tokens: [(utf-8 bytes, id), ...] or [(utf-8 bytes, id, flags), ...]; flags: single_word 1, lstrip 2, rstrip 4, normalized 8 (the bytes are the normalized content), skip 16 (found but left as text), python spaces 32 (lstrip and rstrip take str.isspace's whitespace), llama 64 (the set is partitioned as llama.cpp's: longest token first, lstrip and rstrip taking C isspace's whitespace)
        """

    def find(self, arg: str, /) -> bytes | None:
        """The first special-token text found in `text` (as UTF-8 bytes), or None."""

    def split(self, text: object) -> list:
        """Split `text` around special tokens: [str, id, str, ..., str]."""

class Encoder:
    def __init__(self, tokens: object, specials: object, pattern: int) -> None:
        """
        tokens: bytes indexed by rank (b'' for unused); specials: [(bytes, id)]; pattern: native scanner id or -1
        """

    @staticmethod
    def from_tiktoken(data: bytes, rank_limit: int, specials: object, pattern: int) -> Encoder:
        """
        Build straight from a .tiktoken file's bytes (no Python objects per token).
        """

    def encode(self, text: str, allowed: SpecialMatcher | None) -> list[int]: ...

    def encode_batch(self, texts: Sequence[str], allowed: SpecialMatcher | None, threads: int) -> list[list[int]]: ...

    def encode_to_numpy(self, text: object, allowed: SpecialMatcher | None) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,))]: ...

    def encode_batch_padded(self, texts: object, allowed: SpecialMatcher | None, threads: int, max_length: int, pad_id: int, pad_left: bool) -> tuple:
        """
        (ids[n, width] uint32, mask[n, width] uint8, lengths[n] uint32): each text's ids (its first max_length; 0: all) padded with pad_id to the longest row, on the left if pad_left.
        """

    def encode_with_offsets(self, text: str, allowed: SpecialMatcher | None) -> tuple[bytes, bytes, bytes]: ...

    def encode_pieces(self, pieces: Sequence[str]) -> list[int]: ...

    def encode_byte_piece(self, piece: bytes) -> object:
        """
        The merges of one piece of raw bytes (any bytes, not split by the pattern): tiktoken's byte_pair_encode.
        """

    def decode_bytes(self, ids: object) -> bytes: ...

    def token_bytes(self, id: int) -> bytes | None: ...

    def find(self, token: bytes) -> int | None: ...

    def ordinary_tokens(self) -> list[bytes]: ...

    @property
    def rank_count(self) -> int:
        """one more than the largest ordinary rank"""

    @property
    def token_count(self) -> int:
        """number of ordinary tokens"""

    @property
    def has_scanner(self) -> bool: ...

def char_classes(first: int, last: int) -> bytes:
    """
    Class flags (1 letter, 2 number, 4 space, 8 o200k-upper, 16 o200k-lower) of code points first..last, for testing the generated tables.
    """

class ChunkCounts:
    """The chunk table of a training corpus: {chunk bytes: count}."""

    def __init__(self) -> None: ...

    def add_texts(self, texts: object, pattern: int, threads: int) -> None:
        """
        Counts the pieces the built-in scanner `pattern` cuts each text into, on threads.
        """

    def add(self, chunk: bytes, count: int = 1) -> None: ...

    def __len__(self) -> int: ...

    def memory(self) -> int:
        """Estimated heap bytes the table takes."""

    def items(self) -> list[tuple[bytes, int]]:
        """[(chunk bytes, count), ...] in no particular order."""

    def memory_by_count(self) -> dict[int, tuple[int, int]]:
        """{count: (chunks seen exactly that many times, table bytes they take)}."""

    def spill(self, paths: Sequence[str]) -> None:
        """Appends the table to partition files split by hash, then empties it."""

    def read_spilled(self, path: str, min_count: int = 1) -> None:
        """
        Adds a spill file's chunks seen at least min_count times (in that file) to the table.
        """

class BpeTrainer:
    def __init__(self, chunks: ChunkCounts, base: Encoder | None = None, first_id: int = 256) -> None:
        """
        A trainer over `chunks`; with `base` (an Encoder), training continues from its vocabulary and new ids start at `first_id`.
        """

    def train(self, merges: int, min_frequency: int, max_length: int = 0) -> list[tuple[int, int]]:
        """
        Up to `merges` more merges, none making a token over max_length bytes (0: any); [(left id, right id), ...], merge k of the training making id first_id + k.
        """

class WordPieceTrainer:
    @staticmethod
    def from_words(words: ChunkCounts, prefix: str, first_id: int, max_chars: int = 0, floor_decay: float = 0.0) -> tuple[WordPieceTrainer, list[str]]:
        """
        (trainer, alphabet): the alphabet (word-initial characters, then later ones with the prefix) gets ids from first_id; words over max_chars characters (0: any) are left out. floor_decay in [0, 1] (0: the score alone): only pairs occurring at least `floor` times compete, the floor starting at the highest pair count and falling by that factor when none is left (ValueError outside [0, 1]).
        """

    def train(self, merges: int, min_frequency: int = 1) -> list[tuple[int, int]]:
        """
        Up to `merges` more merges: [(left id, right id), ...], each making the next id.
        """

def spm_model_records(data: bytes) -> tuple:
    """
    The pieces of a sentencepiece ModelProto's bytes as (texts, scores, types, others, error): its other top-level fields as (number, wire type, value: int or bytes) in file order, and the first problem in the wire format or a piece as (where, message), or None (then the lists stop there).
    """

class SpmNormalizer:
    """sentencepiece's normalizer from a model's normalizer spec."""

    def __init__(self, precompiled_charsmap: bytes, add_dummy_prefix: bool, remove_extra_whitespaces: bool, escape_whitespaces: bool, treat_whitespace_as_suffix: bool, user_defined_symbols: Sequence[str] = []) -> None:
        """
        user_defined_symbols pass through unchanged, as sentencepiece's prefix matcher does.
        """

    def normalize(self, text: object) -> str: ...

    def normalize_with_offsets(self, text: str) -> tuple[str, list[int]]:
        """
        (normalized, offsets): for each normalized character, and for the end, the input character it came from, as sentencepiece's normalize(text, with_offsets=True).
        """

class UnigramTrainer:
    """sentencepiece's Unigram trainer; trainers/sentencepiece.py drives it."""

    def __init__(self, precompiled_charsmap: bytes, add_dummy_prefix: bool, remove_extra_whitespaces: bool, meta_pieces: Sequence[str], user_defined_symbols: Sequence[str], max_piece_length: int, split_by_whitespace: bool, split_by_unicode_script: bool, split_by_number: bool, split_digits: bool, allow_whitespace_only_pieces: bool, character_coverage: float, threads: int, **options) -> None:
        """Unigram takes seed_size= and shrinking_factor= as well."""

    def add_sentences(self, lines: list) -> None:
        """Normalizes and keeps raw training sentences."""

    @property
    def sentence_count(self) -> int: ...

    def make_seeds(self, meta_count: int, vocab_size: int) -> int:
        """Chooses the alphabet and seed pieces; returns the alphabet size."""

    def em_iteration(self) -> tuple[float, int]:
        """One EM iteration; returns (objective, pieces left)."""

    @property
    def size(self) -> int: ...

    def prune(self, desired: int) -> int: ...

    def finalize(self, size: int) -> list[tuple[str, float]]:
        """The final [(piece, score)], best first."""

class SpmBpeTrainer:
    """sentencepiece's BPE trainer; trainers/sentencepiece.py drives it."""

    def __init__(self, precompiled_charsmap: bytes, add_dummy_prefix: bool, remove_extra_whitespaces: bool, meta_pieces: Sequence[str], user_defined_symbols: Sequence[str], max_piece_length: int, split_by_whitespace: bool, split_by_unicode_script: bool, split_by_number: bool, split_digits: bool, allow_whitespace_only_pieces: bool, character_coverage: float, threads: int, **options) -> None:
        """Unigram takes seed_size= and shrinking_factor= as well."""

    def add_sentences(self, lines: list) -> None:
        """Normalizes and keeps raw training sentences."""

    @property
    def sentence_count(self) -> int: ...

    def prepare(self, meta_count: int, vocab_size: int) -> int:
        """Chooses the alphabet and indexes the pairs; returns its size."""

    def train(self, wanted: int) -> int:
        """Learns up to `wanted` more pieces; returns how many."""

    @property
    def learned(self) -> int: ...

    def finalize(self) -> list[tuple[str, float]]:
        """
        The final [(piece, score)]: learned pieces in order, then the characters.
        """

class SpmBpe:
    """sentencepiece's BPE model over normalized text."""

    def __init__(self, pieces: Sequence[str], scores: Sequence[float], types: Sequence[int], byte_fallback: bool) -> None: ...

    def sample_encode(self, normalized: str, alpha: float, seed: int | None) -> list[int]:
        """BPE-dropout: each merge skipped with probability alpha."""

class SpmUnigram:
    """sentencepiece's Unigram model (Viterbi) over normalized text."""

    def __init__(self, pieces: Sequence[str], scores: Sequence[float], types: Sequence[int], byte_fallback: bool) -> None: ...

    def encode_nbest(self, normalized: str, nbest_size: int) -> list[list[int]]:
        """The nbest_size best segmentations, best first."""

    def sample_encode(self, normalized: str, alpha: float, nbest_size: int, seed: int | None) -> list[int]:
        """
        A segmentation drawn with probability proportional to exp(alpha * score), among the nbest_size best (all if negative).
        """

class SpmEncoder:
    """A sentencepiece model behind its normalizer: sentencepiece's encode."""

    @overload
    def __init__(self, normalizer: SpmNormalizer, model: SpmBpe) -> None: ...

    @overload
    def __init__(self, normalizer: SpmNormalizer, model: SpmUnigram) -> None: ...

    def encode(self, text: str) -> list[int]: ...

    def encode_batch(self, texts: Sequence[str], threads: int) -> list[list[int]]: ...

class TextRules:
    """
    How text becomes words: BERT's normalizer and pre-tokenizer, or llama.cpp WPM's.
    """

    def __init__(self, clean_text: bool, cjk_spaces: bool, strip_accents: bool, lowercase: bool, wpm: bool = False) -> None: ...

class Encoded:
    """
    One text (or pair) encoded: ids, tokens, offsets (code-point spans of the input; (0, 0) for special tokens the template adds), type ids, attention mask, special-tokens mask, and the overflowing parts that truncation cut off.
    """

    def __len__(self) -> int: ...

    @property
    def ids(self) -> list[int]: ...

    @property
    def type_ids(self) -> list[int]: ...

    @property
    def special_tokens_mask(self) -> list[int]: ...

    @property
    def attention_mask(self) -> list[int]: ...

    @property
    def offsets(self) -> list[tuple[int, int]]: ...

    @property
    def tokens(self) -> list[str]: ...

    @property
    def overflowing(self) -> list[Encoded]: ...

    @property
    def word_ids(self) -> list:
        """
        Each token's word: the index of the pre-tokenized piece it came from in its text (an added token in the text is a word of its own); None for the special tokens the template adds and padding.
        """

    @property
    def words(self) -> list:
        """word_ids (deprecated, as HF's)."""

    @property
    def sequence_ids(self) -> list:
        """
        Each token's text: 0 (the first), 1 (the pair), None for template special tokens and padding.
        """

    @property
    def n_sequences(self) -> int:
        """How many texts were encoded."""

    def word_to_tokens(self, word_index: object, sequence_index: object = 0) -> object:
        """(first token, last token + 1) of the word in the given text, or None."""

    def word_to_chars(self, word_index: object, sequence_index: object = 0) -> object:
        """The word's span of input code points in the given text, or None."""

    def token_to_sequence(self, token_index: object) -> object:
        """The text the token is of (0 or 1), or None."""

    def token_to_chars(self, token_index: object) -> object:
        """
        The token's span of input code points, or None (template specials, padding).
        """

    def token_to_word(self, token_index: object) -> object:
        """The token's word in its text, or None."""

    def char_to_token(self, char_pos: object, sequence_index: object = 0) -> object:
        """
        The token holding the input code point char_pos of the given text, or None.
        """

    def char_to_word(self, char_pos: object, sequence_index: object = 0) -> object:
        """
        The word holding the input code point char_pos of the given text, or None.
        """

    def __repr__(self) -> str: ...

class WordPiece:
    def __init__(self, tokens: Sequence[str], unk_id: int, continuation_prefix: str, word_prefix: str, max_chars: int, rules: TextRules, names: Sequence[str]) -> None:
        """
        tokens: str by id; names: the text shown for each id (added tokens included). Each call takes `added`, a SpecialMatcher of the added tokens to match in the raw text (None: none).
        """

    def count_words(self, texts: object, counts: ChunkCounts, threads: int) -> None:
        """Adds the words of texts to a ChunkCounts table (on threads)."""

    def words(self, text: object, added: SpecialMatcher | None) -> list[tuple[str, tuple[int, int]]]:
        """
        [(word, (start, end))]: the normalized words of text, spans in input code points.
        """

    def set_decoder(self, wpm: bool, prefix: str, cleanup: bool, special_ids: Sequence[int]) -> None:
        """
        The decoder: HF's WordPiece (prefix, cleanup) or llama.cpp's WPM; special_ids: what skip_special_tokens drops.
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """The text of ids, as the decoder set reads them."""

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in the text become their ids when in allowed_special (default all, as HF matches them), raise when in disallowed_special, and are plain text otherwise.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

class ByteLevelBpe:
    """
    A byte-level BPE Encoder as a Tokenizer pipeline: offsets, pairs, template, truncation and padding around the Encoder's own ids.
    """

    def __init__(self, encoder: Encoder, plain_text: bool = False) -> None:
        """
        encoder: the Encoding's native Encoder (needs a built-in split pattern); plain_text: the default policy (allowed_special=(), disallowed_special=()) reads special-token text as plain text without a call back into Python (tekken's default; encode's own defaults stay tiktoken's).
        """

    def token_names(self) -> list[str]:
        """
        Each id's token as HF shows byte-level BPE tokens (GPT-2's alphabet, 'Ġhello'); special tokens as their text, '' for ids without a token.
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """
        The text of ids (bytes joined, U+FFFD where not UTF-8); special tokens dropped unless skip_special_tokens=False.
        """

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = (), disallowed_special: object = 'all') -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token text raises unless in allowed_special (as tiktoken's encode), or is plain text with disallowed_special=().
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = (), disallowed_special: object = 'all', is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

class SpmTokenizer:
    """
    A sentencepiece model and normalizer as a Tokenizer pipeline, with sentencepiece's decoder.
    """

    @overload
    def __init__(self, normalizer: SpmNormalizer, model: SpmBpe, unk_surface: str, add_dummy_prefix: bool, remove_extra_whitespaces: bool, names: Sequence[str] = [], ids: Sequence[int] = [], vocabulary: dict = {}, unknown: int = 0, leading_code: bool = False, decode_ids: Sequence[int] = [], raw: Sequence[str] = [], pre_normalizer: object | None = None) -> None: ...

    @overload
    def __init__(self, normalizer: SpmNormalizer, model: SpmUnigram, unk_surface: str, add_dummy_prefix: bool, remove_extra_whitespaces: bool, names: Sequence[str] = [], ids: Sequence[int] = [], vocabulary: dict = {}, unknown: int = 0, leading_code: bool = False, decode_ids: Sequence[int] = [], raw: Sequence[str] = [], pre_normalizer: object | None = None) -> None:
        """
        unk_surface, add_dummy_prefix, remove_extra_whitespaces: the model's, for decoding. A vocabulary of the class's own (MarianTokenizer's vocab.json): names (its tokens by id), ids (by piece, the id given), vocabulary (text -> id: a run of unknown characters and a language code by their text, `unknown` for a text it lacks), leading_code (a text's leading >>xx<< one token), decode_ids (by id, the piece decoded: past the model's, raw[id - pieces] written as it is). pre_normalizer: [(type, options), ...] of HF normalizers that rewrite each text before the model's normalizer (GPTSw3Tokenizer's preprocess_text); offsets map back through them.
        """

    def decode(self, ids: object, skip_control: bool = True) -> str:
        """
        sentencepiece's decode; skip_control=False shows control pieces (<s>) as their text.
        """

    def set_segments(self, specials: Sequence[tuple[int, str]], after: str, before: str = '') -> None:
        """
        The special tokens (id, text) decode_segments splits at, what it writes after each and what before the text before each (where the id before is not a special one); set once, before any decode.
        """

    def decode_segments(self, ids: object, skip_special: bool) -> str:
        """
        M2M100's, Marian's and GPT-SW3's convert_tokens_to_string: the ids between special tokens decoded on their own, each special token's text and set_segments' `before` and `after` (none with skip_special).
        """

    def class_tokens(self, text: object, added: SpecialMatcher | None) -> list[str]:
        """
        The tokens a Python class over sentencepiece gives for a text where it keeps a vocabulary of its own (its tokenize): sentencepiece's pieces by their text, also where the vocabulary lacks one (an unknown run by its normalized text), a leading language code by its text, each added token `added` matches by its name.
        """

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = None, disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Special-token text (<s>) is plain text unless in allowed_special (None: the pipeline's default, () or, with a vocabulary of its own, "all" added tokens), and raises when in disallowed_special.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = None, disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

class RunJoin:
    """
    CTC's decode at C speed (tokenizer.py's _ctc_decode): each id's key (ids of one token share it), each key's bytes; join(ids) gives the bytes of the runs of one key, once each, keys `none` left out, keys `blank` (CTC's pad) ending a run and showing nothing.
    """

    def __init__(self, texts: list, keys: Sequence[int], far: int, none: int, blank: int) -> None: ...

    def join(self, ids: object) -> bytes:
        """The bytes of the runs of `ids`' keys, joined."""

class IdBytes:
    """
    Each token id's bytes (a list of bytes objects, by id), joined for a sequence of ids: the decode of a tokenizer whose tokens are bytes (ByT5's, tokenizer.py's _bytes_decode).
    """

    def __init__(self, pieces: list) -> None: ...

    def join(self, ids: object) -> bytes:
        """The bytes of `ids`, joined."""

def parse_tiktoken(data: bytes, rank_limit: int = 2**64 - 1) -> list[bytes]:
    """Parse a .tiktoken file's bytes into a list of token bytes indexed by rank."""

class Staged:
    """
    The general staged pipeline: any HF tokenizer.json pipeline (normalizer, pre-tokenizer, model, decoder), stage by stage, as HF tokenizers runs it.
    """

    def __init__(self, normalizer: object, pre_tokenizer: object, model_type: str, model_options: object, vocab: Sequence[tuple[str, int]], decoder: object, names: Sequence[str], special_ids: Sequence[int], trim_offsets: bool = False, trim_add_prefix_space: bool = False) -> None:
        """
        trim_offsets, trim_add_prefix_space: the ByteLevel post-processor's (spaces come off each token's offsets). Each stage: [(type, options)] as tokenizer.json spells them (several make a Sequence; [] for none); model_options without the vocabulary, vocab: [(token, id)]; names: the text shown for each id (added tokens included); special_ids: what skip_special_tokens drops.
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """
        The decoder's text for ids (HF's decode: ids without a token are skipped).
        """

    def pre_tokenize(self, text: object, added: SpecialMatcher | None = None) -> list[tuple[str, tuple[int, int]]]:
        """
        [(piece, (start, end))]: the pieces the model would see, spans in input code points (HF's pre_tokenize_str after the normalizer).
        """

    def normalize(self, text: object) -> str:
        """The normalizer's text (HF's normalize_str)."""

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in the text become their ids when in allowed_special (default all, as HF matches them), raise when in disallowed_special, and are plain text otherwise.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

def unicode_normalize(form: str, text: str) -> str:
    """
    `text` in Unicode normalization form `form` ("NFC", "NFD", "NFKC" or "NFKD"), as HF tokenizers' normalizers give it (Unicode 9.0.0).
    """

def unicode_normalize_changes(form: str, text: str) -> list[tuple[str, int]]:
    """
    The (character, change) pairs of `text` in form `form`, as unicode-normalization-alignments yields them for HF's NormalizedString: change 0 replaces one input character, +1 is inserted, -n replaces one and removes the n after it (a test hook).
    """

class BpeModel:
    """
    HF tokenizers' BPE model (tokenizer.json's "type": "BPE"): merges by rank over the characters of each piece.
    """

    def __init__(self, vocab: dict[str, int], merges: Sequence[tuple[str, str]], unk_token: str | None, continuing_subword_prefix: str | None, end_of_word_suffix: str | None, fuse_unk: bool, byte_fallback: bool, ignore_merges: bool, dropout: float | None) -> None:
        """
        Raises ValueError for a merge naming a token that is not in the vocabulary, or whose merged token is not.
        """

    def tokenize(self, piece: str, seed: int | None = None) -> list[tuple[int, int, int]]:
        """
        The tokens of one piece as (id, start, end), offsets in code points of the piece. With dropout, seed= makes the draws repeatable.
        """

    def tokenize_batch(self, pieces: Sequence[str], threads: int) -> list[list[tuple[int, int, int]]]:
        """tokenize for each piece, on up to `threads` threads."""

    def token_to_id(self, token: str) -> int | None:
        """The id of a token string, or None."""

    @property
    def vocab_size(self) -> int: ...

    @property
    def merge_count(self) -> int: ...

class Regex:
    """
    A regex as HF tokenizers runs it (Oniguruma, its syntax and Unicode tables): the general path for Split and Replace patterns. A pattern Oniguruma rejects raises ValueError.
    """

    def __init__(self, pattern: str) -> None: ...

    @property
    def pattern(self) -> str: ...

    def find_matches(self, text: str) -> list[tuple[int, int, bool]]:
        """
        The spans (start, end, is_match) of `text` in code points, in order and covering it, as HF's Pattern::find_matches gives them (an empty text gives [(0, 0, False)]). A search past Oniguruma's retry limits raises RuntimeError.
        """

    def find_iter(self, text: str) -> list[tuple[int, int, bool]]:
        """
        The matches alone, as find_matches finds them: the spans HF's Replace normalizer rewrites.
        """

class ByteLevelHfBpe:
    """
    A byte-level BPE tokenizer.json (GPT-2, Llama 3, Qwen2 shapes) in one fused pass, exact to HF tokenizers and to the staged pipeline.
    """

    def __init__(self, normalizer: object, pre_tokenizer: object, model_type: str, model_options: object, vocab: Sequence[tuple[str, int]], decoder: object, names: Sequence[str], special_ids: Sequence[int], split: int, pattern: str, add_prefix_space: bool, prefix_each_piece: bool, nfc: bool, pre_splits: Sequence[int] = [], hidden: Sequence[tuple[int, str]] = [], trim_offsets: bool = False, trim_add_prefix_space: bool = False, clip: bool = False) -> None:
        """
        The staged pipeline's description (as _core.Staged takes it; its stages run texts the fused pass does not: NFC texts that fail the quick check) and the fused pass's split: split, a built-in scanner (0 GPT-2, 1 cl100k, 2 o200k, 3 Llama 3, 4 Qwen2, 5 tekken, 6 and 7 CLIP's with clip), -1 for `pattern` through Oniguruma or -2 for none (the pre-splits' pieces are the pieces); add_prefix_space before each stretch, or before each piece with prefix_each_piece; nfc: the NFC normalizer; pre_splits: built-in stages run first, in order (pre_tokenizers/split_sequence.h's PreSplit ids: 1 \\p{N}{1,3}, 2 DeepSeek V3's CJK and kana runs, 3 its main pattern, 4..11 DeepSeek LLM's and Coder's stages, 12 BLOOM's Split, 13..16 Falcon's); hidden: (id, the model's token) where an added token took a vocabulary token's id (the model's tokens show the model's text; the file must not have nfc); trim_offsets, trim_add_prefix_space: the ByteLevel or RobertaProcessing post-processor's (spaces come off each token's offsets, but the one add_prefix_space put first); clip: CLIP's files (NFC, whitespace Replace and Lowercase, its Split, the end_of_word_suffix; split 6, or 7 with the special tokens first in the Split).
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """
        The decoder's text for ids (HF's decode: ids without a token are skipped).
        """

    def pre_tokenize(self, text: object, added: SpecialMatcher | None = None) -> list[tuple[str, tuple[int, int]]]:
        """
        [(piece, (start, end))]: the pieces the model would see, spans in input code points (HF's pre_tokenize_str after the normalizer).
        """

    def normalize(self, text: object) -> str:
        """The normalizer's text (HF's normalize_str)."""

    def pieces(self, text: object) -> list[tuple[bytes, int]]:
        """
        [(piece bytes, first input byte)]: the pieces of a text without added tokens as the model sees them, the prefix space included (a test hook).
        """

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in the text become their ids when in allowed_special (default all, as HF matches them), raise when in disallowed_special, and are plain text otherwise.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

def grapheme_clusters(text: str) -> list[str]:
    """
    The extended grapheme clusters of `text`, as the Rust crate unicode-segmentation (HF tokenizers' Precompiled normalizer) cuts them (Unicode 17.0.0; a test hook).
    """

class SpmHfBpe:
    """
    A sentencepiece-style BPE tokenizer.json (Llama 2, Mistral, Gemma shapes) in one fused pass, exact to HF tokenizers and to the staged pipeline.
    """

    def __init__(self, normalizer: object, pre_tokenizer: object, model_type: str, model_options: object, vocab: Sequence[tuple[str, int]], decoder: object, names: Sequence[str], special_ids: Sequence[int], prepend: int, split: bool, hidden: Sequence[tuple[int, str]] = []) -> None:
        """
        The staged pipeline's description (as _core.Staged takes it: the model and decoder run here, the stages answer the hooks) and the fused pass's text rules: prepend, where the "▁" prefix goes (0 never, 1 Metaspace first, 2 Metaspace always, 3 the Prepend normalizer); split, Metaspace's split; hidden: (id, the model's token) where an added token took a vocabulary token's id (the model's tokens show the model's text).
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """
        The decoder's text for ids (HF's decode: ids without a token are skipped).
        """

    def pre_tokenize(self, text: object, added: SpecialMatcher | None = None) -> list[tuple[str, tuple[int, int]]]:
        """
        [(piece, (start, end))]: the pieces the model would see, spans in input code points (HF's pre_tokenize_str after the normalizer).
        """

    def normalize(self, text: object) -> str:
        """The normalizer's text (HF's normalize_str)."""

    def segments(self, text: object) -> list[tuple[bytes, int]]:
        """
        [(segment bytes, first model byte)]: the segments the fused pass merges apart for a text without added tokens, in the model's text (spaces as "▁", the prefix included; a test hook).
        """

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in the text become their ids when in allowed_special (default all, as HF matches them), raise when in disallowed_special, and are plain text otherwise.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

class UnigramHf:
    """
    A Unigram tokenizer.json (T5, ALBERT, XLNet shapes) in one fused pass, exact to HF tokenizers and to the staged pipeline.
    """

    def __init__(self, normalizer: object, pre_tokenizer: object, model_type: str, model_options: object, vocab: Sequence[tuple[str, int]], decoder: object, names: Sequence[str], special_ids: Sequence[int], prepend: int, split: bool, probes: Sequence[tuple[str, str]]) -> None:
        """
        The staged pipeline's description (as _core.Staged takes it: the model, normalizer and decoder run here, the stages answer the hooks), Metaspace's rules: prepend (0 never, 1 first, 2 always) and split; and one probe per normalizer part, (kind, argument): precompiled (base64 map), contains, strip_left, strip_right, space_edge, non_ascii, lowercase.
        """

    def decode(self, ids: object, skip_special_tokens: bool = True) -> str:
        """
        The decoder's text for ids (HF's decode: ids without a token are skipped).
        """

    def pre_tokenize(self, text: object, added: SpecialMatcher | None = None) -> list[tuple[str, tuple[int, int]]]:
        """
        [(piece, (start, end))]: the pieces the model would see, spans in input code points (HF's pre_tokenize_str after the normalizer).
        """

    def normalize(self, text: object) -> str:
        """The normalizer's text (HF's normalize_str)."""

    def untouched(self, text: object) -> bool:
        """
        Whether the probes find that the normalizer at most strips whitespace at the ends of text (it then runs without alignments; a test hook).
        """

    def set_pad_token(self, pad_token: str) -> None: ...

    def set_template(self, single: object, pair: object, default_process: bool = False, parts_typed: bool = False, skip_present_special: bool = False) -> None:
        """
        Pieces [(is_sequence, sequence 0|1, type_id, [special ids][, [the texts they show]])] for one and for two texts; default_process=True where there is no post-processor (sequence ranges as HF's default_process); parts_typed=True where overflowing parts take the template's type ids when special tokens are added (HF's RobertaProcessing, BertProcessing), not their sequence's index; skip_present_special=True where a special token of one id after a sequence is left out when the sequence ends with it (transformers' _add_eos_if_not_present).
        """

    def set_truncation(self, enabled: bool, max_length: int = 0, stride: int = 0, strategy: int = 0, from_left: bool = False) -> None:
        """
        strategy: 0 longest first, 1 only first, 2 only second; 3, 4, 5 the same as transformers' Python classes cut (the first text keeps an odd total's extra token; a text may be cut to nothing).
        """

    def set_padding(self, enabled: bool, length: int = 0, multiple_of: int = 0, pad_id: int = 0, pad_type_id: int = 0, left: bool = False) -> None:
        """length 0: the longest of a batch."""

    def added_tokens(self, pair: bool) -> int: ...

    def set_policy(self, default_added: object | None, resolver: object) -> None: ...

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = ()) -> Encoded:
        """
        Encode a text, or a pair of texts, with truncation, template and padding as set. Added tokens in the text become their ids when in allowed_special (default all, as HF matches them), raise when in disallowed_special, and are plain text otherwise.
        """

    @overload
    def encode(self, sequence: object, pair: object | None = None, add_special_tokens: object = True, *, allowed_special: object | None = 'all', disallowed_special: object = (), is_pretokenized: object) -> Encoded:
        """
        encode with is_pretokenized: True reads `sequence` (and `pair`) as lists (or tuples) of words, each encoded on its own (HF tokenizers' is_pretokenized).
        """

    def encode_batch(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, *, is_pretokenized: bool = False) -> list[Encoded]:
        """is_pretokenized: texts (and pairs) are lists of words."""

    def encode_batch_with(self, texts: object, pairs: object | None, add_special_tokens: bool, added: SpecialMatcher | None, threads: int, truncation: object | None, padding: object | None, pad_token: str, *, is_pretokenized: bool = False) -> list[Encoded]:
        """
        encode_batch with truncation (max_length, stride, strategy, from_left) or None and padding (length, multiple_of, pad_id, pad_type_id, left) or None for this call only, the padding token shown as pad_token; is_pretokenized: texts (and pairs) are lists of words.
        """

def gguf_strings(data: object, pos: int, count: int, big_endian: bool, keep: bool = True) -> tuple:
    """
    The `count` strings (64-bit length, then UTF-8 bytes) of a GGUF array starting at byte `pos` of `data`, and the byte after them; ValueError saying which string where one runs past the end or is not UTF-8. keep=False: only the end.
    """

def gguf_check_merges(tokens: object, n_tokens: int, merges: object, n_merges: int, big_endian: bool) -> tuple:
    """
    (first bad merge or -1, every merge has one space) for the raw bytes of a GGUF file's token and merge arrays: each merge split at its first space after the first byte (llama.cpp's split) must give two tokens whose join is a token.
    """

def gguf_spm_merges(raw: object, tokens: list, big_endian: bool, scores: Sequence[float]) -> list:
    """
    llama.cpp's SPM merges as BPE merges, [[left, right], ...] of `tokens` (the str of the raw token array `raw`): every split of a token into two tokens, by the token's score (highest first), then id, then the cut.
    """

def dump_chunk_counts(counts: ChunkCounts) -> bytes:
    """
    The chunk table as one byte string (add_dumped_chunk_counts reads it back).
    """

def add_dumped_chunk_counts(counts: ChunkCounts, data: bytes) -> None:
    """
    Adds a table made by dump_chunk_counts to `counts` (ValueError for anything else).
    """

def encode_flat(encoder: Encoder, texts: object, separator: int, threads: int = 1) -> tuple:
    """
    Documents encoded by `encoder` (an Encoder) into one uint32 array, each followed by `separator` (-1: none), with each one's token count and UTF-8 size (uint64 arrays); for tokenforge.corpus.
    """

def encode_text_unit(encoder: Encoder, data: bytes, split: str, separator: int, threads: int = 1) -> object:
    """
    The documents of `data` (the UTF-8 bytes of a text file's work unit), cut as `split` says (line, paragraph or document) and encoded as encode_flat encodes them; None when `data` is not strict UTF-8; for tokenforge.corpus.
    """
