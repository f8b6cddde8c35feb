"""Fixtures shared by the malformed-input tests."""

from __future__ import annotations

import builtins

import pytest


@pytest.fixture(params=["orjson", "stdlib"])
def json_backend(request, monkeypatch):
    """Run a test with orjson, and again as if it were not installed."""
    if request.param == "stdlib":
        real = builtins.__import__

        def no_orjson(name, *args, **kwargs):
            if name == "orjson":
                raise ImportError("no orjson")
            return real(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", no_orjson)
    return request.param
