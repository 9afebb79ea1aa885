"""GGUF tokenizers (formats/gguf.py) as llama.cpp runs them: llama.cpp's own test vectors for its
vocabulary files, and GGUF files built here with the gguf package from HF tokenizers and
sentencepiece models, compared with those libraries on the corpus samples and hypothesis strings.

llama.cpp's vectors (tests/data/gguf/*.inp, *.out: texts apart by a `__ggml_vocab_test__` line,
ids per line, encoded with add_special=false, parse_special=false) are the reference for the
files they come with; the qwen2 file (5.9 MB) is tested only where ../shared holds it.
"""

from __future__ import annotations

import os
import pathlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import REPO, corpus_files, read_sample
from tokenforge.formats.gguf_pre import CUSTOM, PRE_NAMES, SPLITS

gguf = pytest.importorskip("gguf")

DATA = REPO / "tests" / "data" / "gguf"
# ../shared (or $TOKENFORGE_SHARED) where the project's shared data is at hand.
SHARED_GGUF = pathlib.Path(os.environ.get("TOKENFORGE_SHARED", REPO.parent / "shared")) / "vocab" / "gguf"


def _vectors(base: pathlib.Path) -> list[tuple[str, list[int]]]:
    texts = base.with_name(base.name + ".inp").read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    texts[-1] = texts[-1].removesuffix("\n")
    lines = base.with_name(base.name + ".out").read_text(encoding="utf-8").split("\n")
    return [(text, [int(x) for x in lines[i].split()]) for i, text in enumerate(texts)]


def _vocab_file(name: str) -> pathlib.Path:
    path = DATA / f"ggml-vocab-{name}.gguf"
    if not path.exists():
        path = SHARED_GGUF / f"ggml-vocab-{name}.gguf"
        if not path.exists():
            pytest.skip(f"{path.name} is not at hand (../shared/vocab/gguf)")
    return path


@pytest.mark.parametrize(
    "name, kernel",
    [("gpt-2", "byte_level_hf_bpe"), ("llama-spm", "spm_hf_bpe"), ("bert-bge", "wordpiece"), ("qwen2", None)],
)
def test_llama_cpp_vectors(name, kernel):
    path = _vocab_file(name)
    tok = tokenforge.Tokenizer.from_file(path)
    if kernel is not None:
        assert tok._kernel.name == kernel
    cases = _vectors(path)
    assert len(cases) > 30
    for text, want in cases:
        assert tok.encode(text, add_special_tokens=False).ids == want, text
    assert tok.encode_batch([t for t, _ in cases], add_special_tokens=False)[5].ids == cases[5][1]


# -- GGUF files written here -----------------------------------------------------------------


