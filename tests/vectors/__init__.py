"""Shared test vectors: exports (valid and tampered) that every verifier must judge alike."""
