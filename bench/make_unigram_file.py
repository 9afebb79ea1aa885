"""A T5-style Unigram tokenizer.json for bench/tokenizer_json.py (no such file is in
../shared/vocab/hf): a 16000-piece sentencepiece Unigram model (nmt_nfkc) trained on 25000
shuffled lines of each corpus of ../shared/corpus, converted by transformers' T5Converter
(Precompiled, Strip, Replace " {2,}" -> "▁"; Metaspace always; the "$A </s>" template; 100
extra ids). Needs sentencepiece, transformers and protobuf.

    python bench/make_unigram_file.py OUT_FOLDER [--corpus ../shared/corpus]
    python bench/tokenizer_json.py --folders OUT_FOLDER --corpus ...
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import sentencepiece as spm
from transformers.convert_slow_tokenizer import T5Converter

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


class _Original:
    """What T5Converter reads of a slow T5 tokenizer."""

    def __init__(self, model_file: str) -> None:
        self.vocab_file = model_file
        self._extra_ids = 100
        self.legacy = True
        self._sp = spm.SentencePieceProcessor(model_file=model_file)

    def convert_tokens_to_ids(self, token: str) -> int:
        return self._sp.piece_to_id(token)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder to write spiece.model and tokenizer.json to")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="../shared/corpus (default: beside the repo)")
    args = parser.parse_args()
    out, corpus = args.out, args.corpus
    if not corpus.exists():
        parser.error(f"no corpus at {corpus}: pass --corpus DIR (../shared/corpus)")
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for path in [
        corpus / "en-linuxdoc.txt",
        corpus / "code-python-stdlib.txt",
        *sorted((corpus / "man").glob("*.txt")),
    ]:
        found = [line for line in path.read_text("utf-8", "ignore").splitlines() if line.strip()]
        random.Random(0).shuffle(found)
        lines += found[:25000]
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_prefix=str(out / "spiece"),
        vocab_size=16000,
        model_type="unigram",
        character_coverage=0.9995,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        minloglevel=2,
        num_threads=1,
    )
    T5Converter(_Original(str(out / "spiece.model"))).converted().save(str(out / "tokenizer.json"))


if __name__ == "__main__":
    main()
