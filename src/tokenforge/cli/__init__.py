"""The `tokenforge` command: encode and decode with named encodings, and train new ones, from a shell."""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from ..registry import get_encoding, get_tokenizer, list_encoding_names, list_tokenizer_names


_TOKENIZER_FILES = (".json", ".txt", ".gguf", ".model")


def _load(name_or_path: str):
    """A named encoding, a .tokenforge file, or a Tokenizer file (tokenizer.json, vocab.txt, .gguf,
    sentencepiece .model)."""
    if name_or_path in list_encoding_names():
        return get_encoding(name_or_path)
    if name_or_path in list_tokenizer_names():
        return get_tokenizer(name_or_path)
    if os.path.exists(name_or_path):
        if name_or_path.endswith(_TOKENIZER_FILES):
            from ..tokenizer import Tokenizer

            return Tokenizer.from_file(name_or_path)
        from ..formats.tokenforge_file import load_encoding

        return load_encoding(name_or_path)
    raise ValueError(f"{name_or_path!r} is neither a named encoding or tokenizer "
                     f"({', '.join(list_encoding_names() + list_tokenizer_names())}) "
                     "nor a file (.tokenforge, tokenizer.json, vocab.txt, .gguf, sentencepiece .model)")


def _read_text(args: argparse.Namespace) -> str:
    return args.text if args.text is not None else sys.stdin.read()


def _encode_with_tokenizer(tok, text: str, args: argparse.Namespace) -> int:
    from ..sentencepiece_tokenizer import SentencePieceTokenizer

    if isinstance(tok, SentencePieceTokenizer):  # special text is plain text unless allowed, as in sentencepiece
        enc = tok.encode(text, allowed_special="all" if args.allow_special else ())
    else:  # special text is the special id unless --special-as-text, as HF matches added tokens
        tok.split_special_tokens = args.special_as_text
        enc = tok.encode(text)
    if args.tokens:
        for token_id, token, span in zip(enc.ids, enc.tokens, enc.offsets):
            print(f"{token_id}\t{token}\t{span[0]}:{span[1]}")
    elif args.count:
        print(len(enc.ids))
    else:
        print(json.dumps(enc.ids) if args.json else " ".join(map(str, enc.ids)))
    return 0


def _encode(args: argparse.Namespace) -> int:
    enc = _load(args.encoding)
    text = _read_text(args)
    if not hasattr(enc, "encode_ordinary"):
        return _encode_with_tokenizer(enc, text, args)
    allowed = "all" if args.allow_special else frozenset()
    disallowed = () if args.special_as_text else "all"
    ids = enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    if args.tokens:
        for token in ids:
            print(f"{token}\t{enc.decode_single_token_bytes(token)!r}")
    elif args.count:
        print(len(ids))
    else:
        print(json.dumps(ids) if args.json else " ".join(map(str, ids)))
    return 0


def _decode(args: argparse.Namespace) -> int:
    enc = _load(args.encoding)
    raw = " ".join(args.ids) if args.ids else sys.stdin.read()
    ids = [int(x) for x in raw.replace(",", " ").replace("[", " ").replace("]", " ").split()]
    sys.stdout.write(enc.decode(ids) + ("\n" if args.ids else ""))
    return 0


def _list(args: argparse.Namespace) -> int:
    for name in list_encoding_names() + list_tokenizer_names():
        print(name)
    return 0


OUT_FORMATS = {
    "tiktoken": "a .tiktoken file (ranks only; tiktoken and load_tiktoken read it)",
    "tokenforge": "a .tokenforge file: ranks, split pattern and special tokens in one file (-e reads it)",
    "hf": "an HF tokenizer.json (byte-level BPE with the split pattern)",
    "gpt2": "encoder.json + vocab.bpe in the directory --out (bytes numbered in GPT-2's order)",
    "minbpe": "minbpe's OUT.model + OUT.vocab (--out without the suffix, or ending in .model)",
}


def _out_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    for suffix, form in ((".tiktoken", "tiktoken"), (".tokenforge", "tokenforge"), (".json", "hf"), (".model", "minbpe")):
        if args.out.endswith(suffix):
            return form
    if os.path.isdir(args.out):
        return "gpt2"
    raise ValueError(f"cannot tell the output format from {args.out!r}: end it in .tiktoken, .tokenforge, "
                     ".json or .model, or name one with --format")


