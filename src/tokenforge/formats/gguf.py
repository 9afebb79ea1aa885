"""The tokenizer inside a GGUF model file (llama.cpp's format): its `tokenizer.ggml.*` metadata,
read as llama.cpp reads it (src/llama-vocab.cpp, `llama_vocab::impl::load` and `tokenize`).

`tokenizer.ggml.model`:
- "bert": llama.cpp's WPM (pipeline.presets.wpm; the vocabulary in its "▁"-prefixed form), with
  the unknown, CLS (`cls_token_id`, or as older converters store it, `bos_token_id`) and SEP ids;
- "gpt2" (and "gemma4"): BPE by merge rank over the split of `tokenizer.ggml.pre`, byte-level
  (gemma4: spaces as "▁" and <0xXX> byte tokens), as a tokenizer.json pipeline, so it runs on the
  same fused kernels as the family's tokenizer.json; the pre names are data (gguf_pre.py);
- "llama": llama.cpp's SPM (sentencepiece's BPE by scores, <0xXX> byte fallback, a dummy prefix
  "▁" per text fragment) as sentencepiece-style BPE whose merges are every split of a token into
  two tokens, ranked by the token's score (the fused spm_hf_bpe kernel);
- "t5": llama.cpp's UGM, a sentencepiece Unigram model made from the metadata (the precompiled
  charsmap, add_space_prefix, remove_extra_whitespaces), on the sentencepiece kernel.
- "rwkv": the longest token at each position over the tokens' unescaped bytes (WordPiece's
  longest match over byte-level characters, on the staged pipeline);
- "plamo2": the least-cost cut of llama.cpp's PLaMo-2 tokenizer (the GgufPlamo2 model);
- "no_vocab" (or "none"): a model without a vocabulary (models/no_vocab.py): it loads, with no
  tokens, and refuses to encode or decode.
Others ("hybriddna", ...) are refused with their name. Byte-level BPE files decode
with llama.cpp's clean_spaces where its pre name leaves it on (the kernel option clean_spaces).

Token types make the special-token partition: control and unknown tokens are special added
tokens (matched in text only when allowed: llama.cpp's parse_special), user-defined ones are
always matched, none normalized; llama.cpp's text-based fixes and its per-model lstrip/rstrip
are applied first (`_Vocab.fix_attributes`). add_bos_token / add_eos_token and each type's
defaults give the template.

The metadata is read here, not with the gguf package: its reader trusts the counts a file
states (a damaged array length makes it loop, allocating, for as long as memory lasts) and
raises IndexError, UnicodeDecodeError and the like from inside on damaged bytes. This reader
reads only the header and the key-value section (never the tensors), checks every count and
length against the bytes that are left, and reports each problem as a FormatError naming the
file and the key; each value is then checked for its kind (a string, a list of distinct
non-empty strings, ids inside the token list) before the tokenizer is built.
"""

from __future__ import annotations

import mmap
import os
import struct
from itertools import compress
from typing import TYPE_CHECKING, Any

from .validation import FormatError

if TYPE_CHECKING:
    from ..added_tokens import AddedToken
    from ..pipeline.spec import PipelineSpec

_PREFIX = "tokenizer.ggml."
# Keys outside tokenizer.ggml.* that llama.cpp reads for the tokenizer (per-model token attributes).
_GENERAL = ("general.name", "general.architecture")
_VERSIONS = (2, 3)  # what llama.cpp writes (and the gguf package reads)
_MAX_DEPTH = 8  # arrays of arrays: deeper is corrupt
# value type -> struct code of a scalar (8: string, 9: array)
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_INTEGERS = frozenset({0, 1, 2, 3, 4, 5, 10, 11})
_NUMBERS = _INTEGERS | {6, 12}


