"""Talking to a model service: one request, streamed or not, and what can go wrong.

``request.py`` sends one chat-completions request and reads the reply;
``streaming.py`` puts a streamed reply together; ``quirks.py`` reads what real
providers add or do differently; ``failures.py`` names a failure; ``retry.py``
says whether a failed request is worth another try. This layer knows nothing
of runs, budgets or tools.
"""
