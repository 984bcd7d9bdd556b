from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


def close_extra_open_attempts(apps, schema_editor):
    """Before the constraint: of several open attempts of one player on one challenge, keep the newest open.

    The others end now, without a submission (they were practice: a ranked one is unique already).
    """
    Attempt = apps.get_model("games", "Attempt")
    seen = set()
    for attempt in Attempt.objects.filter(finished_at__isnull=True).order_by("-started_at", "-id"):
        key = (attempt.player_id, attempt.challenge_id)
        if key in seen:
            Attempt.objects.filter(pk=attempt.pk).update(finished_at=timezone.now())
        else:
            seen.add(key)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_result_redeals"),
    ]

    operations = [
        migrations.RunPython(close_extra_open_attempts, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="attempt",
            constraint=models.UniqueConstraint(
                condition=Q(finished_at__isnull=True),
                fields=("player", "challenge"),
                name="attempt_one_open_per_player",
            ),
        ),
    ]
