"""What libraries do, as data (table.py), and nothing else: the analysis reads it."""