def _save(enc, form: str, out: str) -> None:
    from ..formats.gpt2_files import save_gpt2_files
    from ..formats.hf_tokenizer_json import save_tokenizer_json
    from ..formats.minbpe_files import save_minbpe
    from ..formats.tiktoken_file import dump_tiktoken_bpe
    from ..formats.tokenforge_file import save_encoding

    if form == "tiktoken":
        dump_tiktoken_bpe(enc._mergeable_ranks, out)
    elif form == "tokenforge":
        save_encoding(enc, out)
    elif form == "hf":
        save_tokenizer_json(enc, out)
    elif form == "gpt2":
        os.makedirs(out, exist_ok=True)
        save_gpt2_files(enc._mergeable_ranks, os.path.join(out, "encoder.json"), os.path.join(out, "vocab.bpe"),
                        enc._special_tokens)
    else:
        save_minbpe(enc, out.removesuffix(".model"))


def _size(text: str) -> int:
    """Bytes from '500M', '2G', '1.5G', '4096' (K, M, G, T: powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], units[text[-1].upper()]) if text[-1:].upper() in units else (text, 1)
    try:
        return int(float(number) * unit)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 4096, 500M or 2G") from None


def _train_wordpiece(args: argparse.Namespace) -> int:
    import time

    from ..normalizers import BertNormalizer
    from ..trainers import read_text_files, train_wordpiece

    if not args.out.endswith((".json", ".txt")):
        raise ValueError(f"a WordPiece vocabulary is written as tokenizer.json (*.json) or vocab.txt (*.txt), "
                         f"not {args.out!r}")
    specials = args.special_token or ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer = BertNormalizer(lowercase=not args.cased, strip_accents=None if not args.cased else False)
    start = time.perf_counter()
    tok = train_wordpiece(read_text_files(args.files), args.vocab_size, normalizer=normalizer,
                          special_tokens=specials, min_frequency=args.min_frequency or 2,
                          progress=False if args.quiet else None)
    seconds = time.perf_counter() - start
    if args.out.endswith(".json"):
        tok.save(args.out)
    else:
        tok.save_vocab_txt(args.out)
    print(f"trained {tok.get_vocab_size()} WordPiece tokens in {seconds:.1f} s; wrote {args.out}")

    def bytes_per_token(specs: list[str]) -> float:
        n_bytes = n_tokens = 0
        for text in read_text_files(specs):
            n_bytes += len(text.encode("utf-8"))
            n_tokens += len(tok.encode(text, add_special_tokens=False).ids)
        return n_bytes / max(n_tokens, 1)

    print(f"bytes per token, training data: {bytes_per_token(args.files):.3f}")
    if args.held_out:
        print(f"bytes per token, held out: {bytes_per_token(args.held_out):.3f}")
    return 0


def _spm_options(pairs: list[str]) -> dict:
    """--spm NAME=VALUE pairs as train_sentencepiece keywords, typed like their defaults."""
    import inspect

    from ..trainers.sentencepiece import train_sentencepiece

    params = inspect.signature(train_sentencepiece).parameters
    options = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.replace("-", "_")
        if not sep or name not in params or params[name].kind != inspect.Parameter.KEYWORD_ONLY:
            raise ValueError(f"--spm takes NAME=VALUE with NAME an option of train_sentencepiece (such as "
                             f"input_sentence_size=1000000), got {pair!r}")
        default = params[name].default
        if isinstance(default, bool):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"--spm {name} takes true or false, got {value!r}")
            options[name] = value.lower() in ("true", "1")
        elif isinstance(default, (int, float)):
            try:
                options[name] = type(default)(value)
            except ValueError:
                raise ValueError(f"--spm {name} takes a number, got {value!r}") from None
        elif isinstance(default, tuple):
            options[name] = [v for v in value.split(",") if v]
        else:
            options[name] = value
    return options


def _train_sentencepiece(args: argparse.Namespace) -> int:
    import time

    from ..models.sentencepiece import SentencePieceModelEncoder
    from ..trainers import read_text_files
    from ..trainers.sentencepiece import save_sentencepiece, train_sentencepiece

    prefix = args.out.removesuffix(".model")
    options = _spm_options(args.spm or [])
    for flag, name in (("character_coverage", "character_coverage"), ("normalization_rule", "normalization_rule_name"),
                       ("byte_fallback", "byte_fallback"), ("split_digits", "split_digits"),
                       ("user_defined_symbol", "user_defined_symbols")):
        if getattr(args, flag) not in (None, False):
            options[name] = getattr(args, flag)
    start = time.perf_counter()
    model = train_sentencepiece(args.files, args.vocab_size, "unigram" if args.model == "unigram" else "bpe",
                                progress=False if args.quiet else None, **options)
    seconds = time.perf_counter() - start
    model_path, vocab_path = save_sentencepiece(model, prefix)
    print(f"trained {len(model.pieces)} {args.model} pieces in {seconds:.1f} s; wrote {model_path} and {vocab_path}")
    encoder = SentencePieceModelEncoder(model)

    def bytes_per_token(specs: list[str]) -> float:
        n_bytes = n_tokens = 0
        for text in read_text_files(specs):
            lines = text.split("\n")
            n_bytes += sum(len(line.encode("utf-8")) for line in lines)
            n_tokens += sum(map(len, encoder.encode_batch(lines)))
        return n_bytes / max(n_tokens, 1)

    print(f"bytes per token, training data: {bytes_per_token(args.files):.3f}")
    if args.held_out:
        print(f"bytes per token, held out: {bytes_per_token(args.held_out):.3f}")
    return 0


def _train(args: argparse.Namespace) -> int:
    import time

    from ..trainers import read_text_files, train_bpe

    if args.model == "wordpiece":
        return _train_wordpiece(args)
    if args.model in ("unigram", "spm-bpe"):
        return _train_sentencepiece(args)

    form = _out_format(args)
    specials = {text: args.vocab_size + i for i, text in enumerate(args.special_token or [])}
    pattern = None if args.pattern == "none" else args.pattern
    start = time.perf_counter()
    enc = train_bpe(read_text_files(args.files), args.vocab_size, pattern, min_frequency=args.min_frequency or 1,
                    max_token_length=args.max_token_length, special_tokens=specials,
                    forced_tokens=args.force_token or (), byte_ids="gpt2" if form == "gpt2" else args.byte_ids,
                    max_memory=args.max_memory, progress=False if args.quiet else None)
    seconds = time.perf_counter() - start
    _save(enc, form, args.out)

    def bytes_per_token(specs: list[str]) -> float:
        n_bytes = n_tokens = 0
        for text in read_text_files(specs):
            n_bytes += len(text.encode("utf-8"))
            n_tokens += len(enc.encode_ordinary(text))
        return n_bytes / max(n_tokens, 1)

    merges = len(enc._mergeable_ranks) - 256
    print(f"trained {256 + merges} tokens (256 bytes + {merges} merges) in {seconds:.1f} s; "
          f"wrote {args.out} ({form})")
    for text, token_id in specials.items():
        print(f"special token {text!r}: id {token_id}")
    print(f"bytes per token, training data: {bytes_per_token(args.files):.3f}")
    if args.held_out:
        print(f"bytes per token, held out: {bytes_per_token(args.held_out):.3f}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenforge",
        description="Turn text into tokens and back with tiktoken-exact byte-level BPE encodings, "
                    "and train new ones.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    enc = sub.add_parser("encode", help="print the token ids of TEXT (or of stdin)",
                         description="Print the token ids of TEXT, or of standard input when TEXT is omitted.")
    enc.add_argument("text", nargs="?", help="text to encode (default: read standard input)")
    enc.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE",
                     help=f"named encoding ({', '.join(list_encoding_names() + list_tokenizer_names())}), "
                          "a .tokenforge file, or a "
                          "tokenizer file: HF tokenizer.json, BERT vocab.txt, GGUF, sentencepiece .model "
                          "(default: %(default)s)")
    enc.add_argument("--allow-special", action="store_true",
                     help="turn special-token text such as <|endoftext|> into its special id "
                          "(default: such text is an error; a tokenizer file matches its special tokens, as HF does, "
                          "except a sentencepiece .model, which reads them as text, as sentencepiece does)")
    enc.add_argument("--special-as-text", action="store_true",
                     help="encode special-token text as ordinary text (instead of raising, or of matching it)")
    out = enc.add_mutually_exclusive_group()
    out.add_argument("--tokens", action="store_true",
                     help="print each id with its bytes (tokenizer files: its token and character span)")
    out.add_argument("--count", action="store_true", help="print only the number of tokens")
    out.add_argument("--json", action="store_true", help="print ids as a JSON list")
    enc.set_defaults(run=_encode)

    dec = sub.add_parser("decode", help="print the text of token ids",
                         description="Print the text of token IDS (space/comma separated, or a JSON list on stdin).")
    dec.add_argument("ids", nargs="*", help="token ids (default: read standard input)")
    dec.add_argument("-e", "--encoding", default="cl100k_base", metavar="NAME_OR_FILE",
                     help="named encoding, .tokenforge file or tokenizer file (default: %(default)s)")
    dec.set_defaults(run=_decode)

    tr = sub.add_parser(
        "train", help="train a vocabulary (byte-level BPE, WordPiece, sentencepiece Unigram or BPE) on text files",
        description="Train a byte-level BPE vocabulary (minbpe's semantics: the most frequent adjacent pair "
                    "is merged first, ties to the smallest pair) on UTF-8 text files, streamed; write it in the "
                    "format --out's suffix names (or --format); report bytes per token.",
        epilog="example: tokenforge train --files 'data/*.txt' --vocab-size 32768 --pattern cl100k --out my.tiktoken",
    )
    tr.add_argument("--files", nargs="+", required=True, metavar="PATH",
                    help="text files or glob patterns ('data/**/*.txt' recurses); UTF-8")
    tr.add_argument("--model", choices=("bpe", "wordpiece", "unigram", "spm-bpe"), default="bpe",
                    help="bpe: byte-level BPE (the options below); wordpiece: BERT's WordPiece with likelihood-scored "
                         "merges, written as tokenizer.json or vocab.txt, special tokens [PAD] [UNK] [CLS] [SEP] [MASK] "
                         "unless --special-token is given, min frequency 2 by default; unigram / spm-bpe: a "
                         "sentencepiece model (Unigram, or BPE over characters) on the files' lines, written as "
                         "OUT.model + OUT.vocab, with sentencepiece's options and defaults (--character-coverage and "
                         "the flags after it, --spm for the rest) (default: %(default)s)")
    tr.add_argument("--cased", action="store_true", help="wordpiece: keep case and accents (default: uncased)")
    tr.add_argument("--character-coverage", type=float,
                    help="unigram/spm-bpe: share of the text's characters the alphabet covers; the rarest others are "
                         "unknown (default: 0.9995; 1.0 for small alphabets)")
    tr.add_argument("--normalization-rule", choices=("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"),
                    help="unigram/spm-bpe: sentencepiece's normalization rule (default: nmt_nfkc)")
    tr.add_argument("--byte-fallback", action="store_true",
                    help="unigram/spm-bpe: add the 256 <0xNN> byte pieces, so unknown characters become bytes")
    tr.add_argument("--split-digits", action="store_true", help="unigram/spm-bpe: every digit its own piece")
    tr.add_argument("--user-defined-symbol", action="append", metavar="TEXT",
                    help="unigram/spm-bpe: a piece always kept whole, matched in text first (repeatable)")
    tr.add_argument("--spm", action="append", metavar="NAME=VALUE",
                    help="unigram/spm-bpe: any other option of sentencepiece's trainer by its name, e.g. "
                         "input_sentence_size=1000000, max_sentencepiece_length=8, pad_id=3, "
                         "skip_long_lines=true, control_symbols=<a>,<b> (repeatable)")
    tr.add_argument("--vocab-size", type=int, required=True,
                    help="ordinary tokens in the result: the 256 bytes plus the merges (at least 256); for "
                         "unigram/spm-bpe, every piece (special ones included)")
    tr.add_argument("--pattern", default="cl100k",
                    help="how text is cut before merging: gpt2, cl100k, o200k, none (no split: each piece "
                         "of about 1 MB, cut after a line, is one chunk), or a regex; merges never cross a "
                         "cut (default: %(default)s)")
    tr.add_argument("--out", required=True,
                    help="where to write: *.tiktoken, *.tokenforge, *.json (HF), *.model (minbpe) or, with "
                         "--format gpt2, a directory; unigram/spm-bpe: OUT.model + OUT.vocab (OUT may end in .model)")
    tr.add_argument("--format", choices=OUT_FORMATS,
                    help="output format when --out's suffix does not say: "
                         + "; ".join(f"{k}: {v}" for k, v in OUT_FORMATS.items()))
    tr.add_argument("--force-token", action="append", metavar="TEXT",
                    help="text that must be one ordinary token (repeatable); made first, before training")
    tr.add_argument("--byte-ids", choices=("bytes", "gpt2"), default="bytes",
                    help="ids of the 256 byte tokens: bytes (id b is byte b, as minbpe) or gpt2 (GPT-2's "
                         "order, as tiktoken's encodings); gpt2 output always uses gpt2 (default: %(default)s)")
    tr.add_argument("--min-frequency", type=int,
                    help="stop when the best pair occurs fewer times than this (default: 1 for bpe, 2 for "
                         "wordpiece)")
    tr.add_argument("--max-token-length", type=int, metavar="BYTES",
                    help="never make a token longer than this many bytes (default: no limit)")
    tr.add_argument("--special-token", action="append", metavar="TEXT",
                    help="add a special token after training, ids from --vocab-size on (repeatable); "
                         "a .tiktoken file does not store them, the other formats do")
    tr.add_argument("--held-out", nargs="+", metavar="PATH",
                    help="files not trained on, to report bytes per token on them too")
    tr.add_argument("--max-memory", type=_size, metavar="SIZE",
                    help="memory budget such as 2G: the chunk table spills to temporary files past half of it, "
                         "and if the corpus's unique chunks still outgrow a tenth of it the rarest are left "
                         "out of training, with a warning (default: no limit)")
    tr.add_argument("--quiet", action="store_true", help="no progress display")
    tr.set_defaults(run=_train)

    lst = sub.add_parser("list", help="list the named encodings and tokenizers")
    lst.set_defaults(run=_list)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"tokenforge: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        return args.run(args)
    except (ValueError, KeyError) as e:
        print(f"tokenforge: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tokenforge: interrupted (files are written whole or not at all)", file=sys.stderr)
        return 130
