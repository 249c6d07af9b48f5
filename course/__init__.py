"""Course authoring: builds what learners get from the single sources in ``solutions/``.

``assemble`` turns parts of the reference package into standalone code (solved notebook cells,
the seed-form reference submission); ``notebooks`` generates the learner notebooks from the
solved ones; ``build`` is the command that regenerates (or checks) everything; ``check`` is the
course check (every stub fails, every solution passes, every exercise has hint and points).
"""
