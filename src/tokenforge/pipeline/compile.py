"""From a pipeline description to the native pipeline that runs it: the only module that knows
which native pipelines exist and which description each one runs.

The native pipelines (src/native/pipelines/): fused kernels, each one pass per text,
- "byte_level_bpe": a byte-level BPE `Encoding` (GPT-2, cl100k, o200k splits), over the
  Encoding's own native model;
- "tekken": Mistral's tekken model (models/tekken.py) on the same native pipeline, with bos/eos
  options and the Tekkenizer's special-token policy on decode;
- "wordpiece": a WordPiece model behind BERT's or llama.cpp WPM's normalizer and pre-tokenizer;
- "sentencepiece": a sentencepiece model (its normalizer, BPE or Unigram);
- "byte_level_hf_bpe": a byte-level BPE tokenizer.json (GPT-2, Llama 3, Qwen: HF's merges,
  a built-in scanner or Oniguruma for the split; pipeline/fused_hf_bpe.py says which files);
- "spm_hf_bpe": a sentencepiece-style BPE tokenizer.json (Llama 2, Mistral, Gemma: HF's merges
  with byte fallback behind Metaspace or Replace(" " -> "▁"); pipeline/fused_spm.py says which);
- "unigram_hf": a Unigram tokenizer.json (T5, ALBERT, XLNet: HF's Unigram behind Metaspace and a
  Precompiled-style normalizer; pipeline/fused_unigram.py says which);
- "no_vocab": a model without a vocabulary (models/no_vocab.py: a GGUF file of llama.cpp's
  no_vocab type), which loads and describes itself but refuses to encode or decode;
and "staged", the general one (pipelines/staged.h): any tokenizer.json pipeline stage by stage,
as HF tokenizers runs it, for what no fused kernel runs (pipeline/staged.py describes it). Where
both run a description they give the same rows (tests/test_pipeline.py checks). Added tokens
run in every kernel's split loop with HF's flags (added_tokens/special_matcher.h); tokens
matched by their normalized form behind a normalizer need the normalizer first, so such a file
runs staged. A description none of them runs is refused with the components it holds, never
approximated.

`build_kernel(spec)` returns a `Kernel`: the native object and what the one `Tokenizer` surface
needs to drive it (its special-token policy and defaults, token names, the components in
effect, the options it read). tokenizer.py does the rest: settings, encoding, decoding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _core
from ..arguments import _check_bool
from ..encoding import Encoding
from ..formats.sentencepiece_model import PieceType, SentencePieceModel
from ..models.no_vocab import NoVocab, NoVocabNative
from ..models.tekken import Tekken, special_token_policy
from ..models.wordpiece import WordPiece
from ..special import SpecialPolicy, SpecialSet
from .spec import PipelineSpec
from .staged import decode_special_ids, special_contents


@dataclass(frozen=True)
class Kernel:
    """One compiled pipeline."""

    name: str  # one of KERNELS
    native: Any  # the _core pipeline: encode, encode_batch, decode, settings
    policy: SpecialPolicy  # the special tokens that text may contain, by name
    # allowed_special and disallowed_special when not given: "all" and () as HF matches added
    # tokens, () and () as sentencepiece reads them as text, () and "all" as tiktoken refuses them.
    default_allowed: SpecialSet
    default_disallowed: SpecialSet
    default_added: _core.SpecialMatcher | None  # what the default policy matches
    token_of: list[str] | None  # token text by id ("" where none); None: native.token_names()
    # The components in effect where the kernel fills in one the description left out (the
    # WordPiece decoder, sentencepiece's normalizer and bos/eos template).
    parts: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # the options read, with defaults resolved
    extras: Mapping[str, Any] = field(default_factory=dict)  # kernel-specific attributes (bos_id, encoder)
    denormalize: Callable[[str], str] | None = None  # applied to decoded text
    # where the option clean_up_tokenization_spaces or clean_spaces is on: denormalize without
    # that whole-text clean-up (decode(clean_up_tokenization_spaces=False) of transformers_api.py,
    # and Tokenizer.decode_stream's text, which a later token's clean-up must not change)
    uncleaned_denormalize: Callable[[str], str] | None = None


# The native pipelines, and the options each reads from PipelineSpec.options.
OPTIONS = {
    "byte_level_bpe": frozenset(),
    "tekken": frozenset({"add_bos", "add_eos", "special_token_policy"}),
    "wordpiece": frozenset({"split_special_tokens", "added_token_rules"}),
    "sentencepiece": frozenset(
        {
            "add_bos",
            "add_eos",
            "vocabulary",
            "unknown_token",
            "leading_code",
            "decode_tokens",
            "split_special_tokens",
            "added_token_rules",
            "pre_normalizer",
        }
    ),
    "byte_level_hf_bpe": frozenset({"split_special_tokens", "trim_offsets", "added_token_rules"}),
    "spm_hf_bpe": frozenset({"split_special_tokens", "added_token_rules"}),
    "unigram_hf": frozenset({"split_special_tokens", "added_token_rules"}),
    "staged": frozenset({"split_special_tokens", "trim_offsets", "added_token_rules"}),
    "no_vocab": frozenset(),
}
KERNELS = tuple(OPTIONS)
# special_segments: how a Python class over sentencepiece joins the decoded text between
# special tokens with their text ("m2m100": M2M100Tokenizer's, nothing between; "siglip":
# SiglipTokenizer's, a space before a special token that follows text; the joined text stripped;
# "wav2vec2": Wav2Vec2CTCTokenizer's CTC decode of the tokens, tokenizer.py's _ctc_decode;
# "byt5": ByT5Tokenizer's bytes read as UTF-8, invalid ones dropped, tokenizer.py's _bytes_decode;
# "marian": MarianTokenizer's, a space after each special token, then every "▁" a space and the
# whole stripped; "tokens": SentencePieceBackend's, the tokens joined, "▁" a space, stripped;
# "gpt_sw3": GPTSw3Tokenizer's, a space before the text before a special token that does not
# follow another, nothing stripped; "fastbpe": PhobertTokenizer's, the tokens joined by spaces,
# "@@ " removed, stripped)
SPECIAL_SEGMENTS = ("m2m100", "siglip", "wav2vec2", "byt5", "marian", "tokens", "gpt_sw3", "fastbpe")


def _fused_wordpiece(spec: PipelineSpec) -> bool:
    from ..decoders.wordpiece import WordPieceDecoder, WpmDecoder
    from ..normalizers.bert import BertNormalizer, WpmNormalizer
    from ..pre_tokenizers.bert import BertPreTokenizer, WpmPreTokenizer

    return (
        isinstance(spec.model, WordPiece)
        and (spec.normalizer is None or isinstance(spec.normalizer, (BertNormalizer, WpmNormalizer)))
        and isinstance(spec.pre_tokenizer, (BertPreTokenizer, WpmPreTokenizer))
        # (no decoder: HF joins the tokens with spaces, which the staged pipeline does)
        and isinstance(spec.decoder, (WordPieceDecoder, WpmDecoder))
        and set(spec.options) <= OPTIONS["wordpiece"]
    )


def _staged_runs(spec: PipelineSpec) -> bool:
    """Whether every component has a tokenizer.json form (a record with to_json, or the dict)."""
    parts = (spec.model, spec.normalizer, spec.pre_tokenizer, spec.decoder)
    return all(p is None or isinstance(p, Mapping) or hasattr(p, "to_json") for p in parts)


def kernel_of(spec: PipelineSpec) -> str:
    """The name of the native pipeline that runs `spec`: the one it names, else a fused kernel
    where one fits ("byte_level_bpe", "wordpiece", "sentencepiece"), else "staged"; ValueError
    naming the components where none does."""
    if spec.kernel is not None:
        if spec.kernel not in KERNELS:
            raise ValueError(f"kernel {spec.kernel!r} is not one of {', '.join(KERNELS)}")
        return spec.kernel
    if isinstance(spec.model, Encoding):
        return "byte_level_bpe"
    if isinstance(spec.model, Tekken):
        return "tekken"
    if isinstance(spec.model, NoVocab):
        return "no_vocab"
    if isinstance(spec.model, SentencePieceModel):
        return "sentencepiece"
    if _fused_wordpiece(spec) and not _normalized_added(spec):
        return "wordpiece"
    if set(spec.options) <= OPTIONS["byte_level_hf_bpe"]:
        from .fused_hf_bpe import runs_fused

        # (normalized added tokens: only CLIP's files run fused with them, where the normalizer
        # leaves them as they are: fused_split says)

        # (an added token may name an id the model's tokens also have: the kernel shows those
        # tokens by the model's text, as HF does; runs_fused says where it cannot)
        if runs_fused(spec):
            return "byte_level_hf_bpe"
    if set(spec.options) <= OPTIONS["spm_hf_bpe"] and not _normalized_added(spec):
        from .fused_spm import runs_fused_spm

        if runs_fused_spm(spec):  # (hidden model tokens too, as byte_level_hf_bpe)
            return "spm_hf_bpe"
    if spec.added_extras is not None and spec.added_extras.hidden and spec.model is not None and _staged_runs(spec):
        # An added token names an id the model's tokens also have: the staged pipeline shows
        # those tokens by the model's text (pipelines/staged.h), as HF does (unigram_hf does
        # not; a Unigram vocabulary has no id gap, so its files never have such tokens).
        return "staged"
    if set(spec.options) <= OPTIONS["unigram_hf"] and not _normalized_added(spec):
        from .fused_unigram import runs_fused_unigram

        if runs_fused_unigram(spec):
            return "unigram_hf"
    if spec.model is not None and _staged_runs(spec):
        return "staged"
    parts = ", ".join(
        f"{stage} {type(part).__name__}"
        for stage, part in (
            ("normalizer", spec.normalizer),
            ("pre-tokenizer", spec.pre_tokenizer),
            ("model", spec.model),
        )
        if part is not None
    )
    raise ValueError(f"no native pipeline runs this tokenizer ({parts}) yet")


def build_kernel(spec: PipelineSpec) -> Kernel:
    """The native pipeline that runs `spec` (without its truncation and padding, which the
    surface applies); ValueError or TypeError for a description it cannot run. The option
    clean_spaces (any kernel; GGUF files' byte-level BPE sets it, as llama.cpp does) cleans
    decoded text as llama.cpp's detokenize does (`llama_clean_spaces`); the option
    clean_up_tokenization_spaces (any kernel; from_pretrained sets it as a model folder's config
    says, for the models transformers cleans) as transformers' decode does (`clean_up_tokenization`);
    the option strip_word_suffix (any kernel; from_pretrained sets "</w>" for CLIPTokenizer) as
    CLIPTokenizer's decode does: each suffix a space, then the text stripped; the option
    special_segments (any kernel; from_pretrained sets it for the Python classes transformers
    runs over the sentencepiece library, SPECIAL_SEGMENTS) as their convert_tokens_to_string
    does: the text between special tokens decoded on its own, joined with the special tokens'
    text (Tokenizer.decode reads it); the option text_target_post_processor (any kernel) the
    post-processor transformers' call gives text_target (M2M100Tokenizer's tgt_lang template),
    or the message of the error it raises there (transformers_api.py reads it)."""
    if "clean_spaces" in spec.options:
        from dataclasses import replace

        clean = _check_bool(spec.options["clean_spaces"], "clean_spaces")
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != "clean_spaces"}))
        if not clean:
            return replace(inner, options={**inner.options, "clean_spaces": False})
        before = inner.denormalize
        after = llama_clean_spaces if before is None else (lambda text: llama_clean_spaces(before(text)))
        options = {**inner.options, "clean_spaces": True}
        return replace(inner, denormalize=after, uncleaned_denormalize=before, options=options)
    if "clean_up_tokenization_spaces" in spec.options:
        from dataclasses import replace

        name = "clean_up_tokenization_spaces"
        clean = _check_bool(spec.options[name], name)
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != name}))
        if not clean:
            return replace(inner, options={**inner.options, name: False})
        first = inner.denormalize
        then = clean_up_tokenization if first is None else (lambda text: clean_up_tokenization(first(text)))
        return replace(inner, denormalize=then, uncleaned_denormalize=first, options={**inner.options, name: True})
    if "text_target_model" in spec.options:
        from dataclasses import replace

        name, target = "text_target_model", spec.options["text_target_model"]
        if not isinstance(target, SentencePieceModel):
            raise TypeError(f"{name} must be a SentencePieceModel (text_target's), got {type(target).__name__}")
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != name}))
        return replace(inner, options={**inner.options, name: target})
    if "text_target_post_processor" in spec.options:
        from dataclasses import replace

        name, target = "text_target_post_processor", spec.options["text_target_post_processor"]
        if not isinstance(target, (dict, str)):
            raise TypeError(f"{name} must be a post-processor (tokenizer.json's form) or a message, got {target!r}")
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != name}))
        return replace(inner, options={**inner.options, name: target})
    if "special_segments" in spec.options:
        from dataclasses import replace

        style = spec.options["special_segments"]
        if style not in SPECIAL_SEGMENTS:
            raise ValueError(f"special_segments must be one of {', '.join(map(repr, SPECIAL_SEGMENTS))}, got {style!r}")
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != "special_segments"}))
        return replace(inner, options={**inner.options, "special_segments": style})
    if "strip_word_suffix" in spec.options:
        from dataclasses import replace

        suffix = spec.options["strip_word_suffix"]
        if not isinstance(suffix, str) or not suffix:
            raise TypeError(f"strip_word_suffix must be a non-empty string, got {suffix!r}")
        inner = build_kernel(replace(spec, options={k: v for k, v in spec.options.items() if k != "strip_word_suffix"}))
        first = inner.denormalize

        def strip(text: str) -> str:
            return (first(text) if first is not None else text).replace(suffix, " ").strip()

        return replace(inner, denormalize=strip, options={**inner.options, "strip_word_suffix": suffix})
    kernel = kernel_of(spec)
    unknown = sorted(set(spec.options) - OPTIONS[kernel])
    if unknown:
        known = ", ".join(sorted(OPTIONS[kernel])) or "none"
        raise TypeError(f"{', '.join(unknown)}: not options of a {kernel} tokenizer (its options: {known})")
    if kernel == "byte_level_bpe":
        return _byte_level_bpe(spec)
    if kernel == "tekken":
        return _tekken(spec)
    if kernel == "wordpiece":
        return _wordpiece(spec)
    if kernel == "staged":
        return _staged(spec)
    if kernel == "byte_level_hf_bpe":
        return _byte_level_hf_bpe(spec)
    if kernel == "spm_hf_bpe":
        return _spm_hf_bpe(spec)
    if kernel == "unigram_hf":
        return _unigram_hf(spec)
    if kernel == "no_vocab":
        return _no_vocab(spec)
    return _sentencepiece(spec)


def llama_clean_spaces(text: str) -> str:
    """llama.cpp's clean-up of detokenized text (its `clean_spaces`, from HF's
    clean_up_tokenization_spaces), its three passes in order: the space before "?", "!", ".",
    "," removed; " ' " made "'" (left to right, a collapse's closing space not reused); the
    space before "'s", "'m", "'re", "'ve" removed (not before "'t", "'d", "'ll"). Each pass
    reads the text as the previous one left it, as llama.cpp's in-place loops do."""
    import re

    text = re.sub(r" (?=[?!.,])", "", text)
    text = text.replace(" ' ", "'")
    return re.sub(r" (?='(?:[sm]|re|ve))", "", text)


def clean_up_tokenization(text: str) -> str:
    """transformers' clean_up_tokenization of decoded text (a model folder's
    clean_up_tokenization_spaces): the space before ".", "?", "!", ",", " ' " made "'", and the
    space before "n't", "'m", "'s", "'ve", "'re" removed, each pass over the whole text in turn."""
    for before, after in _CLEAN_UPS:
        text = text.replace(before, after)
    return text


_CLEAN_UPS = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def set_template(native: Any, post: Any) -> None:
    """The post-processor's template on `native`; without one, the sequences as they are, B
    with type id 1, and one text without sequence ranges (HF's default_process)."""
    if post is not None:
        native.set_template(
            post.native_pieces(False),
            post.native_pieces(True),
            parts_typed=post.parts_typed,
            skip_present_special=post.skip_present_special,
        )
    else:
        native.set_template([(True, 0, 0, [])], [(True, 0, 0, []), (True, 1, 1, [])], default_process=True)


def _added_tokens_policy(
    spec: PipelineSpec, split_special: bool, patterns: dict[str, str] | None = None
) -> tuple[SpecialPolicy, Any]:
    """The special-token policy over a pipeline's added tokens, and what its default matches:
    every added token with its flags, as HF matches them (with split_special_tokens, the special
    ones are found but left as text, as HF's). `patterns`: a normalized token's normalized
    content, where the normalizer changes it. The option added_token_rules (special.py's
    ADDED_TOKEN_RULES; "hf" where absent) says how they are matched."""
    rules = spec.options.get("added_token_rules", "hf")
    policy = SpecialPolicy({a.content: a.id for a in spec.added_tokens}, spec.added_tokens, patterns, rules)
    matched = policy.names - special_contents(spec) if split_special else policy.names
    return policy, policy.allowed_matcher(frozenset(matched))


def _normalized_added(spec: PipelineSpec) -> bool:
    """Whether an added token is matched by its normalized form behind a normalizer, which only
    the staged pipeline runs (the fused kernels match tokens in the text as it is)."""
    return spec.normalizer is not None and any(a.normalized for a in spec.added_tokens)


def _check_post_processor(post: Any) -> None:
    from ..processors.template import TemplateProcessing

    if post is not None and not isinstance(post, TemplateProcessing):
        raise TypeError(f"post_processor must be a TemplateProcessing, got {type(post).__name__}")


# -- byte-level BPE ------------------------------------------------------------------------


def _byte_level_bpe(spec: PipelineSpec) -> Kernel:
    encoding: Encoding = spec.model
    if spec.normalizer is not None or spec.pre_tokenizer is not None or spec.decoder is not None or spec.added_tokens:
        raise ValueError("a byte-level BPE Encoding carries its own split and special tokens: give the model alone")
    if not encoding._core.has_scanner:
        raise ValueError(
            f"{encoding.name}: its split pattern has no native scanner, so it runs only as an Encoding "
            "(Encoding.encode splits with the regex module); a Tokenizer needs GPT-2's, cl100k's or "
            "o200k's pattern"
        )
    _check_post_processor(spec.post_processor)
    native = _core.ByteLevelBpe(encoding._core)
    set_template(native, spec.post_processor)
    return Kernel(
        "byte_level_bpe",
        native,
        encoding._policy,
        (),
        "all",
        None,
        None,
        parts={"post_processor": spec.post_processor},
        extras={"encoding": encoding},
    )


# -- tekken --------------------------------------------------------------------------------


class TekkenNative:
    """The byte-level BPE pipeline of a tekken model, encoding and decoding as mistral-common's
    Tekkenizer: special-token text is plain text unless allowed_special names it (the native
    pipeline's own default refuses it, as tiktoken's), and decode takes special ids (below
    num_special) by the policy ("ignore" drops them, "keep" writes their text, "raise" refuses
    them), each run of ordinary ids decoded on its own. Everything else is the wrapped native
    pipeline's."""

    def __init__(self, native: Any, special_tokens: tuple[str, ...], policy: str) -> None:
        self._native = native
        self._special = special_tokens
        self._policy = policy

    def __getattr__(self, name: str) -> Any:
        return getattr(self._native, name)

    def encode(
        self,
        sequence: Any,
        pair: Any = None,
        add_special_tokens: Any = True,
        *,
        allowed_special: SpecialSet = (),
        disallowed_special: SpecialSet = (),
        is_pretokenized: Any = False,
    ) -> Any:
        """Tokenizer.encode: one text (and a pair), special-token text plain unless allowed."""
        return self._native.encode(
            sequence,
            pair,
            add_special_tokens,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            is_pretokenized=is_pretokenized,
        )

    def decode(self, ids: Any, skip_special_tokens: bool) -> str:
        n = len(self._special)
        if not ids or min(ids) >= n:  # no special id: one run (min raises TypeError on non-integers)
            return self._native.decode(ids, True)  # type: ignore[no-any-return]
        policy = self._policy if skip_special_tokens else "keep"
        parts: list[str] = []
        run: list[int] = []
        for i in ids:
            if 0 <= i < n:
                if run:
                    parts.append(self._native.decode(run, True))
                    run = []
                if policy == "keep":
                    parts.append(self._special[i])
                elif policy == "raise":
                    raise ValueError(
                        f"special token id {i} ({self._special[i]!r}) in ids to decode, and the special token "
                        "policy is 'raise'; set the tokenizer's special_token_policy to 'ignore' or 'keep', or "
                        "decode with skip_special_tokens=False"
                    )
            else:
                run.append(i)
        if run:
            parts.append(self._native.decode(run, True))
        return "".join(parts)


def _tekken(spec: PipelineSpec) -> Kernel:
    if spec.normalizer is not None or spec.pre_tokenizer is not None or spec.decoder is not None or spec.added_tokens:
        raise ValueError("a tekken model carries its own split and special tokens: give the model alone")
    if spec.post_processor is not None:
        raise ValueError("a tekken tokenizer's template is made from its add_bos and add_eos options")
    model: Tekken = spec.model
    encoding = model.encoding
    if not encoding._core.has_scanner:
        raise ValueError(
            f"{model.name}: its pattern has no native scanner (tekken's own pattern has one); pattern {model.pattern!r}"
        )
    bos_id, eos_id = model.bos_id, model.eos_id
    add_bos = spec.options.get("add_bos")
    add_bos = bos_id is not None if add_bos is None else _check_bool(add_bos, "add_bos")
    add_eos = _check_bool(spec.options.get("add_eos", False), "add_eos")
    if add_bos and bos_id is None:
        raise ValueError("this tekken model has no <s> special token for add_bos")
    if add_eos and eos_id is None:
        raise ValueError("this tekken model has no </s> special token for add_eos")
    policy = special_token_policy(spec.options.get("special_token_policy", "ignore"))
    names = model.special_tokens
    post = model.template(add_bos, add_eos)
    native = _core.ByteLevelBpe(encoding._core, plain_text=True)
    set_template(native, post)
    return Kernel(
        "tekken",
        TekkenNative(native, names, policy),
        encoding._policy,
        (),
        (),
        None,
        None,
        parts={"post_processor": post},
        options={"add_bos": add_bos, "add_eos": add_eos, "special_token_policy": policy},
        extras={
            "encoding": encoding,
            "tekken": model,
            "bos_id": bos_id,
            "eos_id": eos_id,
            "pad_id": model.pad_id,
            "unk_id": model.unk_id,
            "version": model.version,
            "num_special_tokens": model.num_special_tokens,
        },
    )


# -- WordPiece -----------------------------------------------------------------------------


def _wordpiece(spec: PipelineSpec) -> Kernel:
    from ..decoders.wordpiece import WordPieceDecoder, WpmDecoder
    from ..normalizers.bert import BertNormalizer, WpmNormalizer
    from ..pre_tokenizers.bert import BertPreTokenizer, WpmPreTokenizer

    model: WordPiece = spec.model
    wpm = isinstance(spec.normalizer, WpmNormalizer)
    if wpm != isinstance(spec.pre_tokenizer, WpmPreTokenizer):
        raise ValueError("WpmNormalizer and WpmPreTokenizer only work together (llama.cpp's WPM preprocessing)")
    if not wpm and not isinstance(spec.pre_tokenizer, BertPreTokenizer):
        raise ValueError(f"pre_tokenizer must be BertPreTokenizer (or WpmPreTokenizer), got {spec.pre_tokenizer!r}")
    if spec.normalizer is not None and not isinstance(spec.normalizer, (BertNormalizer, WpmNormalizer)):
        raise TypeError(f"normalizer must be a BertNormalizer or WpmNormalizer, got {type(spec.normalizer).__name__}")
    _check_post_processor(spec.post_processor)
    decoder = spec.decoder
    if decoder is not None and not isinstance(decoder, (WordPieceDecoder, WpmDecoder)):
        raise TypeError(f"decoder must be a WordPieceDecoder or WpmDecoder, got {type(decoder).__name__}")
    decoder = decoder or (WpmDecoder() if wpm else WordPieceDecoder(model.continuing_subword_prefix))
    split_special = _check_bool(spec.options.get("split_special_tokens", False), "split_special_tokens")

    token_of = list(model.tokens)
    for added in spec.added_tokens:
        if added.id >= len(token_of):
            token_of += [""] * (added.id + 1 - len(token_of))
        elif token_of[added.id] and token_of[added.id] != added.content:
            raise ValueError(
                f"added token {added.content!r} has id {added.id}, which the vocabulary gives to {token_of[added.id]!r}"
            )
        token_of[added.id] = added.content
    policy, default_added = _added_tokens_policy(spec, split_special)
    special_ids = decode_special_ids(spec, token_of)

    rules = (spec.normalizer or BertNormalizer(False, False, False, False)).text_rules()
    native = _core.WordPiece(
        model.tokens,
        model.vocab[model.unk_token],
        model.continuing_subword_prefix,
        model.word_prefix,
        model.word_length_limit,
        rules,
        token_of,
    )
    set_template(native, spec.post_processor)
    if isinstance(decoder, WpmDecoder):
        native.set_decoder(True, "", False, special_ids)
    else:
        native.set_decoder(False, decoder.prefix, decoder.cleanup, special_ids)
    return Kernel(
        "wordpiece",
        native,
        policy,
        "all",
        (),
        default_added,
        token_of,
        parts={"decoder": decoder},
        options=_json_kernel_options(spec, split_special, None),
    )


# -- sentencepiece -------------------------------------------------------------------------


def _sentencepiece(spec: PipelineSpec) -> Kernel:
    from ..models.sentencepiece import SentencePieceModelEncoder
    from ..normalizers.sentencepiece import SentencePieceNormalizer
    from ..processors.template import Piece, TemplateProcessing

    if spec.normalizer is not None or spec.pre_tokenizer is not None or spec.decoder is not None:
        raise ValueError("a sentencepiece model carries its own normalizer and pieces: give the model alone")
    if "vocabulary" in spec.options:
        return _spm_with_vocabulary(spec)
    if spec.added_tokens:
        raise ValueError(
            "a sentencepiece model carries its own pieces: added tokens need the option vocabulary (the ids "
            "they and the pieces have)"
        )
    extra = sorted(set(spec.options) - {"add_bos", "add_eos"})
    if extra:
        raise TypeError(f"{', '.join(extra)}: options of a sentencepiece tokenizer with the option vocabulary only")
    if spec.post_processor is not None:
        raise ValueError("a sentencepiece tokenizer's template is made from its add_bos and add_eos options")
    model: SentencePieceModel = spec.model
    encoder = SentencePieceModelEncoder(model)
    pieces = list(encoder.pieces)
    trainer, normalizer_spec, denormalizer = model.trainer_spec, model.normalizer_spec, model.denormalizer_spec
    special_types = {PieceType.CONTROL, PieceType.UNKNOWN}
    policy = SpecialPolicy({p.piece: i for i, p in enumerate(model.pieces) if p.type in special_types})

    def control_id(piece: str) -> int | None:
        # The ids sentencepiece reports (bos_id(), ...): the named piece if it is a control piece.
        found = pieces.index(piece) if piece in pieces else None
        return found if found is not None and model.pieces[found].type == PieceType.CONTROL else None

    bos_id, eos_id, pad_id = (control_id(trainer[f"{k}_piece"]) for k in ("bos", "eos", "pad"))
    add_bos = spec.options.get("add_bos")
    add_bos = bos_id is not None if add_bos is None else _check_bool(add_bos, "add_bos")
    add_eos = _check_bool(spec.options.get("add_eos", False), "add_eos")
    if add_bos and bos_id is None:
        raise ValueError("this model has no bos piece (a control piece named by its bos_piece)")
    if add_eos and eos_id is None:
        raise ValueError("this model has no eos piece (a control piece named by its eos_piece)")

    def around(sequence: int) -> list[Piece]:
        bos = [(False, 0, sequence, pieces[bos_id])] if add_bos and bos_id is not None else []
        eos = [(False, 0, sequence, pieces[eos_id])] if add_eos and eos_id is not None else []
        return [*bos, (True, sequence, sequence, ""), *eos]

    post = TemplateProcessing(
        tuple(around(0)), tuple(around(0) + around(1)), {pieces[i]: [i] for i in (bos_id, eos_id) if i is not None}
    )
    native = _core.SpmTokenizer(
        encoder.normalizer._native,
        encoder._native,
        trainer["unk_surface"],
        normalizer_spec["add_dummy_prefix"],
        normalizer_spec["remove_extra_whitespaces"],
    )
    set_template(native, post)
    denormalize = (
        SentencePieceNormalizer.from_spec(denormalizer).normalize
        if denormalizer is not None and denormalizer["precompiled_charsmap"]
        else None
    )
    return Kernel(
        "sentencepiece",
        native,
        policy,
        (),
        (),
        None,
        pieces,
        parts={"normalizer": encoder.normalizer, "post_processor": post},
        options={"add_bos": add_bos, "add_eos": add_eos},
        extras={"encoder": encoder, "bos_id": bos_id, "eos_id": eos_id, "pad_id": pad_id},
        denormalize=denormalize,
    )


def _spm_with_vocabulary(spec: PipelineSpec) -> Kernel:
    """A sentencepiece model behind a vocabulary of its class's own, as transformers'
    MarianTokenizer runs one over vocab.json (options: vocabulary, token -> id; unknown_token,
    whose id a piece the vocabulary lacks gets; leading_code: a text's ">>xx<<" first as one
    token, MarianTokenizer's remove_language_code, between added tokens too). Each text
    between the added tokens (matched by default, as transformers matches them) is encoded as
    sentencepiece encodes it, each piece then given the vocabulary's id of its text (a run of
    characters the model lacks: of the normalized run, sentencepiece's piece for it); the
    template is the post-processor's. Decode (special_segments) reads each id's token as sentencepiece's
    decode_pieces does: the model's piece of that name, else the token's own text; an id the
    vocabulary lacks is the model's piece of that id (transformers' IdToPiece). pre_normalizer:
    a tokenizer.json normalizer that rewrites each such text before sentencepiece reads it
    (GPTSw3Tokenizer's preprocess_text), offsets mapped back through it."""
    from collections.abc import Mapping as MappingType

    from ..models.sentencepiece import SentencePieceModelEncoder
    from .staged import stage_components

    model: SentencePieceModel = spec.model
    _check_post_processor(spec.post_processor)
    vocabulary = spec.options["vocabulary"]
    if not isinstance(vocabulary, MappingType) or not all(
        isinstance(t, str) and type(i) is int and i >= 0 for t, i in vocabulary.items()
    ):
        raise TypeError("vocabulary must be a mapping of token -> id (non-negative ints), as vocab.json holds one")
    if not vocabulary:
        raise ValueError("vocabulary is empty")
    unknown = spec.options.get("unknown_token", "<unk>")
    if unknown not in vocabulary:
        raise ValueError(f"the unknown token {unknown!r} is not in the vocabulary")
    leading_code = _check_bool(spec.options.get("leading_code", False), "leading_code")
    # decode_tokens: each token's text written as it is (transformers' SentencePieceBackend joins
    # the tokens), not read as the model's piece (sentencepiece's decode_pieces, MarianTokenizer's)
    decode_tokens = _check_bool(spec.options.get("decode_tokens", False), "decode_tokens")
    split_special = _check_bool(spec.options.get("split_special_tokens", False), "split_special_tokens")
    pieces = [p.piece for p in model.pieces]
    size = max([*vocabulary.values(), *(a.id for a in spec.added_tokens)]) + 1
    if size > 4 * (len(vocabulary) + len(spec.added_tokens)) + 1024:
        # (ids are a table: one far past the others would make it as large)
        raise ValueError(
            f"vocabulary: id {size - 1} is far past its {len(vocabulary)} tokens; ids should run from 0 without "
            "large gaps"
        )
    token_of = [""] * size
    for token, i in vocabulary.items():
        token_of[i] = token  # (an id listed twice: its last token, as the class's decoder dict)
    listed = set(vocabulary.values())
    for i in range(min(size, len(pieces))):
        if i not in listed:
            token_of[i] = pieces[i]  # (the model's piece of an id the vocabulary lacks)
    for added in spec.added_tokens:
        if token_of[added.id] and token_of[added.id] != added.content:
            raise ValueError(
                f"added token {added.content!r} has id {added.id}, which the vocabulary gives to {token_of[added.id]!r}"
            )
        token_of[added.id] = added.content
    unknown_id = vocabulary[unknown]
    ids = [vocabulary.get(p, unknown_id) for p in pieces]
    # decode: each token as the model's piece of that name, else written as it is (past the model's ids)
    by_piece: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        by_piece.setdefault(piece, i)
    raw: list[str] = []
    decode_ids = []
    for token in token_of:
        found = None if decode_tokens else by_piece.get(token)
        if found is None:
            found = len(pieces) + len(raw)
            raw.append(token)
        decode_ids.append(found)
    encoder = SentencePieceModelEncoder(model)
    normalizer_spec = model.normalizer_spec
    native = _core.SpmTokenizer(
        encoder.normalizer._native,
        encoder._native,
        model.trainer_spec["unk_surface"],
        normalizer_spec["add_dummy_prefix"],
        normalizer_spec["remove_extra_whitespaces"],
        names=token_of,
        ids=ids,
        vocabulary=dict(vocabulary),
        unknown=unknown_id,
        leading_code=leading_code,
        decode_ids=decode_ids,
        raw=raw,
        pre_normalizer=stage_components(spec.options.get("pre_normalizer"), "normalizer") or None,
    )
    set_template(native, spec.post_processor)
    policy, default_added = _added_tokens_policy(spec, split_special)
    options = {k: v for k, v in spec.options.items() if k != "vocabulary"}
    options["vocabulary"] = dict(vocabulary)
    return Kernel(
        "sentencepiece",
        native,
        policy,
        "all",
        (),
        default_added,
        token_of,
        parts={"normalizer": encoder.normalizer, "post_processor": spec.post_processor},
        options={
            **options,
            "split_special_tokens": split_special,
            "leading_code": leading_code,
            "decode_tokens": decode_tokens,
        },
        # (MarianTokenizer's supported_language_codes: vocab.json's >>xx<< tokens, in its order)
        extras={
            "encoder": encoder,
            **({"supported_language_codes": [t for t in vocabulary if _is_code(t)]} if leading_code else {}),
        },
    )


def _is_code(token: str) -> bool:
    return token.startswith(">>") and token.endswith("<<")


# -- the staged pipeline ---------------------------------------------------------------------


def _staged(spec: PipelineSpec) -> Kernel:
    from .staged import staged_description

    if not _staged_runs(spec):
        raise ValueError("the staged pipeline runs tokenizer.json components: every part needs a to_json() form")
    _check_post_processor(spec.post_processor)
    split_special = _check_bool(spec.options.get("split_special_tokens", False), "split_special_tokens")
    trim = _trim_offsets(spec)
    description = staged_description(spec)

    def build() -> Any:
        return _core.Staged(**description, **_trim_arguments(trim))

    native = build()
    # A normalized token is matched, named and decoded by its normalized content (HF's
    # normalized_cache); a special one so changed is no longer skipped by decode, as in HF.
    # A token once added normalized, now not, keeps that name but is matched as it is (HF's).
    renamed = spec.added_extras.renamed if spec.added_extras is not None else frozenset()
    named = {a.content: native.normalize(a.content) for a in spec.added_tokens if a.normalized or a.content in renamed}
    named = {k: v for k, v in named.items() if v != k}
    patterns = {k: v for k, v in named.items() if k not in renamed}
    if named:
        names = list(description["names"])
        for a in spec.added_tokens:
            if a.content in named:
                names[a.id] = named[a.content]
        description = {**description, "names": names, "special_ids": decode_special_ids(spec, names)}
        native = build()
    set_template(native, spec.post_processor)
    policy, default_added = _added_tokens_policy(spec, split_special, patterns)
    return Kernel(
        "staged",
        native,
        policy,
        "all",
        (),
        default_added,
        description["names"],
        options=_json_kernel_options(spec, split_special, trim),
    )


def _trim_offsets(spec: PipelineSpec) -> dict[str, Any] | None:
    """The option trim_offsets (the ByteLevel or RobertaProcessing post-processor's, read from the
    file): {"add_prefix_space": bool}, or None where offsets are not trimmed."""
    trim = spec.options.get("trim_offsets")
    if trim is not None and not (isinstance(trim, dict) and set(trim) == {"add_prefix_space"}):
        raise ValueError(f"option trim_offsets must be {{'add_prefix_space': bool}} or None, got {trim!r}")
    return trim


def _json_kernel_options(spec: PipelineSpec, split_special: bool, trim: dict[str, Any] | None) -> dict[str, Any]:
    """A tokenizer.json kernel's options as it runs them (Kernel.options): added_token_rules
    where the spec sets it (checked by _added_tokens_policy)."""
    rules = {"added_token_rules": spec.options["added_token_rules"]} if "added_token_rules" in spec.options else {}
    return {"split_special_tokens": split_special, **({"trim_offsets": trim} if trim is not None else {}), **rules}


def _trim_arguments(trim: dict[str, Any] | None) -> dict[str, Any]:
    """The native pipelines' keyword arguments for the option trim_offsets (none where it is off)."""
    if trim is None:
        return {}
    return {
        "trim_offsets": True,
        "trim_add_prefix_space": _check_bool(trim["add_prefix_space"], "trim_offsets.add_prefix_space"),
    }


# -- byte-level BPE tokenizer.json files ---------------------------------------------------


def _byte_level_hf_bpe(spec: PipelineSpec) -> Kernel:
    from .fused_hf_bpe import fused_description

    return _fused_json_kernel(spec, "byte_level_hf_bpe", fused_description, _core.ByteLevelHfBpe, "byte-level BPE")


def _fused_json_kernel(
    spec: PipelineSpec,
    name: str,
    describe: Callable[[PipelineSpec], dict[str, Any] | None],
    native_class: Any,
    shape: str,
) -> Kernel:
    """A fused kernel for a tokenizer.json file: `describe(spec)` (None: the file is not of the
    kernel's shape) gives the arguments of `native_class`; template and added tokens as the staged
    kernel has them."""
    _check_post_processor(spec.post_processor)
    split_special = _check_bool(spec.options.get("split_special_tokens", False), "split_special_tokens")
    trim = _trim_offsets(spec)  # (only kernels whose OPTIONS have it see it)
    description = describe(spec)
    if description is None:
        raise ValueError(f"not a {shape} tokenizer.json of the shape the fused kernel runs (use the staged one)")
    native = native_class(**description, **_trim_arguments(trim))
    set_template(native, spec.post_processor)
    policy, default_added = _added_tokens_policy(spec, split_special)
    return Kernel(
        name,
        native,
        policy,
        "all",
        (),
        default_added,
        description["names"],
        options=_json_kernel_options(spec, split_special, trim),
    )


# -- sentencepiece-style BPE tokenizer.json files --------------------------------------------


def _spm_hf_bpe(spec: PipelineSpec) -> Kernel:
    from .fused_spm import fused_spm_description

    return _fused_json_kernel(spec, "spm_hf_bpe", fused_spm_description, _core.SpmHfBpe, "sentencepiece-style BPE")


# -- Unigram tokenizer.json files --------------------------------------------------------------


def _unigram_hf(spec: PipelineSpec) -> Kernel:
    from .fused_unigram import fused_unigram_description

    if _normalized_added(spec):
        raise ValueError("added tokens matched by their normalized form need the staged kernel")
    return _fused_json_kernel(spec, "unigram_hf", fused_unigram_description, _core.UnigramHf, "Unigram")


# -- no vocabulary -------------------------------------------------------------------------------


def _no_vocab(spec: PipelineSpec) -> Kernel:
    model: NoVocab = spec.model
    if not isinstance(model, NoVocab):
        raise ValueError(f"the no_vocab kernel runs a NoVocab model, got {type(model).__name__}")
    if (
        spec.normalizer is not None
        or spec.pre_tokenizer is not None
        or spec.decoder is not None
        or spec.post_processor is not None
        or spec.added_tokens
    ):
        raise ValueError("a tokenizer without a vocabulary has no other components: give the model alone")
    return Kernel("no_vocab", NoVocabNative(model), SpecialPolicy({}), (), (), None, [])
