"""A DeepSeek style tokenizer.json for bench/tokenizer_json.py (no DeepSeek file is in
../shared/vocab/hf): a byte-level BPE of 32000 tokens trained by HF tokenizers on shuffled
lines of each corpus of ../shared/corpus, with one of DeepSeek's pre-tokenizers exactly, the
ByteLevel decoder and DeepSeek's begin/end of sentence tokens:
- v3 (default): DeepSeek V3 / R1's Sequence of Split(Regex "\\p{N}{1,3}"),
  Split(Regex "[一-龥\\u3040-ゟ゠-ヿ]+"), Split(Regex <its main pattern>), all Isolated;
- llm: DeepSeek LLM / V2's Splits of newlines, letters, punctuation, trailing whitespace and CJK,
  then Digits(individual_digits);
- coder: DeepSeek Coder's Splits of newlines, \\s?\\p{L}+, \\s?\\p{P}+ and CJK, then
  Digits(individual_digits);
then ByteLevel(add_prefix_space=false, use_regex=false). tokenforge runs each on the fused
byte_level_hf_bpe kernel (pre_tokenizers/split_sequence.h).

    python bench/make_deepseek_file.py OUT_FOLDER [v3|llm|coder] [--corpus ../shared/corpus]
    python bench/tokenizer_json.py --folders OUT_FOLDER --corpus ...
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from tokenforge.pipeline.fused_hf_bpe import SEQUENCES, STAGES

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder to write tokenizer.json to")
    parser.add_argument("shape", nargs="?", default="v3", choices=["v3", "llm", "coder"], help="the pre-tokenizer")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="../shared/corpus (default: beside the repo)")
    args = parser.parse_args()
    out, corpus = args.out, args.corpus
    if not corpus.exists():
        parser.error(f"no corpus at {corpus}: pass --corpus DIR (../shared/corpus)")
    sequence = SEQUENCES[{"v3": "DeepSeek V3", "llm": "DeepSeek LLM", "coder": "DeepSeek Coder"}[args.shape]]
    out.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    rng = random.Random(19)
    for path in sorted(corpus.rglob("*.txt")):
        text = path.read_bytes()[:3_000_000].decode("utf-8", "ignore").splitlines(keepends=True)
        rng.shuffle(text)
        lines.extend(text[:20000])
    rng.shuffle(lines)
    tok = Tokenizer(models.BPE())
    by_id = {stage_id: key for key, stage_id in STAGES.items()}
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            *(
                pre_tokenizers.Digits(individual_digits=True)
                if by_id[k][0] == "Digits"
                else pre_tokenizers.Split(Regex(by_id[k][1]), behavior="isolated", invert=False)
                for k in sequence
            ),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=32000,
        special_tokens=["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(lines, trainer)
    tok.save(str(out / "tokenizer.json"))
    print(f"{out / 'tokenizer.json'}: {tok.get_vocab_size()} tokens from {len(lines)} lines")


if __name__ == "__main__":
    main()
