"""GGUF tokenizer types beyond the common four (formats/gguf.py): llama.cpp's `rwkv` (greedy
longest match over unescaped bytes) and `plamo2` (a least-cost cut by integer scores with byte
fallback), its `clean_spaces` clean-up on decode, and the load time of a large vocabulary.

rwkv is compared with the `rwkv` package's TRIE_TOKENIZER over the RWKV World vocabulary it ships
(written as GGUF the way llama.cpp's convert_hf_to_gguf.py writes it). No PyPI library implements
PLaMo-2's tokenizer (it lives in the model repository's remote code), so plamo2 is compared with
a small reference written here from llama.cpp's description, string by string rather than with
llama.cpp's suffix table or tokenforge's trie.
"""

from __future__ import annotations

import math
import pathlib
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tokenforge
from conftest import corpus_files, read_sample
from tokenforge.formats.gguf import unescape_rwkv
from tokenforge.pipeline.compile import llama_clean_spaces

gguf = pytest.importorskip("gguf")
from test_gguf_models import _write  # noqa: E402  (one writer of test GGUF files)

TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from([" ", "  ", "\n", "\t", "<s>", "\ufeff", "the", " of", "ing", "é", "中文", "😀", "\\x"]),
    ),
    max_size=40,
).map("".join)


def _samples(chars: int = 2000) -> list[str]:
    texts = []
    for f in corpus_files():
        text = read_sample(f, chars * 2)
        texts.append(text[:chars])
    return texts


# -- rwkv ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rwkv_pair(tmp_path_factory):
    """(the rwkv package's TRIE_TOKENIZER, the same vocabulary as a GGUF tokenizer)."""
    rwkv_tokenizer = pytest.importorskip("rwkv.rwkv_tokenizer")
    import ast

    vocab_file = pathlib.Path(rwkv_tokenizer.__file__).with_name("rwkv_vocab_v20230424.txt")
    if not vocab_file.exists():
        pytest.skip("the rwkv package ships no rwkv_vocab_v20230424.txt")
    reference = rwkv_tokenizer.TRIE_TOKENIZER(str(vocab_file))
    # convert_hf_to_gguf.py's _set_vocab_rwkv_world: "<s>" (control) at 0, then each token's
    # bytes as repr(bytes)[2:-1]
    tokens, types = ["<s>"], [gguf.TokenType.CONTROL]
    for line in vocab_file.read_text(encoding="utf-8").splitlines():
        parts = line.split(" ")
        token = ast.literal_eval(" ".join(parts[1:-1]))
        token = token.encode("utf-8") if isinstance(token, str) else token
        assert int(parts[0]) == len(tokens)
        tokens.append(repr(token)[2:-1])
        types.append(gguf.TokenType.NORMAL)
    path = _write(
        tmp_path_factory.mktemp("rwkv") / "rwkv.gguf",
        "rwkv6",
        {"add_tokenizer_model": "rwkv", "add_token_list": tokens, "add_token_types": types},
    )
    return reference, tokenforge.Tokenizer.from_file(path), tokens


def test_rwkv_unescape_reads_the_converters_text(rwkv_pair):
    reference, _, tokens = rwkv_pair
    for i in range(1, len(tokens)):
        assert unescape_rwkv(tokens[i]) == reference.idx2token[i], i


def test_rwkv_matches_the_rwkv_package(rwkv_pair):
    reference, tok, _ = rwkv_pair
    assert tok.kernel == "staged"
    for text in _samples():
        assert tok.encode(text, add_special_tokens=False).ids == reference.encode(text), text[:60]
        assert tok.encode(text).ids == reference.encode(text)  # no BOS or EOS for rwkv
    text = _samples()[0]
    assert tok.decode(reference.encode(text)) == reference.decode(reference.encode(text))


@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_rwkv_matches_the_rwkv_package_on_any_text(rwkv_pair, text):
    reference, tok, _ = rwkv_pair
    assume("<s>" not in text)  # the converter's token 0, which the rwkv package does not have
    ids = reference.encode(text)
    assert tok.encode(text, add_special_tokens=False).ids == ids
    assert tok.decode(ids) == reference.decode(ids)