class _Reader:
    """Bounds-checked reads from a GGUF file's bytes, in its byte order."""

    def __init__(self, path: str, data: Any, order: str) -> None:
        self.path, self.data, self.order, self.pos = path, data, order, 0
        # The raw bytes of the kept string arrays, by key: (bytes, count), for the native passes
        # over a whole vocabulary (formats/gguf_vocab.h) that need no Python strings.
        self.raw: dict[str, tuple[bytes, int]] = {}
        # The item type of each kept array, by key: a list read from an array of one scalar type
        # or of strings needs no check of its items' Python types afterwards.
        self.kinds: dict[str, int] = {}

    def fail(self, where: str, message: str) -> FormatError:
        return FormatError(self.path, where, message)

    def take(self, n: int, where: str) -> int:
        start = self.pos
        if n < 0 or n > len(self.data) - start:
            raise self.fail(where, f"needs {n} bytes at byte {start}, past the end of the file (truncated?)")
        self.pos = start + n
        return start

    def scalar(self, code: str, where: str) -> Any:
        size = struct.calcsize(code)
        return struct.unpack_from(self.order + code, self.data, self.take(size, where))[0]

    def string(self, where: str, keep: bool = True) -> str | None:
        n = self.scalar("Q", where)
        start = self.take(n, where)
        if not keep:
            return None
        try:
            return bytes(self.data[start : start + n]).decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(where, f"a string that is not UTF-8 (byte {start + e.start})") from None

    def strings(self, count: int, where: str, keep: bool) -> list[str] | None:
        """An array of `count` strings (a vocabulary, its merges), read natively
        (formats/gguf_strings.h) with the same checks."""
        from .. import _core

        start = self.pos
        try:
            strings, self.pos = _core.gguf_strings(self.data, self.pos, count, self.order == ">", keep)
        except ValueError as e:
            raise self.fail(where, str(e)) from None
        if keep:
            self.raw[where] = (bytes(self.data[start : self.pos]), count)
        return strings

    def value(self, kind: int, where: str, keep: bool, depth: int = 0) -> Any:
        if kind in _SCALARS:
            value = self.scalar(_SCALARS[kind], where)
            return value if keep else None
        if kind == _STRING:
            return self.string(where, keep)
        if kind != _ARRAY:
            raise self.fail(where, f"unknown value type {kind} (corrupt file?)")
        if depth >= _MAX_DEPTH:
            raise self.fail(where, "arrays nested too deeply (corrupt file?)")
        item = self.scalar("I", where)
        count = self.scalar("Q", where)
        left = len(self.data) - self.pos
        if item in _SCALARS:
            size = struct.calcsize(_SCALARS[item])
            if count > left // size:
                raise self.fail(where, f"an array of {count} items cannot fit in the {left} bytes left (truncated?)")
            start = self.take(count * size, where)
            if not keep:
                return None
            self.kinds[where] = item
            return list(struct.unpack_from(f"{self.order}{count}{_SCALARS[item]}", self.data, start))
        if item not in (_STRING, _ARRAY):
            raise self.fail(where, f"an array of unknown value type {item} (corrupt file?)")
        if count > left // 8:  # every string or array item takes 8 bytes at least
            raise self.fail(where, f"an array of {count} items cannot fit in the {left} bytes left (truncated?)")
        if item == _STRING:
            self.kinds[where] = item
            return self.strings(count, where, keep)
        items = [self.value(item, where, keep, depth + 1) for _ in range(count)]
        return items if keep else None


def read_gguf_tokenizer_fields(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file's tokenizer.ggml.* metadata (and general.name / general.architecture), as Python
    values (str, int, float, bool, lists)."""
    return _load(path)[0]


def _load(path: str | os.PathLike[str]) -> tuple[dict[str, Any], _Reader]:
    """The fields, and the reader (its raw string arrays and byte order)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 24:
            raise FormatError(path, "", f"not a readable GGUF file ({size} bytes, shorter than a GGUF header)")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            fields, reader = _read_fields(path, data)
            reader.data = b""  # the mapping closes here
            return fields, reader


def _read_fields(path: str, data: Any) -> tuple[dict[str, Any], _Reader]:
    if bytes(data[:4]) != b"GGUF":
        raise FormatError(path, "", "not a readable GGUF file (it does not start with b'GGUF')")
    version = struct.unpack_from("<I", data, 4)[0]
    order = "<"
    if version & 0xFFFF == 0:  # a file written on a big-endian machine
        order, version = ">", struct.unpack_from(">I", data, 4)[0]
    if version not in _VERSIONS:
        raise FormatError(path, "", f"not a readable GGUF file (version {version}; versions 2 and 3 are read)")
    reader = _Reader(path, data, order)
    reader.pos = 8
    reader.scalar("Q", "header")  # tensor count: the tensors are not read
    count = reader.scalar("Q", "header")
    if count > (len(data) - reader.pos) // 12:  # a key (8 + 1 bytes at least), a type (4)
        raise FormatError(path, "header", f"{count} metadata entries cannot fit in the file (corrupt header?)")
    fields: dict[str, Any] = {}
    for i in range(count):
        key = reader.string(f"metadata entry {i}")
        assert key is not None
        where = key if key.isprintable() and len(key) < 200 else f"metadata entry {i}"
        kind = reader.scalar("I", where)
        keep = key.startswith(_PREFIX) or key in _GENERAL
        value = reader.value(kind, where, keep)
        if keep:
            if key in fields:
                raise FormatError(path, where, "appears twice")
            fields[key] = value
    return fields, reader


# -- llama.cpp's vocabulary ----------------------------------------------------------------

# tokenizer.ggml.token_type values, and the attribute bits llama.cpp turns them into.
_TYPE_ATTR = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}
_EOG_TEXTS = frozenset(
    {
        "<|eot_id|>",
        "<|im_end|>",
        "<|end|>",
        "<|return|>",
        "<|call|>",
        "<|flush|>",
        "<|calls|>",
        "<end_of_turn>",
        "<|endoftext|>",
        "</s>",
        "<|eom_id|>",
        "<EOT>",
        "_<EOT>",
        "[EOT]",
        "[EOS]",
        "<|end_of_text|>",
        "<end_of_utterance>",
        "<eos>",
        "<turn|>",
        "<|tool_response>",
        "<｜end▁of▁sentence｜>",
        "[e~[",
    }
)
# Texts llama.cpp marks as control when the file does not name the token by id (its fill-in-the-
# middle tokens, by key).
_FIM_TEXTS = {
    "fim_pre_token_id": (
        "<|fim_prefix|>",
        "<fim-prefix>",
        "<fim_prefix>",
        "<｜fim▁begin｜>",
        "<PRE>",
        "▁<PRE>",
        "<|code_prefix|>",
        "<|prefix|>",
    ),
    "fim_suf_token_id": (
        "<|fim_suffix|>",
        "<fim-suffix>",
        "<fim_suffix>",
        "<｜fim▁hole｜>",
        "<SUF>",
        "▁<SUF>",
        "<|code_suffix|>",
        "<|suffix|>",
    ),
    "fim_mid_token_id": (
        "<|fim_middle|>",
        "<fim-middle>",
        "<fim_middle>",
        "<｜fim▁end｜>",
        "<MID>",
        "▁<MID>",
        "<|code_middle|>",
        "<|middle|>",
    ),
    "fim_pad_token_id": ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
    "fim_rep_token_id": ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
    "fim_sep_token_id": ("<|file_sep|>",),
}
_ALWAYS_USER_DEFINED = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")  # gpt-oss
# The pipeline option of every GGUF vocabulary's added tokens: llama.cpp's partition (special.py's
# ADDED_TOKEN_RULES)
_LLAMA_PARTITION = {"added_token_rules": "llama"}


