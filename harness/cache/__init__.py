"""The harness cache (`$VQA_HARNESS_CACHE`): what a run can reuse instead of recomputing.

- `predictions`: model outputs, keyed by model fingerprint and input (SQLite);
- `artifacts`: model-independent work as content-addressed entries (toy data, decoy sets,
  perturbations, features, reference scores), and `harness cache status|clear`;
- `outputs`: a probe's whole output on a task, restored by a re-run;
- `locks`: one builder at a time for an entry shared by several processes.
"""
