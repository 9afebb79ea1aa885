"""The exceptions tokenforge raises for bad files and bad arguments.

Every load error is a `FormatError` (a ValueError) that names the file and the field or line
at fault, so that a corrupt download reads as one line a user can act on. Neighbours:
`encoding.InvalidTokenError` (an id outside a vocabulary) and `special.DisallowedSpecialTokenError`
(special-token text the policy refuses).
"""

from __future__ import annotations

import os


class FormatError(ValueError):
    """A file that cannot be read as the format it claims: `path`, the `where` inside it (a field,
    a key, a line) and what is wrong."""

    def __init__(self, path: str | os.PathLike[str], where: str, message: str) -> None:
        self.path = os.fspath(path)
        self.where = where
        self.message = message
        super().__init__(f"{self.path}: {where}: {message}" if where else f"{self.path}: {message}")
