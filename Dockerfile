# Dingo Online server image: `docker build -t dingo-online .`
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin dingo \
    && mkdir /data \
    && chown dingo:dingo /data
WORKDIR /app

# Dependencies in their own layer, rebuilt only when pyproject.toml changes.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY . .
# Editable, so migrations/ stays beside app/ where `dingo migrate` looks for it.
RUN pip install --no-deps -e .

USER dingo
# The SQLite default lives on the /data volume; docker-compose.yml points
# DATABASE_URL at PostgreSQL instead.
ENV DINGO_HOST=0.0.0.0 \
    DINGO_PORT=8000 \
    DATABASE_URL=sqlite+aiosqlite:////data/dingo.db
VOLUME ["/data"]
EXPOSE 8000

# slim has no curl; urlopen raises (exit 1) on a refused connection or a non-2xx answer.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('DINGO_PORT', '8000'), timeout=3)"]

# `dingo serve` applies the migrations, then starts the server.
CMD ["dingo", "serve"]
