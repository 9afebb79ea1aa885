"""File formats: read and write vocabularies in the forms other tools use."""