def _write(path: pathlib.Path, arch: str, fields: dict) -> pathlib.Path:
    """A vocabulary-only GGUF file: `fields` maps gguf.GGUFWriter's add_* methods to arguments."""
    writer = gguf.GGUFWriter(str(path), arch)
    for method, value in fields.items():
        getattr(writer, method)(value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _samples(chars: int = 3000) -> list[str]:
    texts = []
    for f in corpus_files():
        text = read_sample(f, chars * 4)
        texts += [text[:chars], text[chars : chars * 2]]
    return texts


HYPOTHESIS_TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from([" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "123", "1234567", "é", "ß", "中文", "▁", "…"]),
    ),
    max_size=40,
).map("".join)


def _hf_bpe(pre: str):
    """A small byte-level BPE trained with HF tokenizers, split as llama.cpp's `pre` type, and
    its GGUF fields."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    kind, flags = PRE_NAMES[pre]
    splits = [pre_tokenizers.Split(tokenizers.Regex(r), "isolated") for r in SPLITS[kind]]
    hf = tokenizers.Tokenizer(models.BPE(ignore_merges=flags.get("ignore_merges", False)))
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [*splits, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500,
        special_tokens=["<|endoftext|>", "<|im_start|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    hf.train_from_iterator(_samples(20000), trainer)
    hf.add_tokens(["<user-defined>"])
    hf.encode_special_tokens = True  # llama.cpp's parse_special=false: control tokens are text
    vocab = hf.get_vocab(with_added_tokens=True)
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    assert [vocab[t] for t in tokens] == list(range(len(tokens)))
    import json

    merges = json.loads(hf.to_str())["model"]["merges"]
    types = [3 if t in ("<|endoftext|>", "<|im_start|>") else 4 if t == "<user-defined>" else 1 for t in tokens]
    fields = {
        "add_tokenizer_model": "gpt2",
        "add_tokenizer_pre": pre,
        "add_token_list": tokens,
        "add_token_types": types,
        "add_token_merges": [" ".join(m) if isinstance(m, list) else m for m in merges],
        "add_bos_token_id": 0,
        "add_eos_token_id": 0,
    }
    return hf, fields


BPE_PRES = [
    "gpt-2",
    "llama-bpe",
    "qwen2",
    "deepseek-llm",
    "deepseek-coder",
    "falcon",
    "starcoder",
    "gpt-4o",
    "tekken",
    "bloom",
    "viking",
    "deepseek-v3",
    "seed-coder",
    "default",
]


@pytest.mark.parametrize("pre", BPE_PRES)
def test_gpt2_gguf_matches_hf(tmp_path, pre):
    hf, fields = _hf_bpe(pre)
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "bpe.gguf", "gpt2", fields))
    for text in [*_samples(), "a<user-defined>b <|endoftext|>x", "  \n\n\t x  y 12345 'LL"]:
        want = hf.encode(text, add_special_tokens=False)
        got = tok.encode(text, add_special_tokens=False)
        assert got.ids == want.ids, (pre, text[:80])

    @settings(max_examples=60, deadline=None)
    @given(HYPOTHESIS_TEXT)
    def check(text):
        assert tok.encode(text, add_special_tokens=False).ids == hf.encode(text, add_special_tokens=False).ids

    check()


def test_gpt2_gguf_flags_and_partition(tmp_path):
    """llama-bpe sets add_bos; the file's add_bos_token wins; control tokens in text are text
    unless allowed (parse_special), user-defined ones always match."""
    hf, fields = _hf_bpe("llama-bpe")
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "a.gguf", "gpt2", fields))
    text = "hi<|endoftext|> there<user-defined>"
    plain = hf.encode(text.replace("<|endoftext|>", ""), add_special_tokens=False).ids
    ids = tok.encode(text).ids
    assert ids[0] == 0 and ids.count(0) == 1  # BOS only: "<|endoftext|>" stays text
    assert ids[-1] == hf.token_to_id("<user-defined>")
    assert len(ids) > len(plain)
    allowed = tok.encode(text, add_special_tokens=False, allowed_special={"<|endoftext|>", "<user-defined>"}).ids
    assert allowed.count(0) == 1 and allowed[0] != 0
    tok.split_special_tokens = False  # llama.cpp's parse_special=true
    assert tok.encode(text, add_special_tokens=False).ids == allowed
    fields["add_add_bos_token"] = False
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "b.gguf", "gpt2", fields))
    assert tok.encode("hi").ids == hf.encode("hi", add_special_tokens=False).ids


def test_gguf_strip_takes_ascii_whitespace(tmp_path):
    """A Phi-3 file (general.name): llama.cpp gives its control and user-defined tokens rstrip,
    and its partition strips the text after one with C's isspace, byte by byte: the six ASCII
    spaces go, a no-break space, an ideographic space or \\x1c stays (HF's rule would take them)."""
    hf, fields = _hf_bpe("llama-bpe")
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "phi3.gguf", "phi3", {**fields, "add_name": "Phi3"}))
    ud = hf.token_to_id("<user-defined>")
    for after, kept in [
        (" \t\n\x0b\x0c\rx", "x"),
        ("\u00a0x", "\u00a0x"),
        ("\u3000 x", "\u3000 x"),
        ("\x1c x", "\x1c x"),
        ("  \u2028\n x", "\u2028\n x"),
    ]:
        plain = hf.encode(kept, add_special_tokens=False).ids
        assert tok.encode("a<user-defined>" + after, add_special_tokens=False).ids[1:] == [ud, *plain], after
    # lstrip is not given here: the text before the token keeps its spaces
    before = tok.encode("a \u3000<user-defined>", add_special_tokens=False).ids
    assert before == [*hf.encode("a \u3000", add_special_tokens=False).ids, ud]


