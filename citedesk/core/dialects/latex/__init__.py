"""The LaTeX dialect: `\\cite{key}` and friends in a `.tex` file: the dialect (`dialect`), the reading (`reading`, `cites`, `text`, within `bounds`), its checks and repairs."""