def test_rwkv_matches_every_token_as_llama_cpp(rwkv_pair):
    """llama.cpp's trie holds every token, the control token "<s>" too: its text in the input
    is that token even without parse_special (the rwkv package has no token 0)."""
    _, tok, _ = rwkv_pair
    assert tok.encode("a<s>b", add_special_tokens=False).ids == [98, 0, 99]


def test_rwkv_needs_every_byte(tmp_path):
    path = _write(tmp_path / "r.gguf", "rwkv6", {"add_tokenizer_model": "rwkv", "add_token_list": ["<s>", "a", "b"]})
    with pytest.raises(ValueError, match=r"tokenizer\.ggml\.tokens.*byte 0x00"):
        tokenforge.Tokenizer.from_file(path)


# -- plamo2 ----------------------------------------------------------------------------------


def plamo2_reference(text: str, tokens: list[str], scores: list[float], byte_type: set[int]) -> list[int]:
    """llama.cpp's llm_tokenizer_plamo2::encode, written plainly: from the end, the least cost of
    each position over the tokens that start there (longest first, a strictly lower cost wins),
    a token costing -round(score * 1e4) (not a candidate at -2e7 or below; one at exactly -1e7
    ends the position's candidates), an uncovered code point 1e7 and its UTF-8 byte tokens."""
    byte_ids = {int(tokens[i][3:5], 16): i for i in byte_type}
    pieces = {}
    for i, t in enumerate(tokens):
        if i not in byte_type and math.isfinite(scores[i]):
            pieces[t] = (i, round(scores[i] * 1e4))
    if text.startswith("\ufeff"):
        text = text[1:]
    n = len(text)
    cost = [1 << 60] * (n + 1)
    cost[n] = 0
    best: list[tuple[int, int]] = [(0, -1)] * (n + 1)
    longest = max(map(len, pieces), default=1)
    for i in range(n - 1, -1, -1):
        stop = False
        for length in range(min(longest, n - i), 0, -1):
            entry = pieces.get(text[i : i + length])
            if entry is None or entry[1] <= -20000000:
                continue
            c = cost[i + length] - entry[1]
            if c < cost[i]:
                cost[i], best[i] = c, (length, entry[0])
            if entry[1] == -10000000:
                stop = True
                break
        if not stop and cost[i + 1] + 10000000 < cost[i]:
            cost[i], best[i] = cost[i + 1] + 10000000, (1, -1)
    out, i = [], 0
    while i < n:
        length, tid = best[i]
        if tid >= 0:
            out.append(tid)
        else:
            out += [byte_ids[b] for b in text[i].encode("utf-8")]
        i += length
    return out


@pytest.fixture(scope="module")
def plamo2_vocab():
    """A PLaMo-2-shaped vocabulary: 4 control tokens, the 256 byte tokens, then substrings of
    the corpus samples with random scores (some equal, to test the ties)."""
    rng = random.Random(7)
    tokens = ["<|plamo:unk|>", "<|plamo:bos|>", "<|plamo:eos|>", "<|plamo:pad|>"]
    types = [gguf.TokenType.CONTROL] * 4
    scores = [0.0] * 4
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(gguf.TokenType.BYTE)
        scores.append(0.0)
    seen = set(tokens)
    for text in _samples(600):
        for _ in range(300):
            start = rng.randrange(len(text))
            piece = text[start : start + rng.choice([1, 1, 2, 2, 3, 4, 6])]
            if piece and piece not in seen:
                seen.add(piece)
                tokens.append(piece)
                types.append(gguf.TokenType.NORMAL)
                scores.append(rng.choice([-1.0, -2.5, -3.0, -3.0, rng.uniform(-12, -1)]))
    return tokens, types, scores


