"""Post-processors: special tokens around the model's tokens ([CLS] A [SEP] B [SEP])."""

from .template import TemplateProcessing

__all__ = ["TemplateProcessing"]
