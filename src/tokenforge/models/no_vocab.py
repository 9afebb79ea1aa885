"""A tokenizer without a vocabulary: a GGUF model file whose `tokenizer.ggml.model` is
"no_vocab" (or "none"), llama.cpp's LLAMA_VOCAB_TYPE_NONE, which llama.cpp loads as a model that
has no tokenizer (embedding or speech models fed from elsewhere).

`NoVocab` is the model of such a pipeline, plain data naming where it came from (formats/gguf.py
reads it); pipeline/compile.py gives it the "no_vocab" kernel (`NoVocabNative`, below), so the
file loads, `inspect` describes it and its vocabulary size is 0, while every encode and decode
raises a ValueError saying the file has no vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NoVocab:
    """The model of a tokenizer without a vocabulary; `source` (a file) and `model` (the name its
    file gives the tokenizer type, "no_vocab" or "none") are named in errors."""

    source: str = ""
    model: str = "no_vocab"

    def error(self) -> ValueError:
        where = f"{self.source}: " if self.source else ""
        return ValueError(
            f"{where}this tokenizer has no vocabulary (tokenizer.ggml.model {self.model!r}, a model file "
            "without a tokenizer): it cannot encode or decode text"
        )


class NoVocabNative:
    """The kernel of a NoVocab model, in the shape of the native pipelines: settings are taken
    (there is nothing they could name), token_names and added_tokens are empty, and encode,
    encode_batch and decode raise the model's error."""

    def __init__(self, model: NoVocab) -> None:
        self._model = model

    def set_policy(self, default_added: Any, resolver: Any) -> None:
        pass

    def set_truncation(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_padding(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_pad_token(self, pad_token: str) -> None:
        pass

    def token_names(self) -> list[str]:
        return []

    def added_tokens(self, pair: bool) -> int:
        return 0

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        raise self._model.error()

    def encode_batch(self, *args: Any, **kwargs: Any) -> Any:
        raise self._model.error()

    def decode(self, *args: Any, **kwargs: Any) -> Any:
        raise self._model.error()
