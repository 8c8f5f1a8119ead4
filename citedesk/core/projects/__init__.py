"""Project files: what a pandoc or Quarto project (`pandoc`) or a LaTeX file (`latex`) says about its documents, includes and bibliographies."""
