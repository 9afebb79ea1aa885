"""Pre-tokenizers: how text is cut into pieces before the model sees it."""
