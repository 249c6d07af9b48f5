"""Course authoring: builds what learners get from the single sources in ``solutions/``.

``seed_form`` assembles the reference package into one file in the seed's form (a graded
submission); ``notebooks`` generates the learner notebooks from the solved ones.
"""
