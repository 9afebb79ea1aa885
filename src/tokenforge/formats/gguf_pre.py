"""llama.cpp's pre-tokenizers of byte-level BPE GGUF files (`tokenizer.ggml.pre`), as data.

llama.cpp (src/llama-vocab.cpp, `llama_vocab::impl::load` and `llm_tokenizer_bpe`) maps each
`tokenizer.ggml.pre` name to a pre-tokenizer type (`PRE_NAMES` here: the type and the flags the
name sets), and each type to a list of split regexes applied one after another, every match and
every gap between matches a piece (`SPLITS`: HF's Split(Isolated) in a Sequence). gguf.py reads
these two tables; nothing here is code.

Where llama.cpp rewrote a tokenizer.json regex for its own regex engine (a case-insensitive
group spelled out as `'[sS]|'[tT]...`, letters-but-not-a-z lookaheads for `\\p{Lu}...`) and
kept the original in a comment, the original is used: the GGUF came from that tokenizer.json,
llama.cpp's own test vectors compare against it, and tokenforge's engine (Oniguruma's semantics,
pre_tokenizers/regex.h) runs it as HF does, with the fused scanners for GPT-2, Llama 3 and
Qwen2 patterns. Types whose split is code in llama.cpp rather than a regex (kimi-k2's Han
handler, afmoe's digit grouping, the whitespace and hybriddna tokenizers) are listed in
`CUSTOM` and refused with their name.

Flags (llama.cpp's defaults for a BPE vocabulary: ignore_merges false, add_bos false,
clean_spaces true, add_sep false, escape_whitespaces false, byte_encode true): a name sets
those it lists.
"""

from __future__ import annotations

from typing import Any