@pytest.fixture(scope="module")
def plamo2_pair(tmp_path_factory, plamo2_vocab):
    tokens, types, scores = plamo2_vocab
    path = _write(
        tmp_path_factory.mktemp("plamo2") / "plamo2.gguf",
        "plamo2",
        {
            "add_tokenizer_model": "plamo2",
            "add_token_list": tokens,
            "add_token_types": types,
            "add_token_scores": scores,
        },
    )
    byte_type = {i for i, t in enumerate(types) if t == gguf.TokenType.BYTE}
    # the file holds float32 scores: the reference reads those
    import struct

    f32 = [struct.unpack("f", struct.pack("f", s))[0] for s in scores]
    return tokenforge.Tokenizer.from_file(path), lambda text: plamo2_reference(text, tokens, f32, byte_type)


def test_plamo2_matches_the_reference(plamo2_pair):
    tok, reference = plamo2_pair
    assert tok.kernel == "staged"
    for text in _samples(1000):
        assert tok.encode(text, add_special_tokens=False).ids == reference(text), text[:60]
    assert tok.encode("\ufeffab").ids == reference("\ufeffab")
    ids = tok.encode("abc 😀 é").ids
    assert tok.decode(ids) == "abc 😀 é"


def test_plamo2_has_no_tokenizer_json_form(plamo2_pair, tmp_path):
    """HF tokenizers has no model for PLaMo-2's cut: save refuses, naming it, and writes nothing."""
    tok, _ = plamo2_pair
    with pytest.raises(ValueError, match=r"GgufPlamo2 model has no tokenizer\.json form .*keep the GGUF file"):
        tok.save(str(tmp_path / "tokenizer.json"))
    assert not (tmp_path / "tokenizer.json").exists()


@settings(max_examples=200, deadline=None)
@given(text=TEXT)
def test_plamo2_matches_the_reference_on_any_text(plamo2_pair, text):
    tok, reference = plamo2_pair
    assert tok.encode(text, add_special_tokens=False).ids == reference(text)


def test_plamo2_needs_every_byte_token(tmp_path):
    fields = {
        "add_tokenizer_model": "plamo2",
        "add_token_list": ["<|plamo:unk|>", "<0x00>", "a"],
        "add_token_types": [gguf.TokenType.CONTROL, gguf.TokenType.BYTE, gguf.TokenType.NORMAL],
        "add_token_scores": [0.0, 0.0, -1.0],
    }
    with pytest.raises(ValueError, match="256 byte tokens"):
        tokenforge.Tokenizer.from_file(_write(tmp_path / "p.gguf", "plamo2", fields))


# -- clean_spaces ----------------------------------------------------------------------------


def _llama_clean_reference(text: str) -> str:
    """llama.cpp's three in-place passes, byte for byte (its detokenize)."""
    b = bytearray(text.encode("utf-8"))
    total = len(b)
    # pass 1
    t1, total = total, 1 if total else 0
    for i in range(1, t1):
        x = b[i]
        if b[i - 1] == 0x20 and x in b"?!.,":
            total -= 1
        b[total] = x
        total += 1
    # pass 2
    t2, total = total, 1 if total else 0
    i = 1
    while i < t2:
        x = b[i]
        if x == 0x27 and i + 1 < t2 and b[i - 1] == 0x20 and b[i + 1] == 0x20:
            total -= 1
            i += 1
            b[i] = 0
        b[total] = x
        total += 1
        i += 1
    # pass 3
    t3, total = total, 1 if total else 0
    for i in range(1, t3):
        x = b[i]
        if b[i - 1] == 0x20 and x == 0x27 and i + 1 < t3:
            x1 = b[i + 1]
            contraction = x1 not in b"td" and i + 2 < t3 and bytes([x1, b[i + 2]]) in (b"re", b"ve")
            if x1 in b"sm" or contraction:
                total -= 1
        b[total] = x
        total += 1
    return bytes(b[:total]).decode("utf-8")


@settings(max_examples=400, deadline=None)
@given(
    text=st.lists(st.sampled_from([" ", "'", "?", "!", ".", ",", "s", "m", "re", "ve", "t", "ll", "é", "a"])).map(
        "".join
    )
)
def test_clean_spaces_is_llama_cpps(text):
    assert llama_clean_spaces(text) == _llama_clean_reference(text)


