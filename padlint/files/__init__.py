"""Files in and out: discovery, bytes <-> text (encodings, newlines, atomic writes), notebooks."""
