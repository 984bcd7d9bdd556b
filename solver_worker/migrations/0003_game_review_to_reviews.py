# GameReview left this app for reviews (reviews 0001): dropped from this app's state only. Its table
# stays, with its name and rows, as the reviews app's model's db_table.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("reviews", "0001_initial"),
        ("solver_worker", "0002_database_defaults"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="GameReview")],
            database_operations=[],
        ),
    ]