def test_clean_spaces_on_gguf_decode(tmp_path):
    """A gpt2 GGUF file decodes with llama.cpp's clean-up (its default for BPE vocabularies); a
    pre name that turns it off (qwen2) decodes as HF does."""
    from test_gguf_models import _hf_bpe

    hf, fields = _hf_bpe("gpt-2")
    text = "Hello , world ! It 's a test . Isn 't it ? ' quoted ' ok"
    for pre, clean in (("gpt-2", True), ("qwen2", False)):
        path = _write(tmp_path / f"{pre}.gguf", "gpt2", {**fields, "add_tokenizer_pre": pre})
        tok = tokenforge.Tokenizer.from_file(path)
        ids = tok.encode(text, add_special_tokens=False).ids
        plain = hf.decode(ids)
        assert tok.decode(ids) == (llama_clean_spaces(plain) if clean else plain)
    assert llama_clean_spaces(text) == _llama_clean_reference(text) != text


# -- load time ---------------------------------------------------------------------------------


def test_large_vocabulary_loads(tmp_path):
    """A 150,000-token byte-level BPE GGUF file loads, every token at its id. How fast it
    loads is bench/gguf.py's to measure (a timed test only flakes on a shared machine)."""
    from tokenforge.formats.gpt2_files import bytes_to_unicode

    chars = list(bytes_to_unicode().values())
    rng = random.Random(3)
    tokens = list(chars)
    index = set(tokens)
    merges = []
    while len(tokens) < 150_000:
        a, b = tokens[rng.randrange(len(tokens))], rng.choice(chars)
        if a + b not in index:
            index.add(a + b)
            tokens.append(a + b)
            merges.append(f"{a} {b}")
    path = _write(
        tmp_path / "big.gguf",
        "gpt2",
        {
            "add_tokenizer_model": "gpt2",
            "add_tokenizer_pre": "qwen2",
            "add_token_list": tokens,
            "add_token_merges": merges,
        },
    )
    tok = tokenforge.Tokenizer.from_file(path)
    assert tok.get_vocab_size() == 150_000
    for i in (0, 255, 256, 75_000, len(tokens) - 1):
        assert tok.id_to_token(i) == tokens[i] and tok.token_to_id(tokens[i]) == i


# -- no_vocab ----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["no_vocab", "none"])
@pytest.mark.parametrize("with_tokens", [False, True])
def test_no_vocab_loads_and_refuses_to_encode(tmp_path, model, with_tokens):
    """llama.cpp loads a `no_vocab` file (a model without a tokenizer; "none" is its other name)
    and ignores any tokens in it: it loads here too, with no tokens, inspect describes it, and
    every encode and decode raises an error saying the file has no vocabulary."""
    from tokenforge.inspect import describe

    fields = {"add_tokenizer_model": model}
    if with_tokens:
        fields["add_token_list"] = ["a", "b", "ab"]
    path = _write(tmp_path / "no_vocab.gguf", "llama", fields)
    tok = tokenforge.Tokenizer.from_file(path)
    assert tok.kernel == "no_vocab"
    assert tok.get_vocab_size() == 0 and tok.get_vocab() == {}
    assert tok.id_to_token(0) is None and tok.token_to_id("a") is None
    info = describe(tok)
    assert info["vocab_size"] == 0 and info["model"]["type"] == "no_vocab" and info["special_tokens"] == []
    for call in (
        lambda: tok.encode("text"),
        lambda: tok.encode("text", "pair"),
        lambda: tok.encode_batch(["a", "b"]),
        lambda: tok.decode([0]),
        lambda: tok.decode([]),
        lambda: tok.decode_batch([[0]]),
    ):
        with pytest.raises(ValueError, match="has no vocabulary") as e:
            call()
        assert str(path) in str(e.value) and repr(model) in str(e.value)


def test_no_vocab_in_the_cli(tmp_path, capsys):
    from tokenforge.cli import main

    path = _write(tmp_path / "no_vocab.gguf", "llama", {"add_tokenizer_model": "no_vocab"})
    assert main(["inspect", str(path)]) == 0
    assert "no_vocab" in capsys.readouterr().out


