"""Helpers shared by the tests (generated source trees, recorded facts)."""
