"""Mistral's tekken.json files, read and written as mistral-common's Tekkenizer reads them.

A file holds `config` (pattern, default_vocab_size, default_num_special_tokens, version,
num_vocab_tokens), `vocab` (one {rank, token_bytes (base64), token_str} per rank, the first 256
the single bytes) and, from v3 on, `special_tokens` ({rank, token_str, is_control}; files of v3
and v7 without them get mistral-common's 20 historical ones). What the Tekkenizer builds from it:
- the special tokens take ids 0 .. default_num_special_tokens - 1, the ones the file lists first,
  then `<SPECIAL_n>` fillers;
- the vocabulary is cut to its first default_vocab_size - default_num_special_tokens ranks, and
  rank r becomes id r + default_num_special_tokens;
- versions: v1, v2, v3, v7, v11, v13, v15 as its TokenizerVersion; special_tokens required after
  v7; the old `multimodal` key (the image config) only up to v11; `model_settings_builder` only
  from v15. The image and audio configs are kept as they are (models/tekken.py).
Every check mistral-common makes is made here, as a FormatError naming the field (`vocab[300].rank`,
`config.default_vocab_size`, ...); beyond them, a special token's rank must be its position (the
Tekkenizer looks special tokens up both ways and files always agree).

`detect_tekken` tells a tekken.json from a tokenizer.json by its name (mistral-common's rule: the
name has "tekken" in it) or by its first key. `write_tekken` writes a `Tekken` back;
`as_encoding_spec` gives the byte-level BPE form a tokenizer.json holds (see its doc for what
that form reads differently).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from typing import TYPE_CHECKING, Any

from .atomic import write_files_atomically
from .validation import Fields, read_json

if TYPE_CHECKING:
    from ..encoding import Encoding
    from ..models.tekken import Tekken
    from ..pipeline.spec import PipelineSpec

# mistral-common's TokenizerVersion, in order.
VERSIONS = ("v1", "v2", "v3", "v7", "v11", "v13", "v15")

# The special tokens of tekken files of v3 and v7 that do not list theirs (mistral-common's
# Tekkenizer.DEPRECATED_SPECIAL_TOKENS), all control tokens.
DEPRECATED_SPECIAL_TOKENS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)
FILLER = "<SPECIAL_{id}>"

_FIRST_KEY = re.compile(rb'^\s*\{\s*"(config|vocab|special_tokens)"\s*:')
_MAX_SPECIAL = 1 << 20  # more special tokens than this is a corrupt count


def detect_tekken(path: str) -> bool:
    """Whether the .json file at `path` is a tekken file: "tekken" in its name (as mistral-common
    decides), or a first key of a tekken file (config, vocab, special_tokens)."""
    if "tekken" in os.path.basename(path):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return False
    return _FIRST_KEY.match(head) is not None


def _version_number(version: str) -> int:
    return int(version[1:])


def read_tekken(path: str | os.PathLike[str]) -> PipelineSpec:
    """The pipeline of a tekken.json file (see the module's doc)."""
    from ..pipeline.spec import PipelineSpec

    return PipelineSpec(read_tekken_model(path))


def read_tekken_model(path: str | os.PathLike[str]) -> Tekken:
    from ..models.tekken import Tekken

    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    check = Fields(path)
    doc = check.obj(read_json(path, data, "a tekken.json file"), "")
    config = check.obj(doc.get("config"), "config")
    version = config.get("version")
    if version not in VERSIONS:
        check.fail(
            "config.version", f"{version!r} is not a tokenizer version mistral-common knows ({', '.join(VERSIONS)})"
        )
    number = _version_number(version)
    pattern = check.text(config.get("pattern"), "config.pattern", nonempty=True)
    vocab_size = check.integer(config.get("default_vocab_size"), "config.default_vocab_size", 1)
    num_special = check.integer(
        config.get("default_num_special_tokens"), "config.default_num_special_tokens", 0, _MAX_SPECIAL
    )
    num_vocab_tokens = config.get("num_vocab_tokens")
    if num_vocab_tokens is not None:
        check.integer(num_vocab_tokens, "config.num_vocab_tokens", 0)

    listed = doc.get("special_tokens")
    control: list[bool]
    if listed is None:
        if number > 7:
            check.fail("special_tokens", f"missing; a {version} tokenizer must list its special tokens")
        specials = list(DEPRECATED_SPECIAL_TOKENS)
        control = [True] * len(specials)
    else:
        check.array(listed, "special_tokens")
        specials, control = [], []
        seen: dict[str, int] = {}
        for i, entry in enumerate(listed):
            where = f"special_tokens[{i}]"
            check.obj(entry, where)
            token = check.text(entry.get("token_str"), f"{where}.token_str", nonempty=True)
            rank = check.integer(entry.get("rank"), f"{where}.rank", 0)
            if rank != i:
                check.fail(f"{where}.rank", f"is {rank}, but special token {i} must have rank {i}")
            if token in seen:
                check.fail(f"{where}.token_str", f"{token!r} is also special token {seen[token]}")
            seen[token] = i
            is_control = entry.get("is_control", True)
            control.append(check.boolean(is_control, f"{where}.is_control"))
            specials.append(token)
    if len(specials) > num_special:
        check.fail(
            "config.default_num_special_tokens",
            f"is {num_special}, fewer than the {len(specials)} special tokens the file defines",
        )
    taken = set(specials)
    for i in range(len(specials), num_special):
        filler = FILLER.format(id=i)
        if filler in taken:
            check.fail("special_tokens", f"{filler!r} is listed, but id {i} gets it as a filler too")
        specials.append(filler)
        control.append(True)

    image = doc.get("image")
    multimodal = doc.get("multimodal")
    if multimodal:
        if number > 11:
            check.fail("multimodal", f"the image config must be called 'image' in a {version} tokenizer")
        image = multimodal
    if image:
        check.obj(image, "multimodal" if multimodal else "image")
    audio = doc.get("audio")
    if audio:
        check.obj(audio, "audio")
        check.obj(audio.get("audio_encoding_config"), "audio.audio_encoding_config")
    if doc.get("model_settings_builder") is not None and number < 15:
        check.fail("model_settings_builder", f"not supported for a {version} tokenizer (v15 and later)")

    vocab = check.array(doc.get("vocab"), "vocab")
    inner = vocab_size - num_special
    if inner < 0 or inner > len(vocab):
        check.fail(
            "config.default_vocab_size",
            f"is {vocab_size}: it must lie between the {num_special} special tokens and those plus the "
            f"{len(vocab)} vocab entries ({num_special + len(vocab)})",
        )
    name = os.path.basename(path).replace(".json", "")
    special_ids = {t: i for i, t in enumerate(specials)}
    encoding = _fast_encoding(name, pattern, vocab[:inner], num_special, special_ids)
    if encoding is None:  # something to report (or base64 only Python's lenient decoder reads)
        encoding = _checked_encoding(check, name, pattern, vocab, inner, num_special, special_ids)
    known = {"config", "vocab", "special_tokens", "image", "multimodal", "audio"}
    return Tekken(
        encoding,
        tuple(specials),
        tuple(control),
        pattern,
        version,
        vocab_size,
        num_vocab_tokens,
        image=dict(image) if image else None,
        audio=dict(audio) if audio else None,
        extra={k: v for k, v in doc.items() if k not in known},
        name=name,
    )


def _fast_encoding(
    name: str, pattern: str, entries: list[Any], num_special: int, specials: dict[str, int]
) -> Encoding | None:
    """The Encoding of well-formed vocab entries, parsed natively as a .tiktoken body (ranks
    shifted past the special ids); None where any entry is not plainly well formed, for
    `_checked_encoding` to read entry by entry and name the field."""
    from ..encoding import Encoding

    if not all(
        type(e) is dict
        and len(e) == 3
        and "token_str" in e
        and type(e.get("rank")) is int
        and type(e.get("token_bytes")) is str
        for e in entries
    ):
        return None
    if [e["rank"] for e in entries] != list(range(len(entries))):
        return None
    try:
        if any(binascii.a2b_base64(entries[i]["token_bytes"]) != bytes([i]) for i in range(min(256, len(entries)))):
            return None
        data = "\n".join([f"{e['token_bytes']} {i}" for i, e in enumerate(entries, num_special)]).encode("ascii")
        return Encoding._from_tiktoken_data(name, pattern, data, specials)
    except (ValueError, binascii.Error):  # bad base64, a repeated token, non-ASCII: checked one by one
        return None


def _checked_encoding(
    check: Fields, name: str, pattern: str, vocab: list[Any], inner: int, num_special: int, specials: dict[str, int]
) -> Encoding:
    """The Encoding of the first `inner` vocab entries, each checked as mistral-common checks it
    (FormatError naming the entry's field)."""
    from ..encoding import Encoding

    ranks: dict[bytes, int] = {}
    for i in range(inner):
        entry = vocab[i]
        where = f"vocab[{i}]"
        if not isinstance(entry, dict) or entry.keys() != {"rank", "token_bytes", "token_str"}:
            check.fail(where, "must be an object with exactly rank, token_bytes and token_str")
        if entry["rank"] != i or type(entry["rank"]) is not int:
            check.fail(f"{where}.rank", f"must be {i} (its position), got {entry['rank']!r}")
        encoded = entry["token_bytes"]
        if not isinstance(encoded, str):
            check.fail(f"{where}.token_bytes", "must be a base64 string")
        try:
            data = binascii.a2b_base64(encoded)
        except (binascii.Error, ValueError) as e:
            check.fail(f"{where}.token_bytes", f"not base64 ({e})")
        if i < 256 and data != bytes([i]):
            check.fail(f"{where}.token_bytes", f"rank {i} must be the single byte {bytes([i])!r}, got {data!r}")
        if not data:
            check.fail(f"{where}.token_bytes", "must not be empty")
        if data in ranks:
            check.fail(f"{where}.token_bytes", f"{data!r} is also rank {ranks[data] - num_special}")
        ranks[data] = i + num_special
    try:
        return Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    except ValueError as e:
        check.fail("", str(e))


def tekken_document(model: Tekken) -> dict[str, Any]:
    """`model` as a tekken.json document (the kept vocabulary, every special token)."""
    n = model.num_special_tokens
    tokens = model.encoding._core.ordinary_tokens()[n:]
    vocab = [_vocab_entry(rank, token) for rank, token in enumerate(tokens)]
    config = {
        "pattern": model.pattern,
        "num_vocab_tokens": model.num_vocab_tokens if model.num_vocab_tokens is not None else len(vocab),
        "default_vocab_size": model.vocab_size,
        "default_num_special_tokens": n,
        "version": model.version,
    }
    doc: dict[str, Any] = {
        "config": config,
        "vocab": vocab,
        "special_tokens": [
            {"rank": i, "token_str": t, "is_control": c}
            for i, (t, c) in enumerate(zip(model.special_tokens, model.control))
        ],
    }
    if model.image is not None:
        doc["image"] = model.image
    if model.audio is not None:
        doc["audio"] = model.audio
    doc.update(model.extra)
    return doc


def _vocab_entry(rank: int, token: bytes) -> dict[str, Any]:
    try:
        text: str | None = token.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return {"rank": rank, "token_bytes": base64.b64encode(token).decode("ascii"), "token_str": text}


def as_encoding_spec(spec: PipelineSpec) -> PipelineSpec:
    """A tekken pipeline as a byte-level BPE `Encoding` pipeline (the same ranks and ids, its
    special tokens as the Encoding's, bos / eos as a template), the form a tokenizer.json holds
    (hf_tokenizer_json.document). What that form cannot say: tekken reads special-token text in
    the input as plain text, while a tokenizer.json's special tokens are matched in it (HF
    tokenizers' added tokens; transformers' own conversions of tekken files do the same), and
    the decode policy is the loader's skip_special_tokens."""
    from ..pipeline.spec import PipelineSpec

    model: Tekken = spec.model
    add_bos = spec.options.get("add_bos")
    add_bos = model.bos_id is not None if add_bos is None else bool(add_bos)
    add_eos = bool(spec.options.get("add_eos", False))
    post = model.template(add_bos, add_eos) if add_bos or add_eos else None
    return PipelineSpec(model.encoding, post_processor=post, truncation=spec.truncation, padding=spec.padding)


def write_tekken(model: Tekken, path: str | os.PathLike[str]) -> None:
    """Write `model` as a tekken.json file, atomically."""
    data = json.dumps(tekken_document(model), ensure_ascii=False).encode("utf-8")
    write_files_atomically([(os.fspath(path), data)])
