"""Pipelines as data, and the one step that runs them.

- `spec.PipelineSpec`: a tokenizer as plain data (normalizer, pre-tokenizer, model,
  post-processor, decoder, added tokens, settings): what every format reader returns
  (tokenforge.formats), and what every tokenizer can be rebuilt from.
- `presets`: the descriptions of well-known pipelines (BERT from a vocab.txt, llama.cpp's WPM).
- `compile.build_kernel`: the only module that knows the native pipelines; it picks the one
  that runs a description (today's fused kernels: byte-level BPE, WordPiece, sentencepiece) and
  builds it; `Tokenizer.from_spec` wraps that in the one tokenizer surface.

Direction of imports: components < pipeline.spec, pipeline.presets < formats < pipeline.compile
< tokenizer; formats and the compile step never import the surface.
"""