class _Vocab:
    """The checked tokenizer.ggml.* fields of one file, as llama.cpp's `llama_vocab::impl::load`
    reads them: tokens, scores, token attributes (types plus llama.cpp's text-based fixes), the
    special token ids and the add_* flags."""

    def __init__(self, path: str, fields: dict[str, Any], model: str, reader: _Reader | None = None) -> None:
        self.path, self.fields, self.model = path, fields, model
        self.raw = reader.raw if reader is not None else {}
        self.kinds = reader.kinds if reader is not None else {}
        self.big_endian = reader is not None and reader.order == ">"
        self.tokens = self._tokens()
        n = len(self.tokens)
        self.index = dict(zip(self.tokens, range(n)))
        self._check_distinct()
        self.scores = self._numbers("scores", n, float)
        types = self._numbers("token_type", n, int)
        # The attributes of the tokens that are not plain normal ones, by id (a vocabulary has a
        # few hundred of those among 150,000 normal tokens).
        # (compress and map keep the scan over the 150,000 types out of Python bytecode)
        types = types or []
        self.attrs: dict[int, set[str]] = {
            i: {_TYPE_ATTR.get(types[i], "undefined")} for i in compress(range(len(types)), map((1).__ne__, types))
        }

    def attr(self, i: int) -> set[str]:
        """Token i's attributes, to read or change."""
        return self.attrs.setdefault(i, {"normal"})

    def fail(self, key: str, message: str) -> FormatError:
        return FormatError(self.path, key if key.startswith(("general.", _PREFIX)) else _PREFIX + key, message)

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = self.fields.get(_PREFIX + key)
        if value is None:
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if type(value) not in kinds or (bool not in kinds and type(value) is bool):
            names = " or ".join(k.__name__ for k in kinds)
            raise self.fail(key, f"must be a {names}, got {type(value).__name__} {value!r:.60}")
        return value

    def _tokens(self) -> list[str]:
        tokens = self.fields[_PREFIX + "tokens"]
        strings = self.kinds.get(_PREFIX + "tokens") == _STRING
        if not isinstance(tokens, list) or not tokens or not (strings or set(map(type, tokens)) <= {str}):
            raise self.fail("tokens", "must be a non-empty array of strings")
        # llama.cpp names an empty token "[EMPTY_i]"; a token given twice is an error.
        if "" in tokens:
            tokens = [t or f"[EMPTY_{i}]" for i, t in enumerate(tokens)]
        return tokens

    def _check_distinct(self) -> None:
        """A token given twice is an error naming both ids (the index, built in id order, then
        holds fewer entries than the tokens)."""
        if len(self.index) != len(self.tokens):
            seen: dict[str, int] = {}
            for i, t in enumerate(self.tokens):
                if t in seen:
                    raise self.fail(f"tokens[{i}]", f"token {t!r} is also token {seen[t]}")
                seen[t] = i

    def _numbers(self, key: str, n: int, kind: type) -> list[Any] | None:
        values = self.fields.get(_PREFIX + key)
        if values is None:
            return None
        ok = (int, float) if kind is float else (int,)
        known = self.kinds.get(_PREFIX + key) in (_NUMBERS if kind is float else _INTEGERS)
        if not isinstance(values, list) or not (known or set(map(type, values)) <= set(ok)):
            raise self.fail(key, f"must be an array of {'numbers' if kind is float else 'integers'}")
        if len(values) < n:
            raise self.fail(key, f"has {len(values)} values for the {n} tokens")
        return values

    def token_id(self, key: str, default: int | None) -> int | None:
        """tokenizer.ggml.<key>: a token id (or the type's default, where in range)."""
        n = len(self.tokens)
        value = self.get(key, int)
        if value is None:
            return default if default is not None and 0 <= default < n else None
        if not 0 <= value < n:
            raise self.fail(key, f"{value} is not an index of the {n} tokens")
        return value

    def flag(self, key: str, default: bool) -> bool:
        return bool(self.get(key, bool, default))

    def fix_attributes(self, pre: str) -> None:
        """llama.cpp's text-based fixes: end-of-generation and fill-in-the-middle tokens become
        control tokens, control tokens named "unused" unused, gpt-oss's channel tokens
        user-defined; and the per-model lstrip/rstrip attributes."""
        index, attrs, attr = self.index, self.attrs, self.attr
        for text in _EOG_TEXTS:
            if text in index:
                attr(index[text]).add("control")
        for key, texts in _FIM_TEXTS.items():
            if _PREFIX + key not in self.fields:
                for text in texts:
                    if text in index:
                        attr(index[text]).add("control")
        for i, a in attrs.items():
            if "control" in a and "unused" in self.tokens[i]:
                a.add("unused")
        for text in _ALWAYS_USER_DEFINED:
            if text in index:
                attrs[index[text]] = {"user_defined"}
        # o200k_harmony and solar-open: "<|end|>" is no end-of-generation token there.
        if "<|end|>" in index and (
            ("<|return|>" in index and "<|call|>" in index) or ("<|calls|>" in index and "<|flush|>" in index)
        ):
            attrs[index["<|end|>"]] = {"user_defined"}
        if "<|tool_response>" in index and "</s>" in index:  # gemma4
            attrs[index["</s>"]] = {"normal"}
        name = self.fields.get("general.name")
        name = name.lower() if isinstance(name, str) else ""
        arch = self.fields.get("general.architecture")
        arch = arch if isinstance(arch, str) else ""
        if any(s in pre for s in ("jina-v2-de", "jina-v2-es", "jina-v2-code")) or any(
            s in arch for s in ("nomic-bert-moe", "jina-bert-v3")
        ):
            if "<mask>" in index:
                attr(index["<mask>"]).add("lstrip")
        elif "phi-3" in name or "phi3" in name:
            for a in attrs.values():
                if a & {"control", "user_defined", "unknown"}:
                    a.add("rstrip")
            if "</s>" in index:
                attr(index["</s>"]).add("rstrip")
            for text in ("<unk>", "<s>", "<|endoftext|>"):
                if text in index:
                    attr(index[text]).discard("rstrip")
        elif "modern-bert" in name and "[MASK]" in index:
            attr(index["[MASK]"]).add("lstrip")

    def added_tokens(self) -> tuple[AddedToken, ...]:
        """llama.cpp's special-token partition as added tokens: control and unknown tokens are
        special (matched in text only with parse_special, tokenforge's allowed_special), user-
        defined ones are always matched; none normalized."""
        from ..added_tokens import AddedToken

        out = []
        for i, a in sorted(self.attrs.items()):
            if a & {"control", "user_defined", "unknown"}:
                special = bool(a & {"control", "unknown"})
                out.append(
                    AddedToken(self.tokens[i], i, special, lstrip="lstrip" in a, rstrip="rstrip" in a, normalized=False)
                )
        return tuple(out)

    def template(self, bos: int | None, eos: int | None, add_bos: bool, add_eos: bool) -> Any:
        """The post-processor: BOS before and EOS after each sequence, as the add_* flags say;
        add_bos or add_eos without the token is an error naming the key, as in llama.cpp."""
        from ..processors.template import TemplateProcessing

        for add, token, key in ((add_bos, bos, "bos_token_id"), (add_eos, eos, "eos_token_id")):
            if add and token is None:
                raise self.fail(key, f"missing, but add_{key[:3]}_token is true")
        if not (add_bos or add_eos):
            return None

        def around(seq: int, tid: int) -> list[Any]:
            pieces: list[Any] = []
            if add_bos:
                pieces.append((False, 0, tid, self.tokens[bos]))  # type: ignore[index]
            pieces.append((True, seq, tid, ""))
            if add_eos:
                pieces.append((False, 0, tid, self.tokens[eos]))  # type: ignore[index]
            return pieces

        ids = {self.tokens[i]: [i] for i, add in ((bos, add_bos), (eos, add_eos)) if add and i is not None}
        return TemplateProcessing(tuple(around(0, 0)), tuple(around(0, 0) + around(1, 1)), ids)


