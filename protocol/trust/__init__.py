"""Trust in records: the hash chain, seed commitments, signatures, manifests, audit."""