def test_gguf_user_single_word_token(tmp_path):
    """A token a user adds with single_word to a GGUF tokenizer (llama.cpp's partition has no
    such flag) is found only where no word character touches it, as HF's single_word; one
    added without it is found anywhere."""
    hf, fields = _hf_bpe("llama-bpe")
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "a.gguf", "gpt2", fields))
    tok.add_tokens([tokenforge.AddedToken("zork", 0, special=False, single_word=True), "quux"])
    zork, quux = tok.token_to_id("zork"), tok.token_to_id("quux")
    ids = tok.encode("zork xzork zorky, zork! aquuxb", add_special_tokens=False).ids
    assert ids.count(zork) == 2 and ids.count(quux) == 1
    assert (
        ids[0] == zork
        and tok.encode("xzork", add_special_tokens=False).ids == hf.encode("xzork", add_special_tokens=False).ids
    )


def test_llama_rules_belong_to_the_whole_set():
    """llama.cpp's partition is a set's rule, not a token's: a set whose tokens disagree on the
    flag is refused, naming it."""
    from tokenforge import _core

    assert _core.SpecialMatcher([(b"<a>", 1, 64), (b"<bb>", 2, 64 | 4)]).find("x<bb>") is not None
    with pytest.raises(ValueError, match="llama flag"):
        _core.SpecialMatcher([(b"<a>", 1, 64), (b"<bb>", 2, 4)])


def _llama_partition(text: str, tokens: list[tuple[str, int, bool, bool]]) -> list:
    """llama.cpp's tokenizer_st_partition, written out for the test: `tokens` (text, id, lstrip,
    rstrip) in its order (longest first); each token's occurrences, left to right, in each text
    fragment left; lstrip and rstrip take C's isspace spaces inside the fragment. Returns the
    fragments: str, or a token's id."""
    parts: list = [text]
    for content, tid, lstrip, rstrip in tokens:
        out: list = []
        for part in parts:
            while isinstance(part, str) and (at := part.find(content)) >= 0:
                left, part = part[:at], part[at + len(content) :]
                if lstrip:
                    left = left.rstrip(" \t\n\v\f\r")
                if rstrip:
                    part = part.lstrip(" \t\n\v\f\r")
                out += [left, tid] if left else [tid]
            if part != "":
                out.append(part)
        parts = out
    return parts


_PARTITION_EXTRA = ["<<ab", "ab>>>", "wwee", "qqww", "endof", "\n\n", "\n\n\n", "[MASK]", " [MASK]"]  # user-defined
_PARTITION_CONTROL = ["<s>", "</s>", "<unk>"]  # (llama.cpp's Phi-3 attributes name them: it needs them)


def _partition_files(tmp_path):
    """Three GGUF files whose added tokens overlap (a plain one; a Phi-3 one: rstrip on its
    control and user-defined tokens but <s>, <unk> and <|endoftext|>; a ModernBERT one: lstrip
    on [MASK]), as (name, path, tokens, types), the HF tokenizer of their model, and texts
    mixing the tokens, parts of them and spaces."""
    import random

    hf, fields = _hf_bpe("llama-bpe")
    tokens = [*fields["add_token_list"], *_PARTITION_EXTRA, *_PARTITION_CONTROL]
    types = [*fields["add_token_types"], *[4] * len(_PARTITION_EXTRA), *[3] * len(_PARTITION_CONTROL)]
    files = []
    for name in ("plain", "Phi3", "modern-bert"):
        fields_of = {**fields, "add_token_list": tokens, "add_token_types": types, "add_name": name}
        files.append((name, _write(tmp_path / f"{name}.gguf", "llama", fields_of), tokens, types))
    rng = random.Random(3)
    bits = [*_PARTITION_EXTRA, *_PARTITION_CONTROL, "<|endoftext|>", "<|im_start|>", "<user-defined>"]
    bits += ["<<", "ab", ">>", "qq", "ww", "ee", " ", "\t", "\u00a0", "\u3000", "\x1c", "x", "\n"]
    texts = ["<<ab>>>", "qqwwee", "<|endoftext|>", "\n\n\n\n\n", "a <<ab>>> \u3000b", "</s> \u00a0x"]
    texts += ["".join(rng.choice(bits) for _ in range(rng.randint(1, 12))) for _ in range(300)]
    return hf, files, texts