def read_gguf_tokenizer(path: str | os.PathLike[str]) -> PipelineSpec:
    """The pipeline of a GGUF file's tokenizer (its tokenizer.ggml.* metadata), as llama.cpp
    reads it: "bert" (WPM), "gpt2" (byte-level BPE with a `tokenizer.ggml.pre` split), "llama"
    (sentencepiece-style BPE by scores) and "t5" (Unigram with the precompiled charsmap). Other
    models are refused with their name; so are unknown pre-tokenizer names."""
    path = os.fspath(path)
    fields, reader = _load(path)
    model = fields.get(_PREFIX + "model")
    if model in ("no_vocab", "none"):  # llama.cpp's LLAMA_VOCAB_TYPE_NONE: any tokens are ignored
        from ..models.no_vocab import NoVocab
        from ..pipeline.spec import PipelineSpec

        return PipelineSpec(NoVocab(path, model))
    if model is None or _PREFIX + "tokens" not in fields:
        raise FormatError(path, "", "the GGUF file holds no tokenizer (no tokenizer.ggml.model / tokens)")
    if not isinstance(model, str):
        raise FormatError(path, _PREFIX + "model", f"must be a string, got {type(model).__name__}")
    if model == "bert":
        return _wpm(path, fields)
    readers = {"gpt2": _bpe, "gemma4": _bpe, "llama": _spm, "t5": _ugm, "rwkv": _rwkv, "plamo2": _plamo2}
    if model not in readers:
        raise FormatError(
            path,
            _PREFIX + "model",
            f"tokenizer model {model!r} is not supported yet (supported: bert, gpt2, gemma4, llama, t5, rwkv, plamo2)",
        )
    return readers[model](_Vocab(path, fields, model, reader))


