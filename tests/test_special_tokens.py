"""Special-token policy (`allowed_special` / `disallowed_special`), compared with tiktoken."""

from __future__ import annotations

import numpy as np
import pytest

import tokenforge

NAMES = ["cl100k_base", "o200k_base", "p50k_edit", "o200k_harmony"]
EOT = "<|endoftext|>"


def _raises_value_error(fn):
    with pytest.raises(ValueError) as info:
        fn()
    return info.value


def _same(ours_fn, ref_fn):
    """Both raise ValueError, or both return equal results."""
    try:
        expected = ref_fn()
    except ValueError:
        _raises_value_error(ours_fn)
        return None
    got = ours_fn()
    assert got == expected
    return got


def _specials(ref, limit=60):
    # o200k_harmony has ~1100 specials; keep the named ones and a spread of reserved ones.
    names = sorted(ref.special_tokens_set)
    if len(names) > limit:
        named = [n for n in names if "reserved" not in n]
        reserved = [n for n in names if "reserved" in n]
        names = named + reserved[:: max(1, len(reserved) // (limit - len(named)))]
    return names


@pytest.fixture(params=NAMES)
def pair(request, reference):
    return tokenforge.get_encoding(request.param), reference(request.param)


def test_default_encode_raises_on_every_special(pair):
    ours, ref = pair
    for special in sorted(ref.special_tokens_set):
        for text in (special, f"a {special} b", f"x{special}"):
            with pytest.raises(ValueError):
                ref.encode(text)
            err = _raises_value_error(lambda: ours.encode(text))
            assert isinstance(err, tokenforge.DisallowedSpecialTokenError)
            assert special in str(err)
            assert err.token == special
    # ordinary text around them is fine
    assert ours.encode("plain text") == ref.encode("plain text")


def test_default_raises_on_every_surface(pair):
    ours, ref = pair
    text = f"hello {EOT} world"
    for call in (
        lambda: ours.encode(text),
        lambda: ours.encode_to_numpy(text),
        lambda: ours.encode_with_offsets(text),
        lambda: ours.encode_batch(["fine", text]),
        lambda: ours.encode_batch(["fine", text], num_threads=1),
    ):
        _raises_value_error(call)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.encode_ordinary_batch([text]) == [ref.encode_ordinary(text)]


def test_allowed_all(pair):
    ours, ref = pair
    specials = _specials(ref)
    texts = [
        " middle ".join(specials),
        "".join(specials),
        f"{EOT}{EOT}",
        f"{EOT}start",
        f"end{EOT}",
        f"in{EOT}side wo{EOT}rds",
        f" {EOT} ",
        f"\n{EOT}\n\n",
        f"'s{EOT}'ll",
        f"👋{EOT}👋",
        "<|endoftext",
        "<|endoftext|",
        "endoftext|>",
        "<|endoftext|><|endoftext",
        "<<|endoftext|>>",
        "<|<|endoftext|>|>",
        "<|ENDOFTEXT|>",
    ]
    for text in texts:
        expected = ref.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == expected
        assert ours.encode(text, allowed_special="all", disallowed_special="all") == expected
        assert ours.encode(text, allowed_special=ref.special_tokens_set) == expected
        assert ours.encode(text, allowed_special=frozenset(ref.special_tokens_set)) == expected
        assert ours.encode_to_numpy(text, allowed_special="all").tolist() == expected
        assert ours.encode_with_offsets(text, allowed_special="all")[0] == expected
        if ours.name != "o200k_harmony":  # 200018 has two names there
            assert ours.decode(expected) == text
    assert ours.encode_batch(texts, allowed_special="all") == ref.encode_batch(texts, allowed_special="all")


def test_allowed_one(pair):
    ours, ref = pair
    specials = _specials(ref, limit=25)  # tiktoken compiles a regex per policy: keep it short
    everything = "A".join(specials)
    for special in specials:
        one = {special}
        _same(lambda: ours.encode(everything, allowed_special=one), lambda: ref.encode(everything, allowed_special=one))
        got = _same(
            lambda: ours.encode(everything, allowed_special=one, disallowed_special=()),
            lambda: ref.encode(everything, allowed_special=one, disallowed_special=()),
        )
        assert got is not None
        assert got.count(ref._special_tokens[special]) >= 1
        text = f"x {special}{special} y"
        assert ours.encode(text, allowed_special=one) == ref.encode(text, allowed_special=one)
        assert ours.encode_batch([text], allowed_special=one) == [ref.encode(text, allowed_special=one)]
    if len(specials) > 1:
        # a special that is neither allowed nor excluded from the check still raises
        _raises_value_error(lambda: ours.encode(f"{specials[0]}{specials[1]}", allowed_special={specials[0]}))
        with pytest.raises(ValueError):
            ref.encode(f"{specials[0]}{specials[1]}", allowed_special={specials[0]})


def test_disallowed_empty_encodes_as_text(pair):
    ours, ref = pair
    specials = _specials(ref)
    for text in [" ".join(specials), "".join(specials), f"a{EOT}b", f"{EOT}", f"{EOT}{EOT}"]:
        expected = ref.encode(text, disallowed_special=())
        assert expected == ref.encode_ordinary(text)
        assert ours.encode(text, disallowed_special=()) == expected
        assert ours.encode(text, disallowed_special=set()) == expected
        assert ours.encode(text, disallowed_special=frozenset()) == expected
        assert ours.encode(text, disallowed_special=[]) == expected
        assert ours.encode_to_numpy(text, disallowed_special=()).tolist() == expected
        assert ours.encode_with_offsets(text, disallowed_special=())[0] == expected
        assert ours.encode_batch([text], disallowed_special=()) == [expected]
        assert ours.decode(expected) == text


def test_disallowed_subset(pair):
    ours, ref = pair
    specials = _specials(ref)
    if len(specials) < 2:
        pytest.skip("needs two special tokens")
    a, b = specials[0], specials[-1]
    only_b = f"x {b} y"
    both = f"{a}{b}"
    for text in (only_b, both, f"{b}{a}"):
        for allowed in (frozenset(), {b}, "all", {a}):
            _same(
                lambda: ours.encode(text, allowed_special=allowed, disallowed_special={a}),
                lambda: ref.encode(text, allowed_special=allowed, disallowed_special={a}),
            )
    assert ours.encode(only_b, disallowed_special={a}) == ref.encode(only_b, disallowed_special={a})
    _raises_value_error(lambda: ours.encode(both, disallowed_special={a}))


def test_allowed_and_disallowed_overlap(pair):
    ours, ref = pair
    text = f"a{EOT}b"
    for allowed, disallowed in [({EOT}, {EOT}), ("all", {EOT}), ("all", "all"), ({EOT}, "all"), ({EOT}, ())]:
        _same(
            lambda: ours.encode(text, allowed_special=allowed, disallowed_special=disallowed),
            lambda: ref.encode(text, allowed_special=allowed, disallowed_special=disallowed),
        )
    # explicit disallow wins over allow, as in tiktoken
    _raises_value_error(lambda: ours.encode(text, allowed_special={EOT}, disallowed_special={EOT}))
    _raises_value_error(lambda: ours.encode(text, allowed_special="all", disallowed_special={EOT}))


def test_unknown_names_in_allowed_special_are_ignored(pair):
    ours, ref = pair
    allowed = {EOT, "<|not_a_special|>", "hello", ""}
    for text in [f"hello <|not_a_special|> {EOT}", "hello world", f"{EOT}hello"]:
        expected = ref.encode(text, allowed_special=allowed)
        assert ours.encode(text, allowed_special=allowed) == expected
        assert ours.encode_batch([text], allowed_special=allowed) == [expected]
        assert ours.encode_to_numpy(text, allowed_special=allowed).tolist() == expected
    assert ours.encode("hello", allowed_special={"hello"}) == ref.encode("hello", allowed_special={"hello"})


def test_disallowed_non_special_strings_raise_like_tiktoken(pair):
    ours, ref = pair
    for text in ["say hello", "nothing here"]:
        _same(
            lambda: ours.encode(text, disallowed_special={"hello"}),
            lambda: ref.encode(text, disallowed_special={"hello"}),
        )


def test_str_instead_of_set_is_type_error(pair):
    ours, ref = pair
    with pytest.raises(TypeError):
        ref.encode("x", allowed_special=EOT)
    with pytest.raises(TypeError):
        ours.encode("x", allowed_special=EOT)
    with pytest.raises(TypeError):
        ours.encode("x", disallowed_special=EOT)
    with pytest.raises(TypeError):
        ours.encode_batch(["x"], allowed_special=EOT)
    with pytest.raises(TypeError):
        ours.encode_to_numpy("x", disallowed_special=EOT)
    with pytest.raises(TypeError):
        ours.encode_with_offsets("x", allowed_special=EOT)


def test_specials_with_surrogates(pair):
    ours, ref = pair
    text = f"\ud800{EOT}\ud83d\ude00{EOT}"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    _raises_value_error(lambda: ours.encode(text))


def test_many_policies_in_a_row(pair):
    # exercises the matcher cache (more distinct policies than it keeps)
    ours, ref = pair
    specials = _specials(ref)
    text = "|".join(specials)
    for i in range(100):
        allowed = {specials[i % len(specials)], f"<|fake_{i}|>"}
        assert ours.encode(text, allowed_special=allowed, disallowed_special=()) == ref.encode(
            text, allowed_special=allowed, disallowed_special=()
        )


def test_special_ids_and_numpy(pair):
    ours, ref = pair
    for special in _specials(ref, limit=20):
        ids = ours.encode(special, allowed_special={special})
        assert ids == [ref._special_tokens[special]]
        arr = ours.encode_to_numpy(special, allowed_special={special})
        assert arr.dtype == np.uint32 and arr.tolist() == ids
        assert ours.encode_single_token(special) == ids[0]
        assert ours.is_special_token(ids[0])
    assert not ours.is_special_token(ours.encode("hello")[0])
