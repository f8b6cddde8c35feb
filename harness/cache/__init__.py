"""The harness cache (`$VQA_HARNESS_CACHE`), what a run reuses: model outputs (`predictions`),
model-independent work and `harness cache status|clear` (`artifacts`), whole probe outputs
(`outputs`); one builder at a time (`locks`); a cache lost mid-run (`watch`)."""
