"""Judging: the hidden and visible cases, and everything they judge with, in the grader's process.

``cases/`` holds the pytest cases, one folder per exercise; ``pytest_plugin`` collects their points;
``harness`` runs one case against the worker; ``expectations`` judges what came back;
``scripted_models`` are the stand-ins for an LLM; ``registries`` the tool registries;
``draw`` renames every hidden input's words per grading; ``canaries`` the per-run random checks; ``rule_ids`` names each rule; ``reference_steps`` the
trusted earlier steps; ``visible_cases`` the cases shown with their input.
"""
