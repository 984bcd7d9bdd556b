"""``Review`` becomes ``FairPlayCase`` (a held result or a flag awaiting staff), apart from the after-game
game review by name.

Safe for the previous release, which runs on this schema during a deploy and after a rollback:

- The table keeps its name, ``games_review`` (``Meta.db_table``, set before the rename, so the rename
  moves no table), and no column changes: the previous release reads and writes it as before.
- The two partial unique indexes of the constraints and the status index are renamed in place
  (PostgreSQL: ``ALTER INDEX ... RENAME``, no rebuild; elsewhere dropped and made again).
- Permissions: contenttypes renames the model's content type on ``migrate`` (staff's admin history
  stays with it), but the permissions' codenames are the model's name (``view_review``...). Each holder
  of an old one (a group, or a user directly) is given the new one (``view_fairplaycase``...), so staff
  keep their rights; the old ones stay, on the same content type, for the previous release's admin,
  which asks for them (``games.change_review``), until a later release deletes them.
"""

from django.conf import settings
from django.db import migrations, models

ACTIONS = ("add", "change", "delete", "view")
OLD, NEW = "review", "fairplaycase"
INDEX_RENAMES = [  # the constraints' unique indexes: (old name, new name)
    ("review_one_hold_per_result", "fairplaycase_one_hold_per_result"),
    ("review_one_flag_per_origin_day", "fairplaycase_one_flag_per_origin_day"),
]


def hold_constraint(name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(condition=models.Q(("holds", True)), fields=("result", "kind"), name=name)


def flag_constraint(name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(condition=models.Q(("holds", False)), fields=("kind", "origin", "day"), name=name)


def _rename_constraints(apps, schema_editor, *, backwards: bool) -> None:  # type: ignore[no-untyped-def]
    pairs = [(new, old) if backwards else (old, new) for old, new in INDEX_RENAMES]
    if schema_editor.connection.vendor == "postgresql":
        quote = schema_editor.quote_name
        for before, after in pairs:
            schema_editor.execute(f"ALTER INDEX {quote(before)} RENAME TO {quote(after)}")
        return
    model = apps.get_model("games", "FairPlayCase")
    for make, (before, after) in zip((hold_constraint, flag_constraint), pairs, strict=True):
        schema_editor.remove_constraint(model, make(before))
        schema_editor.add_constraint(model, make(after))


def rename_constraints(apps, schema_editor):  # type: ignore[no-untyped-def]
    _rename_constraints(apps, schema_editor, backwards=False)


def rename_constraints_back(apps, schema_editor):  # type: ignore[no-untyped-def]
    _rename_constraints(apps, schema_editor, backwards=True)


def _copy_permissions(apps, schema_editor, *, source: str, target: str, target_label: str) -> list:  # type: ignore[no-untyped-def]
    """Give every holder of ``<action>_<source>`` the permission ``<action>_<target>`` (made when missing, on
    the model's content type); the ``source`` permissions that were found."""
    content_type_model = apps.get_model("contenttypes", "ContentType")
    permission_model = apps.get_model("auth", "Permission")
    db = schema_editor.connection.alias
    content_type = content_type_model.objects.using(db).filter(app_label="games", model=NEW).first()
    if content_type is None:
        return []  # a new database: post_migrate makes the permissions after the migrations
    found = []
    for action in ACTIONS:
        old = permission_model.objects.using(db).filter(content_type__app_label="games", codename=f"{action}_{source}")
        old = old.first()
        if old is None:
            continue
        new, _ = permission_model.objects.using(db).get_or_create(
            content_type=content_type, codename=f"{action}_{target}", defaults={"name": f"Can {action} {target_label}"}
        )
        new.group_set.add(*old.group_set.all())
        new.user_set.add(*old.user_set.all())
        found.append(old)
    return found


def grant_new_permissions(apps, schema_editor):  # type: ignore[no-untyped-def]
    for old in _copy_permissions(apps, schema_editor, source=OLD, target=NEW, target_label="fair-play case"):
        old.name = f"Can {old.codename.split('_')[0]} review (the previous release's name)"
        old.save(update_fields=["name"])


def grant_old_permissions(apps, schema_editor):  # type: ignore[no-untyped-def]
    for new in _copy_permissions(apps, schema_editor, source=NEW, target=OLD, target_label="review"):
        new.delete()
    permission_model = apps.get_model("auth", "Permission")
    for action in ACTIONS:
        permission_model.objects.using(schema_editor.connection.alias).filter(
            content_type__app_label="games", codename=f"{action}_{OLD}"
        ).update(name=f"Can {action} review")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0018_challenge_long_solve"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelTable(name="review", table="games_review"),  # the name it has: no change
        migrations.RenameModel(old_name="Review", new_name="FairPlayCase"),
        migrations.AlterModelOptions(
            name="fairplaycase",
            options={
                "ordering": ["-created_at", "-id"],
                "verbose_name": "fair-play case",
                "verbose_name_plural": "fair-play cases",
            },
        ),
        migrations.AlterField(
            model_name="fairplaycase",
            name="result",
            field=models.ForeignKey(
                on_delete=models.deletion.CASCADE, related_name="fair_play_cases", to="games.result"
            ),
        ),
        migrations.AlterField(
            model_name="fairplaycase",
            name="others",
            field=models.JSONField(
                blank=True,
                db_default=[],
                default=list,
                help_text="The players concerned (usernames; at most fairplay.NAMES_SHOWN, the count is in players).",
            ),
        ),
        migrations.AlterField(
            model_name="fairplaycase",
            name="players",
            field=models.PositiveIntegerField(db_default=0, default=0, help_text="How many players the case names."),
        ),
        migrations.AlterField(
            model_name="result",
            name="held",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Held for a fair-play check (games.FairPlayCase): on no public board until staff clear it.",
            ),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveConstraint(model_name="fairplaycase", name="review_one_hold_per_result"),
                migrations.RemoveConstraint(model_name="fairplaycase", name="review_one_flag_per_origin_day"),
                migrations.AddConstraint(
                    model_name="fairplaycase", constraint=hold_constraint("fairplaycase_one_hold_per_result")
                ),
                migrations.AddConstraint(
                    model_name="fairplaycase", constraint=flag_constraint("fairplaycase_one_flag_per_origin_day")
                ),
            ],
            database_operations=[migrations.RunPython(rename_constraints, rename_constraints_back)],
        ),
        migrations.RenameIndex(
            model_name="fairplaycase", new_name="fairplaycase_status_created", old_name="games_revie_status_3db105_idx"
        ),
        migrations.RunPython(grant_new_permissions, grant_old_permissions),
    ]
