"""Paper algorithms that build data: the decoy generator of Chao et al. 2018 (`decoys`) and
the counterfactual question generator of Stoikou et al. 2023 (`counterfactual`). Public
modules: other plugins import them (docs/architecture.md)."""
