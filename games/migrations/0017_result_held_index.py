"""The held results' partial index (/metrics counts them at every scrape), built without locking the table.

On PostgreSQL the index is built CONCURRENTLY (outside a transaction: ``atomic = False``), so the previous
release keeps inserting results while a deploy's migrate step runs; elsewhere (SQLite) as usual.
"""

from django.db import migrations, models


def index() -> models.Index:
    return models.Index(condition=models.Q(("held", True)), fields=["id"], name="result_held")


def create(apps, schema_editor):  # type: ignore[no-untyped-def]
    model = apps.get_model("games", "Result")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(model, index(), concurrently=True)
    else:
        schema_editor.add_index(model, index())


def drop(apps, schema_editor):  # type: ignore[no-untyped-def]
    model = apps.get_model("games", "Result")
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(model, index(), concurrently=True)
    else:
        schema_editor.remove_index(model, index())


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("games", "0016_player_ban"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.AddIndex(model_name="result", index=index())],
            database_operations=[migrations.RunPython(create, drop)],
        ),
    ]
