"""Many games: runs cut into shards on a process pool or a Dask cluster, their parquet files and manifests,
the processes that die with their command, the key that says when a stored result can be reused, and the
replay of any game of a run."""
