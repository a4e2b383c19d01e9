"""core: the hook-safe vocabulary of runs, shared by the gate, `zodyssey run` and the audit."""
