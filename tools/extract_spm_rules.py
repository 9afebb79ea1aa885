"""Write src/tokenforge/data/spm_rules/<rule>.bin: the precompiled character maps of
sentencepiece's named normalization rules (nmt_nfkc, nfkc, nmt_nfkc_cf, nfkc_cf), which models
trained with them store in their normalizer spec. They are data, taken from the sentencepiece
library (a tool dependency only) by training a tiny model with each rule:

    pip install sentencepiece && python tools/extract_spm_rules.py
"""

from __future__ import annotations

import io
import pathlib
import sys

import sentencepiece as spm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "src"))
from tokenforge.formats.sentencepiece_model import SentencePieceModel

RULES = ["nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"]


def main() -> None:
    out_dir = pathlib.Path(__file__).resolve().parent.parent / "src" / "tokenforge" / "data" / "spm_rules"
    out_dir.mkdir(parents=True, exist_ok=True)
    text = "\n".join(f"line {i} with some words" for i in range(200))
    for rule in RULES:
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(text.split("\n")),
            model_writer=model,
            vocab_size=40,
            normalization_rule_name=rule,
            minloglevel=2,
        )
        charsmap = SentencePieceModel.from_bytes(model.getvalue()).normalizer_spec["precompiled_charsmap"]
        (out_dir / f"{rule}.bin").write_bytes(charsmap)
        print(f"{rule}: {len(charsmap)} bytes (sentencepiece {spm.__version__})")


if __name__ == "__main__":
    main()
