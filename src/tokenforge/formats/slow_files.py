"""A model folder without tokenizer.json, as transformers 5 builds its tokenizer from the
class's own files: vocab.json + merges.txt (GPT-2, RoBERTa, Qwen2, ...) or a sentencepiece
model (spiece.model, sentencepiece.bpe.model, tokenizer.model: T5, XLM-R, Llama, ...).

transformers reads the vocabulary (and merges) out of those files and hands them to the class's
constructor, which builds the same pipeline it builds over a tokenizer.json's vocabulary. So
`slow_document` writes the files as a tokenizer.json document (a sentencepiece model through
spm_tokenizer_json.spm_document, with its charsmap for the classes that keep one) and
tokenizer.py's from_pretrained runs it through transformers_classes.rebuild_for_class, as it
does a folder's tokenizer.json. As transformers' SentencePieceExtractor, a sentencepiece model
is read for the model type the class builds (a BPE model's pieces and scores make a Unigram
class's vocabulary; a BPE class gets the pieces by id and merges generated from them), then
reordered as the class's converter's convert_from_spm does (XLM-R, Camembert, Pegasus, MBart,
MBart50, NLLB, T5). A class tokenforge does not rebuild (transformers_classes' _CLASSES) for such
files is refused with a ValueError naming the file and the class. Python classes run as
pipelines: M2M100Tokenizer, MarianTokenizer, BartphoTokenizer and PLBartTokenizer
(m2m100_vocabulary, marian_parts, fairseq_vocabulary, plbart_vocabulary: the sentencepiece model
itself through the class's ids, tokenizer.py's _m2m100, _marian and _spm_backend; GPTSw3Tokenizer
there too, its preprocess_text a normalizer before sentencepiece's), PhobertTokenizer and
CTRLTokenizer (fast_bpe_files: their vocabulary and merges for tokenizer.py's _fast_bpe, the
FastBPE model),
SiglipTokenizer (siglip_document: its canonicalization as normalizers),
Wav2Vec2CTCTokenizer (wav2vec2_document: vocab.json's characters, CTC's decode),
EsmTokenizer (esm_document: vocab.txt's tokens matched anywhere in the text) and ByT5Tokenizer
(byt5_document: the text's UTF-8 bytes, from tokenizer_config.json alone).
The neighbours: transformers_classes.py (the class table), spm_tokenizer_json.py,
sentencepiece_model.py, tokenizer.py's from_pretrained.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from .transformers_classes import SPM_UNK_ID, _routing, _str_token

# TokenizersBackend's post-processor where the class sets none (no file to keep one from)
_BARE = {
    "type": "TemplateProcessing",
    "single": [{"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {},
}

# the files each kind of folder holds, in the order transformers' classes name them
SPM_FILES = ("spiece.model", "sentencepiece.bpe.model", "tokenizer.model", "source.spm")
# Classes transformers 5 runs in Python over the sentencepiece library (no tokenizers backend, so
# no offsets, and text handling of their own), which no tokenizer.json document says: refused
# here (SiglipTokenizer is siglip_document's; MarianTokenizer is marian_parts' and
# tokenizer.py's, over the sentencepiece models themselves)
PYTHON_SPM_CLASSES = frozenset(("SiglipTokenizer", "MarianTokenizer"))
# MarianTokenizer's files: the source and target models, the vocabulary both share
MARIAN_FILES = ("source.spm", "target.spm", "vocab.json")
# Python classes (no tokenizers backend) run here as pipelines of their own, and the file each reads
PIPELINE_CLASSES = {
    "M2M100Tokenizer": "sentencepiece.bpe.model",
    "SiglipTokenizer": "spiece.model",
    "Wav2Vec2CTCTokenizer": "vocab.json",
    "EsmTokenizer": "vocab.txt",
    "ByT5Tokenizer": "tokenizer_config.json",  # (no vocabulary file: the 256 bytes)
    "MarianTokenizer": "source.spm",  # (with target.spm and vocab.json: marian_parts)
}
BPE_FILES = ("vocab.json", "merges.txt")


def slow_files(folder: str) -> str | None:
    """The file a folder without tokenizer.json has its vocabulary in (vocab.json for the
    vocab.json + merges.txt pair, and for vocab.json alone where no other file is there), None
    where it has none of them."""
    if all(os.path.isfile(os.path.join(folder, n)) for n in BPE_FILES):
        return os.path.join(folder, BPE_FILES[0])
    for name in SPM_FILES:
        file = os.path.join(folder, name)
        if os.path.isfile(file):
            return file
    alone = os.path.join(folder, BPE_FILES[0])  # (Wav2Vec2CTCTokenizer's: characters, no merges)
    return alone if os.path.isfile(alone) else None


def _bpe_files_document(folder: str) -> dict[str, Any]:
    vocab_file, merges_file = (os.path.join(folder, n) for n in BPE_FILES)
    with open(vocab_file, encoding="utf-8") as f:
        vocab = json.load(f)
    if not isinstance(vocab, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in vocab.items()):
        raise ValueError(f"{vocab_file}: not a vocabulary (a JSON object of token -> id)")
    merges: list[list[str]] = []
    with open(merges_file, encoding="utf-8") as f:
        for number, line in enumerate(f.read().split("\n")):
            if (number == 0 and line.startswith("#version")) or not line.strip():
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"{merges_file}: line {number + 1} is not a merge (two tokens and a space)")
            merges.append(parts)
    model = {"type": "BPE", "vocab": vocab, "merges": merges}
    return {"version": "1.0", "added_tokens": [], "model": model, "post_processor": _BARE}


def generated_merges(pieces: list[str]) -> list[list[str]]:
    """The merges transformers' SentencePieceExtractor gives a BPE model (generate_merges without
    scores): every split of every piece into two pieces of the vocabulary, by the merged piece's
    id, then the left part's length, then the right part's (and, within one piece, by the parts'
    ids); control, byte and user-defined pieces take part as any other."""
    vocab: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        vocab[piece] = i  # a repeated piece: its last id, at its first place (a dict comprehension)
    found: list[tuple[str, str, int]] = []
    for piece, i in vocab.items():
        local = [(piece[:k], piece[k:], i) for k in range(1, len(piece)) if piece[:k] in vocab and piece[k:] in vocab]
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        found.extend(local)
    found.sort(key=lambda m: (m[2], len(m[0]), len(m[1])))
    return [[left, right] for left, right, _ in found]


def _spm_document(file: str, class_model: str | None = None) -> dict[str, Any]:
    """The document of a sentencepiece model as transformers' SentencePieceExtractor hands it to
    a class whose model is `class_model` ("Unigram": the pieces with their scores and the
    model's unknown id; "BPE": the pieces by id with the merges generated from them; None: the
    sentencepiece model's own type)."""
    from .sentencepiece_model import ModelType, PieceType, SentencePieceModel
    from .spm_tokenizer_json import spm_document

    spm = SentencePieceModel.read(file)
    doc = spm_document(spm)
    doc["post_processor"] = _BARE
    model = doc["model"]
    pieces = [p.piece for p in spm.pieces]
    unk_id = int(spm.trainer_spec["unk_id"])
    if class_model == "Unigram" and spm.trainer_spec["model_type"] != ModelType.UNIGRAM:
        scored = [[p.piece, float(p.score)] for p in spm.pieces]
        model = doc["model"] = {"type": "Unigram", "unk_id": unk_id, "vocab": scored, "byte_fallback": False}
    elif class_model == "BPE" and model.get("type") != "BPE":
        model = doc["model"] = {"type": "BPE", "vocab": {p: i for i, p in enumerate(pieces)}, "merges": []}
    doc[SPM_UNK_ID] = unk_id
    if model.get("type") == "BPE":
        model["merges"] = generated_merges(pieces)
    # transformers' SentencePieceExtractor: control and user-defined pieces are the class's
    # additional_special_tokens (slow_init)
    # (a user-defined piece as AddedToken(piece, normalized=False, special=False))
    doc["spm_added"] = [
        p.piece if p.type == PieceType.CONTROL else {**_USER_DEFINED, "content": p.piece}
        for p in spm.pieces
        if p.type in (PieceType.CONTROL, PieceType.USER_DEFINED)
    ]
    if model.get("type") == "Unigram":
        model["vocab"] = [[piece, float(score)] for piece, score in model["vocab"]]
    return doc


_USER_DEFINED = {"__type": "AddedToken", "lstrip": False, "rstrip": False, "normalized": False, "special": False}


def _added(tokens: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Special added tokens as transformers' extractor makes them (AddedToken, normalized=False)."""
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    return [{"id": i, "content": t, **flags} for i, t in tokens]


def _token(config: Mapping[str, Any], name: str, default: str) -> str:
    value = config.get(name)
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    return value if isinstance(value, str) else default


def _class_vocabulary(doc: dict[str, Any], class_name: str | None, config: Mapping[str, Any]) -> None:
    """The vocabulary a class's converter (convert_slow_tokenizer's convert_from_spm) makes of
    the sentencepiece model's pieces: XLM-R's fairseq order (<s> <pad> </s> <unk>, the pieces
    after the model's first three, <mask>), T5's extra ids appended in reverse."""
    model = doc["model"]
    vocab = model["vocab"]
    if class_name == "XLMRobertaTokenizer":
        named = [
            _token(config, n, d)
            for n, d in (("bos_token", "<s>"), ("pad_token", "<pad>"), ("eos_token", "</s>"), ("unk_token", "<unk>"))
        ]
        mask = _token(config, "mask_token", "<mask>")
        model["vocab"] = [[t, 0.0] for t in named] + vocab[3:] + [[mask, 0.0]]
        model["unk_id"] = 3
        doc["added_tokens"] = _added([*enumerate(named), (len(model["vocab"]) - 1, mask)])
    elif class_name == "CamembertTokenizer":  # CamembertConverter.convert_from_spm
        head = [["<s>NOTUSED", 0.0], [_str_token(config, "pad_token", "<pad>"), 0.0], ["</s>NOTUSED", 0.0]]
        head += [[_str_token(config, "unk_token", "<unk>"), 0.0], ["<unk>NOTUSED", -100.0]]
        model["vocab"] = head + vocab[1:] + [[_str_token(config, "mask_token", "<mask>"), 0.0]]
    elif class_name == "PegasusTokenizer":  # PegasusConverter.convert_from_spm (its own defaults)
        mask, sent = _str_token(config, "mask_token", "<mask_1>"), _str_token(config, "mask_token_sent", "<mask_2>")
        head = [[_str_token(config, "pad_token", "<pad>"), 0.0], [_str_token(config, "eos_token", "</s>"), 0.0]]
        head += [[mask, 0.0]] if mask != "None" else []
        head += [[sent, 0.0]] if sent not in ("None", mask) else []
        offset = config.get("offset", 103)
        head += [[f"<unk_{i}>", -100.0] for i in range(2, offset if isinstance(offset, int) else 103)]
        model["vocab"] = head + vocab[2:]
    elif class_name in ("MBartTokenizer", "MBart50Tokenizer"):  # MBart(50)Converter.convert_from_spm
        first = "bos_token" if class_name == "MBartTokenizer" else "cls_token"
        names = ((first, "<s>"), ("pad_token", "<pad>"), ("eos_token", "</s>"), ("unk_token", "<unk>"))
        codes = _routing()["language_codes"][class_name]
        mask = _str_token(config, "mask_token", "<mask>")
        head = [[_str_token(config, n, d), 0.0] for n, d in names]
        model["vocab"] = head + vocab[3:] + [[c, 0.0] for c in codes] + [[mask, 0.0]]
    elif class_name == "NllbTokenizer":  # NllbConverter.convert_from_spm: the specials first
        names = (("bos_token", "<s>"), ("pad_token", "<pad>"), ("eos_token", "</s>"), ("unk_token", "<unk>"))
        reordered = {_str_token(config, n, d): i for i, (n, d) in enumerate(names)}
        for token in vocab:
            reordered.setdefault(token, len(reordered))
        model["vocab"] = reordered
    elif class_name == "T5Tokenizer":
        extra = config.get("extra_ids", 100)
        extra = extra if isinstance(extra, int) and not isinstance(extra, bool) else 100
        tokens = [f"<extra_id_{i}>" for i in range(extra - 1, -1, -1)]
        model["vocab"] = vocab + [[t, 0.0] for t in tokens]
        doc["added_tokens"] = [*doc["added_tokens"], *_added([(len(vocab) + k, t) for k, t in enumerate(tokens)])]
        # T5Tokenizer.__init__ appends the extra ids to additional_special_tokens without any
        listed = doc.get("spm_added", [])
        if not any("<extra_id_" in (t if isinstance(t, str) else t["content"]) for t in listed):
            doc["spm_added"] = [*listed, *(f"<extra_id_{i}>" for i in range(extra))]


def slow_document(file: str, class_name: str | None, config: Mapping[str, Any]) -> dict[str, Any]:
    """The tokenizer.json document transformers' `class_name` rebuilds from `file` (slow_files'
    answer) with tokenizer_config.json `config`. ValueError naming the file and the class where
    tokenforge does not rebuild it."""
    from .transformers_classes import _CLASSES

    folder, name = os.path.split(file)
    if class_name == "SiglipTokenizer" and name == "spiece.model":
        return siglip_document(file, config)
    if class_name == "Wav2Vec2CTCTokenizer" and name == BPE_FILES[0]:
        return wav2vec2_document(file, config)
    if class_name == "EsmTokenizer" and name == "vocab.txt":
        return esm_document(file, config)
    if class_name == "ByT5Tokenizer" and name == "tokenizer_config.json":
        return byt5_document(file, config)
    if name == BPE_FILES[0] and not os.path.isfile(os.path.join(folder, BPE_FILES[1])):
        raise ValueError(
            f"{file}: transformers builds {class_name or 'TokenizersBackend'} from this file alone (the folder has "
            "no tokenizer.json nor merges.txt); tokenforge runs vocab.json alone as Wav2Vec2CTCTokenizer only"
        )
    if class_name in PYTHON_SPM_CLASSES:
        own = ", ".join(MARIAN_FILES) if class_name == "MarianTokenizer" else PIPELINE_CLASSES[class_name]
        raise ValueError(
            f"{file}: transformers builds {class_name} from this file (the folder has no tokenizer.json), a "
            f"Python class over the sentencepiece library; tokenforge runs {class_name} from its own files ({own})"
        )
    entry = _CLASSES.get(class_name or "")
    # the model the class builds (CamembertTokenizer names none: the sentencepiece model's own)
    class_model = entry[0] if entry is not None and class_name != "CamembertTokenizer" else None
    doc = _bpe_files_document(folder) if name == BPE_FILES[0] else _spm_document(file, class_model)
    if entry is None or entry[0] != doc["model"]["type"]:
        shown = class_name or "TokenizersBackend"
        raise ValueError(
            f"{file}: transformers builds {shown} from this file (the folder has no tokenizer.json); "
            f"tokenforge does not rebuild {shown} from a {doc['model']['type']} {name}: save the tokenizer "
            "with transformers (tokenizer.save_pretrained) to write its tokenizer.json"
        )
    if name != BPE_FILES[0]:
        _class_vocabulary(doc, class_name, config)
    return doc


def _special_added(tokens: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Special tokens as a Python class adds them (AddedToken(normalized=False, special=True))."""
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
    return [{"id": i, "content": t, **flags} for i, t in tokens]


# Python's string.punctuation (SiglipTokenizer's remove_punctuation), as a regex class
_ASCII_PUNCTUATION = "[!-/:-@\\[-`{-~]"
# Unicode's White_Space above ASCII (what the regex module's \s adds to \t-\r and " "); Python's
# re \s (str.isspace) adds U+001C..U+001F too, which Rust's \s does not match either
# (Oniguruma reads \\xHH as a byte: the code points above ASCII as \\x{HH})
_SPACES_ABOVE_ASCII = "\\x{85}\\x{a0}\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_PYTHON_SPACE_CHARS = "\\t-\\r\\x1c- " + _SPACES_ABOVE_ASCII
# what Python's re \s matches in a str
_PYTHON_SPACE = f"[{_PYTHON_SPACE_CHARS}]+"


def siglip_document(file: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """SiglipTokenizer (a Python class over the sentencepiece library) as a pipeline. Its
    tokenize writes each "\u2581" of the text as a space and puts "\u2581" first, then each text
    between special tokens is canonicalized (lowercased where do_lower_case, Python's
    string.punctuation removed, whitespace runs made one space, stripped) and encoded after an
    "<unk>" whose pieces it drops, so that only the first text starts a word: normalizers
    Replace, Lowercase, Replace, Replace, Strip (right: the first text's leading space is where
    Metaspace's "first" scheme puts its "\u2581"), then the model's charsmap and, after it,
    sentencepiece's remove_extra_whitespaces (runs of spaces one, trailing ones gone); the
    special tokens rstrip (the spaces after one go, as the class strips the text after it); the
    model's Unigram. "$A </s>" (a pair: "$A </s> $B </s>", no second </s> where the ids end
    with one: tokenizer.py's skip_present_special) is set once the tokens are added. Decode
    (special_segments "siglip"): the text between special tokens decoded as sentencepiece's
    decode_pieces, a space before a special token that follows text, the whole stripped. The
    punctuation and "\u2581" right after a special token go with its rstrip (added_token_rules
    "siglip", set by Tokenizer.from_pretrained). Not said (a known difference): a character the
    model does not know right after a special token, which merges with the dropped "<unk>"
    pieces. ValueError naming the file and the class for a model that is not a Unigram without
    byte fallback and user-defined pieces."""
    from .sentencepiece_model import ModelType, PieceType, SentencePieceModel
    from .spm_tokenizer_json import SPACE, spm_document

    name = "SiglipTokenizer"
    spm = SentencePieceModel.read(file)
    trainer = spm.trainer_spec
    user_defined = any(p.type == PieceType.USER_DEFINED for p in spm.pieces)
    if trainer["model_type"] != ModelType.UNIGRAM or trainer["byte_fallback"] or user_defined:
        raise ValueError(
            f"{file}: {name}: tokenforge runs a Unigram sentencepiece model without byte fallback or "
            "user-defined pieces here"
        )
    doc = spm_document(spm)
    steps: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": SPACE}, "content": " "}]
    if config.get("do_lower_case", True) is not False:
        steps.append({"type": "Lowercase"})
    steps += [
        # (a text's leading punctuation and spaces: one space, where the first text's "\u2581" goes;
        # removed, they would move the text's start, and Metaspace's "first" would not prepend)
        {"type": "Replace", "pattern": {"Regex": f"\\A(?:{_ASCII_PUNCTUATION}|{_PYTHON_SPACE})+"}, "content": " "},
        {"type": "Replace", "pattern": {"Regex": _ASCII_PUNCTUATION}, "content": ""},
        {"type": "Replace", "pattern": {"Regex": _PYTHON_SPACE}, "content": " "},
        {"type": "Strip", "strip_left": False, "strip_right": True},
    ]
    charsmap = bytes(spm.normalizer_spec["precompiled_charsmap"])
    if charsmap:
        import base64

        steps.append({"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")})
    if spm.normalizer_spec["remove_extra_whitespaces"]:
        # (sentencepiece's own, after its charsmap: which may write spaces, or remove a character
        # between two; the text follows "<unk>", so its leading spaces are not the text's start)
        steps += [
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            {"type": "Replace", "pattern": {"Regex": " +\\z"}, "content": ""},
        ]
    doc["normalizer"] = {"type": "Sequence", "normalizers": steps}
    doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": "first", "split": False}
    pieces = {p.piece: i for i, p in enumerate(spm.pieces)}
    named = {_token(config, n, d) for n, d in (("eos_token", "</s>"), ("unk_token", "<unk>"), ("pad_token", "</s>"))}
    # decode_pieces writes a control piece that is none of the class's special tokens as nothing
    silent = [p.piece for p in spm.pieces if p.type == PieceType.CONTROL and p.piece not in named]
    # decode_pieces drops each leading "\u2581" while the text is empty: every leading space
    doc["decoder"] = {
        "type": "Sequence",
        "decoders": [
            *({"type": "Replace", "pattern": {"String": piece}, "content": ""} for piece in silent),
            {"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 2**31 - 1, "stop": 0},
        ],
    }
    # (rstrip: the text after a special token starts without its spaces, as the class strips
    # each text; the first text keeps its leading space, which Metaspace makes its "\u2581")
    added = _special_added(sorted((pieces[t], t) for t in named if t in pieces))
    doc["added_tokens"] = [{**a, "rstrip": True} for a in added]
    doc["post_processor"] = _BARE
    return doc


def m2m100_vocabulary(folder: str, config: Mapping[str, Any], unk: str) -> dict[str, int]:
    """M2M100Tokenizer's ids: vocab.json's, then the language codes of the config's
    language_codes ("m2m100" or "wmt21") as __xx__ at len(vocab.json) + i (a code vocab.json
    holds keeps its id). ValueError naming the file for a malformed vocab.json, one without the
    unknown token, an unknown language_codes and sp_model_kwargs (sentencepiece sampling)."""
    name = "M2M100Tokenizer"
    if config.get("sp_model_kwargs"):
        raise ValueError(
            f"{name} with sp_model_kwargs {config['sp_model_kwargs']!r} (sampling) is not run by tokenforge"
        )
    vocab_file = os.path.join(folder, BPE_FILES[0])
    encoder = _read_json(vocab_file, name)
    if not _is_vocabulary(encoder) or any(i < 0 for i in encoder.values()):
        raise ValueError(f"{vocab_file}: not a vocabulary (a JSON object of token -> id, each id 0 or more)")
    if unk not in encoder:
        raise ValueError(f"{vocab_file}: {name}'s unknown token {unk!r} is not in it")
    codes = _routing()["language_codes"][name].get(config.get("language_codes", "m2m100"))
    if codes is None:
        raise ValueError(f"{name}: language_codes must be 'm2m100' or 'wmt21', got {config.get('language_codes')!r}")
    vocabulary = dict(encoder)
    for i, code in enumerate(codes):
        vocabulary.setdefault(f"__{code}__", len(encoder) + i)
    return vocabulary


def fairseq_vocabulary(file: str, named: Mapping[str, str], name: str) -> dict[str, int]:
    """BartphoTokenizer's fairseq_tokens_to_ids: bos, pad, eos, unk, sep, cls (each once, in that
    order), then the first word of each line of `file` (a word listed again takes the next id
    anew, as the class's dict assignment does), then the mask token where new. FormatError naming
    the file where it cannot be read or a line is empty."""
    from ..errors import FormatError

    vocabulary: dict[str, int] = {}
    for key, default in (
        ("bos_token", "<s>"),
        ("pad_token", "<pad>"),
        ("eos_token", "</s>"),
        ("unk_token", "<unk>"),
        ("sep_token", "</s>"),
        ("cls_token", "<s>"),
    ):
        vocabulary.setdefault(named.get(key) or default, len(vocabulary))
    try:
        with open(file, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(file, "", f"{name} reads its vocabulary from this file: {e}") from None
    for number, line in enumerate(lines, 1):
        words = line.strip().split()
        if not words:
            raise FormatError(file, f"line {number}", f"{name}: an empty line (each line is a token and its count)")
        vocabulary[words[0]] = len(vocabulary)
    mask = named.get("mask_token") or "<mask>"
    vocabulary.setdefault(mask, len(vocabulary))
    return vocabulary


# what Python's re \S+\n? finds in a str (PhobertTokenizer's words): a run of characters
# str.split does not split at, and a newline right after it; the regex module's (CTRLTokenizer's
# words) leaves out U+001C to U+001F, which its \s (Unicode's White_Space) does not match
PYTHON_WORD = f"[^{_PYTHON_SPACE_CHARS}]+\\n?"
REGEX_MODULE_WORD = f"[^\\t-\\r {_SPACES_ABOVE_ASCII}]+\\n?"


def fast_bpe_files(
    vocab_file: str, merges_file: str, named: Mapping[str, str], name: str
) -> tuple[dict[str, int], list[list[str]]]:
    """The vocabulary and merges of a class over fastBPE's files. PhobertTokenizer's: bos, pad,
    eos, unk at 0 to 3 (a text named twice keeps its later id), then each line of vocab.txt's
    token (all before its last space; a token listed again takes the next id anew, as the
    class's dict assignment does), bpe.codes' "a b count" lines but the last (the class's
    read().split() of its lines, [:-1]). CTRLTokenizer's: vocab.json as it is, merges.txt's
    "a b" lines but the first (its #version) and the last. Each pair at its last place (the
    classes' dict of ranks), lines of another shape left out. FormatError naming the file where
    it cannot be read or a vocabulary line or object is malformed."""
    from ..errors import FormatError

    ctrl = name == "CTRLTokenizer"
    vocabulary: dict[str, int] = {}
    if not ctrl:
        named_ids = (("bos_token", "<s>"), ("pad_token", "<pad>"), ("eos_token", "</s>"), ("unk_token", "<unk>"))
        for i, (key, default) in enumerate(named_ids):
            vocabulary[named.get(key) or default] = i
    try:
        with open(vocab_file, encoding="utf-8") as f:
            lines = [] if ctrl else f.readlines()
            loaded = json.load(f) if ctrl else None
        with open(merges_file, encoding="utf-8") as f:
            merge_lines = f.read().split("\n")[1 if ctrl else 0 : -1]
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise FormatError(vocab_file, "", f"{name} reads its vocabulary and merges beside it: {e}") from None
    if ctrl:
        if not isinstance(loaded, dict) or not _is_vocabulary(loaded):
            raise FormatError(vocab_file, "", f"{name}: not a vocabulary (a JSON object of token -> id)")
        vocabulary = {str(t): int(i) for t, i in loaded.items()}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        cut = line.rfind(" ")
        if cut == -1:
            raise FormatError(vocab_file, f"line {number}", f"{name}: expected '<token> <count>', got {line!r}")
        vocabulary[line[:cut]] = len(vocabulary)
    ranks: dict[tuple[str, ...], int] = {}
    for rank, line in enumerate(merge_lines):
        ranks[tuple(line.split() if ctrl else line.split()[:-1])] = rank
    merges = [list(pair) for pair, _ in sorted(ranks.items(), key=lambda e: e[1]) if len(pair) == 2]
    return vocabulary, merges


def plbart_vocabulary(pieces: list[str], config: Mapping[str, Any]) -> dict[str, int]:
    """PLBartTokenizer's ids (its fairseq_tokens_to_ids, then _convert_token_to_id): <s> <pad>
    </s> <unk> at 0 to 3, its "base" language codes from len(pieces) + 1 on and <mask> after
    them; then each other piece of the sentencepiece model at its id + 1 (the model's own
    unknown piece, id 0, is <unk>). ValueError for other language_codes: "multi" has no <mask>,
    so the class's mask token takes <unk>'s id while still matched in text as a token of its
    own, which added tokens (one text per id, as HF tokenizers') cannot say."""
    kind = config.get("language_codes", "base")
    if kind != "base":
        raise ValueError(
            f"PLBartTokenizer with language_codes {kind!r} is not run by tokenforge (only 'base': "
            "'multi' gives its <mask> the id of <unk>)"
        )
    codes = _routing()["language_codes"]["PLBartTokenizer"][kind]
    vocabulary = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    vocabulary.update({code: len(pieces) + 1 + i for i, code in enumerate(codes)})
    vocabulary["<mask>"] = len(pieces) + 1 + len(codes)
    for i, piece in enumerate(pieces[1:], 1):
        vocabulary.setdefault(piece, i + 1)
    return vocabulary


def marian_parts(folder: str, config: Mapping[str, Any]) -> tuple[Any, Any, dict[str, int]]:
    """MarianTokenizer's files in `folder` (a Python class over the sentencepiece library in
    transformers): the source model (text), the target model (text_target) and vocab.json, the
    ids of both (SentencePieceModel, SentencePieceModel, token -> id). ValueError naming the file
    and the class for a missing or malformed file, and for what tokenforge does not run:
    separate_vocabs (target_vocab.json's ids for text_target and decode), sp_model_kwargs
    (sampling)."""
    from .sentencepiece_model import SentencePieceModel

    name = "MarianTokenizer"
    if config.get("separate_vocabs"):
        raise ValueError(
            f"{os.path.join(folder, 'tokenizer_config.json')}: {name} with separate_vocabs (target_vocab.json's "
            "ids for text_target and decode) is not run by tokenforge; only a vocab.json both models share"
        )
    if config.get("sp_model_kwargs"):
        raise ValueError(
            f"{os.path.join(folder, 'tokenizer_config.json')}: {name} with sp_model_kwargs "
            f"{config['sp_model_kwargs']!r} (sentencepiece sampling) is not run by tokenforge"
        )
    files = [os.path.join(folder, n) for n in MARIAN_FILES]
    for file in files:
        if not os.path.isfile(file):
            raise ValueError(f"{file}: {name} reads this file, which the folder lacks")
    models = []
    for file in files[:2]:
        try:
            models.append(SentencePieceModel.read(file))
        except (OSError, ValueError) as e:
            raise ValueError(f"{file}: {name} reads a sentencepiece model from this file: {e}") from None
    vocab = _read_json(files[2], name)
    if not _is_vocabulary(vocab) or any(i < 0 for i in vocab.values()):
        raise ValueError(f"{files[2]}: not a vocabulary (a JSON object of token -> id, each id 0 or more)")
    return models[0], models[1], vocab


def _read_json(file: str, name: str) -> Any:
    """The JSON value in `file`, which class `name` reads its vocabulary from (ValueError naming both)."""
    try:
        with open(file, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{file}: {name} reads its vocabulary from this file: {e}") from None


def _is_vocabulary(value: Any) -> bool:
    """Whether `value` is a vocabulary as vocab.json holds one (token -> id)."""
    return isinstance(value, dict) and all(isinstance(k, str) and type(v) is int for k, v in value.items())


def _unknown_token(config: Mapping[str, Any], vocab: Mapping[str, int], file: str, name: str) -> str:
    """The class's unknown token (the config's, else "<unk>"), which its vocabulary must hold."""
    unk = _token(config, "unk_token", "<unk>")
    if unk not in vocab:
        raise ValueError(f"{file}: {name} needs its unknown token {unk!r} in the vocabulary")
    return unk


def wav2vec2_document(file: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """Wav2Vec2CTCTokenizer (a Python class over vocab.json's characters) as a pipeline. Its
    tokenize splits the text on the added tokens (each vocab.json token of more than one
    character, stripping the spaces on both sides, as the class adds them), writes each space
    as the word delimiter ("|") and makes each character a token; a character vocab.json lacks
    is the unknown token: normalizer Replace(" " -> "|"), FixedLength(1), WordLevel. No special
    tokens are added to a text. Decode (special_segments "wav2vec2", tokenizer.py): CTC's, as
    the class's convert_tokens_to_string (repeats grouped, the pad token dropped, the delimiter
    as replace_word_delimiter_char, stripped). A nested vocab.json (one vocabulary per
    language, MMS) takes the config's target_lang. ValueError naming the file where the
    pipeline cannot say what the class does: do_lower_case (the class upper-cases the text), no
    unknown token in the vocabulary, a nested vocabulary without target_lang."""
    name = "Wav2Vec2CTCTokenizer"
    vocab = _read_json(file, name)
    target = config.get("target_lang")
    if isinstance(vocab, dict) and target is not None:
        if target not in vocab:
            raise ValueError(f"{file}: {name}: target_lang {target!r} is not one of this file's languages")
        vocab = vocab[target]
    if not _is_vocabulary(vocab):
        nested = isinstance(vocab, dict) and any(isinstance(v, dict) for v in vocab.values())
        raise ValueError(
            f"{file}: a vocabulary of one language per key; set target_lang (tokenizer_config.json)"
            if nested
            else f"{file}: not a vocabulary (a JSON object of token -> id)"
        )
    if config.get("do_lower_case") is True:
        raise ValueError(
            f"{file}: {name} with do_lower_case upper-cases the text before it looks it up, which no "
            "tokenizer.json normalizer says; tokenforge does not run it"
        )
    unk = _unknown_token(config, vocab, file, name)
    delimiter = _token(config, "word_delimiter_token", "|")
    flags = {"single_word": False, "lstrip": True, "rstrip": True, "normalized": False, "special": False}
    return {
        "version": "1.0",
        # (the class's __init__: add_tokens(AddedToken(token, rstrip=True, lstrip=True, normalized=False)))
        "added_tokens": [
            {"id": i, "content": t, **flags} for t, i in sorted(vocab.items(), key=lambda e: e[1]) if len(t) > 1
        ],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": delimiter},
        "pre_tokenizer": {"type": "FixedLength", "length": 1},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": unk},
        "post_processor": _BARE,
        # (decode is tokenizer.py's _ctc_decode; a saved file keeps HF's nearest decoder)
        "decoder": {
            "type": "CTC",
            "pad_token": _token(config, "pad_token", "<pad>"),
            "word_delimiter_token": delimiter,
            "cleanup": True,
        },
    }


def esm_document(file: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """EsmTokenizer (protein language models: a Python class over vocab.txt, one token a line)
    as a pipeline. The class splits the text at every vocabulary token (its trie of
    unique_no_split_tokens, longest first) and each stretch between them at whitespace, and a
    word that is no token is the unknown token: every token an added token (the named ones
    special), WhitespaceSplit, WordLevel. "<cls> $A <eos>" (a pair: "<cls> $A <eos> $B <eos>");
    decode joins the tokens with spaces, as the class. ValueError naming the file for a token
    listed twice (the class gives it two ids), an unknown, cls or eos token the file lacks (the
    class adds no eos then, and refuses pairs)."""
    name = "EsmTokenizer"
    try:
        with open(file, encoding="utf-8") as f:
            tokens = [line.strip() for line in f.read().splitlines()]
    except (OSError, ValueError) as e:
        raise ValueError(f"{file}: {name} reads its vocabulary from this file: {e}") from None
    vocab: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token in vocab:
            raise ValueError(f"{file}: line {i + 1}: {token!r} is listed twice (line {vocab[token] + 1} too)")
        vocab[token] = i
    named = {n: _token(config, n, d) for n, d in _ESM_TOKENS}
    named = {n: t for n, t in named.items() if config.get(n, "") is not None}  # (an explicit null: none)
    unk = _unknown_token(config, vocab, file, name)
    special = set(named.values())
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
    cls, eos = named.get("cls_token"), named.get("eos_token")
    if cls not in vocab or eos not in vocab:
        raise ValueError(
            f"{file}: {name} puts its cls and eos tokens ({cls!r}, {eos!r}) around a text; tokenforge runs it "
            "where the vocabulary has both"
        )
    one = [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]
    one.append({"SpecialToken": {"id": eos, "type_id": 0}})
    pair = [*one, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": eos, "type_id": 1}}]
    specials = {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in (cls, eos)}
    post = {"type": "TemplateProcessing", "single": one, "pair": pair, "special_tokens": specials}
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": t, **flags, "special": t in special} for t, i in vocab.items() if t],
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": unk},
        "post_processor": post,
        "decoder": None,
    }


def byt5_document(file: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """ByT5Tokenizer (a Python class with no vocabulary file: `file` is the folder's
    tokenizer_config.json) as a pipeline. The class's tokens are the text's UTF-8 bytes, each
    written as the character of that code point (chr(byte)), at id byte + 3 after its pad, eos
    and unk tokens (ids 0, 1, 2; added with lstrip and rstrip); its extra ids come after them
    as special tokens (chat_template's _byt5_extras). The bytes as those characters: normalizers
    ByteLevel (each byte as GPT-2's character for it), then a Replace for each of the 68 bytes
    whose GPT-2 character is not chr(byte); FixedLength(1); WordLevel over the 259 tokens.
    "$A </s>" (a pair: "$A </s> $B </s>", no second </s> where the ids already end with one) is
    set once the tokens are added. Decode (special_segments "byt5", tokenizer.py): the bytes and
    the added tokens' text joined, then read as UTF-8 with invalid bytes dropped, as the class;
    a saved file keeps HF's nearest decoder (ByteLevel, which writes an invalid byte as U+FFFD).
    ValueError naming the file for named tokens that are one character or the same text."""
    from .gpt2_files import bytes_to_unicode

    name = "ByT5Tokenizer"
    named = [_token(config, n, d) for n, d in (("pad_token", "<pad>"), ("eos_token", "</s>"), ("unk_token", "<unk>"))]
    if len(set(named)) != len(named) or any(len(t) == 1 for t in named):
        raise ValueError(
            f"{file}: {name}'s pad, eos and unk tokens {named!r} must be three texts of more than one "
            "character (a byte's token is one character)"
        )
    vocab = {t: i for i, t in enumerate(named)}
    vocab.update({chr(b): b + len(named) for b in range(256)})
    gpt2 = bytes_to_unicode()
    moved = [b for b in range(256) if gpt2[b] != chr(b)]
    flags = {"single_word": False, "lstrip": True, "rstrip": True, "normalized": False, "special": True}
    return {
        "version": "1.0",
        # (the class's __init__: AddedToken(token, lstrip=True, rstrip=True) at ids 0, 1, 2)
        "added_tokens": [{"id": i, "content": t, **flags} for i, t in enumerate(named)],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "ByteLevel"},
                *({"type": "Replace", "pattern": {"String": gpt2[b]}, "content": chr(b)} for b in moved),
            ],
        },
        "pre_tokenizer": {"type": "FixedLength", "length": 1},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": named[2]},
        "post_processor": _BARE,
        "decoder": {
            "type": "Sequence",
            "decoders": [
                *({"type": "Replace", "pattern": {"String": chr(b)}, "content": gpt2[b]} for b in moved),
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            ],
        },
    }


# EsmTokenizer's named tokens and their defaults
_ESM_TOKENS = (
    ("unk_token", "<unk>"),
    ("cls_token", "<cls>"),
    ("pad_token", "<pad>"),
    ("mask_token", "<mask>"),
    ("eos_token", "<eos>"),
)


def slow_init(doc: dict[str, Any]) -> dict[str, Any]:
    """The keywords transformers' loader passes the class beside the config's for `doc`
    (slow_document's; the key is taken out of it): a sentencepiece model's control and
    user-defined pieces as additional_special_tokens."""
    added = doc.pop("spm_added", None)
    return {} if added is None else {"additional_special_tokens": added}
