"""Writing a library: the pipeline that orders the build's stages (pipeline), the stages
themselves (stages/), adding a user's edition (ingest, update) and checking a built library's
health (doctor).

`python -m crlookup.builder grow ROOT` adds the editions a first build left for the background.
"""
