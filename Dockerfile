FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 CATALOG_DATA_DIR=/app/data
COPY pyproject.toml README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY seeds ./seeds
# Editable install: the package finds templates/ and static/ beside it.
RUN pip install --no-cache-dir -e . && catalog ingest seeds
EXPOSE 8000
CMD ["catalog", "serve", "--host", "0.0.0.0", "--port", "8000"]
