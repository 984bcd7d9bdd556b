"""The winnability study: how many deals of each game can be won, measured with the solver.

A pure package like ``engine`` and ``solver`` (no Django, no Celery, no Redis). ``rows`` (one
solved deal as a study row, the study files in JSON lines, and which seeds a run still has to
solve), ``figures`` (win rates, their 95% intervals, the Markdown table), ``plot`` (the SVG chart),
``transfer`` (verdicts carried between a game and its weaker game), ``winnability`` (a range of
seeds solved in local processes, or by any other source of rows) and ``cli`` (``python -m study``).
The study's data and report are in docs/winnability/; the service's solver workers solve a study's
deals with ``rows.solve_row`` (``solver_worker.solve_seed``, ``manage.py study_on_workers``).
"""
