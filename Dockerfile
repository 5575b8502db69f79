# crlookup serve in a container, the library built when the image is (docs/serving.md):
#   docker build -t crlookup .
#   docker run -p 8000:8000 crlookup
# The library is read-only at run time: a new edition is a new image (or a volume for the
# home, and `crlookup update` in it: the server takes it up without a restart).
FROM python:3.11-slim

WORKDIR /src
COPY pyproject.toml README.md ./
COPY crlookup crlookup
COPY data data
RUN pip install --no-cache-dir ".[serve]" && rm -rf /src

# every edition, the index, the cards and what ask reads, built now (a minute or two)
ENV CRLOOKUP_HOME=/var/lib/crlookup
RUN crlookup rebuild && crlookup doctor

RUN useradd --system crlookup
USER crlookup
WORKDIR /home/crlookup
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["crlookup", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
