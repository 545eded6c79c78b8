"""decisions layer (see torchbuild/__init__.py)."""
