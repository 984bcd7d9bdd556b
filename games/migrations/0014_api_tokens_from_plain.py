"""Every token made before digests were stored (Django REST framework's ``authtoken_token``, keys in
plain text) gets its digest row, and its plain row is deleted: the clients that hold those keys keep
working, and nothing stored gives the keys back any more. Irreversible in its effect (the keys are not
stored): migrating back keeps no token, and clients log in again."""

import hashlib

from django.db import migrations


def hash_plain_tokens(apps, schema_editor):
    plain = apps.get_model("authtoken", "Token")
    hashed = apps.get_model("games", "ApiToken")
    while rows := list(plain.objects.order_by("key").values_list("key", "user_id", "created")[:1000]):
        hashed.objects.bulk_create(
            [
                hashed(digest=hashlib.sha256(key.encode()).hexdigest(), user_id=user, created=created)
                for key, user, created in rows
            ],
            ignore_conflicts=True,
        )
        plain.objects.filter(key__in=[key for key, _user, _created in rows]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_api_tokens_hashed"),
        ("authtoken", "0003_tokenproxy"),
    ]

    operations = [migrations.RunPython(hash_plain_tokens, migrations.RunPython.noop, elidable=True)]
