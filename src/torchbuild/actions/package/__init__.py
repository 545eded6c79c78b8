"""Packaging actions: ``package inspect`` (inspect.py), ``package wheel`` (wheel.py),
``package libtorch`` (libtorch.py), ``package conda`` (conda.py)."""
