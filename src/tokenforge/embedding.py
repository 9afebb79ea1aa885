"""From ids to a model's input matrix (NumPy; PyTorch tensors where installed).

The path the Transformer takes: text -> ids -> each id's row of the token-embedding table
(WTE: the same as a one-hot row vector times the table) -> plus a position's row (the
sinusoidal encoding of "Attention Is All You Need", or a learned table) -> the input matrix,
one row per token. For a batch, texts are padded to one width with an attention mask and
position ids, straight from the native batch encoder into arrays (`batch`). When tokens are
added to a tokenizer (`Tokenizer.add_special_tokens`), `resize_embeddings` grows the table,
keeping the old rows, with new rows at the mean of the old ones or drawn at random.

Functions take and return `numpy.ndarray`; `to_torch` converts (sharing memory) where PyTorch is
installed, and `batch(..., return_tensors="pt")` gives tensors directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "Batch",
    "batch",
    "embed",
    "input_matrix",
    "learned_positions",
    "one_hot",
    "one_hot_embed",
    "resize_embeddings",
    "sinusoidal_positions",
    "to_torch",
]


def _np() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError("tokenforge.embedding needs NumPy: pip install 'tokenforge[numpy]'") from None
    return numpy


def _ids(ids: Any, vocab_size: int) -> npt.NDArray[np.int64]:
    np = _np()
    array = np.asarray(ids)
    if array.dtype.kind not in "iu":
        raise TypeError(f"ids must be integers, got an array of {array.dtype}")
    array = array.astype(np.int64, copy=False)
    if array.size and (array.min() < 0 or array.max() >= vocab_size):
        bad = array[(array < 0) | (array >= vocab_size)].flat[0]
        raise IndexError(f"id {int(bad)} is outside the embedding table's {vocab_size} rows")
    return array


def embed(ids: Any, table: Any) -> npt.NDArray[Any]:
    """Each id's row of the token-embedding table: shape ids.shape + (width,)."""
    np = _np()
    table = np.asarray(table)
    if table.ndim != 2:
        raise ValueError(f"the embedding table must be 2-D (vocabulary x width), got shape {table.shape}")
    return table[_ids(ids, table.shape[0])]


def one_hot(ids: Any, vocab_size: int, dtype: Any = None) -> npt.NDArray[Any]:
    """One-hot rows: shape ids.shape + (vocab_size,), a 1 at each id."""
    np = _np()
    array = _ids(ids, vocab_size)
    out = np.zeros((*array.shape, vocab_size), dtype=dtype or np.float32)
    np.put_along_axis(out, array[..., None], 1, axis=-1)
    return out


def one_hot_embed(ids: Any, table: Any) -> npt.NDArray[Any]:
    """The embedding as the product one_hot(ids) @ table: equal to `embed`, at the cost of the
    full product (for teaching and checking; `embed` is the lookup models do)."""
    np = _np()
    table = np.asarray(table)
    return one_hot(ids, table.shape[0], table.dtype) @ table


