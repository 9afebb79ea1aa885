"""tokenforge: tokenizers for language models on a C++ core.

The tiktoken-compatible surface:

>>> import tokenforge
>>> enc = tokenforge.get_encoding("cl100k_base")
>>> enc.encode("hello world")
[15339, 1917]
>>> enc.decode([15339, 1917])
'hello world'
"""

from __future__ import annotations

from ._core import UNICODE_VERSION
from .added_tokens import AddedToken
from .decoders.streaming import DecodeStream, StreamDecoder
from .encoding import Encoding, InvalidTokenError, TokenOffsets
from .formats.gpt2_files import bytes_to_unicode, load_gpt2_files, save_gpt2_files
from .formats.hf_tokenizer_json import save_tokenizer_json
from .formats.minbpe_files import save_minbpe
from .formats.tiktoken_file import dump_tiktoken_bpe, load_tiktoken_bpe
from .formats.tokenforge_file import load_encoding, save_encoding
from .loaders import load_gpt2, load_tiktoken
from .model_names import encoding_for_model, encoding_name_for_model
from .registry import (
    get_encoding,
    get_tokenizer,
    list_encoding_names,
    list_tokenizer_names,
)
from .special import DisallowedSpecialTokenError
from .tokenizer import Encoded, Tokenizer

__version__ = "0.1.0"

__all__ = [
    "UNICODE_VERSION",
    "AddedToken",
    "DecodeStream",
    "DisallowedSpecialTokenError",
    "Encoded",
    "Encoding",
    "InvalidTokenError",
    "StreamDecoder",
    "TokenOffsets",
    "Tokenizer",
    "bytes_to_unicode",
    "dump_tiktoken_bpe",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "get_tokenizer",
    "list_encoding_names",
    "list_tokenizer_names",
    "load_encoding",
    "load_gpt2",
    "load_gpt2_files",
    "load_tiktoken",
    "load_tiktoken_bpe",
    "save_encoding",
    "save_gpt2_files",
    "save_minbpe",
    "save_tokenizer_json",
]
