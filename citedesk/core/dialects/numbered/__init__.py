"""The numbered dialect: `[3]`, `[1-4]`, `[^note]` against the document's own reference list: the dialect (`dialect`), its checks and its repairs."""