def sinusoidal_positions(length: int, width: int, base: float = 10000.0, dtype: Any = None) -> npt.NDArray[Any]:
    """The Transformer's positional encoding: PE[p, 2i] = sin(p / base^(2i/width)) and
    PE[p, 2i+1] = cos(p / base^(2i/width)), shape (length, width); any length and width (an
    odd width ends with a sine column)."""
    np = _np()
    if length < 0 or width < 1:
        raise ValueError(f"length must be >= 0 and width >= 1, got {length} and {width}")
    positions = np.arange(length, dtype=np.float64)[:, None]
    pairs = np.arange(0, width, 2, dtype=np.float64)
    angles = positions / np.power(base, pairs / width)
    out = np.empty((length, width), dtype=np.float64)
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles[:, : width // 2])
    return out.astype(dtype or np.float32)


def learned_positions(length: int, width: int, seed: int | None = None, scale: float = 0.02, dtype: Any = None) -> Any:
    """A learned position table as models start it: normal(0, scale), shape (length, width)."""
    np = _np()
    if length < 1 or width < 1:
        raise ValueError(f"length and width must be >= 1, got {length} and {width}")
    return np.random.default_rng(seed).normal(0.0, scale, (length, width)).astype(dtype or np.float32)


def input_matrix(ids: Any, table: Any, positions: Any = "sinusoidal", position_ids: Any = None) -> Any:
    """Token embeddings plus position rows: the model's input, shape ids.shape + (width,).
    `positions`: "sinusoidal", None (tokens alone), or a (max_positions, width) table;
    `position_ids` (default 0, 1, ... along the last axis) picks each token's row."""
    np = _np()
    tokens = embed(ids, table)
    if positions is None:
        return tokens
    length, width = tokens.shape[-2] if tokens.ndim >= 2 else 0, tokens.shape[-1]
    if position_ids is None:
        position_ids = np.broadcast_to(np.arange(length), tokens.shape[:-1])
    position_ids = np.asarray(position_ids)
    if position_ids.shape != tokens.shape[:-1]:
        raise ValueError(f"position_ids has shape {position_ids.shape}, the ids {tokens.shape[:-1]}")
    if isinstance(positions, str):
        if positions != "sinusoidal":
            raise ValueError(f'positions must be "sinusoidal", None or a table, got {positions!r}')
        top = int(position_ids.max()) + 1 if position_ids.size else 0
        positions = sinusoidal_positions(top, width, dtype=tokens.dtype)
    positions = np.asarray(positions)
    if positions.ndim != 2 or positions.shape[1] != width:
        raise ValueError(f"the position table must be (positions, {width}), got {positions.shape}")
    return tokens + positions[_ids(position_ids, positions.shape[0])]


@dataclass
class Batch:
    """Texts as a model batch: input_ids and attention_mask (n, width), position_ids counting
    each row's tokens from 0 (0 on padding), lengths (n,)."""

    input_ids: Any
    attention_mask: Any
    position_ids: Any
    lengths: Any

    def __getitem__(self, key: str) -> Any:  # batch["input_ids"], as transformers' BatchEncoding
        return getattr(self, key)


def batch(
    tokenizer: Any,
    texts: Sequence[str],
    *,
    max_length: int | None = None,
    pad_id: int | None = None,
    padding_side: str = "right",
    num_threads: int | None = None,
    return_tensors: str = "np",
) -> Batch:
    """`texts` encoded (special-token text as text) and padded to the longest (at most
    `max_length` tokens each, cut at the end) in one native call for an Encoding; a Tokenizer
    encodes with its own settings (template tokens added) and is padded here. `pad_id` defaults
    to the tokenizer's pad token, else its end-of-text token, else 0. return_tensors: "np" or
    "pt" (PyTorch)."""
    np = _np()
    from .encoding import Encoding
    from .threads import resolve_threads

    if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a list of str")
    if padding_side not in ("right", "left"):
        raise ValueError(f'padding_side must be "right" or "left", got {padding_side!r}')
    if max_length is not None and max_length < 1:
        raise ValueError(f"max_length must be >= 1, got {max_length}")
    if return_tensors not in ("np", "pt"):
        raise ValueError(f'return_tensors must be "np" or "pt", got {return_tensors!r}')
    if isinstance(tokenizer, Encoding):
        if pad_id is None:
            pad_id = tokenizer._special_tokens.get("<|endoftext|>", 0)
        ids, mask, lengths = tokenizer._core.encode_batch_padded(
            list(texts), None, resolve_threads(num_threads), max_length or 0, int(pad_id), padding_side == "left"
        )
    else:
        encoded = tokenizer.encode_batch(list(texts))
        # each text's own tokens (a tokenizer set to pad has padded them already)
        rows = [
            np.asarray(e.ids, dtype=np.uint32)[np.asarray(e.attention_mask, dtype=bool)][:max_length] for e in encoded
        ]
        if pad_id is None:
            pad = getattr(tokenizer, "padding", None)
            pad_id = pad.get("pad_id", 0) if isinstance(pad, dict) else 0
        lengths = np.array([len(r) for r in rows], dtype=np.uint32)
        width = int(lengths.max()) if len(rows) else 0
        ids = np.full((len(rows), width), pad_id, dtype=np.uint32)
        mask = np.zeros((len(rows), width), dtype=np.uint8)
        for i, r in enumerate(rows):
            at = width - len(r) if padding_side == "left" else 0
            ids[i, at : at + len(r)] = r
            mask[i, at : at + len(r)] = 1
    input_ids = ids.astype(np.int64)
    attention_mask = mask.astype(np.int64)
    position_ids = np.clip(np.cumsum(attention_mask, axis=1) - 1, 0, None)
    out = Batch(input_ids, attention_mask, position_ids, lengths.astype(np.int64))
    if return_tensors == "pt":
        out = Batch(*(to_torch(a) for a in (out.input_ids, out.attention_mask, out.position_ids, out.lengths)))
    return out


def resize_embeddings(table: Any, new_size: int, init: str = "mean", seed: int | None = None) -> Any:
    """The table with `new_size` rows: the old rows kept (cut if smaller), each new row the
    mean of the old rows (init="mean") or drawn from a normal with the old rows' mean and
    standard deviation per column (init="random", seeded)."""
    np = _np()
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[0] == 0:
        raise ValueError(f"the embedding table must be 2-D with rows, got shape {table.shape}")
    if new_size < 1:
        raise ValueError(f"new_size must be >= 1, got {new_size}")
    if init not in ("mean", "random"):
        raise ValueError(f'init must be "mean" or "random", got {init!r}')
    old = table.shape[0]
    if new_size <= old:
        return table[:new_size].copy()
    mean = table.mean(axis=0)
    if init == "mean":
        extra = np.broadcast_to(mean, (new_size - old, table.shape[1]))
    else:
        extra = np.random.default_rng(seed).normal(mean, table.std(axis=0), (new_size - old, table.shape[1]))
    return np.concatenate([table, extra.astype(table.dtype)], axis=0)


def to_torch(array: Any) -> Any:
    """A NumPy array as a PyTorch tensor (sharing memory where it can)."""
    try:
        import torch  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ImportError("PyTorch tensors need torch installed (pip install torch)") from None
    return torch.from_numpy(_np().ascontiguousarray(array))
