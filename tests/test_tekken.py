"""Mistral's tekken.json files: `Tokenizer.from_file` must give mistral-common's Tekkenizer's ids,
decodes and special-token policy exactly, on the corpus samples in every language and on
hypothesis strings; the file's versions and corrupt files are read (or refused, naming the
field) as mistral-common reads them.

The tekken files are built here: the first ranks of a bundled tiktoken vocabulary (o200k_base,
cl100k_base; a prefix of ranks is itself a BPE vocabulary), its single bytes put in byte order
as tekken requires, behind special tokens of the layouts Mistral's files use.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import pathlib

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, corpus_files, read_sample
from tokenforge import Tokenizer, _core
from tokenforge.errors import FormatError
from tokenforge.formats import detect
from tokenforge.formats.tekken import DEPRECATED_SPECIAL_TOKENS
from tokenforge.formats.tiktoken_file import read_tokens
from tokenforge.pre_tokenizers.patterns import TEKKEN, scanner_id

tekken_mod = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
base_mod = pytest.importorskip("mistral_common.tokens.tokenizers.base")
Tekkenizer = tekken_mod.Tekkenizer
SpecialTokenPolicy = base_mod.SpecialTokenPolicy

# The special tokens of a recent Mistral file (v13), as its layout lists them; the rest of the
# special block is <SPECIAL_n> fillers.
V13_SPECIALS = [
    *DEPRECATED_SPECIAL_TOKENS,  # the first 20, as mistral-common's older files have them
    "[ARGS]",
    "[CALL_ID]",
    "[AUDIO]",
    "[BEGIN_AUDIO]",
    "[THINK]",
    "[/THINK]",
]


def _byte_ordered(tokens: list[bytes]) -> list[bytes]:
    """tiktoken ranks with the single bytes first in byte order (tekken's rule); the order of
    single bytes among themselves never changes a merge."""
    singles = [t for t in tokens if len(t) == 1]
    assert sorted(singles) == [bytes([b]) for b in range(256)]
    return [bytes([b]) for b in range(256)] + [t for t in tokens if len(t) > 1]


def tekken_document(
    tokens: list[bytes],
    *,
    specials: list[str] | None = V13_SPECIALS,
    num_special: int = 1000,
    vocab_size: int | None = None,
    version: str = "v13",
    pattern: str = TEKKEN,
    extra: dict | None = None,
) -> dict:
    vocab = []
    for rank, token in enumerate(tokens):
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        vocab.append({"rank": rank, "token_bytes": base64.b64encode(token).decode(), "token_str": text})
    doc: dict = {
        "config": {
            "pattern": pattern,
            "num_vocab_tokens": len(tokens),
            "default_vocab_size": vocab_size if vocab_size is not None else num_special + len(tokens),
            "default_num_special_tokens": num_special,
            "version": version,
        },
        "vocab": vocab,
    }
    if specials is not None:
        doc["special_tokens"] = [{"rank": i, "token_str": t, "is_control": True} for i, t in enumerate(specials)]
    doc.update(extra or {})
    return doc


def write(tmp: pathlib.Path, name: str, doc: dict) -> pathlib.Path:
    path = tmp / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def o200k_prefix() -> list[bytes]:
    return _byte_ordered(read_tokens(DATA / "o200k_base.tiktoken", 40000))


@pytest.fixture(scope="module")
def files(tmp_path_factory, o200k_prefix):
    """name -> (tekken.json path, mistral-common's Tekkenizer of it)."""
    tmp = tmp_path_factory.mktemp("tekken")
    cl100k = _byte_ordered(read_tokens(DATA / "cl100k_base.tiktoken", 20000))
    docs = {
        # vocab cut: the file holds 40000 ranks, default_vocab_size keeps 30000
        "v13": tekken_document(o200k_prefix, vocab_size=1000 + 30000),
        "v7-deprecated-specials": tekken_document(cl100k, specials=None, num_special=100, version="v7"),
        "v3-few-specials": tekken_document(cl100k, specials=V13_SPECIALS[:5], num_special=16, version="v3"),
        "v11-image-audio": tekken_document(
            o200k_prefix[:25000],
            version="v11",
            extra={
                "image": {"image_patch_size": 16, "max_image_size": 1024, "spatial_merge_size": 2},
                "audio": {
                    "sampling_rate": 16000,
                    "frame_rate": 12.5,
                    "audio_encoding_config": {"num_mel_bins": 128, "hop_length": 160, "window_size": 400},
                },
            },
        ),
    }
    out = {}
    for name, doc in docs.items():
        path = write(tmp, f"{name}-tekken.json", doc)
        out[name] = (path, Tekkenizer.from_file(str(path)))
    return out


NAMES = ["v13", "v7-deprecated-specials", "v3-few-specials", "v11-image-audio"]


@pytest.fixture(scope="module")
def loaded(files):
    return {name: Tokenizer.from_file(path) for name, (path, _) in files.items()}


def texts() -> list[str]:
    out = []
    for path in corpus_files():
        sample = read_sample(path, 30000)
        out += [sample, sample[:3000]]
    return out


_VARIANTS: dict = {}


def ids(tok: Tokenizer, text: str, bos: bool, eos: bool) -> list[int]:
    """The ids of `text` from `tok` set to add bos and eos as asked (a copy: `tok` stays as it is)."""
    key = (id(tok), bos, eos)
    if key not in _VARIANTS:
        options = {**tok.spec.options, "add_bos": bos, "add_eos": eos}
        _VARIANTS[key] = (tok, Tokenizer.from_spec(dataclasses.replace(tok.spec, options=options)))
    return list(_VARIANTS[key][1].encode(text).ids)


# -- the split ------------------------------------------------------------------------------


def test_tekken_pattern_has_the_native_scanner():
    assert scanner_id(TEKKEN) == 5


def _regex_ends(text: str) -> list[int]:
    ends, size = [], 0
    for m in regex.finditer(TEKKEN, text):
        size += len(m.group().encode("utf-8"))
        ends.append(size)
    return ends


def test_every_code_point_against_mistral_common(files, loaded):
    """Each code point (in blocks of 128) alone and between the characters that change a split:
    ids against the Tekkenizer (tiktoken's regex engine and Unicode tables)."""
    _, ref = files["v13"]
    tok = loaded["v13"]
    for start in range(0, 0x110000, 128):
        chars = [chr(c) for c in range(start, start + 128) if not 0xD800 <= c <= 0xDFFF]
        text = "".join(f"{c} a{c}b {c}{c}A'{c}1x{c}\n" for c in chars)
        assert ids(tok, text, False, False) == ref.encode(text, bos=False, eos=False), hex(start)


SPLIT_ATOMS = ["a", "A", "ab", "AB", "Ab", "aB", " ", "  ", "\n", "\r\n", "\t", "1", "12", "123", "1234", "٣", "'",
               "'s", "'t", "'LL", "'ve", "don't", "I'm", "/", "//", ".", "...", "(", "é", "É", "ß", "ǅ", "ʰ", "世界",
               "カタ", "Д", "д", "\u0301", "\u00a0", "\u3000", "😀", "[INST]", "<s>", "</s>", "x/\n", "-\n"]  # fmt: skip


@settings(max_examples=400, deadline=None, database=None)
@given(st.lists(st.sampled_from(SPLIT_ATOMS), max_size=80), st.booleans())
def test_scanner_cuts_like_the_pattern_hypothesis(atoms, windowed):
    text = "".join(atoms)
    assert _core._piece_ends(text, 5, windowed) == _regex_ends(text)


# -- ids, decoding and the special-token policy against mistral-common ---------------------


@pytest.mark.parametrize("name", NAMES)
def test_corpus_ids_equal_mistral_common(files, loaded, name):
    _, ref = files[name]
    tok = loaded[name]
    assert tok.kernel == "tekken"
    for text in texts():
        for bos, eos in ((True, False), (False, False), (True, True), (False, True)):
            assert ids(tok, text, bos, eos) == ref.encode(text, bos=bos, eos=eos), (name, text[:60], bos, eos)


@pytest.mark.parametrize("name", ["v13", "v7-deprecated-specials"])
def test_corpus_decode_equal_mistral_common(files, loaded, name):
    _, ref = files[name]
    tok = loaded[name]
    for text in texts():
        row = ref.encode(text, bos=True, eos=True)
        assert tok.decode(row) == ref.decode(row) == text
        assert tok.decode(row, skip_special_tokens=False) == ref.decode(
            row, special_token_policy=SpecialTokenPolicy.KEEP
        )


HYPOTHESIS_TEXT = st.lists(
    st.one_of(
        st.text(st.characters(codec="utf-8"), max_size=4),
        st.sampled_from(
            ["'s", "'T", "don't", "12345", "  ", "\n\n", " \n ", "/\n", "[INST]", "<s>", "</s>", "<SPECIAL_40>"]
        ),
    ),
    max_size=20,
).map("".join)


@settings(max_examples=300, deadline=None, database=None)
@given(HYPOTHESIS_TEXT, st.booleans(), st.booleans())
def test_hypothesis_ids_equal_mistral_common(files, loaded, text, bos, eos):
    for name in ("v13", "v7-deprecated-specials"):
        _, ref = files[name]
        assert ids(loaded[name], text, bos, eos) == ref.encode(text, bos=bos, eos=eos)


SPECIAL_HEAVY_IDS = st.lists(st.one_of(st.integers(0, 1100), st.integers(1000, 1000 + 30000 - 1)), max_size=40)


@settings(max_examples=300, deadline=None, database=None)
@given(SPECIAL_HEAVY_IDS)
def test_hypothesis_decode_policies(files, loaded, row):
    """Special ids between the bytes of one character: each run of ordinary ids is decoded on
    its own, as the Tekkenizer does."""
    _, ref = files["v13"]
    tok = loaded["v13"]
    assert tok.special_token_policy == "ignore"
    assert tok.decode(row) == ref.decode(row, special_token_policy=SpecialTokenPolicy.IGNORE)
    assert tok.decode(row, skip_special_tokens=False) == ref.decode(row, special_token_policy=SpecialTokenPolicy.KEEP)
    tok.special_token_policy = "raise"
    try:
        has_special = any(i < 1000 for i in row)
        if has_special:
            with pytest.raises(ValueError):
                ref.decode(row, special_token_policy=SpecialTokenPolicy.RAISE)
            with pytest.raises(ValueError, match="special token policy is 'raise'"):
                tok.decode(row)
        else:
            assert tok.decode(row) == ref.decode(row, special_token_policy=SpecialTokenPolicy.RAISE)
    finally:
        tok.special_token_policy = "ignore"


def test_split_characters_decode_as_the_tekkenizer(files, loaded):
    _, ref = files["v13"]
    tok = loaded["v13"]
    euro = [1000 + b for b in "€".encode()]  # byte tokens sit right after the special block
    row = [euro[0], euro[1], 1, euro[2], 1000 + ord("x")]
    assert tok.decode(row) == ref.decode(row) == "\ufffd\ufffdx"
    assert tok.decode(euro) == ref.decode(euro) == "€"


def test_policy_values(loaded):
    tok = loaded["v13"]
    tok.special_token_policy = SpecialTokenPolicy.KEEP  # mistral-common's enum, or its name, or 0/1/2
    assert tok.special_token_policy == "keep"
    assert tok.decode([1, 1000 + ord("a")]) == "<s>a"
    tok.special_token_policy = 0
    assert tok.special_token_policy == "ignore"
    with pytest.raises(ValueError, match="special_token_policy"):
        tok.special_token_policy = "drop"


def test_special_ids_and_layout(files, loaded):
    for name in NAMES:
        _, ref = files[name]
        tok = loaded[name]
        assert tok.bos_id == ref.bos_id and tok.eos_id == ref.eos_id
        n = ref.num_special_tokens
        assert tok.num_special_tokens == n
        for i in range(n):
            assert tok.id_to_token(i) == ref.id_to_piece(i)
            assert tok.token_to_id(ref.id_to_piece(i)) == i
        assert tok.get_vocab_size() == ref.n_words
    deprecated = loaded["v7-deprecated-specials"]
    assert [deprecated.id_to_token(i) for i in range(20)] == list(DEPRECATED_SPECIAL_TOKENS)
    assert deprecated.id_to_token(20) == "<SPECIAL_20>"
    assert loaded["v11-image-audio"].tekken.image["image_patch_size"] == 16
    assert loaded["v11-image-audio"].tekken.audio["sampling_rate"] == 16000


def test_special_text_is_plain_text_unless_allowed(files, loaded):
    _, ref = files["v13"]
    tok = loaded["v13"]
    text = "[INST] hi</s>"
    assert ids(tok, text, False, False) == ref.encode(text, bos=False, eos=False)
    allowed = list(tok.encode(text, add_special_tokens=False, allowed_special="all").ids)
    assert allowed[0] == 3 and allowed[-1] == 2


def test_vocab_cut(files, loaded, o200k_prefix):
    _, ref = files["v13"]
    tok = loaded["v13"]
    assert tok.get_vocab_size() == 31000 == ref.n_words
    # a token past the cut is never produced: its bytes come out in lower ranks
    cut_token = o200k_prefix[35000]
    text = cut_token.decode("utf-8", "replace")
    assert ids(tok, text, False, False) == ref.encode(text, bos=False, eos=False)
    assert max(ids(tok, text, False, False)) < 31000


def test_batch_and_detection(files, loaded):
    path, ref = files["v13"]
    assert detect(str(path)) == "tekken"
    tok = loaded["v13"]
    rows = tok.encode_batch(["Hello world", "Bonjour le monde", ""])
    assert [list(r.ids) for r in rows] == [
        ref.encode(t, bos=True, eos=False) for t in ["Hello world", "Bonjour le monde", ""]
    ]


def test_first_key_detection(tmp_path, o200k_prefix):
    path = write(tmp_path, "vocab.json", tekken_document(o200k_prefix[:300]))
    assert detect(str(path)) == "tekken"
    assert Tokenizer.from_file(path).kernel == "tekken"


def test_save_round_trip(tmp_path, files, loaded):
    tok = loaded["v13"]
    out = tmp_path / "saved-tekken.json"
    tok.save(out)
    again = Tokenizer.from_file(out)
    ref = Tekkenizer.from_file(str(out))
    for text in texts()[:4]:
        assert list(again.encode(text).ids) == ref.encode(text, bos=True, eos=False) == list(tok.encode(text).ids)
    with pytest.raises(ValueError, match=r"tekken\.json"):
        tok.save(tmp_path / "x.tiktoken")


def test_save_tokenizer_json(tmp_path, files, loaded):
    """Saved as tokenizer.json (the byte-level BPE form: ranks as merges, the pattern as a Split,
    bos as a template), HF tokenizers and tokenforge read it to the Tekkenizer's ids on text
    without special-token strings (in a tokenizer.json those are matched, as HF matches added
    tokens; tekken reads them as text)."""
    tokenizers = pytest.importorskip("tokenizers")
    _, ref = files["v13"]
    out = tmp_path / "tokenizer.json"
    loaded["v13"].save(out)
    hf = tokenizers.Tokenizer.from_file(str(out))
    again = Tokenizer.from_file(out)
    for text in texts():
        want = ref.encode(text, bos=True, eos=False)
        assert hf.encode(text).ids == want
        assert list(again.encode(text).ids) == want
        assert hf.decode(want) == ref.decode(want)
    assert hf.encode("[INST]").ids == [1, 3]  # the documented difference
    assert ref.encode("[INST]", bos=True, eos=False) != [1, 3]


def test_convert(tmp_path, files):
    from tokenforge.formats import convert

    path, ref = files["v11-image-audio"]
    done = convert(path, tmp_path / "out.json")
    assert (done.source_format, done.format) == ("tekken", "tokenizer.json")
    tok = Tokenizer.from_file(tmp_path / "out.json")
    text = texts()[0]
    assert list(tok.encode(text).ids) == ref.encode(text, bos=True, eos=False)
    with pytest.raises(ValueError, match="Tekken model"):
        convert(path, tmp_path / "out.tokenforge")


def test_options(files, loaded):
    _, ref = files["v13"]
    tok = Tokenizer.from_spec(dataclasses.replace(loaded["v13"].spec, options={"add_bos": False, "add_eos": True}))
    assert list(tok.encode("hi").ids) == ref.encode("hi", bos=False, eos=True)
    assert list(tok.encode("hi", add_special_tokens=False).ids) == ref.encode("hi", bos=False, eos=False)
    tok.add_bos = True  # the option, set: the pipeline is compiled again
    assert list(tok.encode("hi").ids) == ref.encode("hi", bos=True, eos=True)
    with pytest.raises(TypeError, match="split_special_tokens"):
        Tokenizer.from_spec(
            __import__("dataclasses").replace(loaded["v13"].spec, options={"split_special_tokens": True})
        )


def test_pickle(loaded, files):
    import pickle

    tok = loaded["v13"]
    copy = pickle.loads(pickle.dumps(tok))
    assert list(copy.encode("Hello there").ids) == list(tok.encode("Hello there").ids)


# -- versions and corrupt files ------------------------------------------------------------


def _doc(tokens, **kw):
    return tekken_document(tokens[:300], num_special=40, **kw)


@pytest.mark.parametrize(
    ("change", "where", "mistral_fails"),
    [
        (lambda d: d["config"].update(version="v9"), "config.version", True),
        (lambda d: d["config"].pop("pattern"), "config.pattern", True),
        (lambda d: d["config"].update(default_vocab_size=40 + 301), "config.default_vocab_size", True),
        (lambda d: d["config"].update(default_num_special_tokens=3), "config.default_num_special_tokens", True),
        (lambda d: d["config"].update(default_vocab_size="big"), "config.default_vocab_size", True),
        (lambda d: d.pop("special_tokens"), "special_tokens", True),  # v13 must list them
        (lambda d: d["special_tokens"].append({"rank": 26, "token_str": "<s>", "is_control": True}),
         "special_tokens[26].token_str", True),
        (lambda d: d["vocab"][5].update(rank=6), "vocab[5].rank", True),
        (lambda d: d["vocab"][7].update(token_bytes=base64.b64encode(b"q").decode()), "vocab[7].token_bytes", True),
        (lambda d: d["vocab"][280].update(token_bytes=d["vocab"][270]["token_bytes"]), "vocab[280].token_bytes", True),
        (lambda d: d["vocab"][3].pop("token_str"), "vocab[3]", True),
        (lambda d: d.update(multimodal={"image_patch_size": 16}), "multimodal", True),
        (lambda d: d.update(model_settings_builder={}), "model_settings_builder", True),
        (lambda d: d.update(vocab={}), "vocab", True),
        (lambda d: d["special_tokens"][3].update(rank=9), "special_tokens[3].rank", False),
    ],
)  # fmt: skip
def test_corrupt_files_name_the_field(tmp_path, o200k_prefix, change, where, mistral_fails):
    doc = _doc(o200k_prefix)
    change(doc)
    path = write(tmp_path, "bad-tekken.json", doc)
    with pytest.raises(FormatError) as e:
        Tokenizer.from_file(path)
    assert e.value.where == where, str(e.value)
    if mistral_fails:
        with pytest.raises(Exception):  # noqa: B017 - mistral-common fails with asserts, KeyErrors, ValueErrors
            Tekkenizer.from_file(str(path))


def test_not_json(tmp_path):
    path = tmp_path / "broken-tekken.json"
    path.write_bytes(b'{"config": {')
    with pytest.raises(FormatError, match=r"not a tekken\.json file"):
        Tokenizer.from_file(path)


def test_versions(tmp_path, o200k_prefix):
    for version in ("v1", "v2", "v3", "v7", "v11", "v13", "v15"):
        path = write(tmp_path, f"{version}-tekken.json", _doc(o200k_prefix, version=version))
        tok = Tokenizer.from_file(path)
        ref = Tekkenizer.from_file(str(path))
        assert tok.version == ref.version.value == version
        assert list(tok.encode("Hello, World 2024").ids) == ref.encode("Hello, World 2024", bos=True, eos=False)
    # v3 and v7 without special tokens: the historical 20, as mistral-common
    path = write(tmp_path, "old-tekken.json", _doc(o200k_prefix, version="v3", specials=None))
    assert (
        Tokenizer.from_file(path).id_to_token(19) == "[TOOL_CONTENT]" == Tekkenizer.from_file(str(path)).id_to_piece(19)
    )
    # the old "multimodal" key up to v11
    path = write(
        tmp_path, "mm-tekken.json", _doc(o200k_prefix, version="v11", extra={"multimodal": {"image_patch_size": 16}})
    )
    assert Tokenizer.from_file(path).tekken.image == {"image_patch_size": 16}


def test_pattern_without_scanner_is_refused(tmp_path, o200k_prefix):
    path = write(tmp_path, "dot-tekken.json", _doc(o200k_prefix, pattern="."))
    with pytest.raises(FormatError, match="no native scanner"):
        Tokenizer.from_file(path)
