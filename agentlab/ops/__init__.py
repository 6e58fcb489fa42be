"""The instructor's and operator's tools: the ``agentlab`` command, ``doctor``,
the OpenTelemetry export. They sit on top of everything else."""
