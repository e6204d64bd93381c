"""Answering: search with fusion and link expansion, retrieve, read, served-text checks."""