# -- where the GGUF and tokenizer.json readings of one model differ on purpose ------------------


def test_gguf_and_json_differ_on_special_text_and_decode(tmp_path):
    """One byte-level BPE, read from its tokenizer.json (HF's rules) and from its GGUF file
    (llama.cpp's): the same ids for ordinary text; special-token text is matched by default in
    tokenizer.json and is plain text in GGUF (parse_special=false) until allowed; the GGUF decode
    cleans spaces (llama.cpp's clean_spaces), the tokenizer.json one does not."""
    from test_gguf_models import _hf_bpe

    hf, fields = _hf_bpe("gpt-2")
    hf.encode_special_tokens = False  # the file as HF saves it: special tokens matched
    hf.save(str(tmp_path / "tokenizer.json"))
    json_tok = tokenforge.Tokenizer.from_file(tmp_path / "tokenizer.json")
    gguf_tok = tokenforge.Tokenizer.from_file(_write(tmp_path / "m.gguf", "gpt2", fields))
    plain = "Hello there, it's a test of the reader."
    assert gguf_tok.encode(plain, add_special_tokens=False).ids == json_tok.encode(plain).ids
    special = "a<|endoftext|>b"
    eot = hf.token_to_id("<|endoftext|>")
    assert eot in json_tok.encode(special).ids
    assert eot not in gguf_tok.encode(special, add_special_tokens=False).ids
    assert eot in gguf_tok.encode(special, add_special_tokens=False, allowed_special={"<|endoftext|>"}).ids
    # user-defined tokens: matched by both
    assert hf.token_to_id("<user-defined>") in gguf_tok.encode("x<user-defined>y", add_special_tokens=False).ids
    spaced = "Hi , you ! It 's"
    ids = json_tok.encode(spaced).ids
    assert json_tok.decode(ids) == spaced
    assert gguf_tok.decode(ids) == "Hi, you! It's"


# -- writing WordPiece as GGUF ---------------------------------------------------------------


def test_uncased_bert_writes_as_wpm(tmp_path):
    """An uncased BERT saves as a `bert` GGUF file that reads back as llama.cpp's WPM over the
    same vocabulary (tokenforge's WPM preset, itself tested against llama.cpp's vectors), with
    HF BERT's ids on ordinary text."""
    from tokenforge.pipeline import presets

    bert = tokenforge.get_tokenizer("bert-base-uncased")
    path = tmp_path / "bert.gguf"
    bert.save(path)
    back = tokenforge.Tokenizer.from_file(path)
    vocab = bert.get_vocab()
    wpm = tokenforge.Tokenizer.from_spec(presets.wpm(sorted(vocab, key=vocab.get), converted=False))
    for text in [*_samples(800), "ÅWhat is LoRA?", "Hello, world! It's 12:30."]:
        assert back.encode(text).ids == wpm.encode(text).ids, text[:60]
    assert back.encode("Hello, world! It's 12:30.").ids == bert.encode("Hello, world! It's 12:30.").ids


def test_wordpiece_that_gguf_cannot_hold_is_refused(tmp_path):
    from dataclasses import replace

    from tokenforge.normalizers.bert import BertNormalizer

    bert = tokenforge.get_tokenizer("bert-base-uncased")
    cased = tokenforge.Tokenizer.from_spec(replace(bert._spec, normalizer=BertNormalizer(lowercase=False)))
    with pytest.raises(ValueError, match="lowercases"):
        cased.save(tmp_path / "cased.gguf")
    assert not (tmp_path / "cased.gguf").exists()
    no_template = tokenforge.Tokenizer.from_spec(replace(bert._spec, post_processor=None))
    with pytest.raises(ValueError, match="CLS text SEP"):
        no_template.save(tmp_path / "plain.gguf")


