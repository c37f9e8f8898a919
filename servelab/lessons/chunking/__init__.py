"""Reading a long prompt in chunks (the runs, the engine log, the sizing and their words): what
chapters 00 and 06 share, owned by neither."""
