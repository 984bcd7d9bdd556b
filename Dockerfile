# One image for the web process, the two Celery workers (queues validation and solver) and Celery beat;
# docker-compose.yml gives each its command. The default command is the web process.

# Build stage: the solver's compiled core needs a C compiler, which the slim image lacks.
FROM python:3.11 AS core
WORKDIR /build
COPY setup.py .
COPY solver/csrc solver/csrc
RUN python setup.py build_ext --inplace

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
COPY --from=core /build/solver/_core*.so solver/
# Fail the build, not the first solve, if the core does not load or is stale.
RUN python -c "from solver import core; core.require()"

# Static files (admin, Swagger UI from drf-spectacular-sidecar, the pages' CSS and JS) are
# collected at build time; docker-compose.yml's `static` copies them to the volume nginx serves
# them from (WhiteNoise serves them where no proxy stands in front). The secrets here exist only
# for this command; the containers get theirs from the environment.
RUN DJANGO_DEBUG=false DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(48))')" \
    DAILY_SECRET="$(python -c 'import secrets; print(secrets.token_urlsafe(48))')" \
    python manage.py collectstatic --noinput

# /var/lib/dailypatience: the appdata volume's mount point (docker-compose.yml), owned by app so that a
# new volume is too: beat's schedule file and the difficulty model live there.
RUN useradd --create-home --uid 1000 app && chown -R app /app \
    && mkdir -p /tmp/prometheus /srv/static && chown app /tmp/prometheus /srv/static \
    && mkdir -p /var/lib/dailypatience/difficulty && chown -R app /var/lib/dailypatience
USER app

EXPOSE 8000
# The same command as docker-compose.yml's web service and the stack test (tests/test_stack.py).
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