def test_wpm_gguf_partition_and_marks(tmp_path):
    """A bert GGUF (llama.cpp's WPM) finds every control token in text with parse_special on
    ([MASK] and [PAD], not only the template's [CLS] and [SEP]), as llama.cpp's partition does,
    and drops marks (Mn, Mc, Me, by Unicode 15.1) as llama.cpp's preprocessing does: a word
    around one is joined."""
    bert = tokenforge.get_tokenizer("bert-base-uncased")
    path = tmp_path / "bert.gguf"
    bert.save(path)
    tok = tokenforge.Tokenizer.from_file(path)
    vocab = bert.get_vocab()

    def plain(text):  # (special-token text as text)
        return bert.encode(text, add_special_tokens=False, allowed_special=()).ids

    assert tok.encode("a [MASK] b", add_special_tokens=False).ids == plain("a [MASK] b")  # text by default
    tok.split_special_tokens = False  # parse_special on
    got = tok.encode("a [MASK] b[PAD]", add_special_tokens=False).ids
    assert got == [*plain("a"), vocab["[MASK]"], *plain("b"), vocab["[PAD]"]]
    tok.split_special_tokens = True
    for text, same_as in [("a\u0301b", "ab"), ("ka\u093eb \u0489x", "kab x"), ("\u0cf3q\u0ecew", "qw")]:
        assert tok.encode(text, add_special_tokens=False).ids == tok.encode(same_as, add_special_tokens=False).ids


def test_wpm_gguf_matches_llama_cpp_on_every_code_point(tmp_path):
    """The same bert GGUF against llama.cpp itself (llama-cpp-python, where installed: it builds
    llama.cpp from source), each code point up to U+2FFFF between two letters."""
    llama_cpp = pytest.importorskip("llama_cpp")
    path = tmp_path / "bert.gguf"
    tokenforge.get_tokenizer("bert-base-uncased").save(path)
    tok = tokenforge.Tokenizer.from_file(path)
    model = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    for cp in range(0x21, 0x30000):
        if 0xD800 <= cp < 0xE000:
            continue
        text = f"a{chr(cp)}b"
        want = model.tokenize(text.encode(), add_bos=False, special=False)
        assert tok.encode(text, add_special_tokens=False).ids == want, hex(cp)


def test_wpm_gguf_decode_matches_llama_cpp(tmp_path):
    """Decode of a bert GGUF against llama.cpp's llama_detokenize (where llama-cpp-python is
    installed): random ids, special tokens skipped (unparse_special off) and shown (on)."""
    import ctypes
    import random

    llama_cpp = pytest.importorskip("llama_cpp")
    path = tmp_path / "bert.gguf"
    tokenforge.get_tokenizer("bert-base-uncased").save(path)
    tok = tokenforge.Tokenizer.from_file(path)
    model = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(model.model)

    def detokenize(ids, unparse_special):
        buf = ctypes.create_string_buffer(1 << 16)
        arr = (llama_cpp.llama_token * len(ids))(*ids)
        n = llama_cpp.llama_detokenize(vocab, arr, len(ids), buf, len(buf), False, unparse_special)
        return buf.raw[:n].decode("utf-8", "replace")

    rng = random.Random(4)
    size = model.n_vocab()
    for _ in range(1000):
        ids = [rng.randrange(size) for _ in range(rng.randint(1, 12))]
        for skip in (True, False):
            assert tok.decode(ids, skip_special_tokens=skip) == detokenize(ids, not skip), (ids, skip)


def test_gguf_decode_stream_leaves_the_clean_up_out(tmp_path):
    """llama.cpp cleans a decoded text's spaces (clean_spaces: " ' s" -> "'s", " ?" -> "?"), which
    a later token changes: decode_stream gives the text without it, as llama.cpp's token_to_piece
    streams, and never raises on a changed prefix; cleaned, the stream is decode's text."""
    from tokenforge.pipeline.compile import llama_clean_spaces

    path = tmp_path / "bert.gguf"
    tokenforge.get_tokenizer("bert-base-uncased").save(path)
    tok = tokenforge.Tokenizer.from_file(path)
    for text in ["it's a dog. yes, no! what ?", "a ' b 'll c 's", *_samples(600)]:
        ids = tok.encode(text).ids
        stream = tok.decode_stream()
        joined = "".join(part or "" for part in (stream.step(i) for i in ids))
        assert llama_clean_spaces(joined) == tok.decode(ids), text[:60]
