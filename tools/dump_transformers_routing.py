"""Write src/tokenforge/data/transformers_routing.json: the tables transformers' AutoTokenizer
routes a model folder by (model_type -> registered tokenizer class, the model types whose hub
class it overrides, the hub ids it loads as written), read from the installed transformers.

Run it after upgrading the transformers version tokenforge follows; formats/transformers_classes.py
reads the file (the package never imports transformers for it)."""

from __future__ import annotations

import json
import pathlib

import transformers
from transformers.models.auto import tokenization_auto as auto


def main() -> None:
    table = {
        "transformers": transformers.__version__,
        "registered": {k: v for k, v in sorted(auto.TOKENIZER_MAPPING_NAMES.items()) if v is not None},
        "incorrect_hub_class": sorted(auto.MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS),
        "ids_to_tokenizers_backend": list(auto.MODEL_IDS_TO_TOKENIZERS_BACKEND),
    }
    out = pathlib.Path(__file__).resolve().parent.parent / "src" / "tokenforge" / "data" / "transformers_routing.json"
    out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(table['registered'])} model types)")


if __name__ == "__main__":
    main()
