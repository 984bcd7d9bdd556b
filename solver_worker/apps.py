from django.apps import AppConfig


class SolverWorkerConfig(AppConfig):
    """Celery tasks: replaying submissions, verifying deals with the solver."""

    name = "solver_worker"
    verbose_name = "Solver worker"
    default_auto_field = "django.db.models.BigAutoField"
