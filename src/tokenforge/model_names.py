"""Which encoding an OpenAI model uses: tiktoken's `encoding_for_model` and
`encoding_name_for_model`, over the same table (tiktoken 0.14's), so code written against
tiktoken finds its encoding here unchanged.

>>> encoding_name_for_model("gpt-4o-mini")
'o200k_base'
"""

from __future__ import annotations

from .encoding import Encoding
from .registry import get_encoding

# Exact model names.
MODEL_TO_ENCODING: dict[str, str] = {
    # reasoning and chat
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",  # Azure's spelling
    # base and embeddings
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    # retired: text, code, edit, old embeddings
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    # open weights
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}

# Name prefixes (dated and fine-tuned versions), tried in this order after the exact names.
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}


def encoding_name_for_model(model_name: str) -> str:
    """The name of the encoding `model_name` uses; KeyError (as tiktoken's) if it is not known."""
    if not isinstance(model_name, str):
        raise TypeError(f"model_name must be a str, got {type(model_name).__name__}")
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"no known encoding for the model {model_name!r}; name one with tokenforge.get_encoding "
        f"(tokenforge.list_encoding_names() lists them)"
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding `model_name` uses (see encoding_name_for_model)."""
    return get_encoding(encoding_name_for_model(model_name))