def _pre(vocab: _Vocab) -> tuple[str, str, dict[str, Any]]:
    """tokenizer.ggml.pre: its name, llama.cpp's pre-tokenizer type and the flags it sets (a
    gemma4 model's is gemma4 whatever the file says, as in llama.cpp)."""
    from .gguf_pre import CUSTOM, PRE_NAMES

    name = "gemma4" if vocab.model == "gemma4" else vocab.get("pre", str, "default") or "default"
    if name not in PRE_NAMES:
        raise vocab.fail("pre", f"unknown pre-tokenizer {name!r} (llama.cpp's names: {', '.join(sorted(PRE_NAMES))})")
    kind, flags = PRE_NAMES[name]
    if kind in CUSTOM:
        raise vocab.fail("pre", f"pre-tokenizer {name!r} is not supported: {CUSTOM[kind]}")
    return name, kind, flags


def _merges(vocab: _Vocab) -> list[Any]:
    """tokenizer.ggml.merges, checked (natively: formats/gguf_vocab.h): each "a b" (split at the
    first space after the first character, as llama.cpp splits them) a merge of two tokens into a
    third. Returned as the file's strings where each has one space (tokenizer.json's "a b" form),
    else as pairs."""
    from .. import _core

    merges = vocab.fields.get(_PREFIX + "merges")
    if merges is None:
        raise vocab.fail("merges", "missing (a gpt2 tokenizer needs its BPE merges)")
    strings = vocab.kinds.get(_PREFIX + "merges") == _STRING
    if not isinstance(merges, list) or not (strings or set(map(type, merges)) <= {str}):
        raise vocab.fail("merges", "must be an array of strings")
    tokens_raw, merges_raw = vocab.raw[_PREFIX + "tokens"], vocab.raw[_PREFIX + "merges"]
    bad, one_space_each = _core.gguf_check_merges(*tokens_raw, *merges_raw, vocab.big_endian)
    if bad >= 0:
        m = merges[bad]
        cut = m.find(" ", 1)
        if cut <= 0 or cut + 1 >= len(m):
            raise vocab.fail(f"merges[{bad}]", f"{m!r} is not two tokens separated by a space")
        raise vocab.fail(f"merges[{bad}]", f"{m!r}: a merge of tokens that are not in the vocabulary")
    if one_space_each:
        return merges
    return [[m[: m.find(" ", 1)], m[m.find(" ", 1) + 1 :]] for m in merges]


def _hf_spec(vocab: _Vocab, doc: dict[str, Any], post: Any, options: dict[str, Any]) -> PipelineSpec:
    """A tokenizer.json document of the vocabulary's pipeline, read as tokenizer.json files are
    (so it runs on the same fused kernels), with llama.cpp's partition (the option
    added_token_rules "llama": longest token first, lstrip and rstrip taking C's isspace
    whitespace) and template. The stages are read by the tokenizer.json reader; the model, whose
    vocabulary and merges are checked here already, goes in as it is (the reader would check its
    150,000 tokens again)."""
    from dataclasses import replace

    from .hf_tokenizer_json import _TokenizerJson

    model = doc["model"]
    stub = {"type": "BPE", "vocab": {"a": 0}, "merges": []}
    spec = _TokenizerJson(vocab.path, {**doc, "model": stub}).read()
    options = {**options, **_LLAMA_PARTITION}
    return replace(spec, model=dict(model), added_tokens=vocab.added_tokens(), post_processor=post, options=options)


