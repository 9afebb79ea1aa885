"""A corpus to token shards for pretraining: `tokenize_files()`, `verify()`, `Manifest`.

    from tokenforge.corpus import tokenize_files, verify
    m = tokenize_files(["data/*.txt", "more.jsonl"], "shards/", "cl100k_base", field="text")
    ids, starts = m.load_shard(0)      # memory-mapped uint16/uint32 ids, document start offsets
    print(verify("shards/", samples=50))

The modules, one concern each:

    inputs.py    the inputs (text files, globs, folders, JSONL fields, Parquet columns), their
                 work units, and reading one unit's documents and bad records
    worker.py    encode_unit, the function an executor runs for a unit; tokenizer references,
                 hash and separator
    shards.py    the .npy shard files and their document index, written atomically
    manifest.py  manifest.json, written when a run finishes
    resume.py    the journal that lets a killed run finish to the same bytes
    tokenize.py  tokenize_files: the run, units in flight, in order, into shards
    verify.py    verify: shards against the manifest, sampled documents against the inputs

The executor contract (for a process pool or a Dask cluster's `Client.get_executor()`):
tokenize_files submits `worker.encode_unit(unit, tokenizer_ref, separator, on_error)` once per
unit, where `unit` is an `inputs.Unit` (a NamedTuple of plain values: number, path, kind, byte
range or Parquet row group, split, field, column), `tokenizer_ref` is what the caller gave as
`tokenizer` (a name or file path, which each worker process loads once and caches; or a loaded
Encoding/Tokenizer, which pickles), `separator` an int id or None and `on_error` a string. The
inputs must be readable at the same paths on the workers. The result is a `worker.UnitResult`
of plain values: per-document token and byte counts and the ids (NumPy arrays), and the bad
records; with `parts_dir=PATH` (a folder all workers share) the ids go to a file there instead.
Results are taken in unit order, so any executor gives the same bytes.

The command line is `tokenforge tokenize-corpus` (tokenforge/cli/tokenize_corpus.py).
"""

from .inputs import BadRecord, CorpusError, InputFile, Unit
from .manifest import Manifest
from .tokenize import tokenize_files
from .verify import VerifyReport, verify
from .worker import UnitResult, encode_unit

__all__ = [
    "BadRecord",
    "CorpusError",
    "InputFile",
    "Manifest",
    "Unit",
    "UnitResult",
    "VerifyReport",
    "encode_unit",
    "tokenize_files",
    "verify",
]
