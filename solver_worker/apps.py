from django.apps import AppConfig


class SolverWorkerConfig(AppConfig):
    """Celery tasks: replaying submissions, verifying deals with the solver."""

    name = "solver_worker"
    verbose_name = "Solver worker"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every solve in this process (web, Celery worker) bounds its table by the setting.
        from django.conf import settings

        from solver import core

        core.configure(table_mb=settings.SOLVER_TABLE_MB)
