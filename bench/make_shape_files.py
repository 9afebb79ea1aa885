r"""tokenizer.json files of the shapes popular model families have, for bench/tokenizer_json.py
(none of them is in ../shared/vocab/hf): vocabularies of 32000 tokens (byte-level BPEs, but for
quicktour and wordlevel) trained by HF tokenizers on shuffled lines of each corpus of
../shared/corpus, each with one family's pre-tokenizer, normalizer and post-processor exactly:
- roberta: ByteLevel(use_regex) with RobertaProcessing trimming offsets (RoBERTa, BART,
  Longformer, LED, MVP), as transformers' RobertaConverter writes it;
- starcoder: Sequence[Digits(individual_digits), ByteLevel(use_regex)] (StarCoder 1/2,
  SantaCoder, Granite code); commandr: the same with NFC (Command R);
- tekken: Split(Mistral's tekken pattern, Isolated), ByteLevel(use_regex=false) (Mistral Nemo,
  Small 3, Pixtral);
- clip: CLIP's NFC, whitespace Replace and Lowercase, its Split(Removed, invert) and a BPE with
  the "</w>" end-of-word suffix, as transformers' CLIPConverter writes it (the fused byte-level
  kernel runs it: pipeline/fused_hf_bpe.py);
- falcon: Sequence[Punctuation(Contiguous), ByteLevel(use_regex), Digits, Split([0-9]{3})] with
  the ByteLevel post-processor trimming offsets (Falcon's files);
- bloom: Split(` ?[^(\s|[.,!?…。，、।۔،])]+`, Isolated), ByteLevel(use_regex=false) (BLOOM's);
- quicktour: HF's quicktour, a BPE with an unknown token over the Whitespace pre-tokenizer and a
  [CLS]/[SEP] template (files people train themselves; runs staged);
- wordlevel: a WordLevel over NFD, Lowercase, StripAccents and Whitespace (runs staged).
Each goes to OUT/<shape>/tokenizer.json.

    python bench/make_shape_files.py OUT [SHAPE ...] [--corpus ../shared/corpus]
    python bench/tokenizer_json.py --folders OUT/* --corpus ...
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

# The Split patterns as the families' files spell them (the table the fused kernel reads).
from tokenforge.pipeline.fused_hf_bpe import BLOOM as BLOOM_SPLIT
from tokenforge.pipeline.fused_hf_bpe import CLIP_SPLIT, FALCON_DIGITS
from tokenforge.pre_tokenizers.patterns import TEKKEN

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SHAPES = ("roberta", "starcoder", "commandr", "tekken", "clip", "falcon", "bloom", "quicktour", "wordlevel")


def byte_level(shape: str, lines: list[str]) -> Tokenizer:
    """A byte-level BPE of the shape, trained on lines."""
    tok = Tokenizer(models.BPE())
    if shape == "roberta":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    elif shape in ("starcoder", "commandr"):
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
        )
        if shape == "commandr":
            tok.normalizer = normalizers.NFC()
    elif shape == "falcon":
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Punctuation("contiguous"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
                pre_tokenizers.Digits(individual_digits=False),
                pre_tokenizers.Split(Regex(FALCON_DIGITS), behavior="isolated", invert=False),
            ]
        )
    else:
        split = BLOOM_SPLIT if shape == "bloom" else TEKKEN
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    tok.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trainer = trainers.BpeTrainer(
        vocab_size=32000, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(lines, trainer)
    if shape == "roberta":
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True)
    elif shape in ("falcon", "bloom"):
        tok.post_processor = processors.ByteLevel(trim_offsets=shape == "falcon")
    return tok


def whitespace(shape: str, lines: list[str]) -> Tokenizer:
    """HF's quicktour BPE, or a WordLevel over BERT-like normalizers, on Whitespace."""
    if shape == "quicktour":
        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
        trainer: Any = trainers.BpeTrainer(vocab_size=32000, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    else:
        tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
        trainer = trainers.WordLevelTrainer(vocab_size=32000, special_tokens=["[UNK]", "[CLS]", "[SEP]"])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    return tok


def clip(lines: list[str]) -> Tokenizer:
    """CLIP's pipeline (transformers' CLIPConverter) over a BPE with the "</w>" suffix."""
    tok = Tokenizer(models.BPE(unk_token="<|endoftext|>", end_of_word_suffix="</w>", continuing_subword_prefix=""))
    tok.normalizer = normalizers.Sequence(
        [normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()]
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(CLIP_SPLIT), behavior="removed", invert=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=32000,
        special_tokens=["<|startoftext|>", "<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        end_of_word_suffix="</w>",
    )
    tok.train_from_iterator(lines, trainer)
    tok.post_processor = processors.RobertaProcessing(("<|endoftext|>", 1), ("<|startoftext|>", 0), trim_offsets=False)
    return tok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder to write <shape>/tokenizer.json under")
    parser.add_argument("shapes", nargs="*", help=f"the shapes to make (default all: {', '.join(SHAPES)})")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="../shared/corpus (default: beside the repo)")
    args = parser.parse_args()
    unknown = sorted(set(args.shapes) - set(SHAPES))
    if unknown:
        parser.error(f"unknown shape {', '.join(unknown)} (the shapes: {', '.join(SHAPES)})")
    if not args.corpus.exists():
        parser.error(f"no corpus at {args.corpus}: pass --corpus DIR (../shared/corpus)")
    lines: list[str] = []
    rng = random.Random(19)
    for path in sorted(args.corpus.rglob("*.txt")):
        text = path.read_bytes()[:3_000_000].decode("utf-8", "ignore").splitlines(keepends=True)
        rng.shuffle(text)
        lines.extend(text[:20000])
    rng.shuffle(lines)
    for shape in args.shapes or SHAPES:
        if shape == "clip":
            tok = clip(lines)
        elif shape in ("quicktour", "wordlevel"):
            tok = whitespace(shape, lines)
        else:
            tok = byte_level(shape, lines)
        doc: dict[str, Any] = json.loads(tok.to_str())
        folder = args.out / shape
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        print(f"{folder / 'tokenizer.json'}: {len(doc['model']['vocab'])} tokens")


if __name__ == "__main__":
    main()