def _bpe(vocab: _Vocab) -> PipelineSpec:
    from .gguf_pre import SPLITS
    from .hf_tokenizer_json import bpe_model_json

    name, kind, flags = _pre(vocab)
    vocab.fix_attributes(name)
    ignore_merges = bool(flags.get("ignore_merges", False))  # llama.cpp reads no key for it
    splits: list[dict[str, Any]] = [
        {"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False} for r in SPLITS[kind]
    ]
    byte_encode = flags.get("byte_encode", True)
    doc: dict[str, Any] = {
        "model": bpe_model_json(
            vocab.index, _merges(vocab), byte_fallback=not byte_encode, ignore_merges=ignore_merges
        ),
    }
    if byte_encode:
        splits.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False})
        doc["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    else:  # gemma4: sentencepiece-style BPE, spaces as "▁", byte tokens <0xXX>
        doc["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
        doc["decoder"] = {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
            ],
        }
    doc["pre_tokenizer"] = splits[0] if len(splits) == 1 else {"type": "Sequence", "pretokenizers": splits}
    bos_default = None if flags.get("no_bos") or vocab.model == "gemma4" else 11
    post = vocab.template(
        vocab.token_id("bos_token_id", bos_default),
        vocab.token_id("eos_token_id", None if vocab.model == "gemma4" else 11),
        # llama.cpp turns add_bos on for gemma4 whatever the file says
        vocab.flag("add_bos_token", flags.get("add_bos", False)) or kind == "gemma4",
        vocab.flag("add_eos_token", False),
    )
    # llama.cpp cleans a BPE vocabulary's decoded text unless the pre name says not to
    clean = {"clean_spaces": True} if flags.get("clean_spaces", True) else {}
    return _hf_spec(vocab, doc, post, {"split_special_tokens": True, **clean})


def _spm_merges(vocab: _Vocab) -> list[list[str]]:
    """The merges of llama.cpp's SPM tokenizer as BPE merges: every split of a token into two
    tokens, ranked by the token's score (highest first; equal scores by id), derived natively
    (formats/gguf_vocab.h). llama.cpp merges the adjacent pair whose concatenation scores
    highest, so these ranks give its merges."""
    from .. import _core

    scores = vocab.scores or [0.0] * len(vocab.tokens)
    raw = vocab.raw[_PREFIX + "tokens"][0]
    return _core.gguf_spm_merges(raw, vocab.tokens, vocab.big_endian, [float(x) for x in scores[: len(vocab.tokens)]])


def _spm(vocab: _Vocab) -> PipelineSpec:
    vocab.fix_attributes("")
    add_space_prefix = vocab.flag("add_space_prefix", True)
    unk = vocab.token_id("unknown_token_id", 0)
    replace = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    decoders: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]
    if add_space_prefix:
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    doc = {
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None if unk is None else vocab.tokens[unk],
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab.index,
            "merges": _spm_merges(vocab),
        },
        "normalizer": (
            {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}, replace]}
            if add_space_prefix
            else replace
        ),
        "decoder": {"type": "Sequence", "decoders": decoders},
    }
    post = vocab.template(
        vocab.token_id("bos_token_id", 1),
        vocab.token_id("eos_token_id", 2),
        vocab.flag("add_bos_token", True),
        vocab.flag("add_eos_token", False),
    )
    return _hf_spec(vocab, doc, post, {"split_special_tokens": True})


def _charsmap(vocab: _Vocab) -> bytes:
    """tokenizer.ggml.precompiled_charsmap as bytes (b"" without one), checked as llama.cpp
    checks it: a 4-byte little-endian size of the trie, the trie, then the replacement strings."""
    values = vocab.fields.get(_PREFIX + "precompiled_charsmap")
    if values is None:
        return b""
    if not isinstance(values, list) or not all(type(v) is int and -128 <= v <= 255 for v in values):
        raise vocab.fail("precompiled_charsmap", "must be an array of bytes (int8 or uint8)")
    data = bytes(v & 0xFF for v in values)
    if len(data) < 4 or struct.unpack_from("<I", data)[0] + 4 >= len(data):
        raise vocab.fail("precompiled_charsmap", f"a charsmap of {len(data)} bytes whose trie size does not fit in it")
    return data


