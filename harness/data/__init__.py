"""The data a run reads: the datasets of one run, loaded lazily (`session`), and the checks
made before a run starts: are the files there, what a suite needs under --data-dir, what a
pretrained model's `trained_on=` may name (`check`)."""
