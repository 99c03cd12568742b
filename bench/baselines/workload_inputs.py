"""Reading the generated inputs the same way in every Python baseline."""
import glob
import os


def read_string_chunks(path, chunk_rows):
    """The strings CSV (header "id,text", no quoting) as chunks of (ids, texts)."""
    chunks, ids, texts = [], [], []
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            key, text = line.rstrip("\n").split(",", 1)
            ids.append(int(key))
            texts.append(text)
            if len(ids) == chunk_rows:
                chunks.append((ids, texts))
                ids, texts = [], []
    if ids:
        chunks.append((ids, texts))
    return chunks


def corpus_files(directory):
    """The spellcheck corpus files, sorted."""
    files = sorted(glob.glob(os.path.join(directory, "*.jsonl")))
    if not files:
        raise SystemExit(f"no *.jsonl files under {directory}")
    return files