def test_gguf_partition_is_llama_cpps(tmp_path):
    """Added tokens of a GGUF file are found as llama.cpp's partition finds them: the longest
    token first (equal lengths by id), each in the text no longer token took, where HF's
    leftmost-longest search would take the token that starts first; a control token left as
    text (parse_special off) hides nothing. Against llama.cpp's loop written out
    (_llama_partition)."""
    hf, files, texts = _partition_files(tmp_path)
    for name, path, tokens, types in files:
        tok = tokenforge.Tokenizer.from_file(path)
        index = {t: i for i, t in enumerate(tokens)}
        special = [t for t, k in zip(tokens, types) if k in (3, 4)]
        order = sorted(sorted(special, key=index.__getitem__), key=len, reverse=True)
        no_rstrip = ("<s>", "<unk>", "<|endoftext|>")

        def expect(text: str, parse_special: bool) -> list[int]:
            used = [
                (t, index[t], name == "modern-bert" and t == "[MASK]", name == "Phi3" and t not in no_rstrip)
                for t in order
            ]
            if not parse_special:
                used = [u for u in used if types[u[1]] == 4]
            ids: list[int] = []
            for part in _llama_partition(text, used):
                ids += [part] if isinstance(part, int) else hf.encode(part, add_special_tokens=False).ids
            return ids

        for text in texts:
            assert tok.encode(text, add_special_tokens=False).ids == expect(text, False), (name, text)
        tok.split_special_tokens = False  # parse_special on
        for text in texts:
            assert tok.encode(text, add_special_tokens=False).ids == expect(text, True), (name, text)


def test_gguf_partition_matches_llama_cpp(tmp_path):
    """The same files and texts against llama.cpp itself (llama-cpp-python, where installed: it
    builds llama.cpp from source), with parse_special off and on."""
    llama_cpp = pytest.importorskip("llama_cpp")
    _, files, texts = _partition_files(tmp_path)
    for name, path, _, _ in files:
        tok = tokenforge.Tokenizer.from_file(path)
        model = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
        for parse_special in (False, True):
            tok.split_special_tokens = not parse_special
            for text in texts:
                want = model.tokenize(text.encode(), add_bos=False, special=parse_special)
                assert tok.encode(text, add_special_tokens=False).ids == want, (name, parse_special, text)


def test_gemma4_gguf_matches_hf(tmp_path):
    """gemma4: sentencepiece-style BPE (spaces as "▁", <0xXX> byte fallback) over the lines
    apart, BOS always added (llama.cpp's override)."""
    tokenizers = pytest.importorskip("tokenizers")
    import json

    from tokenizers import models, normalizers, pre_tokenizers, trainers

    split = pre_tokenizers.Split(tokenizers.Regex(SPLITS["gemma4"][0]), "isolated")
    trained = tokenizers.Tokenizer(models.BPE())
    trained.normalizer = normalizers.Replace(" ", "\u2581")
    trained.pre_tokenizer = split
    trained.train_from_iterator(
        _samples(20000),
        trainers.BpeTrainer(
            vocab_size=1500, limit_alphabet=300, special_tokens=["<pad>", "<bos>"], show_progress=False
        ),
    )
    model = json.loads(trained.to_str())["model"]
    vocab = dict(model["vocab"])
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in model["merges"]]
    hf = tokenizers.Tokenizer(models.BPE(vocab, merges, byte_fallback=True))
    hf.normalizer = normalizers.Replace(" ", "\u2581")
    hf.pre_tokenizer = split
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    fields = {
        "add_tokenizer_model": "gemma4",
        "add_token_list": tokens,
        "add_token_types": [3 if t in ("<pad>", "<bos>") else 6 if t.startswith("<0x") else 1 for t in tokens],
        "add_token_merges": [" ".join(m) for m in merges],
        "add_bos_token_id": 1,
    }
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "g.gguf", "gemma4", fields))
    for text in [*_samples(), "  two  spaces \n\n\nthree", "emoji 🤗 ☃"]:
        assert tok.encode(text, add_special_tokens=False).ids == hf.encode(text).ids, text[:80]
    assert tok.encode("hi").ids == [1, *hf.encode("hi").ids]


