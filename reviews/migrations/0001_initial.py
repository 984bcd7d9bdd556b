# The model GameReview moves here from solver_worker by state only: its table keeps its name
# (solver_worker_gamereview, the model's db_table) and its rows, and the database is not touched, so
# the previous release runs on this schema. solver_worker 0003 drops it from that app's state. Its
# content type is relabelled, so staff's permissions on it and the admin's history of its rows carry over.

import django.db.models.deletion
from django.db import migrations, models

MODEL = "gamereview"


def _relabel(apps, schema_editor, source, target):
    """The content type of ``source``.gamereview becomes ``target``'s: its permissions (and who holds them)
    and its rows' admin history go with it. When ``target``'s exists already (made by a partial migrate's
    post_migrate), the holders of each ``source`` permission are given ``target``'s instead."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    db = schema_editor.connection.alias
    old = ContentType.objects.using(db).filter(app_label=source, model=MODEL).first()
    if old is None:
        return  # a new database: post_migrate makes the content type under its new label
    new = ContentType.objects.using(db).filter(app_label=target, model=MODEL).first()
    if new is None:
        old.app_label = target
        old.save(using=db, update_fields=["app_label"])
    else:
        for permission in Permission.objects.using(db).filter(content_type=old):
            same = Permission.objects.using(db).filter(content_type=new, codename=permission.codename).first()
            if same is not None:
                same.group_set.add(*permission.group_set.all())
                same.user_set.add(*permission.user_set.all())
    ContentType.objects.clear_cache()


def relabel_forwards(apps, schema_editor):
    _relabel(apps, schema_editor, "solver_worker", "reviews")


def relabel_backwards(apps, schema_editor):
    _relabel(apps, schema_editor, "reviews", "solver_worker")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0006_challenge_skipped_seeds"),
        ("solver_worker", "0002_database_defaults"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="GameReview",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("status", models.CharField(choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")], db_default="queued", default="queued", max_length=16)),
                        ("outcome", models.CharField(blank=True, help_text="won, lost, gave_up_winnable, ...", max_length=24)),
                        ("winnable_after", models.IntegerField(blank=True, help_text="Moves of the line played.", null=True)),
                        ("lost_after", models.IntegerField(blank=True, null=True)),
                        ("data", models.JSONField(blank=True, db_default={}, default=dict)),
                        ("tries", models.PositiveSmallIntegerField(db_default=0, default=0)),
                        ("seconds", models.FloatField(db_default=0.0, default=0.0, help_text="Solver time the review took.")),
                        ("error", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("attempt", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="review", to="games.attempt")),
                    ],
                    options={
                        "db_table": "solver_worker_gamereview",
                        "ordering": ["-created_at"],
                        "indexes": [models.Index(fields=["status", "created_at"], name="solver_work_status_f654af_idx")],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel_forwards, relabel_backwards, elidable=False),
    ]
