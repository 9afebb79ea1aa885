"""Decoders: ids back to text."""