def _spm_model(tmp_path, model_type: str, **options):
    spm = pytest.importorskip("sentencepiece")
    text = tmp_path / "train.txt"
    text.write_text("\n".join(_samples(8000)), encoding="utf-8")
    prefix = tmp_path / model_type
    spm.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(prefix),
        model_type=model_type,
        vocab_size=2000,
        character_coverage=0.995,
        minloglevel=2,
        **options,
    )
    return spm.SentencePieceProcessor(model_file=str(prefix) + ".model")


def _spm_fields(sp, model: str) -> dict:
    n = sp.get_piece_size()
    types = []
    for i in range(n):
        types.append(
            2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 6 if sp.is_byte(i) else 5 if sp.is_unused(i) else 1
        )
    return {
        "add_tokenizer_model": model,
        "add_token_list": [sp.id_to_piece(i) for i in range(n)],
        "add_token_scores": [sp.get_score(i) for i in range(n)],
        "add_token_types": types,
        "add_unk_token_id": sp.unk_id(),
        "add_bos_token_id": sp.bos_id(),
        "add_eos_token_id": sp.eos_id(),
    }


def test_llama_spm_gguf_matches_sentencepiece(tmp_path):
    """llama.cpp's SPM is sentencepiece's BPE by scores with byte fallback and a dummy prefix
    (no extra-whitespace removal, no normalization)."""
    sp = _spm_model(
        tmp_path, "bpe", byte_fallback=True, normalization_rule_name="identity", remove_extra_whitespaces=False
    )
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "spm.gguf", "llama", _spm_fields(sp, "llama")))
    assert tok._kernel.name == "spm_hf_bpe"
    for text in [*_samples(), "  two  spaces ", "emoji 🤗 and ☃", "\n\n"]:
        assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text), text[:80]
    assert tok.encode("hello").ids == [sp.bos_id(), *sp.encode("hello")]

    @settings(max_examples=80, deadline=None)
    @given(HYPOTHESIS_TEXT)
    def check(text):
        assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text)

    check()


def test_t5_ugm_gguf_matches_sentencepiece(tmp_path):
    """llama.cpp's UGM is sentencepiece's Unigram: the precompiled charsmap (nmt_nfkc here),
    extra whitespace removed, a dummy prefix; EOS added."""
    sp = _spm_model(tmp_path, "unigram")
    proto = sp.serialized_model_proto()
    from tokenforge.formats.sentencepiece_model import SentencePieceModel

    charsmap = SentencePieceModel.from_bytes(proto).normalizer_spec["precompiled_charsmap"]
    fields = _spm_fields(sp, "t5")
    fields["add_add_space_prefix"] = True
    fields["add_remove_extra_whitespaces"] = True
    fields["add_precompiled_charsmap"] = charsmap
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "t5.gguf", "t5", fields))
    for text in [*_samples(), "  two  spaces ", "ｆｕｌｌ width", "\u2000x"]:
        assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text), text[:80]
    assert tok.encode("hello").ids == [*sp.encode("hello"), sp.eos_id()]

    @settings(max_examples=80, deadline=None)
    @given(HYPOTHESIS_TEXT)
    def check(text):
        assert tok.encode(text, add_special_tokens=False).ids == sp.encode(text)

    check()


