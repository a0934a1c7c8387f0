# The elfenland game server.  One container runs one `elfenland serve` process; every
# option comes from ELFENLAND_* environment variables (docs/deploy.md).  See
# deploy/compose.yaml for three of them over PostgreSQL behind HAProxy.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir ".[postgres]" \
    && useradd --create-home --uid 10001 elfenland

USER elfenland
ENV ELFENLAND_HOST=0.0.0.0 \
    ELFENLAND_PORT=8000 \
    PYTHONUNBUFFERED=1
EXPOSE 8000
# SIGTERM drains: actions in flight are stored and acknowledged, clients are sent to
# reconnect (close code 1012), then the process exits.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s \
    CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["elfenland", "serve"]
