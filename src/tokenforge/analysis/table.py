"""The result every analysis returns (Table), and the two questions each asks of a tokenizer:
the ids of a text (`tokens_of`) and the bytes of a token (`token_bytes`), for an Encoding or a
Tokenizer alike. Plots are matplotlib's, drawn off screen (Agg) to PNG or SVG."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Table", "token_bytes", "tokens_of"]


def tokens_of(tokenizer: Any, text: str) -> list[int]:
    """The ids of `text` alone: special-token text as text; no template tokens, padding or
    truncation."""
    if hasattr(tokenizer, "encode_ordinary"):
        return list(tokenizer.encode_ordinary(text))
    encoded = tokenizer.encode(text, add_special_tokens=False, allowed_special=set(), disallowed_special=set())
    return list(encoded.ids)


def tokens_of_batch(tokenizer: Any, texts: Sequence[str]) -> list[list[int]]:
    """`tokens_of` for many texts in one native batch call."""
    if hasattr(tokenizer, "encode_ordinary_batch"):
        return [list(ids) for ids in tokenizer.encode_ordinary_batch(list(texts))]
    return [tokens_of(tokenizer, t) for t in texts]


def token_bytes(tokenizer: Any, token: int) -> bytes:
    """A token's bytes: an Encoding's own; a Tokenizer's decoded text alone, as UTF-8."""
    if hasattr(tokenizer, "decode_single_token_bytes"):
        return bytes(tokenizer.decode_single_token_bytes(token))
    return str(tokenizer.decode([token], skip_special_tokens=False)).encode("utf-8")


def vocabulary_size(tokenizer: Any) -> int:
    if hasattr(tokenizer, "n_vocab"):
        return int(tokenizer.n_vocab)
    return int(tokenizer.get_vocab_size(with_added_tokens=True))


def name_of(tokenizer: Any, given: str | None = None) -> str:
    return given or str(getattr(tokenizer, "name", None) or type(tokenizer).__name__)


def named(tokenizers: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
    """Tokenizers by the names tables show: a mapping as given, a list by each one's `name`."""
    if isinstance(tokenizers, Mapping):
        return dict(tokenizers)
    out: dict[str, Any] = {}
    for tok in tokenizers:
        name = name_of(tok)
        out[name if name not in out else f"{name} ({len(out) + 1})"] = tok
    return out


@dataclass
class Table:
    """Rows of one analysis: `columns` name the fields in order; `notes` say what the numbers
    rest on (corpus sizes, samples). `plot` names the columns a chart shows: x, y (or "rows":
    how many rows have each x) and the column that makes one series per value (a tokenizer,
    usually)."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    plot: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "columns": self.columns, "rows": self.rows, "notes": self.notes}

    def to_json(self) -> str:
        return json.dumps(self.as_json(), ensure_ascii=False, indent=1)

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=self.columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        return out.getvalue()

    def to_text(self, max_rows: int | None = None) -> str:
        """The table aligned for a terminal (numbers right-aligned, floats to 3 places)."""

        def cell(value: Any) -> str:
            if isinstance(value, float):
                return f"{value:.3f}"
            if isinstance(value, int) and not isinstance(value, bool):
                return f"{value:,}"
            return str(value)

        rows = self.rows if max_rows is None else self.rows[:max_rows]
        cells = [[cell(r.get(c, "")) for c in self.columns] for r in rows]
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(self.columns)]
        numeric = [all(isinstance(r.get(c), (int, float)) for r in rows) and bool(rows) for c in self.columns]
        lines = [self.title, ""]
        lines.append("  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(self.columns, widths, numeric)))
        for row in cells:
            lines.append("  ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(row, widths, numeric)))
        if max_rows is not None and len(self.rows) > max_rows:
            lines.append(f"... ({len(self.rows) - max_rows} more rows; --json gives them all)")
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"

    def save_plot(self, path: str | os.PathLike[str]) -> None:
        """A bar chart of the table (grouped by the plot's series column) as PNG or SVG, by
        the file name's suffix; written whole or not at all."""
        path = os.fspath(path)
        if not path.endswith((".png", ".svg")):
            raise ValueError(f"{path}: give a .png or .svg file name")
        if not self.plot:
            raise ValueError(f"{self.title}: this table has no chart")
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("plots need matplotlib: pip install 'tokenforge[analysis]'") from None
        x, y, series = self.plot["x"], self.plot["y"], self.plot.get("series")
        rows = self.rows
        if "only" in self.plot:  # "column=value": the rows the chart shows
            column, _, value = self.plot["only"].partition("=")
            rows = [r for r in rows if str(r.get(column)) == value]
        groups: dict[str, dict[str, float]] = {}
        xs: list[str] = []
        for row in rows:
            key = str(row.get(series, "")) if series else ""
            label = str(row[x])
            if label not in xs:
                xs.append(label)
            values = groups.setdefault(key, {})
            if y == "rows":  # how many rows have each x
                values[label] = values.get(label, 0.0) + 1.0
            else:
                values[label] = float(row[y]) if row.get(y) is not None else 0.0
        fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(xs) * max(1, len(groups))), 4.0))
        width = 0.8 / max(1, len(groups))
        for k, (key, values) in enumerate(groups.items()):
            positions = [i + k * width for i in range(len(xs))]
            ax.bar(positions, [values.get(label, 0.0) for label in xs], width, label=key or None)
        ax.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(xs))])
        ax.set_xticklabels(xs, rotation=45 if max((len(s) for s in xs), default=0) > 6 else 0, ha="right")
        ax.set_ylabel(y)
        ax.set_title(self.title)
        if len(groups) > 1:
            ax.legend()
        fig.tight_layout()
        from ..formats.atomic import write_files_atomically

        buffer = io.BytesIO()
        fig.savefig(buffer, format=path[-3:])
        plt.close(fig)
        write_files_atomically([(path, buffer.getvalue())])
