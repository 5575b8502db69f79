"""The stages of a build, one module each: what each reads, what it writes, how it runs and
how its output is checked."""
