"""Write src/tokenforge/data/transformers_routing.json: the tables transformers' AutoTokenizer
routes a model folder by (model_type -> registered tokenizer class, the model types whose hub
class it overrides, the hub ids it loads as written), and the language codes the MBart, MBart50, NLLB,
M2M100 and PLBart tokenizer classes make special tokens of, read from the installed transformers.

Run it after upgrading the transformers version tokenforge follows; formats/transformers_classes.py
and chat_template.py read the file (the package never imports transformers for it)."""

from __future__ import annotations

import json
import pathlib

import transformers
from transformers.models.auto import tokenization_auto as auto
from transformers.models.m2m_100 import tokenization_m2m_100
from transformers.models.mbart import tokenization_mbart
from transformers.models.mbart50 import tokenization_mbart50
from transformers.models.nllb import tokenization_nllb
from transformers.models.plbart import tokenization_plbart


def unigram_classes() -> list[str]:
    """The registered classes whose own __init__ builds a Unigram model from the vocabulary
    convert_to_native_format parses out of tokenizer.json (Python floats for the scores)."""
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    names = set()
    for name in auto.TOKENIZER_MAPPING_NAMES.values():
        cls = getattr(transformers, name, None) if name else None
        if not (isinstance(cls, type) and issubclass(cls, TokenizersBackend)) or "__init__" not in cls.__dict__:
            continue
        if getattr(cls, "model", None) is not None and cls.model.__name__ == "Unigram":
            names.add(name)
    return sorted(names)


def main() -> None:
    table = {
        "transformers": transformers.__version__,
        "registered": {k: v for k, v in sorted(auto.TOKENIZER_MAPPING_NAMES.items()) if v is not None},
        "incorrect_hub_class": sorted(auto.MODELS_WITH_INCORRECT_HUB_TOKENIZER_CLASS),
        "ids_to_tokenizers_backend": list(auto.MODEL_IDS_TO_TOKENIZERS_BACKEND),
        "unigram_classes": unigram_classes(),
        "language_codes": {
            "MBartTokenizer": list(tokenization_mbart.FAIRSEQ_LANGUAGE_CODES),
            "MBart50Tokenizer": list(tokenization_mbart50.FAIRSEQ_LANGUAGE_CODES),
            "NllbTokenizer": list(tokenization_nllb.FAIRSEQ_LANGUAGE_CODES),
            # (M2M100Tokenizer's two sets, by its language_codes argument: "m2m100", "wmt21")
            "M2M100Tokenizer": tokenization_m2m_100.FAIRSEQ_LANGUAGE_CODES,
            # (PLBartTokenizer's two sets, by its language_codes argument: "base", "multi")
            "PLBartTokenizer": tokenization_plbart.FAIRSEQ_LANGUAGE_CODES,
        },
        # the short names a class takes for its codes (PLBart's "python" for "__python__")
        "language_code_names": {"PLBartTokenizer": tokenization_plbart.FAIRSEQ_LANGUAGE_CODES_MAP},
    }
    out = pathlib.Path(__file__).resolve().parent.parent / "src" / "tokenforge" / "data" / "transformers_routing.json"
    out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(table['registered'])} model types)")


if __name__ == "__main__":
    main()