_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
# HF's ByteLevel pattern: llama.cpp's GPT-2 regex runs on its own GPT-2 scanner, which computes
# this one (the trailing `|\s+` changes no piece: a lone whitespace gap is a piece either way).
_HF_GPT2 = _GPT2 + r"|\s+"
_LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_QWEN2 = _LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")
_PORO = r" ?[^(\s|.,!?…。，、।۔،)]+"
_GPT4O = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_DEEPSEEK3_MAIN = (
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
    r"| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_CJK = "[一-龥぀-ゟ゠-ヿ]+"
_NEWLINES = r"[^\n]+|[\n]+"

# pre-tokenizer type -> its split regexes, in the order llama.cpp applies them.
SPLITS: dict[str, tuple[str, ...]] = {
    "default": (r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", "[0-9][0-9][0-9]"),
    "llama3": (_LLAMA3,),
    "jais2": (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)"
        r"|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1}",
    ),
    "deepseek-llm": (
        "[\r\n]",
        "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
        r"\s?[!-/:-~！-／：-～‘-‟　-。]+",
        r"\s+$",
        "[一-龥ࠀ-一가-퟿]+",
        r"\p{N}+",
    ),
    "deepseek3": (r"\p{N}{1,3}", _CJK, _DEEPSEEK3_MAIN),
    "spark2_5": (
        r"\p{N}{1,3}",
        _CJK,
        r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"
        r"| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+",
        r"\p{N}",
    ),
    "youtu": (
        "[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
        r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
        r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
        r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    ),
    "deepseek-coder": ("[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"),
    "falcon": (r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"),
    "starcoder": (r"\p{N}", _GPT2),
    "gpt2": (_HF_GPT2,),
    "qwen2": (_QWEN2,),
    "qwen35": (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+",
    ),
    "poro": (_PORO,),
    "viking": (_PORO, r"\p{N}"),
    "tekken": (
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
        r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    ),
    "chameleon": (
        "<sentinel:[0-9]+>",
        "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
        "([\\t\\n]|    |  )",
        r"\p{N}",
        r"[\p{P}!-/:-@\[-`{-~]",
        _GPT2,
    ),
    "gpt4o": (_GPT4O,),
    "granite-emb-multi": (
        r"[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+"
        r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
        r"|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*"
        r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
        r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    ),
    "tiny-aya": (r"\d{1,3}(?=(?:\d{3})*\b)", _GPT4O),
    "superbpe": (r"\p{N}+", r"(?=(\d{3})+(?!\d))"),
    "bailingmoe": (
        r"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]|\s+(?!\S)|\s+",
    ),
    "seed-coder": (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+"
        r"|\s+(?!\S)|\s+",
    ),
    "ufakzeka": (r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",),
    "laguna": (_NEWLINES, _QWEN2),
    "exaone-moe": (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}"
        r"| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+",
    ),
    "minicpm5": (
        r"\p{N}{1,3}",
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+",
    ),
    # sentencepiece-style BPE (spaces as "▁", raw UTF-8 with <0xXX> byte tokens): lines apart.
    "gemma4": (_NEWLINES,),
}

# Types whose split llama.cpp computes in code (unicode.cpp), not with a regex.
CUSTOM = {
    "kimi-k2": "llama.cpp splits it with its own Han-script handler (unicode.cpp), not a regex",
    "afmoe": "llama.cpp groups its digits with its own handler (unicode.cpp), not a regex",
    "whitespace": "llama.cpp's whitespace tokenizer is its own session, not a regex split",
}

_CS = {"clean_spaces": False}
# tokenizer.ggml.pre -> (pre-tokenizer type, the flags the name sets).
PRE_NAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "default": ("default", {}),
    "minicpm5": ("minicpm5", {"ignore_merges": True}),
    **{
        name: ("llama3", {"ignore_merges": True, "add_bos": True})
        for name in ("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2")
    },
    "jina-v5-nano": ("llama3", {"ignore_merges": True, "add_bos": True}),
    "deepseek-llm": ("deepseek-llm", _CS),
    "deepseek-coder": ("deepseek-coder", _CS),
    "deepseek-v3": ("deepseek3", _CS),
    "spark2_5": ("spark2_5", _CS),
    "youtu": ("youtu", {"clean_spaces": False, "ignore_merges": True}),
    "falcon": ("falcon", {}),
    "mpt": ("gpt2", {}),
    "starcoder": ("starcoder", {}),
    **{
        name: ("gpt2", {})
        for name in (
            "gpt-2",
            "phi-2",
            "jina-es",
            "jina-de",
            "gigachat",
            "jina-v2-es",
            "jina-v2-de",
            "a.x-4.0",
            "mellum",
            "modern-bert",
        )
    },
    "jais-2": ("jais2", {}),
    "gemma4": ("gemma4", {"escape_whitespaces": True, "byte_encode": False}),
    "granite-embed-multi-311m": ("gemma4", {"escape_whitespaces": True, "byte_encode": False}),
    "sarvam-moe": ("gemma4", {"escape_whitespaces": True, "byte_encode": False, "clean_spaces": False}),
    **{name: ("gpt2", {"add_sep": True}) for name in ("jina-v1-en", "jina-v2-code", "roberta-bpe")},
    "whitespace": ("whitespace", {}),
    "refact": ("starcoder", {}),
    "command-r": ("starcoder", _CS),
    **dict.fromkeys(("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2"), ("qwen2", _CS)),
    "qwen35": ("qwen35", _CS),
    "stablelm2": ("qwen2", {}),
    "olmo": ("gpt2", {}),
    "dbrx": ("llama3", {}),
    "smaug-bpe": ("llama3", {}),
    "poro-chat": ("poro", _CS),
    "glm4": ("llama3", {"no_bos": True}),
    "chatglm-bpe": ("llama3", {"no_bos": True}),
    "viking": ("viking", _CS),
    "jais": ("gpt2", {}),
    "tekken": ("tekken", {"clean_spaces": False, "ignore_merges": True, "add_bos": True}),
    "smollm": ("starcoder", _CS),
    "codeshell": ("starcoder", {}),
    "bloom": ("poro", {}),
    "gpt3-finnish": ("poro", {}),
    "exaone": ("starcoder", {}),
    "exaone4": ("gpt2", {}),
    "exaone-moe": ("exaone-moe", {}),
    "chameleon": ("chameleon", {"add_bos": True, "clean_spaces": False}),
    "minerva-7b": ("starcoder", {}),
    "megrez": ("qwen2", {}),
    **dict.fromkeys(("gpt-4o", "llama4", "kanana2", "talkie"), ("gpt4o", _CS)),
    "granite-embed-multi-97m": ("granite-emb-multi", {"clean_spaces": False, "ignore_merges": True}),
    "tiny_aya": ("tiny-aya", _CS),
    "cohere2moe": ("tiny-aya", _CS),
    "superbpe": ("superbpe", _CS),
    "trillion": ("gpt2", _CS),
    "granite-docling": ("gpt2", _CS),
    **dict.fromkeys(("bailingmoe", "bailingmoe2", "llada-moe"), ("bailingmoe", _CS)),
    "seed-coder": ("seed-coder", _CS),
    "hunyuan": ("qwen2", _CS),
    "hunyuan-dense": ("deepseek3", _CS),
    "hy_v4": ("deepseek3", _CS),
    "joyai-llm": ("deepseek3", _CS),
    "kimi-k2": ("kimi-k2", _CS),
    "ufakzeka": ("ufakzeka", _CS),
    "grok-2": ("qwen2", _CS),
    "afmoe": ("afmoe", _CS),
    "laguna": ("laguna", _CS),
    "minimax-m2": ("gpt4o", _CS),
    "solar-open": ("qwen2", _CS),
    "mellum2": ("starcoder", {}),
}