def _ugm(vocab: _Vocab) -> PipelineSpec:
    """llama.cpp's UGM as a sentencepiece Unigram model: the same normalization (user-defined
    pieces first, the charsmap's longest match, spaces as "▁", a dummy prefix, extra spaces
    removed as the flags say), the same Viterbi with unknown pieces scored 10 below the lowest
    piece and merged when adjacent."""
    from ..pipeline.spec import PipelineSpec
    from .sentencepiece_model import ModelType, Piece, PieceType, SentencePieceModel

    vocab.fix_attributes("")
    unk = vocab.token_id("unknown_token_id", 2)
    if unk is None:
        raise vocab.fail("unknown_token_id", "missing, and the vocabulary has no token 2 (a t5 tokenizer needs one)")
    by_attr = (
        ("unknown", PieceType.UNKNOWN),
        ("control", PieceType.CONTROL),
        ("user_defined", PieceType.USER_DEFINED),
        ("byte", PieceType.BYTE),
        ("unused", PieceType.UNUSED),
    )
    scores = vocab.scores or [0.0] * len(vocab.tokens)
    pieces = []
    for i, token in enumerate(vocab.tokens):
        attrs = vocab.attrs.get(i, ("normal",))
        kind = PieceType.UNKNOWN if i == unk else next((k for a, k in by_attr if a in attrs), PieceType.NORMAL)
        if kind == PieceType.UNKNOWN and i != unk:
            kind = PieceType.CONTROL  # sentencepiece has one unknown piece: the others are never matched
        pieces.append(Piece(token, float(scores[i]), kind))
    model = SentencePieceModel(pieces)
    bos = vocab.token_id("bos_token_id", None)
    eos = vocab.token_id("eos_token_id", 1)
    add_bos, add_eos = vocab.flag("add_bos_token", False), vocab.flag("add_eos_token", True)
    for add, tid, key in ((add_bos, bos, "bos_token_id"), (add_eos, eos, "eos_token_id")):
        if add and tid is None:
            raise vocab.fail(key, f"missing, but add_{key[:3]}_token is true")
        if add and tid is not None and pieces[tid].type != PieceType.CONTROL:
            raise vocab.fail(key, f"token {tid} ({vocab.tokens[tid]!r}) is not a control token")
    trainer, normalizer = model.trainer_spec, model.normalizer_spec
    trainer["model_type"] = ModelType.UNIGRAM
    trainer["unk_id"] = unk
    trainer["unk_piece"] = vocab.tokens[unk]
    trainer["bos_id"] = -1 if bos is None else bos
    trainer["bos_piece"] = "" if bos is None else vocab.tokens[bos]
    trainer["eos_id"] = -1 if eos is None else eos
    trainer["eos_piece"] = "" if eos is None else vocab.tokens[eos]
    trainer["pad_id"] = -1
    normalizer["name"] = "gguf"
    normalizer["precompiled_charsmap"] = _charsmap(vocab)
    normalizer["add_dummy_prefix"] = vocab.flag("add_space_prefix", False)
    normalizer["remove_extra_whitespaces"] = vocab.flag("remove_extra_whitespaces", False)
    normalizer["escape_whitespaces"] = True
    try:
        model.validate()
    except (ValueError, FormatError) as e:
        raise vocab.fail("tokens", f"not a valid Unigram vocabulary: {e}") from None
    return PipelineSpec(model, options={"add_bos": add_bos, "add_eos": add_eos})


def unescape_rwkv(token: str) -> bytes:
    """An RWKV token's bytes from its GGUF text, as llama.cpp's llama_unescape_rwkv_token reads
    it, byte by byte: \\t, \\n, \\r, \\xHH (lower-case hex; other digits read as llama.cpp's
    arithmetic reads them), a backslash before any other byte is that byte."""
    out = bytearray()
    escaping, hex_left, acc = False, 0, 0
    for c in token.encode("utf-8"):
        if hex_left:
            acc = ((acc << 4) + ((c - 97 + 10) if c >= 97 else (c - 48))) & 0xFF
            hex_left -= 1
            if not hex_left:
                out.append(acc)
                acc = 0
        elif escaping:
            if c == 0x78:  # x
                hex_left = 2
            else:
                out.append({0x74: 9, 0x6E: 10, 0x72: 13}.get(c, c))  # t n r
            escaping = False
        elif c == 0x5C:  # backslash
            escaping = True
        else:
            out.append(c)
    return bytes(out)


_HEX = frozenset("0123456789abcdefABCDEF")


