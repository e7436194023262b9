"""Both sides: the weight_tying grader (chapter 18.4: token embedding and LM head sharing one table).

``runner/`` runs beside student code in the sandbox; ``judge/`` is read by the trusted judge only; ``spec``
ties them together for the engine. This file imports nothing: the sandbox imports it on the way to runner/.
"""
