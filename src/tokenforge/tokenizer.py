"""`Tokenizer`: the one surface of every tokenforge pipeline, shaped like HF tokenizers'
Tokenizer: one text or a pair encoded to an `Encoded` (ids, tokens, offsets, type ids, masks),
batches on threads, truncation and padding, decoding, vocabulary lookups.

>>> tok = Tokenizer.from_file("tokenizer.json")             # doctest: +SKIP
>>> enc = tok.encode("Hello, world!", "And a pair.")       # doctest: +SKIP
>>> enc.ids, enc.tokens, enc.offsets, enc.type_ids, enc.attention_mask  # doctest: +SKIP

A tokenizer is its description (`spec`: pipeline/spec.py, the components as plain data) compiled
into one native pipeline (pipeline/compile.py picks it: byte-level BPE, WordPiece or
sentencepiece) that runs a whole text per call and batches on threads; `Encoded` converts to
Python lists only what is asked for. `Tokenizer(model, normalizer, ...)` compiles the
components given, `Tokenizer.from_file` whatever a file holds, `get_tokenizer` a named one.
Changing an option (`split_special_tokens`, `add_bos`) compiles the description again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _core
from .added_tokens import AddedExtras, AddedVocabulary, config_added_tokens
from .added_tokens import AddedToken as AddedToken
from .arguments import (
    INT64_MAX,
    MAX_PAD_LENGTH,
    U32_IDS,
    _batch_ids,
    _check_bool,
    _check_choice,
    _check_int,
    _shown,
    _token_id,
    _token_id_overflow,
    _token_ids,
    _u32_overflow,
)
from .decoders.streaming import DecodeStream
from .pipeline.spec import PipelineSpec
from .special import SpecialPolicy, SpecialSet
from .threads import batch_threads, resolve_threads
from .transformers_api import _MISSING, TransformersApi, pretokenized_inputs, words_of

if TYPE_CHECKING:
    from .pipeline.compile import Kernel

_STRATEGIES = {"longest_first": 0, "only_first": 1, "only_second": 2}


if TYPE_CHECKING:
    from typing import TypeAlias  # (3.10+; only the type checker reads this)

    Encoded: TypeAlias = _core.Encoded
else:
    Encoded = _core.Encoded


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cycle collector off while a vocabulary is read and compiled: the hundreds of
    thousands of strings, tuples and dicts made on the way hold no cycles, but would set it off
    again and again (a third of loading Gemma 3's file)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _resolve_policy(
    policy: SpecialPolicy, allowed_special: SpecialSet, disallowed_special: SpecialSet, texts: Sequence[str | None]
) -> _core.SpecialMatcher | None:
    allowed, disallowed = policy.resolve(allowed_special, disallowed_special)
    for text in texts:
        if isinstance(text, str):
            policy.check(text, disallowed)
    return allowed


class Tokenizer(TransformersApi):
    _spec: PipelineSpec  # the description, without truncation and padding (kept below)
    _kernel: Kernel  # the compiled pipeline
    _native: Any  # _kernel.native
    _decode_ids: Any  # ids to text: _native.decode, or the option special_segments' (_segments_decode)
    _token_of: list[str]  # token text by id ("" where an id has none)

    def __init__(
        self,
        model: Any,
        normalizer: Any = None,
        pre_tokenizer: Any = None,
        post_processor: Any = None,
        decoder: Any = None,
        added_tokens: Sequence[AddedToken] = (),
        **options: Any,
    ) -> None:
        """A tokenizer of these components: a WordPiece model behind BERT's (or llama.cpp WPM's)
        normalizer and pre-tokenizer; a byte-level BPE `Encoding` with an optional
        post_processor; a `SentencePieceModel` (options add_bos, add_eos). Options:
        split_special_tokens (WordPiece: special-token text is plain text)."""
        self._load(
            PipelineSpec(model, normalizer, pre_tokenizer, post_processor, decoder, tuple(added_tokens), options)
        )

    @classmethod
    def from_spec(cls, spec: PipelineSpec, source: str | None = None) -> Tokenizer:
        """The tokenizer `spec` describes, with its truncation and padding set. `source`: the
        file the description came from, named in errors (a FormatError)."""
        tok = cls.__new__(cls)
        tok._load(spec, source)
        return tok

    def _load(self, spec: PipelineSpec, source: str | None = None) -> None:
        from .errors import FormatError
        from .pipeline.compile import build_kernel

        try:
            with _gc_paused():
                kernel = build_kernel(spec)
        except FormatError:
            raise
        except ValueError as e:  # a check of the pipeline's own: the file holds what cannot run
            if source is None:
                raise
            raise FormatError(source, "", str(e)) from None
        d = self.__dict__
        d["_spec"] = dataclasses.replace(spec, options=kernel.options, truncation=None, padding=None)
        d["_kernel"] = kernel
        if kernel.token_of is not None:
            d["_token_of"] = kernel.token_of
        d.pop("_vocab", None)  # made on first use (__getattr__)
        d.pop("_targets", None)  # (text_target's tokenizer, made again from this one on use)
        d["truncation"] = d["padding"] = None
        self._native = kernel.native
        # decode's ids to text: the native decode, or the option special_segments' (no check per call)
        style = kernel.options.get("special_segments")
        if style is None:
            d["_decode_ids"] = kernel.native.decode
        elif style == "wav2vec2":
            d["_decode_ids"] = _ctc_decode(kernel.token_of or [], spec)
        elif style == "byt5":
            d["_decode_ids"] = _bytes_decode(kernel.token_of or [], spec)
        elif style == "fastbpe":
            d["_decode_ids"] = _fast_bpe_decode(kernel.token_of or [], spec)
        else:
            d["_decode_ids"] = _segments_decode(kernel.native, spec, style)
        # The resolver holds the policy, not the tokenizer: the native object must not point back here.
        kernel.native.set_policy(kernel.default_added, functools.partial(_resolve_policy, kernel.policy))
        self._apply_truncation()
        self._apply_padding()
        # The native method itself, for the shortest call path (same signature and behaviour).
        self.encode = kernel.native.encode  # type: ignore[method-assign]  # an instance's own, by design
        for which, apply in (("truncation", self.enable_truncation), ("padding", self.enable_padding)):
            settings = getattr(spec, which)
            if settings is None:
                continue
            try:
                apply(**settings)
            except (ValueError, TypeError) as e:
                if source is None:
                    raise
                raise FormatError(source, which, str(e)) from None

    def __getattr__(self, name: str) -> Any:
        # Only for attributes not set: the token names, made on first use where the kernel has
        # none ready (a 200k vocabulary's names cost more than loading it), the token -> id map
        # made on first use always (a second of a large file's loading), and the kernel's own
        # attributes (encoding, encoder, bos_id, eos_id, pad_id).
        if name.startswith("__") or "_kernel" not in self.__dict__:
            raise AttributeError(name)
        if name == "_token_of":
            self.__dict__["_token_of"] = list(self._native.token_names())
            return self.__dict__[name]
        if name == "_vocab":
            with _gc_paused():
                self.__dict__["_vocab"] = _vocab_of(self._token_of, self._spec.added_tokens, self._spec.added_extras)
            return self.__dict__[name]
        extras = self._kernel.extras
        if name in extras:
            return extras[name]
        found = self._special_attribute(name)  # a model-specific special token (transformers_api.py)
        if found is not _MISSING:
            return found
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- the description -----------------------------------------------------------------

    @property
    def spec(self) -> PipelineSpec:
        """This tokenizer as plain data (its parts, options and settings), from which it is rebuilt."""
        return dataclasses.replace(self._spec, truncation=self.truncation, padding=self.padding)

    @property
    def kernel(self) -> str:
        """The native pipeline that runs this tokenizer: "byte_level_bpe", "tekken" (Mistral's
        tekken.json on the byte-level kernel), "wordpiece", "sentencepiece", "byte_level_hf_bpe",
        "spm_hf_bpe" (fused kernels) or "staged" (the general one)."""
        return self._kernel.name

    def _part(self, name: str) -> Any:
        return self._kernel.parts.get(name, getattr(self._spec, name))

    @property
    def model(self) -> Any:
        return self._spec.model

    @property
    def normalizer(self) -> Any:
        return self._part("normalizer")

    @property
    def pre_tokenizer(self) -> Any:
        return self._part("pre_tokenizer")

    @property
    def post_processor(self) -> Any:
        return self._part("post_processor")

    @property
    def decoder(self) -> Any:
        return self._part("decoder")

    @property
    def added_tokens(self) -> list[AddedToken]:
        return list(self._spec.added_tokens)

    # The pipeline's parts: fixed once the native pipeline is made from them.
    _PARTS = frozenset(
        {"model", "normalizer", "pre_tokenizer", "post_processor", "decoder", "added_tokens", "encoder", "encoding"}
    )

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Tokenizer._PARTS:
            raise AttributeError(
                f"Tokenizer.{name} is fixed once the tokenizer is built (its native pipeline is made "
                f"from it); build a new tokenizer with the {name} you want"
            )
        super().__setattr__(name, value)

    # -- options: each change compiles the description again ------------------------------

    def _option(self, name: str) -> Any:
        options = self._spec.options
        if name not in options:
            raise AttributeError(f"{name} is not an option of a {self.kernel} tokenizer")
        return options[name]

    def _set_option(self, name: str, value: Any) -> None:
        self._option(name)
        spec = self.spec
        rebuilt = Tokenizer.from_spec(dataclasses.replace(spec, options={**spec.options, name: value}))
        # All or nothing: the new pipeline is whole before it replaces this one, in one update
        # (atomic for other threads, which keep using whatever native pipeline they hold).
        self.__dict__.update(rebuilt.__dict__)
        for stale in self.__dict__.keys() - rebuilt.__dict__.keys():
            del self.__dict__[stale]

    @property
    def split_special_tokens(self) -> bool:
        """True: special-token text in the input is plain text; False: it becomes the special id."""
        return bool(self._option("split_special_tokens"))

    @split_special_tokens.setter
    def split_special_tokens(self, value: bool) -> None:
        self._set_option("split_special_tokens", value)

    @property
    def add_bos(self) -> bool:
        """sentencepiece and tekken models: bos before each text."""
        return bool(self._option("add_bos"))

    @add_bos.setter
    def add_bos(self, value: bool) -> None:
        self._set_option("add_bos", value)

    @property
    def add_eos(self) -> bool:
        """sentencepiece and tekken models: eos after each text."""
        return bool(self._option("add_eos"))

    @add_eos.setter
    def add_eos(self, value: bool) -> None:
        self._set_option("add_eos", value)

    @property
    def special_token_policy(self) -> str:
        """tekken models: what decode does with special ids when skip_special_tokens is true, as
        mistral-common's SpecialTokenPolicy: "ignore" (drop them, the default), "keep" (their
        text) or "raise" (ValueError). skip_special_tokens=False always keeps them."""
        return str(self._option("special_token_policy"))

    @special_token_policy.setter
    def special_token_policy(self, value: Any) -> None:
        from .models.tekken import special_token_policy

        self._set_option("special_token_policy", special_token_policy(value))

    # -- copying and pickling ------------------------------------------------------------

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its description (plain Python objects) and settings: the native pipeline
        # is made again, so a copy (copy.copy, deepcopy, pickle, multiprocessing) never shares
        # settings with the original.
        return (Tokenizer.from_spec, (self.spec,))

    # -- loading and saving --------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, wpm: bool = False, **options: Any) -> Tokenizer:
        """A tokenizer from an HF tokenizer.json (*.json), a BERT vocab.txt (*.txt, with the
        tokenizer_config.json beside it if there is one), a GGUF model file (*.gguf), a
        sentencepiece model (*.model, or any file that is one; options: add_bos, add_eos), Mistral's
        tekken.json (as mistral-common's Tekkenizer: formats/tekken.py), or a byte-level BPE: a .tiktoken file (options: pat_str, special_tokens, as load_tiktoken), a
        .tokenforge file, or GPT-2's encoder.json (vocab.bpe beside it) or their folder.
        wpm=True reads a BERT vocab.txt as llama.cpp's WPM tokenizer does."""
        from .formats import read_tokenizer_file

        _check_bool(wpm, "wpm")
        path = os.fspath(path)
        with _gc_paused():
            return cls.from_spec(read_tokenizer_file(path, wpm=wpm, **options), source=path)

    @classmethod
    def bert_from_vocab_txt(cls, path: str, **overrides: Any) -> Tokenizer:
        """BERT from vocab.txt, configured by the tokenizer_config.json beside it (or `overrides`:
        do_lower_case, strip_accents, tokenize_chinese_chars, unk_token, sep_token, cls_token,
        pad_token, mask_token), as transformers' BertTokenizerFast builds it."""
        from .formats.bert_vocab import read_bert

        return cls.from_spec(read_bert(path, **overrides))

    @classmethod
    def wpm_from_vocab_txt(cls, path: str) -> Tokenizer:
        """llama.cpp's WPM tokenizer over a BERT vocab.txt, converted to its GGUF form."""
        from .formats.bert_vocab import read_wpm

        return cls.from_spec(read_wpm(path))

    @classmethod
    def wpm(
        cls,
        tokens: Sequence[str],
        *,
        converted: bool = True,
        unk_token: str = "[UNK]",
        cls_token: str = "[CLS]",
        sep_token: str = "[SEP]",
    ) -> Tokenizer:
        """llama.cpp's WPM tokenizer over `tokens` in its GGUF form (word-initial pieces start with
        "▁"), or in BERT's form with converted=False. Special-token text is plain text, as
        llama.cpp tokenizes without parse_special."""
        from .pipeline import presets

        return cls.from_spec(
            presets.wpm(tokens, converted=converted, unk_token=unk_token, cls_token=cls_token, sep_token=sep_token)
        )

    @classmethod
    def _marian(cls, folder: str, model_config: Any) -> Tokenizer:
        """transformers' MarianTokenizer (a Python class over the sentencepiece library) from its
        folder: source.spm's sentencepiece pipeline with vocab.json's ids (the unknown id for a
        piece vocab.json lacks), a text's leading ">>xx<<" one token, the config's special tokens
        matched as the class matches them, "$A </s>" (a pair "$A $B </s>"), text_target through
        target.spm, decode as its convert_tokens_to_string (special_segments "marian").
        FormatError naming the file for what it cannot run (formats/slow_files.marian_parts)."""
        from .chat_template import ModelConfig
        from .errors import FormatError
        from .formats.slow_files import marian_parts

        name = "MarianTokenizer"
        config = ModelConfig.from_folder(folder, class_name=name)
        config_path = os.path.join(folder, "tokenizer_config.json")
        try:
            source, target, vocabulary = marian_parts(folder, config.config)
        except ValueError as e:
            raise FormatError(folder, name, str(e)) from None
        unk = config.special_tokens.get("unk_token") or "<unk>"
        if unk not in vocabulary:
            raise FormatError(os.path.join(folder, "vocab.json"), "unk_token", f"{name}: {unk!r} is not in it")
        late = {"text_target_model": target}
        return _python_spm_class(
            cls, name, config, config_path, source, vocabulary, unk, folder, {"leading_code": True}, late=late
        )

    @classmethod
    def _m2m100(cls, folder: str) -> Tokenizer:
        """transformers' M2M100Tokenizer (a Python class over the sentencepiece library) from its
        folder: sentencepiece.bpe.model's pipeline with vocab.json's ids (the unknown id for a
        piece vocab.json lacks, a run of unknown characters by its text), the language codes
        (__en__ ...) at len(vocab.json) + i as tokens no text gives (transformers 5.24 neither
        matches nor skips them as special tokens), the config's special tokens matched as the
        class matches them, "__src_lang__ $A </s>" (a pair: $A $B inside), text_target with
        tgt_lang's code, decode as its convert_tokens_to_string (special_segments "m2m100").
        FormatError naming the file for what it cannot run."""
        from .chat_template import ModelConfig
        from .errors import FormatError
        from .formats.sentencepiece_model import SentencePieceModel
        from .formats.slow_files import m2m100_vocabulary

        name = "M2M100Tokenizer"
        config = ModelConfig.from_folder(folder, class_name=name)
        config_path = os.path.join(folder, "tokenizer_config.json")
        file = os.path.join(folder, "sentencepiece.bpe.model")
        unk = config.special_tokens.get("unk_token") or "<unk>"
        try:
            vocabulary = m2m100_vocabulary(folder, config.config, unk)
            model = SentencePieceModel.read(file)
        except (OSError, ValueError) as e:
            raise FormatError(file, name, str(e)) from None
        # the named tokens vocab.json holds, added as the class adds them (so that, most often,
        # the template's rebuild is the only one after the first)
        flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
        named = {config.special_tokens.get(k) for k in ("bos_token", "pad_token", "eos_token", "unk_token")}
        held = sorted((t for t in named if t is not None and t in vocabulary), key=vocabulary.__getitem__)
        added = tuple(AddedToken(t, vocabulary[t], special=True, **flags) for t in held)
        return _python_spm_class(
            cls, name, config, config_path, model, vocabulary, unk, file, {}, added, _m2m100_target_options
        )

    @classmethod
    def _spm_backend(cls, folder: str, name: str, file: str) -> Tokenizer:
        """A class on transformers' SentencePieceBackend (SpeechT5Tokenizer,
        BertGenerationTokenizer, BartphoTokenizer, PLBartTokenizer, GPTSw3Tokenizer: Python over
        the sentencepiece library) from its folder: the model's sentencepiece pipeline (GPT-SW3's
        after its preprocess_text, the option pre_normalizer), each piece's own id (a run
        of unknown characters by its text, piece_to_id; BARTpho's dict.txt ids, PLBart's fairseq
        ones: slow_files.fairseq_vocabulary, plbart_vocabulary), the config's special tokens
        matched as the class matches them, its template (SpeechT5's "$A </s>", PLBart's "$A </s>
        __src_lang__" with tgt_lang's for text_target, none for BertGeneration and GPT-SW3),
        decode as its convert_tokens_to_string (the tokens' texts joined, each "▁" a space,
        stripped; GPT-SW3's: _gpt_sw3_decode).
        FormatError naming the file for what it cannot run: sp_model_kwargs (sampling), legacy
        false (the class's prefix of <unk> for a text that starts with a space), SpeechT5's
        normalize (its English number normalizer)."""
        from .chat_template import ModelConfig
        from .errors import FormatError
        from .formats.sentencepiece_model import SentencePieceModel
        from .formats.slow_files import fairseq_vocabulary, plbart_vocabulary

        config = ModelConfig.from_folder(folder, class_name=name)
        config_path = os.path.join(folder, "tokenizer_config.json")
        raw = config.config
        for key, refused, why in (
            ("sp_model_kwargs", lambda v: bool(v), "sentencepiece sampling"),
            ("legacy", lambda v: v is False, "the class's <unk> prefix for a text that starts with a space"),
            ("normalize", lambda v: bool(v), "SpeechT5's English number normalizer, Python of its own"),
        ):
            if refused(raw.get(key)):
                raise FormatError(config_path, key, f"{name} with {key}={raw[key]!r} ({why}) is not run by tokenforge")
        try:
            model = SentencePieceModel.read(file)
        except (OSError, ValueError) as e:
            raise FormatError(file, "", f"{name} reads a sentencepiece model from this file: {e}") from None
        pieces = [p.piece for p in model.pieces]
        vocabulary: dict[str, int] = {}
        unknown = pieces[int(model.trainer_spec["unk_id"])]
        late: Callable[[Tokenizer, Any], dict[str, Any]] | None = None
        options: dict[str, Any] = {"decode_tokens": True}
        if name == "GPTSw3Tokenizer":  # (its decode is sentencepiece's, between special tokens)
            options = {"pre_normalizer": _GPT_SW3_PREPROCESS}
        if name == "BartphoTokenizer":
            # its fairseq dictionary (dict.txt): the named tokens first, each line's first word
            # after them, then the mask token (fairseq_tokens_to_ids)
            unknown = config.special_tokens.get("unk_token") or "<unk>"
            vocabulary = fairseq_vocabulary(os.path.join(folder, "dict.txt"), config.special_tokens, name)
        elif name == "PLBartTokenizer":
            unknown = "<unk>"
            try:
                vocabulary = plbart_vocabulary(pieces, raw)
            except ValueError as e:
                raise FormatError(config_path, "language_codes", str(e)) from None
            late = _plbart_target_options
        else:
            for i, piece in enumerate(pieces):
                vocabulary.setdefault(piece, i)  # (piece_to_id)
        return _python_spm_class(cls, name, config, config_path, model, vocabulary, unknown, file, options, late=late)

    @classmethod
    def _fast_bpe(cls, folder: str, name: str) -> Tokenizer:
        """transformers' PhobertTokenizer or CTRLTokenizer (Python classes over fastBPE's files)
        from its folder: the words of the text between special tokens (runs of what Python's
        str.split does not split at, each with a newline right after it), each cut by the
        merges with "</w>" after its last character and its pieces named as the class names
        them ("@@" after all but the last: the FastBPE model), the class's ids for them (a name
        it lacks: <unk>; PhoBERT's vocab.txt after <s> <pad> </s> <unk>, CTRL's vocab.json),
        PhoBERT's "<s> $A </s>" (a pair "<s> $A </s> </s> $B </s>"; CTRL has none), decode as
        their convert_tokens_to_string (the tokens joined by spaces, "@@ " removed, stripped).
        FormatError naming the file for what it cannot read."""
        from .chat_template import ModelConfig
        from .errors import FormatError
        from .formats.hf_tokenizer_json import _TokenizerJson
        from .formats.slow_files import PYTHON_WORD, REGEX_MODULE_WORD, fast_bpe_files

        config = ModelConfig.from_folder(folder, class_name=name)
        config_path = os.path.join(folder, "tokenizer_config.json")
        vocab_file, merges_file = (os.path.join(folder, f) for f in FAST_BPE_CLASSES[name])
        vocabulary, merges = fast_bpe_files(vocab_file, merges_file, config.special_tokens, name)
        unk = config.special_tokens.get("unk_token") or "<unk>"
        if unk not in vocabulary:
            raise FormatError(vocab_file, "unk_token", f"{name}: {unk!r} is not in its vocabulary")
        word = REGEX_MODULE_WORD if name == "CTRLTokenizer" else PYTHON_WORD  # (its `import regex as re`)
        split = {"type": "Split", "pattern": {"Regex": word}, "behavior": "Removed", "invert": True}
        stub = {"type": "BPE", "vocab": {"a": 0}, "merges": []}
        doc = {"version": "1.0", "added_tokens": [], "pre_tokenizer": split, "model": stub}
        spec = _TokenizerJson(vocab_file, doc).read()
        model = {"type": "FastBPE", "vocab": vocabulary, "merges": merges, "unk_token": unk}
        spec = dataclasses.replace(spec, model=model, post_processor=None, decoder=None, options={})
        return _python_class(cls, name, config, config_path, spec, vocab_file)

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """A local model folder as transformers reads one, offline: its tokenizer.json (or,
        without one, the files the class builds its tokenizer from: vocab.json + merges.txt,
        spiece.model, sentencepiece.bpe.model or tokenizer.model, formats/slow_files.py; else
        tokenizer.model or vocab.txt read as they are), and the settings of tokenizer_config.json,
        special_tokens_map.json and chat_template.jinja (see `config`, `apply_chat_template`). A
        hub cache folder (models--org--name) reads the snapshot its refs/main names. Where the
        config names a class transformers 5 rebuilds (LlamaTokenizer, GemmaTokenizer,
        Qwen2Tokenizer, T5Tokenizer, ...), the file's normalizer, pre-tokenizer, decoder and model
        options are those the class builds (formats/transformers_classes.py), as in transformers."""
        from .chat_template import ModelConfig, same_class_tables
        from .formats.slow_files import PIPELINE_CLASSES, slow_document, slow_files, slow_init
        from .formats.transformers_classes import _CLASSES, rebuild_for_class, transformers_class

        folder = _snapshot_folder(os.fspath(path))
        config = ModelConfig.from_folder(folder)
        model_config = _model_config(folder)
        names = [os.fspath(path), *_hub_ids(os.fspath(path))]
        loader_init: dict[str, Any] = {}  # keywords transformers' loader adds (slow_files.slow_init)
        slow: dict[str, Any] | None = None  # the document transformers builds from the class's files
        file = os.path.join(folder, "tokenizer.json")
        name = "tokenizer.json"
        routed_class = transformers_class(config.config, model_config, names)
        if routed_class == "MarianTokenizer" and os.path.isfile(os.path.join(folder, "source.spm")):
            return cls._marian(folder, model_config)
        if routed_class == "M2M100Tokenizer" and os.path.isfile(os.path.join(folder, "sentencepiece.bpe.model")):
            return cls._m2m100(folder)
        fast_bpe = FAST_BPE_CLASSES.get(routed_class or "")
        if fast_bpe is not None and all(os.path.isfile(os.path.join(folder, f)) for f in fast_bpe):
            return cls._fast_bpe(folder, str(routed_class))
        spm_backend = SPM_BACKEND_CLASSES.get(routed_class or "")
        if spm_backend is not None and os.path.isfile(os.path.join(folder, spm_backend)):
            return cls._spm_backend(folder, str(routed_class), os.path.join(folder, spm_backend))
        # (a class that reads no vocabulary file, ByT5Tokenizer, ignores a tokenizer.json beside it)
        fileless = PIPELINE_CLASSES.get(routed_class or "") == "tokenizer_config.json"
        if not os.path.isfile(file) or fileless:
            found = slow_files(folder)
            own = PIPELINE_CLASSES.get(routed_class or "")
            if own is not None and os.path.isfile(os.path.join(folder, own)):
                found = os.path.join(folder, own)  # (a Python class run as a pipeline of its own)
            # the files read as they are, where the class is not one slow_files rebuilds
            plain = [n for n in ("tokenizer.model", "vocab.txt") if os.path.isfile(os.path.join(folder, n))]
            if found is not None and ((routed_class or "") in _CLASSES or own is not None or not plain):
                try:
                    # (the converter reads the class's keywords: special_tokens_map.json's too)
                    slow = slow_document(found, routed_class, _class_config(folder, config.config))
                except ValueError:
                    if not plain or own is not None:
                        raise
                    slow = None  # (a BertTokenizer folder with vocab.txt beside vocab.json)
            if slow is not None and found is not None:
                file, name = found, "tokenizer.json"  # read as the class reads a tokenizer.json
                loader_init = slow_init(slow)
                config = ModelConfig.from_folder(folder, loader_init=loader_init)
            elif plain:
                name = plain[0]
                file = os.path.join(folder, name)
            else:
                raise FileNotFoundError(
                    f"{folder}: no tokenizer.json, tokenizer.model or vocab.txt in it (nor spiece.model, "
                    "sentencepiece.bpe.model, vocab.json); give the folder a model's tokenizer files are in"
                )
        class_name: str | None = None
        if name == "tokenizer.json":
            from .formats.hf_tokenizer_json import read_tokenizer_document, read_tokenizer_json

            class_config = _class_config(folder, config.config)
            listed: list[Any] = []  # the file's added_tokens as written (transformers reads them too)
            routed: list[str | None] = []  # the class AutoTokenizer builds (None: TokenizersBackend)

            def rebuild(doc: Any, data: bytes) -> Any:
                if isinstance(doc, dict) and isinstance(doc.get("added_tokens"), list) and slow is None:
                    listed.extend(doc["added_tokens"])  # (a folder without the file lists none)
                source = data.decode("utf-8")
                routed.append(transformers_class(config.config, model_config, names, source))
                rebuilt = rebuild_for_class(doc, class_config, source, model_config, names)
                if (
                    rebuilt is not doc
                    and routed[-1] in _CLASSES
                    and isinstance(rebuilt, dict)
                    and not _added_anew_as_listed(doc, config.config)
                ):
                    # A class with its own constructor builds its backend from the vocabulary (and
                    # merges) alone: the file's added tokens reach it only as transformers then adds
                    # them (the config's added_tokens_decoder, or without one the file's list), each
                    # at the id adding gives it (_tokens_transformers_adds)
                    rebuilt = {**rebuilt, "added_tokens": []}
                return rebuilt

            if slow is None:
                spec = read_tokenizer_json(file, rebuild)
            else:
                spec = read_tokenizer_document(file, rebuild(slow, b""))
            class_name = routed[0] if routed else None
            # what the file's truncation and padding give transformers' settings, under the config's
            file_settings: dict[str, Any] = {}
            if spec.truncation is not None:
                file_settings["truncation_side"] = spec.truncation["direction"]
            if spec.padding is not None:
                file_settings["padding_side"] = spec.padding["direction"]
                file_settings["pad_token"] = spec.padding["pad_token"]
            if routed and (file_settings or not same_class_tables(config.tokenizer_class, class_name)):
                # the defaults are those of the class AutoTokenizer builds, not of the declared one
                config = ModelConfig.from_folder(
                    folder, class_name=class_name or "", loader_init=loader_init, file_settings=file_settings
                )
        else:
            from .formats import read_tokenizer_file

            spec = read_tokenizer_file(file)
        options = dict(spec.options)
        if name == "tokenizer.json" and config.config.get("split_special_tokens") is True:
            # transformers sets the backend's encode_special_tokens from the config's value: the
            # special added tokens' text stays text (each call's default, apply_chat_template's too)
            options["split_special_tokens"] = True
        if class_name in _PYTHON_CLASS_DECODES and slow is not None:
            # its decode joins the text between special tokens with their text (slow_files)
            options["special_segments"] = _PYTHON_CLASS_DECODES[class_name]
        if class_name in PIPELINE_CLASSES and slow is not None:
            # its tokenize strips around added tokens with str.lstrip and str.rstrip (\x1c-\x1f too;
            # SiglipTokenizer also removes the punctuation there, and reads U+2581 as a space)
            options["added_token_rules"] = "siglip" if class_name == "SiglipTokenizer" else "python"
        if class_name == "CLIPTokenizer" and _model_type(spec.model) == "BPE":
            # CLIPTokenizer wraps its backend's decode: each </w> a space, the text stripped
            options["strip_word_suffix"] = "</w>"
        python_class = "special_segments" in options  # (no backend: its decode cleans up for any model)
        if config.clean_up_tokenization_spaces and (python_class or _model_type(spec.model) not in ("BPE", None)):
            # transformers' decode cleans the text up as the config says, but for a BPE model
            options["clean_up_tokenization_spaces"] = True
        config = dataclasses.replace(config, transformers_class=class_name)  # (transformers_api.py reads it)
        tok = cls.from_spec(dataclasses.replace(spec, config=config, options=options), source=file)
        if name == "tokenizer.json":
            config_path = os.path.join(folder, "tokenizer_config.json")
            tokens = _tokens_transformers_adds(tok, config, config_path, listed)
            if tokens:
                tok._add(tokens, special=False)
            if class_name == "Qwen2Tokenizer":
                # Qwen2Tokenizer.__init__ ends with add_tokens([AddedToken(t, special=True) for t in
                # self.all_special_tokens]): each named token's flags back to the defaults
                flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
                tok._add([AddedToken(t, 0, special=True, **flags) for t in tok.all_special_tokens if t], special=False)
            if slow is not None or class_name not in _PYTHON_CLASS_DECODES:
                # (the templates of the Python classes run as pipelines: their folders without tokenizer.json only)
                extra = _m2m100_target_options(tok, config) if class_name == "M2M100Tokenizer" else {}
                _set_class_post_processor(tok, class_name, config, config_path, extra)
        return tok

    @property
    def all_special_tokens(self) -> list[str]:
        """The model folder's special tokens as transformers lists them (its all_special_tokens):
        the named ones (bos, eos, unk, sep, pad, cls, mask, then model-specific ones such as
        image_token), then extra_special_tokens, each once; [] without a model folder."""
        config = self.config
        if config is None:
            return []
        return list(dict.fromkeys([*config.special_tokens.values(), *config.extra_special_tokens]))

    @property
    def all_special_ids(self) -> list[int | None]:
        """The ids of all_special_tokens; one the tokenizer lacks (a class's default it never
        added, an empty text) has the unknown token's id, as transformers' convert_tokens_to_ids
        gives it (None without one)."""
        unk = self.config.unk_token if self.config is not None else None
        unk_id = self.token_to_id(unk) if unk is not None else None
        found = [self.token_to_id(t) for t in self.all_special_tokens]
        return [unk_id if i is None else i for i in found]

    @property
    def config(self) -> Any:
        """The model folder's settings (tokenforge.chat_template.ModelConfig: special tokens, chat
        templates, model_max_length, padding_side) where `from_pretrained` read a folder, else None."""
        return self._spec.config

    def apply_chat_template(
        self,
        conversation: Any,
        *,
        tools: Sequence[Any] | None = None,
        documents: Sequence[Any] | None = None,
        chat_template: str | None = None,
        add_generation_prompt: bool = False,
        continue_final_message: bool | str = False,
        tokenize: bool = True,
        return_dict: bool = True,
        **kwargs: Any,
    ) -> Any:
        """A conversation (a list of {"role", "content"} messages; or a list of conversations)
        rendered by the model's chat template exactly as transformers' apply_chat_template: the
        text with tokenize=False; else its ids (encoded without adding special tokens, as
        transformers does, the template having written them), as {"input_ids", "attention_mask"}
        with return_dict=True (transformers 5's default) or as the list of ids. `chat_template`:
        a template's name or Jinja source (required where the tokenizer has no model folder);
        other keywords reach the template as variables."""
        from .chat_template import ModelConfig, render_chat_template

        _check_bool(tokenize, "tokenize")
        _check_bool(return_dict, "return_dict")
        config = self.config
        if isinstance(config, ModelConfig):
            rendered = config.render_chat(
                conversation,
                chat_template=chat_template,
                tools=tools,
                documents=documents,
                add_generation_prompt=add_generation_prompt,
                continue_final_message=continue_final_message,
                **kwargs,
            )
        else:
            if chat_template is None:
                raise ValueError(
                    "this tokenizer has no chat template (it was not read from a model folder): load the folder "
                    "with Tokenizer.from_pretrained, or pass chat_template= with the template's Jinja source"
                )
            rendered = render_chat_template(
                chat_template,
                conversation,
                tools=tools,
                documents=documents,
                add_generation_prompt=add_generation_prompt,
                continue_final_message=continue_final_message,
                **kwargs,
            )
        if not tokenize:
            return rendered
        batch = not isinstance(rendered, str)
        texts = list(rendered) if batch else [rendered]
        ids = [list(e.ids) for e in self.encode_batch(texts, add_special_tokens=False)]
        if not return_dict:
            return ids if batch else ids[0]
        masks = [[1] * len(row) for row in ids]
        return (
            {"input_ids": ids, "attention_mask": masks} if batch else {"input_ids": ids[0], "attention_mask": masks[0]}
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the tokenizer (atomically) in the format `path` names: .json (HF tokenizer.json,
        for every tokenizer, with its truncation and padding as set: HF tokenizers loads it to the
        same ids), .model (sentencepiece), .tiktoken (the ranks only) or .tokenforge (byte-level
        BPE), .txt (a WordPiece vocab.txt); any other name gets the model's own format
        (tokenizer.json for WordPiece and tokenizer.json pipelines, .model for sentencepiece).
        ValueError where the format cannot hold the tokenizer, naming why."""
        from .formats import write_tokenizer_file

        write_tokenizer_file(self.spec, path)

    def save_vocab_txt(self, path: str | os.PathLike[str]) -> None:
        """A WordPiece tokenizer's vocabulary as BERT's vocab.txt, one token per line."""
        from .formats.bert_vocab import write_vocab_txt
        from .models.wordpiece import WordPiece

        if not isinstance(self.model, WordPiece):
            raise ValueError(f"a {self.kernel} tokenizer has no vocab.txt form (WordPiece models only)")
        write_vocab_txt(self.model.tokens, path)

    def pre_tokenize(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The words the model sees: the text normalized and split, each word with the span of
        input code points it came from (added tokens are words of their own)."""
        if not isinstance(text, str):
            raise TypeError(f"pre_tokenize takes str, got {type(text).__name__}")
        words = getattr(self._native, "words", None) or getattr(self._native, "pre_tokenize", None)
        if words is None:
            raise ValueError(f"a {self.kernel} tokenizer does not show its words (WordPiece and staged pipelines do)")
        return [(w, tuple(span)) for w, span in words(text, self._added("all", (), ()))]

    def _added(
        self, allowed_special: SpecialSet, disallowed_special: SpecialSet, texts: Sequence[str | None]
    ) -> _core.SpecialMatcher | None:
        """The matcher of special tokens to match in texts, after raising for any disallowed one."""
        k = self._kernel
        if allowed_special == k.default_allowed and not disallowed_special and not k.default_disallowed:
            return k.default_added
        return _resolve_policy(k.policy, allowed_special, disallowed_special, texts)

    # -- encoding ----------------------------------------------------------------------

    def encode(
        self,
        sequence: str,
        pair: str | None = None,
        add_special_tokens: bool = True,
        *,
        allowed_special: SpecialSet | None = None,
        disallowed_special: SpecialSet | None = None,
        is_pretokenized: bool = False,
    ) -> Encoded:
        """Encode a text, or a pair of texts, with truncation, template and padding as set.

        is_pretokenized=True (HF tokenizers'): `sequence` (and `pair`) is a list (or tuple) of
        words, each normalized, pre-tokenized and encoded on its own (its tokens' word id is its
        index, their offsets are in the word's characters), then truncated, put in the template
        and padded as one sequence. (Keyword-only here: the third argument stays
        add_special_tokens.)

        Special-token text in the input ("[MASK]", "<s>") becomes its id when in
        `allowed_special`, raises DisallowedSpecialTokenError when in `disallowed_special`, and is
        plain text otherwise. By default WordPiece allows "all" (as HF matches added tokens),
        sentencepiece allows none (as sentencepiece), and byte-level BPE disallows "all" (as
        tiktoken). (Each instance binds this to its native pipeline's encode, which behaves the
        same and shows its own defaults.)"""
        allowed = self._kernel.default_allowed if allowed_special is None else allowed_special
        disallowed = self._kernel.default_disallowed if disallowed_special is None else disallowed_special
        return self._native.encode(
            sequence,
            pair,
            add_special_tokens,
            allowed_special=allowed,
            disallowed_special=disallowed,
            is_pretokenized=is_pretokenized,
        )

    def encode_batch(
        self,
        inputs: Sequence[str | tuple[str, str]],
        add_special_tokens: bool = True,
        num_threads: int | None = None,
        *,
        allowed_special: SpecialSet | None = None,
        disallowed_special: SpecialSet | None = None,
        is_pretokenized: bool = False,
    ) -> list[Encoded]:
        """Encode many inputs on threads, each a text (str) or a pair ((str, str) or [str, str]),
        mixed as HF allows; with padding set, all are padded to the longest (or to the fixed
        length). Special tokens as in `encode`.
        is_pretokenized=True (HF tokenizers'): each input is a list (or tuple) of words, or a pair
        of them ((words, words)), encoded as `encode(..., is_pretokenized=True)` does.
        `num_threads`: None for threads.batch_threads (a thread per 32 K characters of work), else an
        int >= 1 (capped at tokenforge.threads.MAX_THREADS)."""
        _check_bool(add_special_tokens, "add_special_tokens")
        if _check_bool(is_pretokenized, "is_pretokenized"):
            return self._encode_words_batch(
                inputs, add_special_tokens, num_threads, allowed_special, disallowed_special
            )
        if isinstance(inputs, str):
            raise TypeError("encode_batch takes a list of str or a list of (str, str) pairs, got a single str")
        texts: list[Any] = list(inputs)
        pairs: list[Any] | None = None
        for i, item in enumerate(texts):
            if isinstance(item, str):
                continue
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(
                    f"encode_batch inputs are str or (str, str) pairs; item {i} is {type(item).__name__} {_shown(item)}"
                )
            if pairs is None:
                pairs = [None] * len(texts)
            texts[i], pairs[i] = item
        if num_threads is None:
            threads = batch_threads(len(texts), sum(len(t) for t in texts if isinstance(t, str)))
        else:
            threads = resolve_threads(num_threads)
        allowed = self._kernel.default_allowed if allowed_special is None else allowed_special
        disallowed = self._kernel.default_disallowed if disallowed_special is None else disallowed_special
        added = self._added(allowed, disallowed, texts + [p for p in pairs or () if p is not None])
        return self._native.encode_batch(texts, pairs, add_special_tokens, added, threads)

    def _encode_words_batch(
        self,
        inputs: Sequence[Any],
        add_special_tokens: bool,
        num_threads: int | None,
        allowed_special: SpecialSet | None,
        disallowed_special: SpecialSet | None,
    ) -> list[Encoded]:
        """encode_batch(..., is_pretokenized=True): the inputs read as HF's PreTokenizedEncodeInput
        (a list or tuple of str, else a pair of them), encoded natively on threads."""
        sequences, pairs = pretokenized_inputs(inputs)
        words = words_of(sequences, pairs)
        if num_threads is None:
            threads = batch_threads(len(sequences), sum(map(len, words)))
        else:
            threads = resolve_threads(num_threads)
        allowed = self._kernel.default_allowed if allowed_special is None else allowed_special
        disallowed = self._kernel.default_disallowed if disallowed_special is None else disallowed_special
        added = self._added(allowed, disallowed, words)
        return self._native.encode_batch(  # type: ignore[no-any-return]
            sequences, pairs, add_special_tokens, added, threads, is_pretokenized=True
        )

    # -- decoding ----------------------------------------------------------------------

    def decode(
        self, ids: Sequence[int], skip_special_tokens: bool = True, clean_up_tokenization_spaces: bool | None = None
    ) -> str:
        """Text of `ids` (any integers, NumPy's too, or a 1-D NumPy integer array), read by the
        pipeline's decoder natively: WordPiece's (or WPM's), sentencepiece's (then the model's
        denormalizer if any), or byte-level BPE's (the tokens' bytes joined, U+FFFD for bytes
        that are not UTF-8). skip_special_tokens drops special tokens (sentencepiece: control
        pieces); its default is HF tokenizers' (True), not transformers' (batch_decode's False).
        clean_up_tokenization_spaces: None for the model folder's setting, else transformers'
        clean-up on or off (never for a BPE model, as transformers). An id outside the
        vocabulary raises ValueError (HF tokenizers skips one below 2**32), one a u32 cannot
        hold TokenIdOverflowError (a ValueError and HF's OverflowError), anything but an integer
        TypeError."""
        text = self._decode_natively(ids, skip_special_tokens)
        if clean_up_tokenization_spaces is not None:
            return self._clean_up(text, clean_up_tokenization_spaces)
        denormalize = self._kernel.denormalize
        return denormalize(text) if denormalize else text

    def _decode_natively(self, ids: Any, skip_special_tokens: bool) -> str:
        """The native pipeline's decode of `ids` (ints, NumPy integers, a 1-D NumPy array), with
        the checks every decode makes: a bool flag, integers only (TypeError naming the item)."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        if type(ids) is not list:
            ids = _token_ids(ids)
            if not isinstance(ids, (list, tuple)):  # read once here, so that it can be read again below
                try:
                    ids = list(ids)
                except TypeError:
                    raise TypeError(f"ids must be a sequence of token ids, got {type(ids).__name__}") from None
        try:
            try:
                return self._decode_ids(ids, skip_special_tokens)  # type: ignore[no-any-return]
            except TypeError:
                # Integers that are not Python ints are read here; any other item raises a
                # TypeError that names what it is.
                return self._decode_ids([_token_id(i) for i in ids], skip_special_tokens)  # type: ignore[no-any-return]
        except ValueError:
            # an id outside the vocabulary; one a u32 cannot hold is HF tokenizers' OverflowError
            bad = _u32_overflow(ids)
            if bad is not None:
                raise _token_id_overflow(bad) from None
            raise

    def decode_stream(self, skip_special_tokens: bool = True) -> DecodeStream:
        """A DecodeStream over this tokenizer's decode, as HF's `tokenizers.decoders.DecodeStream`:
        `step(id)` returns the text the id adds once it is whole (no trailing U+FFFD), else None.
        The stream's text is without the whole-text clean-ups a later token could change
        (llama.cpp's clean_spaces, as its token_to_piece streams; a model folder's
        clean_up_tokenization_spaces, as HF's DecodeStream over the backend)."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        k = self._kernel
        if not (k.options.get("clean_spaces") or k.options.get("clean_up_tokenization_spaces")):
            return DecodeStream(self.decode, skip_special_tokens)
        finish = k.uncleaned_denormalize

        def uncleaned(ids: Sequence[int], skip: bool) -> str:
            text = self._decode_natively(ids, skip)
            return finish(text) if finish is not None else text

        return DecodeStream(uncleaned, skip_special_tokens)

    def decode_batch(self, batch: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        """`decode` of each id sequence (or each row of a 2-D NumPy integer array)."""
        _check_bool(skip_special_tokens, "skip_special_tokens")
        return [self.decode(ids, skip_special_tokens) for ids in _batch_ids(batch)]

    # -- vocabulary --------------------------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        if not isinstance(token, str):
            raise TypeError(f"token must be a str, got {type(token).__name__}")
        return self._vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        """The token of an id (any integer, NumPy's too), or None where the vocabulary has none; an
        id a u32 cannot hold (negative, 2**32 and above) raises TokenIdOverflowError, an
        OverflowError as HF tokenizers' and a ValueError."""
        i = _token_id(token_id, "token_id")
        if not 0 <= i < U32_IDS:
            raise _token_id_overflow(i)  # (HF tokenizers: OverflowError)
        return self._token_of[i] if 0 <= i < len(self._token_of) and self._token_of[i] else None

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """The number of tokens: the model's, and with_added_tokens the added tokens it lacks (HF's)."""
        model = self._model_vocab()
        # a Unigram's pieces count as listed, a repeated one too (HF's model.get_vocab_size())
        vocab = self._spec.model.get("vocab") if isinstance(self._spec.model, Mapping) else None
        size = len(vocab) if isinstance(vocab, (list, tuple)) else len(model)
        if _check_bool(with_added_tokens, "with_added_tokens"):
            extras = self._spec.added_extras
            contents = {a.content for a in self._spec.added_tokens} | set(extras.contents if extras else ())
            return size + sum(1 for c in contents if c not in model)
        return size

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """token -> id: the model's vocabulary, and with_added_tokens the added tokens (HF's)."""
        if _check_bool(with_added_tokens, "with_added_tokens"):
            return dict(self._vocab)
        return self._model_vocab()

    def _model_vocab(self, model: Any = None) -> dict[str, int]:
        """The model's own vocabulary, without the added tokens it does not hold (of `model`, a
        tokenizer.json model in place of this tokenizer's own, where given)."""
        model = self._spec.model if model is None else model
        own = self._spec.options.get("vocabulary")  # (a sentencepiece model's, MarianTokenizer's)
        if own is not None and not isinstance(model, Mapping):
            return dict(own)
        tokens = getattr(model, "tokens", None)  # WordPiece
        if isinstance(tokens, (list, tuple)):
            return {t: i for i, t in enumerate(tokens)}
        if isinstance(model, Mapping):
            vocab = model.get("vocab")
            if isinstance(vocab, Mapping):
                return dict(vocab)
            if isinstance(vocab, (list, tuple)):  # Unigram: [[piece, score], ...]
                return {entry[0]: i for i, entry in enumerate(vocab)}
        added = {a.content: a.id for a in self._spec.added_tokens}
        return {t: i for t, i in self._vocab.items() if added.get(t) != i}

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        """id -> AddedToken of every added token (HF's)."""
        return {a.id: a for a in sorted(self._spec.added_tokens, key=lambda a: a.id)}

    def add_tokens(self, tokens: Sequence[Any]) -> int:
        """Add tokens as HF's add_tokens: each a str (not special, normalized) or an AddedToken
        (tokenforge's, whose id is ignored, or tokenizers'); a token the vocabulary holds keeps its
        id, a new one gets the next id. Returns how many were added or changed. The pipeline is
        compiled again and swapped in at once."""
        return self._add(tokens, special=False)

    def add_special_tokens(self, tokens: Sequence[Any]) -> int:
        """add_tokens for special tokens (a str is special and not normalized; an AddedToken is
        made special, as HF's)."""
        return self._add(tokens, special=True)

    def _add(self, tokens: Sequence[Any], special: bool) -> int:
        if isinstance(tokens, str) or not isinstance(tokens, Sequence):
            raise TypeError("tokens must be a list of str or AddedToken")
        from .formats.convert import tokenizer_json_form

        # An Encoding or a sentencepiece model takes added tokens in its tokenizer.json form (as
        # HF tokenizers on the file tokenforge saves for it; its own special tokens are added ones there).
        spec = tokenizer_json_form(self.spec)
        model = self._model_vocab(spec.model)
        by_id: dict[int, str] = {}

        def model_token(i: int) -> str | None:
            if not by_id:
                by_id.update((j, t) for t, j in model.items())
            return by_id.get(i)

        vocabulary = AddedVocabulary(spec.added_tokens, spec.added_extras, model.get, model_token, len(model))
        count = 0
        for token in tokens:
            content: Any
            flags: dict[str, Any]
            if isinstance(token, str):
                content, flags = token, {"special": special, "normalized": not special}
            else:
                content = getattr(token, "content", None)
                if not isinstance(content, str):
                    raise TypeError(f"tokens must be str or AddedToken, got {type(token).__name__}")
                flags = {k: getattr(token, k) for k in ("special", "single_word", "lstrip", "rstrip", "normalized")}
                if special:
                    flags["special"] = True
            if vocabulary.add(content, **flags) is not None:
                count += 1
        if count:
            rebuilt = Tokenizer.from_spec(
                dataclasses.replace(spec, added_tokens=vocabulary.tokens(), added_extras=vocabulary.extras())
            )
            self.__dict__.update(rebuilt.__dict__)
            for stale in self.__dict__.keys() - rebuilt.__dict__.keys():
                del self.__dict__[stale]
        return count

    # -- truncation and padding ----------------------------------------------------------

    def _check_truncation(self, max_length: int, stride: int, n_added: int) -> None:
        """The stride must leave room: below what max_length leaves for the text once the
        template's `n_added` special tokens are in (HF checks the same when it is set)."""
        if stride and stride >= max_length - n_added:
            raise ValueError(
                f"stride {stride} must be below max_length {max_length} less the {n_added} special "
                f"tokens the template adds (so at most {max(0, max_length - n_added - 1)})"
            )

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        """Truncate encodings to `max_length` tokens (special tokens included); the rest goes to
        `overflowing`, parts that repeat the previous part's last `stride` tokens. `strategy`
        for pairs: "longest_first", "only_first" or "only_second"; `direction`: "right" (keep
        the start) or "left". Every argument is checked before anything is set."""
        max_length = _check_int(max_length, "max_length", 0, INT64_MAX)
        stride = _check_int(stride, "stride", 0, INT64_MAX)
        _check_choice(strategy, "strategy", tuple(_STRATEGIES))
        _check_choice(direction, "direction", ("left", "right"))
        self._check_truncation(max_length, stride, self._native.added_tokens(False))
        self._set(
            "truncation", {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}
        )

    def no_truncation(self) -> None:
        self._set("truncation", None)

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """Pad encodings to `length` tokens (None: to the longest of each batch), rounded up to a
        multiple of `pad_to_multiple_of` (None or 0: no rounding), with `pad_id` (an id of this
        vocabulary) shown as `pad_token`, of type `pad_type_id`, on the `direction` side. Every
        argument is checked before anything is set."""
        _check_choice(direction, "direction", ("left", "right"))
        n = len(self._token_of)
        pad_id = _check_int(pad_id, "pad_id", 0, n - 1, why=" (an id of this tokenizer's vocabulary)")
        if not self._token_of[pad_id]:
            raise ValueError(f"pad_id {pad_id} has no token in this tokenizer's vocabulary")
        pad_type_id = _check_int(pad_type_id, "pad_type_id", 0, _core.MAX_TYPE_ID)
        if not isinstance(pad_token, str):
            raise TypeError(f"pad_token must be a str, got {type(pad_token).__name__} {_shown(pad_token)}")
        try:
            pad_token.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"pad_token {_shown(pad_token)} holds a lone surrogate, which has no UTF-8 form") from None
        length = _check_int(length, "length", 1, MAX_PAD_LENGTH, none="pad to the longest in the batch")
        pad_to_multiple_of = _check_int(pad_to_multiple_of, "pad_to_multiple_of", 0, MAX_PAD_LENGTH, none="no rounding")
        self._set(
            "padding",
            {
                "direction": direction,
                "pad_id": pad_id,
                "pad_type_id": pad_type_id,
                "pad_token": pad_token,
                "length": length,
                "pad_to_multiple_of": pad_to_multiple_of,
            },
        )

    def no_padding(self) -> None:
        self._set("padding", None)

    def _set(self, which: str, value: dict[str, Any] | None) -> None:
        """Stores truncation or padding settings and hands them to the native pipeline; if that
        fails, the previous settings stay."""
        old = getattr(self, which)
        setattr(self, which, value)
        apply = self._apply_truncation if which == "truncation" else self._apply_padding
        try:
            apply()
        except BaseException:
            setattr(self, which, old)
            apply()
            raise

    def _apply_truncation(self) -> None:
        t = self.truncation
        if t is None:
            self._native.set_truncation(False)
        else:
            self._native.set_truncation(
                True, t["max_length"], t["stride"], _STRATEGIES[t["strategy"]], t["direction"] == "left"
            )

    def _apply_padding(self) -> None:
        p = self.padding
        self._native.set_pad_token(p["pad_token"] if p else "")
        if p is None:
            self._native.set_padding(False)
        else:
            self._native.set_padding(
                True,
                p["length"] or 0,
                p["pad_to_multiple_of"] or 0,
                p["pad_id"],
                p["pad_type_id"],
                p["direction"] == "left",
            )


def _vocab_of(token_of: list[str], added: Sequence[AddedToken], extras: AddedExtras | None = None) -> dict[str, int]:
    """token -> id of every named id, the added tokens by their content (a normalized one is
    named by its normalized content, as HF's id_to_token shows it), as HF's get_vocab: the
    model's tokens (those an added token's name hides too), then every content HF's added
    vocabulary maps (AddedExtras)."""
    renamed = {a.id for a in added if a.id < len(token_of) and token_of[a.id] != a.content}
    vocab = {t: i for i, t in enumerate(token_of) if t and i not in renamed}
    if extras:
        vocab.update(extras.hidden)
    vocab.update((a.content, a.id) for a in added)
    if extras:
        vocab.update(extras.contents)
    return vocab


_FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")


def _added_anew_as_listed(doc: Any, config: Mapping[str, Any]) -> bool:
    """Whether the tokens a rebuilt class adds anew (the config's added_tokens_decoder in key
    order, each at the next id unless the model's vocabulary has its text) are the file's own
    added tokens, at their ids with their flags: then the file's list can stay as it is (saving
    a second build of the tokenizer, as real folders written by transformers are)."""
    entries = config.get("added_tokens_decoder")
    listed = doc.get("added_tokens") if isinstance(doc, Mapping) else None
    model = doc.get("model") if isinstance(doc, Mapping) else None
    if not isinstance(entries, Mapping) or not isinstance(listed, list) or not isinstance(model, Mapping):
        return False
    vocab = model.get("vocab")
    if isinstance(vocab, Mapping):
        ids: dict[Any, Any] = dict(vocab)
    elif isinstance(vocab, list):
        ids = {e[0]: i for i, e in enumerate(vocab) if isinstance(e, list) and e}
    else:
        return False
    try:
        keyed = sorted((int(k), v) for k, v in entries.items())
    except (TypeError, ValueError):
        return False
    want: dict[str, tuple[Any, ...]] = {}
    next_id = len(ids)
    if set(ids.values()) != set(range(next_id)):
        return False  # (ids with gaps: the next id is not plain)
    for _, entry in keyed:
        if not isinstance(entry, Mapping) or any(not isinstance(entry.get(f), bool) for f in _FLAGS):
            return False  # (a flag left to AddedToken's default: not worth the risk)
        content = entry.get("content")
        if not isinstance(content, str) or content in want:
            return False
        if content in ids:
            i = ids[content]
        else:
            i, next_id = next_id, next_id + 1
        want[content] = (i, *(entry[f] for f in _FLAGS))
    have = {}
    for a in listed:
        if not isinstance(a, Mapping) or not isinstance(a.get("content"), str):
            return False
        have[a["content"]] = (a.get("id"), *(a.get(f) for f in _FLAGS))
    return have == want


def _class_config(folder: str, config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The keywords a class's constructor gets from a folder: tokenizer_config.json, and where it
    has no added_tokens_decoder (an older folder) special_tokens_map.json's tokens over it, as
    transformers' _from_pretrained merges them (its extra_special_tokens aside)."""
    from .chat_template import SPECIAL_TOKENS_MAP_FILE, _read_json

    path = os.path.join(folder, SPECIAL_TOKENS_MAP_FILE)
    if "added_tokens_decoder" in config or not os.path.isfile(path):
        return config
    special_map = _read_json(path)
    if not isinstance(special_map, dict):
        return config  # (ModelConfig.from_folder refused it already)
    return {**config, **{k: v for k, v in special_map.items() if k != "extra_special_tokens"}}


def _model_type(model: Any) -> str | None:
    """The type of a tokenizer.json model (HF's name: "BPE", "Unigram", "WordPiece",
    "WordLevel"), as HF reads a model without its "type" too; None for another model."""
    if not isinstance(model, Mapping):
        from .models.wordpiece import WordPiece

        return "WordPiece" if isinstance(model, WordPiece) else None  # (the fused WordPiece kernel's)
    if isinstance(model.get("type"), str):
        return str(model["type"])
    if "merges" in model:
        return "BPE"
    if isinstance(model.get("vocab"), list):
        return "Unigram"
    return "WordPiece" if "continuing_subword_prefix" in model else "WordLevel"


def _model_config(folder: str) -> dict[str, Any]:
    """config.json of a model folder (its model_type routes transformers' tokenizer class), {}
    where there is none or it is not a JSON object (transformers then routes without it)."""
    file = os.path.join(folder, "config.json")
    try:
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"{file}: not a readable JSON file ({e})") from e
    return doc if isinstance(doc, dict) else {}


def _set_class_post_processor(
    tok: Tokenizer, class_name: str | None, config: Any, config_path: str, extra: Mapping[str, Any]
) -> None:
    """The post-processor a class's constructor sets after its tokens are added (MBart's, NLLB's
    language codes, Splinter's question token: transformers_classes.class_post_processor), in
    place of the one `tok` has, with the `extra` options (one rebuild of the native pipeline
    for both)."""
    from .errors import FormatError
    from .formats.transformers_classes import LATE_WHERE_REBUILT, class_post_processor, roberta_trim_offsets
    from .processors.template import TemplateProcessing

    try:
        post = class_post_processor(
            class_name, config.config, config.special_tokens, tok.token_to_id, tok.id_to_token, config.padding_side
        )
    except ValueError as e:
        raise FormatError(config_path, "src_lang", str(e)) from None
    if class_name in LATE_WHERE_REBUILT and _model_type(tok.spec.model) != LATE_WHERE_REBUILT[class_name]:
        post = None  # (the class could not take this file's vocabulary: the file's stays)
    if post is None and not extra:
        return
    options = {**tok.spec.options, **extra}
    spec = tok.spec
    if post is not None:
        # the class's template replaces the file's post-processor whole: a ByteLevel step's
        # trimming in it goes too (RobertaProcessing trims as the class says)
        options.pop("trim_offsets", None)
        if class_name == "RobertaTokenizer":
            trim = roberta_trim_offsets(config.config)
            if trim is not None:
                options["trim_offsets"] = trim
        template = TemplateProcessing.from_json(post)
        if class_name in ("SiglipTokenizer", "ByT5Tokenizer"):  # (their _add_eos_if_not_present)
            template = dataclasses.replace(template, skip_present_special=True)
        spec = dataclasses.replace(spec, post_processor=template)
    rebuilt = Tokenizer.from_spec(dataclasses.replace(spec, options=options))
    tok.__dict__.update(rebuilt.__dict__)
    for stale in tok.__dict__.keys() - rebuilt.__dict__.keys():
        del tok.__dict__[stale]


def _segments_decode(native: Any, spec: PipelineSpec, style: str) -> Any:
    """Decode as a Python class over sentencepiece does it (the option special_segments). On the
    sentencepiece pipeline behind a class's vocabulary (M2M100, Marian, the SentencePieceBackend
    classes): _pieces_decode, _tokens_decode or _gpt_sw3_decode, at the folder's all_special_ids
    (_class_special_ids). Otherwise
    (SiglipTokenizer's, on an HF pipeline): the ids between special tokens decoded on their own
    (the pipeline's decoder, sentencepiece's decode_pieces), each special token's text after
    them (none with skip_special_tokens; "siglip": a space before a special token that follows
    text), the whole stripped. (It holds the native pipeline, not the tokenizer.)"""
    special = {t.id: t.content for t in spec.added_tokens if t.special}
    space_before = style == "siglip"
    decode = native.decode
    if style in ("marian", "tokens", "gpt_sw3") or (style == "m2m100" and "vocabulary" in spec.options):
        if spec.config is not None:
            ids = {**spec.options.get("vocabulary", {}), **{a.content: a.id for a in spec.added_tokens}}
            special = _class_special_ids(spec.config, ids)
        if style == "tokens":
            return _tokens_decode(native, special)
        if style == "gpt_sw3":
            return _gpt_sw3_decode(native, special)
        return _pieces_decode(native, special, style == "marian")

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        # (the ids' types and the special ids among them read at C speed: most texts have none)
        if set(map(type, ids)) - {int}:
            ids = [_token_id(i) for i in ids]  # (a TypeError naming what is not an id)
        if special.keys().isdisjoint(ids):
            return str(decode(ids, False)).strip()
        if skip_special_tokens:  # (one run: the special tokens left out)
            return str(decode([i for i in ids if i not in special], False)).strip()
        at = _positions(ids, special.keys())
        parts: list[str] = []
        start = 0
        for k in at:
            # (a space before a special token that does not follow another)
            space = " " if space_before and not (k > 0 and start == k) else ""
            parts += [space, decode(ids[start:k], False), special[ids[k]]]
            start = k + 1
        parts.append(decode(ids[start:], False))
        return "".join(parts).strip()

    return decode_ids


def _positions(ids: Sequence[int], wanted: Any) -> list[int]:
    """Where the ids of `wanted` (a set-like of ints) are in `ids`, in order: each found by
    list.index, at C speed (they are few; the ids are many)."""
    found: list[int] = []
    for i in wanted & set(ids):
        k = ids.index(i)
        while True:
            found.append(k)
            try:
                k = ids.index(i, k + 1)
            except ValueError:
                break
    found.sort()
    return found


def _tokens_decode(native: Any, special: Mapping[int, str]) -> Any:
    """Decode as transformers' SentencePieceBackend.convert_tokens_to_string (the option
    special_segments "tokens"): the ids' tokens (the pipeline's decode of a vocabulary whose
    tokens are written as they are, decode_tokens) joined, without the special ones with
    skip_special_tokens, every "▁" a space and the whole stripped."""
    native.set_segments(sorted(special.items()), "")
    decode, without = native.decode, native.decode_segments

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        text = without(ids, True) if skip_special_tokens else decode(ids, True)
        return str(text).replace("▁", " ").strip()

    return decode_ids


def _pieces_decode(native: Any, special: Mapping[int, str], marian: bool) -> Any:
    """Decode as a Python class over sentencepiece's convert_tokens_to_string (the option
    special_segments: "m2m100", "marian", on the sentencepiece pipeline): the text between
    special tokens as sentencepiece's decode_pieces (control pieces invisible, a token the model
    lacks written as it is), each special token's text after it (MarianTokenizer's: and a space,
    then every "▁" a space), the whole stripped; one native call (decode_segments)."""
    native.set_segments(sorted(special.items()), " " if marian else "")
    decode = native.decode_segments

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        text = str(decode(ids, bool(skip_special_tokens)))
        return (text.replace("▁", " ") if marian else text).strip()

    return decode_ids


def _class_special_ids(config: Any, ids: Mapping[str, int]) -> dict[int, str]:
    """A Python class's all_special_ids, which its decode skips and splits at: the folder's named
    and extra special tokens (not every added token marked special), by their id in `ids`."""
    named = {*config.special_tokens.values(), *config.extra_special_tokens}
    return {ids[t]: t for t in named if t in ids}


def _fast_bpe_decode(token_of: Sequence[str], spec: PipelineSpec) -> Any:
    """Decode as PhobertTokenizer's convert_tokens_to_string (the option special_segments
    "fastbpe"): the ids' tokens (`token_of`, the pipeline's) joined by spaces (without the
    class's special ones with skip_special_tokens), each "@@ " removed, the whole stripped.
    Joined natively (_core.IdBytes): each token's text with a space after it, or less its "@@"
    (then the space goes too); the last token shown keeps its "@@", which no space follows. An
    id without a token is a ValueError, as the native decode's."""
    special: Mapping[int, str] = {}
    if spec.config is not None:
        special = _class_special_ids(spec.config, {t: i for i, t in enumerate(token_of) if t})
    shown = [t[:-2].encode("utf-8") if t.endswith("@@") else (t + " ").encode("utf-8") for t in token_of]
    skipped = [b"" if i in special else piece for i, piece in enumerate(shown)]
    tables = (_core.IdBytes(shown), _core.IdBytes(skipped))

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        text = str(tables[bool(skip_special_tokens)].join(ids).decode("utf-8"))
        last = next((i for i in reversed(ids) if not (skip_special_tokens and i in special)), None)
        if last is not None and token_of[last].endswith("@@"):
            text += "@@"
        return text.strip()

    return decode_ids


def _gpt_sw3_decode(native: Any, special: Mapping[int, str]) -> Any:
    """Decode as GPTSw3Tokenizer's convert_tokens_to_string (the option special_segments
    "gpt_sw3"): the text between special tokens as sentencepiece's decode, each special token's
    text after it, a space before the text before a special token that does not follow another
    (the first too), nothing stripped; one native call (decode_segments)."""
    native.set_segments(sorted(special.items()), "", " ")
    decode = native.decode_segments

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        return str(decode(ids, bool(skip_special_tokens)))

    return decode_ids


def _ctc_decode(token_of: Sequence[str], spec: PipelineSpec) -> Any:
    """Decode as Wav2Vec2CTCTokenizer's _decode (the option special_segments "wav2vec2"): the ids'
    tokens (the unknown token for an id without one), without the special tokens but the word
    delimiter where asked, repeats grouped into one, the pad token (CTC's blank) dropped, the
    delimiter written as replace_word_delimiter_char, joined and stripped; the ids read and
    joined natively (_core.RunJoin)."""
    config = spec.config
    named = dict(config.special_tokens) if config is not None else {}
    raw = config.config if config is not None else {}
    unk, pad = named.get("unk_token"), named.get("pad_token")
    delimiter = named.get("word_delimiter_token", "|")
    replacement = raw.get("replace_word_delimiter_char", " ")
    replacement = replacement if isinstance(replacement, str) else " "
    special = {*named.values(), *(config.extra_special_tokens if config is not None else ())} - {delimiter}
    none, blank = 2**32 - 1, 2**32 - 2  # (RunJoin's keys left out, and CTC's blank)
    texts: list[bytes] = []
    index: dict[str, int] = {}

    def key_of(token: str | None) -> int:
        if token is None:
            return none
        if token == pad:
            return blank
        if token not in index:
            index[token] = len(texts)
            texts.append((replacement if token == delimiter else token).encode("utf-8"))
        return index[token]

    # by id, the key of the token decode shows (the unknown token for an id without one, and past
    # the table), without and with skip_special_tokens
    shown = [t or unk for t in token_of]
    keys = [
        ([key_of(t) for t in shown], key_of(unk)),
        ([key_of(None if t in special else t) for t in shown], key_of(None if unk in special else unk)),
    ]
    joins = [_core.RunJoin(texts, table, far, none, blank) for table, far in keys]

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        if set(map(type, ids)) - {int}:
            ids = [_token_id(i) for i in ids]  # (a TypeError naming what is not an id)
        return str(joins[bool(skip_special_tokens)].join(ids).decode("utf-8")).strip()

    return decode_ids


def _bytes_decode(token_of: Sequence[str], spec: PipelineSpec) -> Any:
    """Decode as ByT5Tokenizer's convert_tokens_to_string (the option special_segments "byt5"):
    each added token's text (none for a special one with skip_special_tokens), each other token
    (one character, chr(byte)) as its byte, the whole read as UTF-8 with invalid bytes dropped
    (so bytes on both sides of a skipped special token join). The bytes are joined natively
    (_core.IdBytes); an id without a token is a ValueError, as the native decode's."""
    added = {t.id: (t.content.encode("utf-8"), t.special) for t in spec.added_tokens}
    size = max([len(token_of), *(i + 1 for i in added)])
    shown: list[bytes] = []
    for i in range(size):
        token = token_of[i] if i < len(token_of) else ""
        if i in added:
            shown.append(added[i][0])
        else:  # (a byte's token; any other is its text, which ByT5 has none of)
            shown.append(token.encode("latin-1") if len(token) == 1 and ord(token) < 256 else token.encode("utf-8"))
    skipped = [b"" if i in added and added[i][1] else piece for i, piece in enumerate(shown)]
    tables = (_core.IdBytes(shown), _core.IdBytes(skipped))

    def decode_ids(ids: Any, skip_special_tokens: bool) -> str:
        return str(tables[skip_special_tokens].join(ids).decode("utf-8", errors="ignore"))

    return decode_ids


# The Python classes whose decode is their own (the option special_segments' styles)
_PYTHON_CLASS_DECODES = {
    "M2M100Tokenizer": "m2m100",
    "SiglipTokenizer": "siglip",
    "Wav2Vec2CTCTokenizer": "wav2vec2",
    "ByT5Tokenizer": "byt5",
    "MarianTokenizer": "marian",
    "SpeechT5Tokenizer": "tokens",
    "BertGenerationTokenizer": "tokens",
    "BartphoTokenizer": "tokens",
    "PLBartTokenizer": "tokens",
    "GPTSw3Tokenizer": "gpt_sw3",
    "PhobertTokenizer": "fastbpe",
    "CTRLTokenizer": "fastbpe",
}
# The classes over fastBPE's "@@" tokens run here (Tokenizer._fast_bpe), and their files
FAST_BPE_CLASSES = {"PhobertTokenizer": ("vocab.txt", "bpe.codes"), "CTRLTokenizer": ("vocab.json", "merges.txt")}
# The classes on transformers' SentencePieceBackend run here (Tokenizer._spm_backend), and their file
SPM_BACKEND_CLASSES = {
    "SpeechT5Tokenizer": "spm_char.model",
    "BertGenerationTokenizer": "spiece.model",
    "BartphoTokenizer": "sentencepiece.bpe.model",  # (with dict.txt: its ids)
    "PLBartTokenizer": "sentencepiece.bpe.model",
    "GPTSw3Tokenizer": "spiece.model",
}
# GPTSw3Tokenizer's preprocess_text, which it runs on each text between special tokens before
# sentencepiece: its non-printing characters removed, its whitespace characters made spaces, NFC
_GPT_SW3_PREPROCESS = {
    "type": "Sequence",
    "normalizers": [
        {
            "type": "Replace",
            "pattern": {"Regex": "[\\x{0}-\\x{8}\\x{b}-\\x{1f}\\x{7f}-\\x{a0}\\x{ad}\\x{200b}]"},
            "content": "",
        },
        {
            "type": "Replace",
            "pattern": {"Regex": "[\\x{2002}\\x{2003}\\x{2005}\\x{2008}\\x{2009}\\x{200a}\\x{202f}\\x{3000}\\x{fffc}]"},
            "content": " ",
        },
        {"type": "NFC"},
    ],
}


def _python_spm_class(
    cls: type[Tokenizer],
    name: str,
    config: Any,
    config_path: str,
    model: Any,
    vocabulary: dict[str, int],
    unknown: str,
    source: str,
    options: Mapping[str, Any],
    added: tuple[AddedToken, ...] = (),
    late: Mapping[str, Any] | Callable[[Tokenizer, Any], dict[str, Any]] | None = None,
) -> Tokenizer:
    """A Python class over the sentencepiece library as the sentencepiece pipeline behind the
    class's vocabulary (`Tokenizer._marian`, `_m2m100`, `_spm_backend`): `model` with the options
    vocabulary, unknown_token and `options`, the class's added-token rules and decode
    (special_segments), the config's clean-up; then the tokens transformers adds and the class's
    template, with `late`'s options (or what it makes of the tokenizer) in the same rebuild.
    `source` and `config_path` (tokenizer_config.json) are named in errors."""
    settings = {"vocabulary": vocabulary, "unknown_token": unknown, **options}
    spec = PipelineSpec(model, added_tokens=added, options=settings)
    return _python_class(cls, name, config, config_path, spec, source, late)


def _python_class(
    cls: type[Tokenizer],
    name: str,
    config: Any,
    config_path: str,
    spec: PipelineSpec,
    source: str,
    late: Mapping[str, Any] | Callable[[Tokenizer, Any], dict[str, Any]] | None = None,
) -> Tokenizer:
    """A Python class of transformers (no tokenizers backend) as `spec` with the class's
    added-token rules and decode (special_segments) and the config's clean-up; then the tokens
    transformers adds and the class's template, with `late`'s options (or what it makes of the
    tokenizer) in the same rebuild (_python_spm_class, Tokenizer._fast_bpe)."""
    settings: dict[str, Any] = {
        "added_token_rules": "python",
        "special_segments": _PYTHON_CLASS_DECODES[name],
        **spec.options,
    }
    if config.clean_up_tokenization_spaces:
        settings["clean_up_tokenization_spaces"] = True
    config = dataclasses.replace(config, transformers_class=name)
    tok = cls.from_spec(dataclasses.replace(spec, options=settings, config=config), source=source)
    tokens = _tokens_transformers_adds(tok, config, config_path, [])
    if tokens:
        tok._add(tokens, special=False)
    extra = late(tok, config) if callable(late) else dict(late or {})
    _set_class_post_processor(tok, name, config, config_path, extra)
    return tok


def _m2m100_target_options(tok: Tokenizer, config: Any) -> dict[str, Any]:
    """M2M100Tokenizer's call encodes text_target with tgt_lang's template (its
    _switch_to_target_mode); without a tgt_lang it raises KeyError, as transformers: the option
    that says so, for _set_class_post_processor's rebuild."""
    from .formats.transformers_classes import m2m100_template

    tgt = config.config.get("tgt_lang")
    target: Any = "M2M100Tokenizer has no tgt_lang (tokenizer_config.json) to encode text_target with"
    if tgt is not None:
        try:
            target = m2m100_template(config.config, tgt, config.special_tokens, tok.token_to_id)
        except ValueError as e:
            target = str(e)
    return {} if target is None else {"text_target_post_processor": target}


def _plbart_target_options(tok: Tokenizer, config: Any) -> dict[str, Any]:
    """PLBartTokenizer's call encodes text_target with tgt_lang's template (its
    _switch_to_target_mode: the eos token, then tgt_lang's code where there is one): the option
    that says so, for _set_class_post_processor's rebuild."""
    from .formats.transformers_classes import converter, plbart_template

    convert = converter(tok.token_to_id, config.special_tokens)
    try:
        target: Any = plbart_template(config.config, config.config.get("tgt_lang"), config.special_tokens, convert)
    except ValueError as e:
        target = str(e)
    return {} if target is None else {"text_target_post_processor": target}


def _hub_ids(path: str) -> list[str]:
    """The hub id ("org/name") of a hub cache folder (models--org--name, or a snapshot in one)."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    return [p[len("models--") :].replace("--", "/", 1) for p in parts if p.startswith("models--")][-1:]


def _tokens_transformers_adds(tok: Tokenizer, config: Any, config_path: str, listed: list[Any]) -> list[AddedToken]:
    """The tokens transformers' TokenizersBackend.__init__ adds, in one add_tokens call, to a
    model folder's loaded tokenizer.json: the config's added_tokens_decoder (every entry, by key,
    so its flags replace the file's where they differ; without one, the legacy added_tokens.json's
    entries and the file's own added_tokens, `listed`), then each named special token
    (bos_token, ..., model-specific ones) and each extra_special_tokens entry whose text is
    neither an added token of the file nor of that decoder, once each. A string becomes a
    special AddedToken (not normalized); an AddedToken object keeps the flags it gives, and one
    that is not special but names a special token is made special (normalized, where it does not
    say, then false), as are decoder entries that name one. A text the vocabulary holds keeps
    its id, any other takes the next one."""
    named = [(name, config.added_special_tokens.get(name, text)) for name, text in config.special_tokens.items()]
    named_texts = {text for _, text in named if text}
    tokens = config_added_tokens(config.config, config_path, named_texts, listed, config.legacy_added_tokens)
    known = {a.content for a in tok._spec.added_tokens} | {a.content for a in tokens}
    queued: list[tuple[str, Mapping[str, bool] | None]] = []  # transformers' "not in tokens_to_add"
    candidates = [(text, config.special_token_flags.get(name)) for name, text in named]
    extras = list(zip(config.extra_special_tokens, config.extra_special_token_flags))
    candidates += extras[: len(extras) - config.late_extra_special_tokens]  # (the late ones are never added)
    for text, flags in candidates:
        # (transformers' "not in" compares AddedToken objects by content and flags, a flag left
        # out as its default: normalized = not special; a string equals only a string)
        if text in known or any(text == t and _resolved(flags) == _resolved(f) for t, f in queued):
            continue
        queued.append((text, flags))
    out = list(tokens)
    for text, flags in queued:
        if not text:  # HF skips an empty content
            continue
        given = dict(flags) if flags is not None else {"special": True}
        if not given["special"] and text in named_texts:
            given["special"] = True
        out.append(AddedToken(text, 0, **given))  # the id is the one adding gives it
    return out


def _resolved(flags: Mapping[str, bool] | None) -> tuple[bool, ...] | None:
    """An AddedToken object's flags (None for a string) with AddedToken's defaults filled in."""
    if flags is None:
        return None
    special = flags.get("special", False)
    defaults = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": not special}
    return (special, *(flags.get(f, d) for f, d in defaults.items()))


def _snapshot_folder(path: str) -> str:
    """`path`, or for a hub cache folder (models--org--name, with snapshots/ in it) the snapshot
    that refs/main names (the only one, where there is no ref)."""
    snapshots = os.path.join(path, "snapshots")
    if not os.path.isdir(snapshots):
        return path
    ref = os.path.join(path, "refs", "main")
    if os.path.isfile(ref):
        with open(ref, encoding="utf-8") as f:
            return os.path.join(snapshots, f.read().strip())
    found = sorted(os.listdir(snapshots))
    if len(found) != 1:
        raise FileNotFoundError(
            f"{path}: a hub cache folder with {len(found)} snapshots and no refs/main; give the snapshot folder"
        )
    return os.path.join(snapshots, found[0])
