"""A sentencepiece .model as the flat file bench/spm_pipeline_loop.cpp reads (no protobuf in
C++): the precompiled charsmap, the normalizer and trainer flags, then every piece with its
score and type. Needs the sentencepiece package (for its protobuf module).

    python bench/spm_model_dump.py MODEL.model OUT.bin
"""

from __future__ import annotations

import struct
import sys

from sentencepiece import sentencepiece_model_pb2 as pb


def main() -> None:
    model = pb.ModelProto()
    with open(sys.argv[1], "rb") as f:
        model.ParseFromString(f.read())
    ns, ts = model.normalizer_spec, model.trainer_spec
    with open(sys.argv[2], "wb") as out:
        out.write(struct.pack("<I", len(ns.precompiled_charsmap)) + ns.precompiled_charsmap)
        flags = (ns.add_dummy_prefix, ns.remove_extra_whitespaces, ns.escape_whitespaces)
        out.write(struct.pack("<5B", *flags, ts.treat_whitespace_as_suffix, ts.byte_fallback))
        out.write(struct.pack("<I", len(model.pieces)))
        for p in model.pieces:
            text = p.piece.encode()
            out.write(struct.pack("<IfB", len(text), p.score, p.type) + text)


if __name__ == "__main__":
    main()
