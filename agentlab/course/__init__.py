"""The course around the loop: exercises, run display, reports, experiments.

Everything here is for the chapter notebooks; the loop never imports it.
"""