def _rwkv(vocab: _Vocab) -> PipelineSpec:
    """llama.cpp's RWKV tokenizer: at each position the longest token (over the tokens' unescaped
    bytes, every token included, control ones too) is taken. That is WordPiece's greedy longest
    match with no continuation prefix over a byte-level alphabet: the bytes map to GPT-2's
    byte characters (a ByteLevel pre-tokenizer without its split), the whole text is one word,
    and the ByteLevel decoder gives the bytes back. A token whose bytes another later token also
    spells is never matched (llama.cpp's trie keeps the last id); an empty one neither. Every
    byte needs a one-byte token: llama.cpp has no unknown token for RWKV (it would emit -1)."""
    from .gpt2_files import bytes_to_unicode

    vocab.fix_attributes("")
    chars = bytes_to_unicode()
    model_vocab: dict[str, int] = {}
    for i, token in enumerate(vocab.tokens):
        spelled = "".join(chars[b] for b in unescape_rwkv(token))
        if spelled:
            model_vocab.pop(spelled, None)
            model_vocab[spelled] = i
    missing = [b for b in range(256) if chars[b] not in model_vocab]
    if missing:
        raise vocab.fail("tokens", f"an rwkv vocabulary needs a token for each byte; none for byte {missing[0]:#04x}")
    doc: dict[str, Any] = {
        "model": {
            "type": "WordPiece",
            "unk_token": vocab.tokens[0],
            "continuing_subword_prefix": "",
            "max_input_chars_per_word": 2**32 - 2,
            "vocab": model_vocab,
        },
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
    }
    return _hf_spec(vocab, doc, None, {"split_special_tokens": True})


def _plamo2(vocab: _Vocab) -> PipelineSpec:
    """llama.cpp's PLaMo-2 tokenizer (the GgufPlamo2 model of the staged pipeline,
    models/gguf/plamo2.h): a least-cost cut by the tokens' integer scores, code points no token
    covers spelled by the <0xXX> byte tokens (each of the 256 is needed), a leading U+FEFF
    dropped; decoding gives byte tokens as bytes and other tokens as their text."""
    vocab.fix_attributes("")
    byte_tokens = [-1] * 256
    scores: list[float | None] = [float(x) for x in (vocab.scores or [0.0] * len(vocab.tokens))[: len(vocab.tokens)]]
    for i, a in vocab.attrs.items():
        if "byte" in a:
            t = vocab.tokens[i]
            hex_digits = t[3:5]
            if len(t) == 6 and t.startswith("<0x") and t.endswith(">") and all(c in _HEX for c in hex_digits):
                byte_tokens[int(hex_digits, 16)] = i
            scores[i] = None
    if -1 in byte_tokens:
        raise vocab.fail(
            "token_type", f"a plamo2 vocabulary needs 256 byte tokens; none for <0x{byte_tokens.index(-1):02X}>"
        )
    doc: dict[str, Any] = {
        "model": {"type": "GgufPlamo2", "vocab": vocab.index, "scores": scores, "byte_tokens": byte_tokens},
        "decoder": {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]},
    }
    return _hf_spec(vocab, doc, None, {"split_special_tokens": True})


def _wpm(path: str, fields: dict[str, Any]) -> PipelineSpec:
    from ..pipeline import presets

    tokens = fields[_PREFIX + "tokens"]
    where = _PREFIX + "tokens"
    if not isinstance(tokens, list) or not tokens:
        raise FormatError(path, where, "must be a non-empty array of strings")
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if not isinstance(token, str) or not token:
            raise FormatError(path, f"{where}[{i}]", f"must be a non-empty string, got {token!r}")
        if token in seen:
            raise FormatError(path, f"{where}[{i}]", f"token {token!r} is also token {seen[token]}")
        seen[token] = i

    def token_at(key: str, default: str, in_template: bool = True) -> str:
        if key == "cls_token_id" and _PREFIX + key not in fields:
            key = "bos_token_id"
        i = fields.get(_PREFIX + key)
        if i is None:
            if default not in seen:
                raise FormatError(path, _PREFIX + key, f"missing, and the tokens have no {default!r}")
            token = default
        elif type(i) is not int or not 0 <= i < len(tokens):
            raise FormatError(path, _PREFIX + key, f"{i!r} is not an index of the {len(tokens)} tokens")
        else:
            token = tokens[i]
        # CLS and SEP go into the template as words: no spaces, no ":" (a type id), no leading "$".
        if in_template and (token.startswith("$") or ":" in token or any(c.isspace() for c in token)):
            raise FormatError(
                path,
                _PREFIX + key,
                f"token {token!r} cannot frame the template (it has a space, a ':' or a leading '$')",
            )
        return token

    spec = presets.wpm(
        tokens,
        unk_token=token_at("unknown_token_id", "[UNK]", False),
        cls_token=token_at("cls_token_id", "[CLS]"),
        sep_token=token_at("seperator_token_id", "[SEP]"),
    )
    if _PREFIX + "token_type" not in fields:
        return spec  # (no types: the unknown, CLS and SEP tokens are its special tokens)
    # The token types make the partition, as for the other models: every control, unknown and
    # user-defined token ([MASK], [PAD], ...), after llama.cpp's text-based fixes.
    from dataclasses import replace

    vocab = _Vocab(path, fields, "bert")
    pre = fields.get(_PREFIX + "pre")
    vocab.fix_attributes(pre if isinstance(pre, str) else "")
    options = {**spec.options, **_LLAMA_PARTITION}
    return replace(spec, added_tokens=vocab.added_tokens(), options=options)
