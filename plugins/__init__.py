"""Built-in vqa-harness plugins (installed as `vqa_harness_plugins`)."""