# -- the pre-tokenizer table -----------------------------------------------------------------


def test_every_pre_name_has_a_split():
    for name, (kind, flags) in PRE_NAMES.items():
        assert kind in SPLITS or kind in CUSTOM, name
        assert set(flags) <= {
            "ignore_merges",
            "add_bos",
            "clean_spaces",
            "add_sep",
            "escape_whitespaces",
            "byte_encode",
            "no_bos",
        }
    assert len(PRE_NAMES) >= 90


@pytest.mark.parametrize("kind", sorted(set(SPLITS) - {"gemma4"}))
def test_every_split_runs_as_hf(tmp_path, kind):
    """Each split list of the table, on a vocabulary of the 256 byte tokens and one merge: the ids
    of HF tokenizers' Split(Isolated) sequence then ByteLevel."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    from tokenforge.pipeline.fused_hf_bpe import BYTE_CHARS

    pre = next(name for name, (k, _) in PRE_NAMES.items() if k == kind)
    tokens = [*BYTE_CHARS, "\u0120t"]  # the bytes, and one merge (the gguf package drops empty arrays)
    merges = [("\u0120", "t")]
    ignore_merges = PRE_NAMES[pre][1].get("ignore_merges", False)
    hf = tokenizers.Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges, ignore_merges=ignore_merges))
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(tokenizers.Regex(r), "isolated") for r in SPLITS[kind]]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    fields = {
        "add_tokenizer_model": "gpt2",
        "add_tokenizer_pre": pre,
        "add_token_list": tokens,
        "add_token_merges": ["\u0120 t"],
        "add_bos_token_id": 0,
    }
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "b.gguf", "gpt2", fields))
    text = "Hello WORLD's 1234567 中文字 テスト  \n\n x…y IMGIMGABZ <sentinel:3> a.b,c! " + _samples(1000)[-1]
    assert tok.encode(text, add_special_tokens=False).ids == hf.encode(text, add_special_tokens=False).ids
    pieces = [p for p, _ in hf.pre_tokenizer.pre_tokenize_str(text)]
    assert len(pieces) > 10


# -- errors --------------------------------------------------------------------------------


def _minimal_gpt2() -> dict:
    tokens = ["a", "b", "ab", "<|e|>"]
    return {
        "add_tokenizer_model": "gpt2",
        "add_tokenizer_pre": "gpt-2",
        "add_token_list": tokens,
        "add_token_types": [1, 1, 1, 3],
        "add_token_merges": ["a b"],
    }


def test_corrupt_files_name_the_key(tmp_path):
    def load(fields, name="x.gguf"):
        return tokenforge.Tokenizer.from_file(_write(tmp_path / name, "gpt2", fields))

    assert load(_minimal_gpt2()).encode("ab", add_special_tokens=False).ids == [2]
    for change, key in [
        ({"add_tokenizer_pre": "no-such-pre"}, "tokenizer.ggml.pre"),
        ({"add_tokenizer_pre": "kimi-k2"}, "tokenizer.ggml.pre"),
        ({"add_token_merges": ["a c"]}, "tokenizer.ggml.merges"),
        ({"add_token_merges": ["ab"]}, "tokenizer.ggml.merges"),
        ({"add_token_types": [1, 1]}, "tokenizer.ggml.token_type"),
        ({"add_bos_token_id": 10**6}, "tokenizer.ggml.bos_token_id"),
        ({"add_add_bos_token": True, "add_bos_token_id": 10**6}, "tokenizer.ggml.bos_token_id"),
    ]:
        with pytest.raises(ValueError, match=key.replace(".", r"\.")):
            load({**_minimal_gpt2(), **change})
    fields = _minimal_gpt2()
    del fields["add_token_merges"]
    with pytest.raises(ValueError, match=r"tokenizer\.ggml\.merges.*missing"):
        load(fields)
    # scores of the wrong type: strings where numbers belong
    path = tmp_path / "s.gguf"
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tokenizer_model("llama")
    writer.add_token_list(["<unk>", "a"])
    writer.add_array("tokenizer.ggml.scores", ["x", "y"])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    with pytest.raises(ValueError, match=r"tokenizer\.ggml\.scores"):
        tokenforge.Tokenizer.from_file(path)
    # truncated anywhere in the metadata: an error naming the place, never a crash
    good = _write(tmp_path / "good.gguf", "gpt2", _minimal_gpt2()).read_bytes()
    end = len(good.rstrip(b"\0"))  # the metadata's end (the alignment padding after it is not read)
    for cut in range(24, end, max(1, end // 40)):
        (tmp_path / "cut.gguf").write_bytes(good[:cut])
        with pytest.raises(ValueError):
            tokenforge.Tokenizer.from_file(tmp_path / "cut.gguf")
    bad_map = {"add_precompiled_charsmap": struct.pack("<I", 100) + b"ab"}
    t5 = {"add_tokenizer_model": "t5", "add_token_list": ["<pad>", "</s>", "<unk>", "▁a"], **bad_map}
    with pytest.raises(ValueError, match=r"tokenizer\.ggml\.precompiled_charsmap"):
        tokenforge.Tokenizer.from_file(_write(tmp_path / "t5.gguf", "t5", t5))


def test_damaged_bytes_are_errors_not_crashes(tmp_path):
    """Random bytes overwritten anywhere in a gpt2 and a llama GGUF: each load gives a tokenizer
    or a ValueError (FormatError), never a crash or another exception."""
    import contextlib
    import random

    rng = random.Random(20)
    spm_fields = {
        "add_tokenizer_model": "llama",
        "add_token_list": ["<unk>", "<s>", "</s>", "\u2581", "a", "\u2581a", *[f"<0x{b:02X}>" for b in range(256)]],
        "add_token_scores": [0.0, 0.0, 0.0, -1.0, -2.0, -0.5, *[0.0] * 256],
        "add_token_types": [2, 3, 3, 1, 1, 1, *[6] * 256],
    }
    for name, arch, fields in (("bpe", "gpt2", _minimal_gpt2()), ("spm", "llama", spm_fields)):
        good = _write(tmp_path / f"{name}.gguf", arch, fields).read_bytes()
        assert tokenforge.Tokenizer.from_file(tmp_path / f"{name}.gguf") is not None
        bad = tmp_path / f"{name}-bad.gguf"
        for _ in range(150):
            data = bytearray(good)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(24, len(data))] = rng.randrange(256)
            bad.write_bytes(bytes(data))
            with contextlib.suppress(ValueError):
                tokenforge.Tokenizer.from_file(bad).encode("a b", add_special_tokens=False)


# -- writing GGUF --------------------------------------------------------------------------


def test_write_gguf_reads_back_to_the_same_ids(tmp_path):
    """Tokenizers GGUF can hold, saved as .gguf (formats/gguf_write.py) and read back: the ids of
    the reference library on the samples."""
    import json

    # a byte-level BPE tokenizer.json (HF-trained, Llama 3's split) -> gpt2 / llama-bpe
    hf, _ = _hf_bpe("llama-bpe")
    (tmp_path / "bpe.json").write_text(hf.to_str(), encoding="utf-8")
    assert json.loads(hf.to_str())["model"]["ignore_merges"]
    source = tokenforge.Tokenizer.from_file(tmp_path / "bpe.json")
    source.save(tmp_path / "bpe.gguf")
    back = tokenforge.Tokenizer.from_file(tmp_path / "bpe.gguf")
    fields = gguf.GGUFReader(str(tmp_path / "bpe.gguf")).fields
    assert fields["tokenizer.ggml.pre"].contents() == "llama3"
    for text in _samples():
        assert back.encode(text, add_special_tokens=False).ids == hf.encode(text, add_special_tokens=False).ids
    # a sentencepiece BPE with byte fallback and no normalization -> llama (SPM)
    spm = pytest.importorskip("sentencepiece")
    model = REPO / "tests" / "data" / "vocab" / "mistral-7b-v0.1.model"
    sp = spm.SentencePieceProcessor(model_file=str(model))
    tokenforge.Tokenizer.from_file(model).save(tmp_path / "spm.gguf")
    back = tokenforge.Tokenizer.from_file(tmp_path / "spm.gguf")
    assert back.kernel == "spm_hf_bpe"
    for text in [*_samples(), "  two  spaces "]:
        assert back.encode(text).ids == [sp.bos_id(), *sp.encode(text)], text[:80]
    # a sentencepiece Unigram (nmt_nfkc) -> t5 (UGM)
    uni = _spm_model(tmp_path, "unigram")
    (tmp_path / "uni.model").write_bytes(uni.serialized_model_proto())
    tokenforge.Tokenizer.from_file(tmp_path / "uni.model").save(tmp_path / "uni.gguf")
    back = tokenforge.Tokenizer.from_file(tmp_path / "uni.gguf")
    for text in [*_samples(), "ｆｕｌｌ  width "]:
        assert back.encode(text, add_special_tokens=False).ids == uni.encode(text), text[:80]


def test_write_gguf_refuses_what_it_cannot_hold(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import normalizers

    hf, _ = _hf_bpe("qwen2")
    hf.normalizer = normalizers.NFC()
    (tmp_path / "nfc.json").write_text(hf.to_str(), encoding="utf-8")
    with pytest.raises(ValueError, match="no normalizer"):
        tokenforge.Tokenizer.from_file(tmp_path / "nfc.json").save(tmp_path / "nfc.gguf")
    assert not (tmp_path / "nfc.gguf").exists()
    # WordPiece: test_gguf_types.py (an uncased BERT is written as WPM, a cased one refused)
    hf, _ = _hf_bpe("gpt-2")
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=True)
    (tmp_path / "prefix.json").write_text(hf.to_str(), encoding="utf-8")
    with pytest.raises(ValueError, match="without a prefix space"):
        tokenforge.Tokenizer.from_file(tmp_path / "prefix.json").save(tmp_path / "prefix.gguf")


def test_convert_to_and_from_gguf(tmp_path):
    from tokenforge.formats.convert import convert

    model = REPO / "tests" / "data" / "vocab" / "mistral-7b-v0.1.model"
    done = convert(model, tmp_path / "m.gguf")
    assert (done.format, done.vocab_size) == ("gguf", 32000)
    back = convert(tmp_path / "m.gguf", tmp_path / "m.json")
    assert back.source_format == "gguf" and back.format == "tokenizer.json"
    text = _samples()[3]
    ids = tokenforge.Tokenizer.from_file(model).encode(text).ids
    assert tokenforge.Tokenizer.from_file(tmp_path / "m.json").encode(text).ids == ids
    # a BERT tokenizer.json is written as llama.cpp's WPM, which reads the probe texts otherwise
    with pytest.raises(ValueError, match="cannot hold this tokenizer whole"):
        convert(REPO / "tests" / "data" / "vocab" / "bert" / "tokenizer.json", tmp_path / "b.gguf")
    assert not (tmp_path / "b.gguf").exists()


def test_added_token_rules_option_is_checked(tmp_path):
    """The option's value is one of its names (an error naming them otherwise), and a tokenizer
    rebuilt from its spec (as add_tokens does) keeps it."""
    import dataclasses

    _, fields = _hf_bpe("llama-bpe")
    tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "phi3.gguf", "phi3", {**fields, "add_name": "Phi3"}))
    assert tok.spec.options["added_token_rules"] == "llama"
    with pytest.raises(ValueError, match="added_token_rules must be one of 'hf', 'python', 'llama', 'siglip', got 'c'"):
        tokenforge.Tokenizer.from_spec(
            dataclasses.replace(tok.spec, options={**tok.spec.options, "added_token_rules": "c"})
        )
    tok.add_tokens(["<new>"])
    assert tok.spec.options["added_token_rules"] == "llama"
    assert (
        tok.encode("<user-defined>\u00a0x", add_special_tokens=False).ids[1:]
        == tok.encode("\u00a0x", add_special_tokens=False).ids
    )
