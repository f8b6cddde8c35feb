"""One `transformers serve` per tiny model for the whole session (started side by side), and
the fake server the robustness, budget and bad-reply tests script."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("openai")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from helpers_fake import FakeOpenAI  # noqa: E402

from vqa_harness_plugins.models.served.local_server import LocalServer, tiny_llava  # noqa: E402


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible server (tests/served/helpers_fake.py), one per test."""
    server = FakeOpenAI()
    yield server
    server.close()


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, LocalServer]:
    """{"yes": a LLaVA that always writes "yes", "B": one that always writes "B"}, served."""
    root = tmp_path_factory.mktemp("served")
    started = {}
    for says in ("yes", "B"):
        folder = tiny_llava(root / f"llava-says-{says}", says)
        started[says] = LocalServer(folder, root / f"serve-{says}.log").start()
    try:
        for server in started.values():
            server.wait_ready()
        yield started
    finally:
        for server in started.values():
            server.kill()
