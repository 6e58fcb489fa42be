"""The two keys the benchmarks run with.

Every benchmark that runs a model client runs it twice: with the scripted
client's placeholder key (too short to be a secret, so the loop looks for
nothing) and with :data:`KEY`, made up here in a real key's shape, which the
loop keeps out of everything a run holds. Nothing prints :data:`KEY`.
"""

from __future__ import annotations

import random
import string

PLACEHOLDER_KEY = "scripted-no-key"
"""The scripted clients' own key."""


def real_looking_key() -> str:
    """``sk-`` and 48 letters and digits: the shape of a real OpenAI key, the
    same in every process."""
    chars = random.Random("agentlab benchmark").choices(string.ascii_letters + string.digits, k=48)
    return "sk-" + "".join(chars)


KEY = real_looking_key()
KEYS = {"keyless": PLACEHOLDER_KEY, "keyed": KEY}
"""Each key by the name the benchmarks print."""
